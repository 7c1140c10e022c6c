#include "base/flags.h"

#include <cerrno>
#include <cstdlib>

namespace gatehouse {

Status Flags::Parse(int argc, char** argv, int first) {
  bool only_positional = false;
  for (int i = first; i < argc; ++i) {
    std::string arg = argv[i];
    if (only_positional || arg.size() < 2 || arg[0] != '-') {
      positional_.push_back(arg);
      continue;
    }
    if (arg == "--") {
      only_positional = true;
      continue;
    }
    if (arg == "-h" || arg == "--help") {
      values_["help"] = "true";
      continue;
    }
    if (arg.rfind("--", 0) != 0) return InvalidArgument("unknown option " + arg);
    std::string name = arg.substr(2);
    std::optional<std::string> value;
    if (auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    if (booleans_.count(name)) {
      if (value) return InvalidArgument("--" + name + " takes no value");
      values_[name] = "true";
    } else if (valued_.count(name)) {
      if (!value) {
        if (i + 1 >= argc) return InvalidArgument("--" + name + " needs a value");
        value = argv[++i];
      }
      values_[name] = *value;
    } else {
      return InvalidArgument("unknown option --" + name);
    }
  }
  return Status::Ok();
}

std::string Flags::Get(const std::string& name, const std::string& fallback) const {
  auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

Result<long long> Flags::GetInt(const std::string& name, long long fallback, long long lo,
                                long long hi) const {
  auto it = values_.find(name);
  if (it == values_.end()) return fallback;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(it->second.c_str(), &end, 10);
  if (errno != 0 || end == it->second.c_str() || *end != '\0') {
    return InvalidArgument("--" + name + ": '" + it->second + "' is not an integer");
  }
  if (v < lo || v > hi) {
    return InvalidArgument("--" + name + ": " + it->second + " is outside " + std::to_string(lo) +
                           ".." + std::to_string(hi));
  }
  return v;
}

}  // namespace gatehouse
