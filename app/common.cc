#include "app/common.h"

#include <cstdio>
#include <cstdlib>

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

std::string DatabaseUrl(const Flags& flags) {
  if (flags.Has("db")) return flags.Get("db", kDefaultDb);
  const char* env = std::getenv("GATEHOUSE_DATABASE_URL");
  if (env != nullptr && *env != '\0') return env;
  return kDefaultDb;
}

Result<StorePtr> OpenStoreFromFlags(const Flags& flags, bool must_exist, int pool_size,
                                    bool listen) {
  const std::string url = DatabaseUrl(flags);
  StoreOptions options;
  options.must_exist = must_exist;
  options.pool_size = pool_size;
  options.listen = listen;
  auto store = OpenStore(url, options);
  if (!store.ok() && store.status().code() == StatusCode::kNotFound) {
    return NotFound(store.status().message() + " (gatehouse migrate --db " +
                    DescribeStoreUrl(url) + " creates it)");
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
