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
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "decide/policy.h"
#include "decide/yaml_fuzz_support.h"

namespace {

using gatehouse::decide::fuzz::InYamlCharacterSet;
using gatehouse::decide::fuzz::Rerender;

using gatehouse::decide::DefaultPolicy;
using gatehouse::decide::MergePolicies;
using gatehouse::decide::ParsePolicy;
using gatehouse::decide::ParsePolicyOverlay;

constexpr std::string_view kFile = "gatehouse.yml";

void Check(bool ok, const char* what, std::string_view detail = {}) {
  gatehouse::decide::fuzz::CheckInvariant("policy_fuzz_test", ok, what, detail);
}

bool WellFormedErrors(const std::string& message) {
  return gatehouse::decide::fuzz::WellFormedErrors(message, kFile);
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
