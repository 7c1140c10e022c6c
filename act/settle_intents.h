// Settling open intents (docs/PASS.md, "Settle open intents"): intents an earlier holder left
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
std::optional<PassOutcome> SettleOpenIntents(Store& store, GitHub& github, const Clock& clock,
                                             const Target& target, int64_t fence,
                                             const std::vector<ActionKey>& open,
                                             const decide::Plan& plan,
                                             const ExecutorOptions& executor, PassAudit& audit);

}  // namespace gatehouse::act
