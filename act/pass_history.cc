#include "act/pass_history.h"

#include <string>
#include <utility>

#include "act/prior_actions.h"
#include "decide/closure_history.h"
#include "decide/pr_facts.h"
#include "decide/summary_record.h"

namespace gatehouse::act {
namespace {

// The last `reopened` fact (decide/pr_facts.h).
std::optional<decide::ReopenFact> LastReopen(const std::vector<PrFact>& facts) {
  std::optional<decide::ReopenFact> last;
  for (const PrFact& f : facts) {
    if (f.name != decide::kFactReopened) continue;
    const std::optional<decide::ReopenedBy> by = decide::ParseReopenedValue(f.value);
    if (!by) continue;
    decide::ReopenFact reopen;
    reopen.by = by->login;
    reopen.role = RoleOf(by->role);
    reopen.at = f.at;
    last = reopen;
  }
  return last;
}

}  // namespace

std::optional<PassOutcome> ReadPassLedger(Store& store, const Lease& lease, PassHistory* history) {
  auto actions = store.ledger().ListActions(lease.key);
  if (!actions.ok()) return PassOutcome::Transient(actions.status().ToString());
  history->open_intents.clear();
  for (const ActionRecord& a : *actions) {
    if (a.state == ActionState::kIntent) history->open_intents.push_back(a.key);
  }
  history->ledger = PriorActions(*actions);
  return std::nullopt;
}

bool LedgerKnowsSummary(const PassHistory& history) {
  return decide::LastSummaryEdit(history.ledger).has_value();
}

std::optional<PassOutcome> ReadPassHistory(Store& store, const Lease& lease, const LiveState& live,
                                           const decide::PlannerOptions& options, Time now,
                                           PassHistory* history) {
  auto facts = store.repos().GetPrFacts(lease.key);
  if (!facts.ok()) return PassOutcome::Transient(facts.status().ToString());

  decide::PlannerInput& in = history->facts;
  in.last_reopen = LastReopen(*facts);
  const decide::ClosureHistory closure = decide::ClosureHistoryOf(
      history->ledger,
      decide::ClosureContext{live.pr.labels, live.pr.draft, options.label_pending_closure,
                             in.last_reopen, live.policy.policy.authors.maintainer_roles});
  in.closed_by_gatehouse_at = closure.closed_by_gatehouse_at;
  in.pending_closure_since = closure.pending_closure_since;
  in.drafted_while_pending_closure = closure.drafted_while_pending_closure;

  // Which occurrence of its head this pass decides on: everything it plans is bound to it, so
  // a head that went away and came back is decided afresh.
  auto observed =
      ObserveHead(store, lease.key, lease.fence, live.pr, LastReportedPush(*facts), now);
  if (!observed.ok()) {
    return PassOutcome::Transient("recording the head: " + observed.status().ToString());
  }
  history->head = std::move(observed).value();
  in.head_occurrence = history->head.occurrence.occurrence;
  history->pr_facts = std::move(facts).value();
  return std::nullopt;
}

}  // namespace gatehouse::act
