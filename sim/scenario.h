// Scenarios: a JSON file that sets up the simulated world, plays a timeline of control-API
// calls (several may share an instant), applies faults, and states expectations on the
// effect log and the end state (sim/expectations.h). `gatehouse-sim run` plays one against a
// running gatehouse and prints a verdict. The format is documented in docs/SIMULATOR.md.
//
// RunScenario drives the simulator in-process through SimHandler::Serve; time passes only
// through the injected `sleep`, so tests pass a no-op.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "sim/model.h"
#include "sim/rest.h"

namespace gatehouse::sim {

struct ScenarioVerdict {
  bool ok = false;
  std::vector<std::string> failures;      // one line per unmet expectation or failed step
  std::map<std::string, int64_t> counts;  // printed as key=value
};

struct ScenarioPlay {
  // Whether a target acts on the world while it plays (gatehouse, through the REST API). With
  // none (the fuzz target), nothing can change after the last step, so the expectations are
  // checked once, with no waiting for the target and no settling.
  bool target = true;
};

// InvalidArgument when `scenario_json` is not a valid scenario. A step the simulator refuses
// (non-2xx) is a failure in the verdict, not an error.
Result<ScenarioVerdict> RunScenario(const std::string& scenario_json, SimHandler& handler,
                                    const Model& model, std::function<void(Duration)> sleep,
                                    const ScenarioPlay& play = {});

// "verdict: ok key=value ..." or "verdict: FAIL key=value ..." (one line, no newline).
std::string FormatVerdict(const ScenarioVerdict& verdict);

}  // namespace gatehouse::sim
