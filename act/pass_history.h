// PassHistory: what gatehouse's own records say about a PR, read inside the pass's lease
// (docs/PASS.md, "History"): the action ledger (what gatehouse did and left open), the PR facts
// the router learned from webhooks (the last reopen, the last push) and which occurrence of its
// head the pass decides on (act/head_occurrence.h). The decisions drawn from them are
// decide/'s (decide/closure_history.h, decide/generations.h).
//
// Free function; safe to call concurrently for different PRs (the Store is thread-safe).
#pragma once

#include <optional>
#include <vector>

#include "act/head_occurrence.h"
#include "act/live_state.h"
#include "act/pass_outcome.h"
#include "decide/options.h"
#include "decide/planner.h"
#include "decide/prior_action.h"
#include "store/store.h"

namespace gatehouse::act {

struct PassHistory {
  // closed_by_gatehouse_at, pending_closure_since (a maintainer's reopen applied),
  // drafted_while_pending_closure, last_reopen, and head_occurrence = head.occurrence's.
  decide::PlannerInput facts;
  std::vector<decide::PriorAction> ledger;  // every action of the PR, oldest first
  std::vector<ActionKey> open_intents;      // intents an earlier holder left without an outcome
  std::vector<PrFact> pr_facts;             // every fact the router learned, ordered by name
  // kOccurrence: decide on head.occurrence. kLagging: the read is older than the latest
  // occurrence (a lagging replica): decide nothing on it.
  HeadObservation head;
};

// Reads `lease`'s PR's ledger into `history->ledger` and `history->open_intents`. A pass reads
// it before the live state, which it tells whether gatehouse's summary comment is known
// (LedgerKnowsSummary). nullopt on success; else Transient (the store failed). Reads only.
std::optional<PassOutcome> ReadPassLedger(Store& store, const Lease& lease, PassHistory* history);

// Whether the ledger read so far knows gatehouse's summary comment on the PR; when it does not,
// the live read carries the PR's comments (act/live_state.h, ReadSummaryComment).
bool LedgerKnowsSummary(const PassHistory& history);

// Reads the rest of the history of `lease`'s PR, after ReadPassLedger: the PR facts, then the
// head occurrence of `live.pr` (a new occurrence is recorded, fenced by `lease.fence`, before
// it is returned). `options` name the pending-closure label. nullopt on success (`*history`
// filled); else the outcome that ends the pass: Transient (the store failed, or the fence is
// lost). The only write is that head occurrence.
std::optional<PassOutcome> ReadPassHistory(Store& store, const Lease& lease, const LiveState& live,
                                           const decide::PlannerOptions& options, Time now,
                                           PassHistory* history);

}  // namespace gatehouse::act
