// What the YAML-file fuzz targets (policy_fuzz_test.cc, reviewers_fuzz_test.cc) share: the
// invariant check, the shape of the parsers' error messages, yaml-cpp's re-rendering of a
// document and YAML's character set. Header-only; included by fuzz targets only.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include "decide/yaml_reader.h"

namespace gatehouse::decide::fuzz {

// Aborts (so libFuzzer reports the input) with "TARGET: invariant broken: WHAT" unless `ok`.
inline void CheckInvariant(std::string_view target, bool ok, const char* what,
                           std::string_view detail) {
  if (ok) return;
  std::fprintf(stderr, "%.*s: invariant broken: %s\n%.*s\n", static_cast<int>(target.size()),
               target.data(), what, static_cast<int>(detail.size()), detail.data());
  std::abort();
}

// Every line "FILE:N: KEY: problem" (N a positive decimal), or "FILE: KEY: problem" when
// yaml-cpp knows no line (decide/yaml_reader.cc, AddError).
inline bool WellFormedErrors(const std::string& message, std::string_view file) {
  if (message.empty()) return false;
  const std::string prefix = std::string(file) + ":";
  size_t start = 0;
  while (start <= message.size()) {
    size_t end = message.find('\n', start);
    if (end == std::string::npos) end = message.size();
    std::string_view line(message.data() + start, end - start);
    if (line.substr(0, prefix.size()) != prefix) return false;
    line.remove_prefix(prefix.size());
    size_t digits = 0;
    while (digits < line.size() && line[digits] >= '0' && line[digits] <= '9') ++digits;
    if (digits > 0) {  // the line is left out only when yaml-cpp knows none
      if (line[0] == '0' || line.substr(digits, 1) != ":") return false;
      line.remove_prefix(digits + 1);
    }
    if (line.size() < 2 || line[0] != ' ' || line.find(": ", 1) == std::string_view::npos) {
      return false;
    }
    start = end + 1;
  }
  return true;
}

// yaml-cpp's rendering of the document as the parsers load it (line breaks normalized), or
// nullopt when yaml-cpp cannot load it (then the parser must have refused it anyway).
inline std::optional<std::string> Rerender(const std::string& text) {
  try {
    YAML::Emitter out;
    out << YAML::Load(NormalizeLineBreaks(text));
    if (!out.good()) return std::nullopt;
    return std::string(out.c_str());
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// Valid UTF-8 without C0 controls (tab and line breaks aside) or DEL: YAML's character set
// (surrogates and overlong forms are not told apart; yaml-cpp does not either). Code points
// past U+10FFFF (lead bytes F5..F7, or F4 with a second byte past 8F) are outside it: yaml-cpp
// re-renders them as other bytes.
inline bool InYamlCharacterSet(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b < 0x80) {
      if ((b < 0x20 && b != '\t' && b != '\n' && b != '\r') || b == 0x7f) return false;
      ++i;
      continue;
    }
    const size_t extra = (b & 0xe0) == 0xc0   ? 1
                         : (b & 0xf0) == 0xe0 ? 2
                         : (b & 0xf8) == 0xf0 ? 3
                                              : 0;
    if (extra == 0 || b == 0xc0 || b == 0xc1 || b > 0xf4 || i + extra >= text.size()) {
      return false;
    }
    if (b == 0xf4 && static_cast<unsigned char>(text[i + 1]) > 0x8f) return false;
    for (size_t k = 1; k <= extra; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return false;
    }
    i += extra + 1;
  }
  return true;
}

}  // namespace gatehouse::decide::fuzz
