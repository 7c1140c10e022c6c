// ASCII case folding, for names GitHub compares case-insensitively (labels, header names,
// logins) and for keywords read from policy files. Only A-Z are folded: GitHub's own
// case-insensitive comparisons are ASCII-only, and the result never depends on the C locale.
//
// Header-only pure functions; safe from any thread.
#pragma once

#include <string>
#include <string_view>

namespace gatehouse {

inline char AsciiLower(char c) {
  return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
}

// `s` with A-Z lowered.
inline std::string AsciiLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = AsciiLower(c);
  return out;
}

// Whether `a` and `b` are equal when A-Z are lowered.
inline bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (AsciiLower(a[i]) != AsciiLower(b[i])) return false;
  }
  return true;
}

}  // namespace gatehouse
