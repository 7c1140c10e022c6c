// libFuzzer target: the policy parser (decide/policy.h over decide/yaml_reader.h).
//
// Input: the text of a `.github/gatehouse.yml`. Seeds: fuzz/corpus/policy_fuzz_test/ (the
// examples of docs/POLICY.md and of the tests). What must hold beyond "no crash" (parsing
// never throws, whatever yaml-cpp does underneath):
//  - ParsePolicy accepts exactly what ParsePolicyOverlay accepts, with the same message, and
//    every line of that message is "gatehouse.yml:LINE: KEY: problem" (LINE left out only
//    where yaml-cpp knows none);
//  - an accepted file is MergePolicies(DefaultPolicy(), overlay), and applying the overlay
//    twice changes nothing more (every key replaces, nothing accumulates);
//  - re-rendering an accepted file (yaml-cpp's emitter, from the parsed node tree) parses to
//    the same Policy: what the file means does not hang on its spelling (files with raw
//    control characters or invalid UTF-8, outside YAML's character set, are not re-rendered);
//  - no key is read twice: a repeated key is an error.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>
#include <string_view>

#include "decide/policy.h"

namespace {

using gatehouse::decide::DefaultPolicy;
using gatehouse::decide::MergePolicies;
using gatehouse::decide::ParsePolicy;
using gatehouse::decide::ParsePolicyOverlay;

constexpr std::string_view kFile = "gatehouse.yml";

void Check(bool ok, const char* what, std::string_view detail = {}) {
  if (ok) return;
  std::fprintf(stderr, "policy_fuzz_test: invariant broken: %s\n%.*s\n", what,
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

// Every line "gatehouse.yml:N: KEY: problem" (N a positive decimal), or "gatehouse.yml: KEY:
// problem" when yaml-cpp knows no line (decide/yaml_reader.cc, AddError).
bool WellFormedErrors(const std::string& message) {
  if (message.empty()) return false;
  size_t start = 0;
  while (start <= message.size()) {
    size_t end = message.find('\n', start);
    if (end == std::string::npos) end = message.size();
    std::string_view line(message.data() + start, end - start);
    if (line.substr(0, kFile.size() + 1) != std::string(kFile) + ":") return false;
    line.remove_prefix(kFile.size() + 1);
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

// yaml-cpp's rendering of the document, or nullopt when yaml-cpp cannot load it (then the
// parser must have refused it anyway).
std::optional<std::string> Rerender(const std::string& text) {
  try {
    YAML::Emitter out;
    out << YAML::Load(text);
    if (!out.good()) return std::nullopt;
    return std::string(out.c_str());
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// Valid UTF-8 without C0 controls (tab and line breaks aside) or DEL: YAML's character set
// (surrogates and overlong forms are not told apart; yaml-cpp does not either).
bool InYamlCharacterSet(std::string_view text) {
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
    if (extra == 0 || b == 0xc0 || b == 0xc1 || i + extra >= text.size()) return false;
    for (size_t k = 1; k <= extra; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return false;
    }
    i += extra + 1;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto overlay = ParsePolicyOverlay(text, kFile);
  auto policy = ParsePolicy(text, DefaultPolicy(), kFile);
  Check(overlay.ok() == policy.ok(), "ParsePolicy and ParsePolicyOverlay disagree");
  if (!policy.ok()) {
    const std::string& message = policy.status().message();
    Check(message == overlay.status().message(), "different errors for one text");
    Check(WellFormedErrors(message), "error lines are not FILE:LINE: ...", message);
    return 0;
  }
  const auto merged = MergePolicies(DefaultPolicy(), *overlay);
  Check(*policy == merged, "ParsePolicy is not MergePolicies(defaults, overlay)");
  Check(MergePolicies(merged, *overlay) == merged, "applying an overlay twice changes more");

  // yaml-cpp's emitter writes raw control characters and invalid UTF-8 back in a form that
  // reads as other bytes, though YAML's character set has neither: its rendering of such a
  // file proves nothing.
  if (!InYamlCharacterSet(text)) return 0;
  const std::optional<std::string> rendered = Rerender(text);
  Check(rendered.has_value(), "an accepted policy that yaml-cpp cannot load", text);
  const std::string& again = *rendered;
  auto reparsed = ParsePolicy(again, DefaultPolicy(), kFile);
  Check(reparsed.ok(), "the re-rendered policy is refused",
        again + "\n--\n" + (reparsed.ok() ? "" : reparsed.status().message()));
  Check(*reparsed == *policy, "the re-rendered policy means something else", again);
  return 0;
}
