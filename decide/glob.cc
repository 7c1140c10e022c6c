#include "decide/glob.h"

namespace gatehouse::decide {
namespace {

bool Match(std::string_view p, std::string_view t, GlobMode mode) {
  while (!p.empty()) {
    if (p.substr(0, 2) == "**") {
      std::string_view rest = p.substr(2);
      // "**/" may also stand for zero directories.
      if (!rest.empty() && rest.front() == '/' && Match(rest.substr(1), t, mode)) return true;
      for (size_t i = 0; i <= t.size(); ++i) {
        if (Match(rest, t.substr(i), mode)) return true;
      }
      return false;
    }
    if (p.front() == '*') {
      std::string_view rest = p.substr(1);
      for (size_t i = 0; i <= t.size(); ++i) {
        if (Match(rest, t.substr(i), mode)) return true;
        if (i < t.size() && mode == GlobMode::kPath && t[i] == '/') return false;
      }
      return false;
    }
    if (t.empty()) return false;
    if (p.front() == '?') {
      if (mode == GlobMode::kPath && t.front() == '/') return false;
    } else if (p.front() != t.front()) {
      return false;
    }
    p.remove_prefix(1);
    t.remove_prefix(1);
  }
  return t.empty();
}

}  // namespace

bool GlobMatch(std::string_view pattern, std::string_view text, GlobMode mode) {
  return Match(pattern, text, mode);
}

bool IsGlob(std::string_view pattern) {
  return pattern.find_first_of("*?") != std::string_view::npos;
}

}  // namespace gatehouse::decide
