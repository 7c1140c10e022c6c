#include "app/common.h"

#include <cstdio>

#include "base/log.h"
#include "store/open_store.h"

namespace gatehouse::app {

bool ApplyLogLevel(const Flags& flags) {
  LogLevel level = LogLevel::kInfo;
  if (!ParseLogLevel(flags.Get("log-level", "info"), &level)) {
    PrintError("", "--log-level must be one of debug, info, warn, error, off");
    return false;
  }
  SetLogLevel(level);
  return true;
}

Result<StorePtr> OpenStoreFromFlags(const Flags& flags, bool must_exist) {
  const std::string path = flags.Get("db", kDefaultDb);
  auto store = OpenStore(path, StoreOptions{.must_exist = must_exist});
  if (!store.ok() && store.status().code() == StatusCode::kNotFound) {
    return NotFound(store.status().message() + " (gatehouse serve --db " + path + " creates it)");
  }
  return store;
}

void PrintError(const std::string& cmd, const std::string& message) {
  if (cmd.empty()) {
    std::fprintf(stderr, "gatehouse: %s\n", message.c_str());
  } else {
    std::fprintf(stderr, "gatehouse %s: %s\n", cmd.c_str(), message.c_str());
  }
}

}  // namespace gatehouse::app
