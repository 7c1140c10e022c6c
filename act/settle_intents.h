// Looking at open intents before deciding, and settling them after (docs/PASS.md, "Look at open
// intents", "Settle open intents").
//
// Before the pass decides, LookAtOpenIntents reconciles every open intent an earlier holder
// left (a crash between the call and the record, or a lost answer) and records done the ones
// GitHub shows, so the decision sees them: a pending-closure label that is on the PR because
// gatehouse put it there starts the grace period, and a PR turned draft after it is a
// draft-dodge. The ones GitHub does not show stay open for the plan.
//
// Settling open intents: intents an earlier holder left
// without an outcome (a crash between the call and the record) that the pass's new plan no
// longer contains — e.g. a merge whose answer was lost, on a PR that is merged now. Each is
// reconciled against GitHub and never called (ExecutorOptions::reconcile_only): an effect that
// exists is recorded done, a missing one failed ("abandoned: no longer planned"). Intents the
// plan does contain are reconciled by the executor itself before it decides whether to call.
//
// Free function; safe to call concurrently for different PRs.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "act/executor.h"
#include "act/pass_audit.h"
#include "act/pass_outcome.h"
#include "base/clock.h"
#include "decide/planner.h"
#include "github/github.h"
#include "store/store.h"

namespace gatehouse::act {

// Settles every intent of `open` (the PR's open intents, oldest first) whose key is not in
// `plan.actions` and whose kind this gatehouse knows, one at a time under `fence`, with
// `executor`'s login; each settled action gets an audit entry. nullopt when all are settled (or
// left for a later pass after a non-stopping failure); else the executor's stop (rate limited,
// transient, fence lost), after the audit was flushed: the pass ends with it.
struct LookResult {
  bool settled_any = false;           // some intent got an outcome: read the history again
  std::optional<PassOutcome> stop;    // how the pass ends (rate limited, transient, fence lost)
};

// Reconciles every intent of `open` whose kind this gatehouse knows, one at a time under
// `fence`, never calling: an effect GitHub shows is recorded done, a moved head superseded;
// an absent effect stays open. Each settled one gets an audit entry.
LookResult LookAtOpenIntents(Store& store, GitHub& github, const Clock& clock, const Target& target,
                             int64_t fence, const std::vector<ActionKey>& open,
                             const ExecutorOptions& executor, PassAudit& audit);

std::optional<PassOutcome> SettleOpenIntents(Store& store, GitHub& github, const Clock& clock,
                                             const Target& target, int64_t fence,
                                             const std::vector<ActionKey>& open,
                                             const decide::Plan& plan,
                                             const ExecutorOptions& executor, PassAudit& audit);

}  // namespace gatehouse::act
