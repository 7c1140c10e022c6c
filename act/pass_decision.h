// PassDecision: the pass's "evaluate and plan" step (docs/PASS.md, "Evaluate and plan"): the
// live read and the history turned into decide/'s inputs, the gate's verdict and the plan, with
// every action's key numbered within its head occurrence. All decisions are decide/'s (pure);
// this step only assembles their inputs.
//
// Pure function over its arguments (no I/O, no clock); safe from any thread.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "act/live_state.h"
#include "act/pass_history.h"
#include "act/pass_reviews.h"
#include "base/clock.h"
#include "decide/gate.h"
#include "decide/options.h"
#include "decide/planner.h"
#include "decide/snapshot.h"

namespace gatehouse::act {

struct PassDecision {
  Time now{};                  // the evaluation instant
  decide::PlannerInput facts;  // the history's, plus the check run and summary comment read
  decide::PrSnapshot snapshot;
  decide::GateVerdict verdict;
  decide::Plan plan;  // actions and skips, keys numbered (decide::NumberGeneration)
};

// Decides for `live` (whose history is `history`, kOccurrence) at `now` with `options` (the
// policy's settings under the server's switches). A valid policy: decide::Evaluate and
// decide::PlanActions. An invalid one (live.policy.error): decide::DecideInvalidPolicy for the
// file at `policy_path`.
//
// With `reviews` (the PR's review runs and unhandled commands, act/pass_reviews.h): each role's
// verdict at the head feeds the gate (snapshot.role_reviews), and the review actions (runs to
// request, reactions, replies) come first in the plan.
struct ReviewInputs {
  const PrReviewState* state = nullptr;
  std::set<std::string> served_roles;  // the roles some reviewer of the reviewers file serves
  std::vector<std::string> reasons;    // the lease's reasons
};
PassDecision DecidePass(const LiveState& live, const PassHistory& history,
                        const decide::PlannerOptions& options, std::string_view policy_path,
                        Time now, const ReviewInputs& reviews = {});

}  // namespace gatehouse::act
