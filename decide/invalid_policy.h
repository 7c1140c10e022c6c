// What gatehouse decides for a PR whose repository's policy file does not parse: nothing but
// saying so. Acting on a half-understood policy is worse than waiting (docs/PASS.md, "The
// policy"), so the verdict is a failure that blocks on the file and the only action is a
// failing `gatehouse` check run on the head that lists every error with its line and key.
//
// Pure; no I/O, no clock. Safe from any thread.
#pragma once

#include <string_view>

#include "decide/gate.h"
#include "decide/options.h"
#include "decide/planner.h"

namespace gatehouse::decide {

struct InvalidPolicyDecision {
  GateVerdict verdict;  // fail, score 0, one `policy` blocker carrying the errors
  Plan plan;            // the check run, executed or skipped
};

// The decision for `head_sha` (occurrence `facts.head_occurrence`) when the file at
// `policy_path` failed with `errors` (decide::ParsePolicy's message). `options` are the server
// defaults' planner settings with the server's switches applied (the repository's own settings
// are what failed to parse). The check run is keyed `gatehouse:invalid:<digest of errors>`; it
// is skipped as `already in that state` when the head's latest gatehouse check run
// (`facts.check_run_detail`) already says so, as `dry-run` under dry-run, as `observe` when the
// report class observes, and executed otherwise (suggest and auto both report).
InvalidPolicyDecision DecideInvalidPolicy(std::string_view policy_path, std::string_view errors,
                                          std::string_view head_sha, const PlannerInput& facts,
                                          const PlannerOptions& options);

}  // namespace gatehouse::decide
