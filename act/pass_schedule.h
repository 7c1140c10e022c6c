// The pass's last step: which pass of the same PR comes next, asked for by signalling the PR's
// own work item (docs/PASS.md, "Execute" and "The sweeper"). A signal from inside the pass
// makes the running item dirty, so the next pass is due once this one is recorded (or after the
// signal's delay).
//
//  superseded         GitHub refused a mutation because the head moved: decide again at once;
//  mergeable-unknown  only GitHub's mergeability is awaited: look again shortly, bounded;
//  timer              a time-based decision (the close after the grace period, a required
//                     check becoming "missing") is due later: a pass at that instant;
//  lagging-read       the read was older than what an earlier read showed: read again in 2 s.
// When and why are decide/'s (decide/recheck.h, decide/reasons.h).
//
// Free functions; safe to call concurrently for different PRs (the Store is thread-safe).
#pragma once

#include <string>

#include "act/executor.h"
#include "act/head_occurrence.h"
#include "act/live_state.h"
#include "act/pass_audit.h"
#include "act/pass_decision.h"
#include "act/pass_outcome.h"
#include "base/clock.h"
#include "decide/options.h"
#include "store/store.h"

namespace gatehouse::act {

// Ends a pass whose read of `pr` is older than `latest`, the occurrence an earlier read
// started: audits it (an `error` entry), flushes the audit and signals `subject` with
// `lagging-read` in decide::kLaggingReadRetry. Done; Transient when the signal could not be
// stored.
PassOutcome ReadAgainSoon(Store& store, const Clock& clock, const std::string& subject,
                          const PullRequest& pr, const HeadOccurrence& latest, PassAudit& audit);

// Ends a pass that executed its plan: signals `superseded` when `result` says the head moved
// (Transient when that signal could not be stored), returns `result.stop` when the executor
// stopped the plan, else signals the recheck decide::PlanRecheck asks for (a failed signal is
// only logged: the sweep's daily deep round is the safety net) and returns Done.
PassOutcome Reschedule(Store& store, const Clock& clock, const std::string& subject,
                       const ExecResult& result, const PassDecision& decision,
                       const LiveState& live, const decide::PlannerOptions& options);

}  // namespace gatehouse::act
