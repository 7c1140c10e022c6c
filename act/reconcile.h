// Reconciliation: what GitHub already shows for an open intent (docs/ACTIONS.md,
// "Reconciliation"). An intent is open when an earlier holder recorded it and died (or lost
// the answer) before recording the outcome; before calling again, the executor asks whether
// the effect exists — merged? gatehouse's review of that commit beyond those the ledger has
// done? the label? a comment with that body? the check run with the action's external_id?
// closed, or closed by gatehouse more often than the ledger knows? — so that a call is never
// made twice. The commonest open intent is a lost answer (GitHub applied the call; the answer
// never arrived). An intent settled from its ledger key alone (ExecutorOptions::reconcile_only)
// carries no body, comment id or reaction: each kind is decided from what the key holds too
// (the summary marker, the body digest in an edit's detail, a reply's marker, the comment id in
// a reaction's detail).
//
// Thread-safety: a free function over thread-safe Store and GitHub implementations.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "act/target.h"
#include "base/clock.h"
#include "decide/planner.h"
#include "github/github.h"
#include "store/store.h"

namespace gatehouse::act {

// What GitHub shows for an open intent, before deciding whether to call.
struct Evidence {
  enum class Verdict {
    kEffectExists,  // record done without calling
    kHeadMoved,     // the call would be refused: record superseded without calling
    kCall,          // no trace of the effect: make the call
  };
  Verdict verdict = Verdict::kCall;
  std::string detail;
};

// What reconciliation reads besides GitHub, and where it reports a head it saw.
struct ReconcileContext {
  Store& store;    // the ledger (actions done), the PR's facts (reopens)
  GitHub& github;  // as the pass's installation
  const Target& target;
  std::string_view app_login;  // whose reviews, comments and closes count as gatehouse's
  Time intent_at;              // when the open intent was recorded
  // Records a head a read showed (act/head_occurrence.h); an error when that failed, which
  // reconciliation returns (the intent stays open and the pass retries).
  std::function<std::optional<GitHubError>(const PullRequest&)> note_head;
};

// The evidence for `a`; an error when GitHub (or the ledger) could not be read.
GitHubResult<Evidence> Reconcile(const ReconcileContext& context, const decide::PlannedAction& a);

// The 12-character SHA prefix the ledger's results name commits by.
std::string ShortSha(const std::string& sha);

}  // namespace gatehouse::act
