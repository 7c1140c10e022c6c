// libFuzzer target: the scenario parser and player (sim/scenario.h).
//
// Input: a scenario file (docs/SIMULATOR.md). Each input plays in-process on a fresh Model and
// SimHandler on a simulated clock (time passes only through the injected sleep; nothing is
// sent anywhere: the model has no webhook target). Seeds: sim/scenarios/ and tests/scenarios/
// (the real ones) plus fuzz/corpus/scenario_fuzz_test/. What must hold beyond "no crash":
//  - RunScenario either refuses the file with InvalidArgument or returns a verdict whose
//    counts agree with each other: ok exactly when there is no failure, steps_failed <= steps,
//    unmet <= expectations, one failure line per failed step or unmet expectation;
//  - playing is deterministic: the same file on a fresh world gives the same verdict.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "sim/model.h"
#include "sim/rest.h"
#include "sim/scenario.h"

namespace {

using namespace gatehouse;
using namespace gatehouse::sim;

void Check(bool ok, const char* what, std::string_view detail = {}) {
  if (ok) return;
  std::fprintf(stderr, "scenario_fuzz_test: invariant broken: %s\n%.*s\n", what,
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

Result<ScenarioVerdict> Play(const std::string& text) {
  auto clock = std::make_shared<SimClock>(FromMicros(1'800'000'000'000'000));
  Model model(clock, {});
  SimHandler handler(model, {.clock = clock, .insecure_any_token = true});
  // No target plays against this world, so the player does not wait for one.
  return RunScenario(text, handler, model, [&clock](Duration d) { clock->Advance(d); },
                     ScenarioPlay{.target = false});
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  Result<ScenarioVerdict> verdict = Play(text);
  if (!verdict.ok()) {
    Check(verdict.status().code() == StatusCode::kInvalidArgument, "refused, not as invalid",
          verdict.status().ToString());
    return 0;
  }
  auto count = [&](const char* key) {
    auto it = verdict->counts.find(key);
    Check(it != verdict->counts.end(), "a count is missing", key);
    return it->second;
  };
  Check(verdict->ok == verdict->failures.empty(), "ok disagrees with the failures");
  Check(count("steps_failed") <= count("steps"), "more failed steps than steps");
  Check(count("unmet") <= count("expectations"), "more unmet expectations than expectations");
  Check(static_cast<int64_t>(verdict->failures.size()) == count("steps_failed") + count("unmet"),
        "failure lines do not match the counts", FormatVerdict(*verdict));

  Result<ScenarioVerdict> again = Play(text);
  Check(again.ok() && FormatVerdict(*again) == FormatVerdict(*verdict) &&
            again->failures == verdict->failures,
        "the same scenario plays differently", FormatVerdict(*verdict));
  return 0;
}
