// The closure history: what gatehouse's own ledger and the PR's last reopen say about closing a
// PR (docs/PASS.md, "History"). The planner's close rules (decide/planner.h) read it through
// PlannerInput's closed_by_gatehouse_at, pending_closure_since and
// drafted_while_pending_closure.
//
// Pure functions over plain values; no I/O, no clock. Safe from any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "decide/planner.h"
#include "decide/prior_action.h"
#include "decide/snapshot.h"

namespace gatehouse::decide {

struct ClosureHistory {
  // The intent time of the latest done close, draft_dodge_close or reopen_reclose: never later
  // than the close itself, so a reopen right after the close counts as after it.
  std::optional<Time> closed_by_gatehouse_at;
  // When the pending-closure grace period started: the latest done label after the last done
  // removal of it, while the label is on the PR — or a maintainer's later reopen.
  std::optional<Time> pending_closure_since;
  // The PR is a draft and the pending-closure label is on (gatehouse never labels a draft for
  // closure, so the draft came after the label).
  bool drafted_while_pending_closure = false;
};

// What the PR shows now, and who may restart a grace period.
struct ClosureContext {
  std::vector<std::string> labels;           // the PR's labels (compared case-insensitively)
  bool draft = false;                        // the PR is a draft
  std::string pending_closure_label;         // PlannerOptions::label_pending_closure
  std::optional<ReopenFact> last_reopen;     // PlannerInput::last_reopen
  std::vector<AuthorRole> maintainer_roles;  // Policy::authors.maintainer_roles
};

// The closure history of a PR from its ledger rows (oldest first) and `context`:
//  - only done rows count;
//  - a done removal of the pending-closure label ends the grace period; a done label after it
//    starts a new one (a person who removes the label restarts the grace once gatehouse puts
//    it back), and so does the label missing from the PR now;
//  - then RestartGraceOnMaintainerReopen.
ClosureHistory ClosureHistoryOf(const std::vector<PriorAction>& ledger,
                                const ClosureContext& context);

// A maintainer who reopens a PR gatehouse closed overrides that close: if the PR fails on a
// later head, the grace period runs again from the reopen. So the reopen's time when the grace
// period runs (`pending_closure_since` is set), gatehouse closed the PR before, and the last
// reopen is no earlier than that close, later than the grace period's start, and by someone
// whose role is in `maintainer_roles`; else `pending_closure_since` unchanged. A reopen by the
// author (who may close and reopen their PR at will) restarts nothing, so closing and reopening
// cannot dodge the grace period.
std::optional<Time> RestartGraceOnMaintainerReopen(std::optional<Time> pending_closure_since,
                                                   std::optional<Time> closed_by_gatehouse_at,
                                                   const std::optional<ReopenFact>& last_reopen,
                                                   const std::vector<AuthorRole>& maintainer_roles);

}  // namespace gatehouse::decide
