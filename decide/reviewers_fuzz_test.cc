// libFuzzer target: the reviewers file parser (decide/reviewers_config.h, docs/REVIEWERS.md).
//
// Input: the text of a reviewers file. Seeds: fuzz/corpus/reviewers_fuzz_test/. What must hold
// beyond "no crash":
//  - a refused file gets one "reviewers.yml:LINE: KEY: problem" line per problem (LINE left
//    out only where yaml-cpp knows none);
//  - an accepted file holds only what the format allows: unique valid reviewer names, at
//    least one valid role each, concurrency >= 1, positive timeouts and availability budget,
//    and the fields each executor type needs (command: argv; http: url and secret_env;
//    openai: base_url and model); Find and ForRole find every reviewer by its name and roles;
//  - re-rendering an accepted file (yaml-cpp's emitter) parses to the same reviewers.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "decide/reviewers_config.h"
#include "decide/yaml_fuzz_support.h"

namespace {

using gatehouse::decide::fuzz::InYamlCharacterSet;
using gatehouse::decide::fuzz::Rerender;

using namespace gatehouse::decide;

constexpr std::string_view kFile = "reviewers.yml";

void Check(bool ok, const char* what, std::string_view detail = {}) {
  gatehouse::decide::fuzz::CheckInvariant("reviewers_fuzz_test", ok, what, detail);
}

bool WellFormedErrors(const std::string& message) {
  return gatehouse::decide::fuzz::WellFormedErrors(message, kFile);
}

void CheckExecutor(const ReviewerSpec& r) {
  const ExecutorSpec& e = r.executor;
  switch (e.type) {
    case ExecutorType::kCommand:
      Check(!e.argv.empty() && !e.argv[0].empty(), "command executor without argv", r.name);
      break;
    case ExecutorType::kHttp:
      Check(!e.url.empty() && !e.secret_env.empty(), "http executor without url/secret_env",
            r.name);
      break;
    case ExecutorType::kOpenAi:
      Check(!e.base_url.empty() && !e.model.empty(), "openai executor without base_url/model",
            r.name);
      break;
    case ExecutorType::kBuiltinSecrets:
      break;
  }
}

void CheckAccepted(const ReviewersConfig& config) {
  Check(config.availability_budget.count() > 0, "availability budget not positive");
  std::set<std::string> names;
  for (const ReviewerSpec& r : config.reviewers) {
    Check(IsValidReviewerName(r.name), "invalid reviewer name", r.name);
    Check(names.insert(r.name).second, "duplicate reviewer name", r.name);
    Check(!r.roles.empty(), "reviewer without roles", r.name);
    Check(r.concurrency >= 1, "concurrency below 1", r.name);
    Check(r.timeout.count() > 0, "timeout not positive", r.name);
    Check(config.Find(r.name) == &r, "Find does not find the reviewer", r.name);
    for (const std::string& role : r.roles) {
      Check(IsValidRoleName(role), "invalid role", role);
      auto serving = config.ForRole(role);
      Check(std::find(serving.begin(), serving.end(), &r) != serving.end(),
            "ForRole misses a reviewer", role);
    }
    CheckExecutor(r);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto config = ParseReviewersConfig(text, kFile);
  if (!config.ok()) {
    Check(WellFormedErrors(config.status().message()), "error lines are not FILE:LINE: ...",
          config.status().message());
    return 0;
  }
  CheckAccepted(*config);
  if (!InYamlCharacterSet(text)) return 0;
  const std::optional<std::string> rendered = Rerender(text);
  Check(rendered.has_value(), "an accepted file that yaml-cpp cannot load", text);
  const std::string& again = *rendered;
  auto reparsed = ParseReviewersConfig(again, kFile);
  Check(reparsed.ok(), "the re-rendered file is refused",
        again + "\n--\n" + (reparsed.ok() ? "" : reparsed.status().message()));
  Check(reparsed->reviewers == config->reviewers &&
            reparsed->availability_budget == config->availability_budget,
        "the re-rendered file means something else", again);
  return 0;
}
