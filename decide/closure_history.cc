#include "decide/closure_history.h"

#include <algorithm>

#include "decide/generations.h"
#include "decide/labels.h"

namespace gatehouse::decide {

ClosureHistory ClosureHistoryOf(const std::vector<PriorAction>& ledger,
                                const ClosureContext& context) {
  ClosureHistory h;
  std::optional<Time> last_unlabel;
  for (const PriorAction& a : ledger) {
    if (a.state != PriorAction::State::kDone) continue;
    if (ClassOf(a.kind) == ActionClass::kClose) {
      if (!h.closed_by_gatehouse_at || a.created_at > *h.closed_by_gatehouse_at) {
        h.closed_by_gatehouse_at = a.created_at;
      }
    }
    if (BaseDetail(a.detail) != context.pending_closure_label) continue;
    if (a.kind == ActionKind::kUnlabel) {
      last_unlabel = a.updated_at;
      h.pending_closure_since.reset();
    } else if (a.kind == ActionKind::kLabel && (!last_unlabel || a.updated_at >= *last_unlabel)) {
      // The latest time gatehouse put the label on: if a person took it off and gatehouse put
      // it back (on a newer head), the grace period starts again.
      h.pending_closure_since = a.updated_at;
    }
  }
  // Our label is gone (a person removed it): the grace period starts again when it is back.
  if (!HasLabel(context.labels, context.pending_closure_label)) h.pending_closure_since.reset();
  h.drafted_while_pending_closure = context.draft && h.pending_closure_since.has_value();
  h.pending_closure_since =
      RestartGraceOnMaintainerReopen(h.pending_closure_since, h.closed_by_gatehouse_at,
                                     context.last_reopen, context.maintainer_roles);
  return h;
}

std::optional<Time> RestartGraceOnMaintainerReopen(
    std::optional<Time> pending_closure_since, std::optional<Time> closed_by_gatehouse_at,
    const std::optional<ReopenFact>& last_reopen, const std::vector<AuthorRole>& maintainer_roles) {
  if (pending_closure_since && last_reopen && closed_by_gatehouse_at &&
      last_reopen->at >= *closed_by_gatehouse_at && last_reopen->at > *pending_closure_since &&
      std::find(maintainer_roles.begin(), maintainer_roles.end(), last_reopen->role) !=
          maintainer_roles.end()) {
    return last_reopen->at;
  }
  return pending_closure_since;
}

}  // namespace gatehouse::decide
