// The executor: turns a plan (decide/planner.h) into fenced, SHA-bound GitHub calls through
// the action ledger (DESIGN.md §3).
//
// For each planned action, in order:
//   1. ActionLedger::RecordIntent(subject, kind, head_sha, detail, head_occurrence) under the
//   pass's
//      fence; durable before the call. kFenceLost → stop at once (another worker holds the PR
//      now). The head occurrence (act/head_occurrence.h) makes a head that came back a new key.
//   2. kAlreadyDone → skip. kSuperseded (refused on this head before) → skip and stop the plan:
//      everything after it was planned on the same stale head. It does not ask for a fresh
//      pass again (that was asked when it was refused), so a 405 on an unchanged head cannot
//      start passes forever. A new head is a new key.
//   3. kNeedsReconcile (an earlier holder recorded the intent and died before the outcome) →
//      ask GitHub whether the effect exists (merged? our approval on that commit? the label?
//      our comment with that body? our check run with that conclusion? closed?). If it does,
//      record `done` without calling; otherwise make the call as in 4. A failed read while
//      reconciling leaves the intent open (recording `failed` would let a later pass repeat a
//      call that may have happened): rate limited → stop and wait, transient → stop, other
//      errors → kFailed for this action and the plan goes on.
//   4. kRecorded → make the call, bound to the head SHA where GitHub accepts one (merge `sha`,
//      review `commit_id`, check run `head_sha`, update-branch `expected_head_sha`), then
//      record the outcome:
//        success                          → done
//        409 / 405 / 422 (IsSuperseded)   → the PR is read again: if its head moved,
//                                           superseded (the head read is recorded as the PR's
//                                           next head occurrence); if it is closed on the same
//                                           head, failed (a reopen decides again); either way
//                                           stop executing this plan (everything after it was
//                                           decided on a stale PR) and ask for a fresh pass.
//                                           If the head did not move and the PR is open (not
//                                           mergeable yet, branch protection, a refused label),
//                                           failed on this head; go on
//      Approvals, closes, labels and comments, which GitHub does not refuse on a moved head or
//      a closed PR, are preceded by a read of the PR (usually a free 304): a moved head, or a
//      PR that is no longer open, fails them without a call (retryable) and stops the plan; a
//      close of a PR that is no longer open is recorded failed ("already closed").
//        rate limited (403/429 + reset)   → failed (the call did not happen); stop; the pass
//                                           waits (PassOutcome::RateLimited, no attempt used)
//        transient (5xx, reset, timeout)  → NO outcome: the call may have taken effect, so the
//                                           intent stays open and the next pass reconciles it;
//                                           stop; PassOutcome::Transient
//        other errors (404, 401, ...)     → failed with GitHub's message; continue with the
//                                           next action (one broken label does not block a
//                                           check run)
//
// Thread-safety: Execute is a free function; it is safe to run concurrently for different
// subjects (the Store and GitHub implementations are thread-safe).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "act/pass_outcome.h"
#include "act/target.h"
#include "base/clock.h"
#include "decide/planner.h"
#include "github/github.h"
#include "store/store.h"

namespace gatehouse::act {

struct ExecutorOptions {
  // gatehouse's own login, to recognise its reviews and comments while reconciling.
  std::string app_login = "gatehouse[bot]";
  // Fault injection (crash tests, the proof harness): called after a GitHub call returned
  // and before its outcome is recorded. A test makes it kill the process.
  std::function<void(const decide::PlannedAction&)> after_call;
  // Reconcile only: for intents left open by an earlier holder that the current plan no longer
  // contains (e.g. a merge whose answer was lost, on a PR that is now merged). An open intent
  // whose effect GitHub shows is recorded done; one whose effect is absent is recorded failed
  // ("abandoned": the current plan does not want it) and never called; a moved head is
  // recorded superseded without asking for another pass. Comment intents carry no body in the
  // ledger, so they can only be abandoned this way; check runs are matched by external_id.
  bool reconcile_only = false;
  // With reconcile_only: an open intent whose effect GitHub does not show is left open (no
  // write, no call; reported kUnknown) instead of abandoned. For looking at open intents before
  // deciding (LookAtOpenIntents), when whether the plan still wants them is not known yet.
  bool leave_absent_open = false;
  // Whether a head a read inside the call shows is recorded as the subject's head occurrence
  // (act/head_occurrence.h). A merge queue's pass acts on PRs that are not its subject, whose
  // heads their own passes record: false.
  bool note_heads = true;
};

struct ActionReport {
  enum class Result {
    kDone,         // called now; GitHub accepted it
    kAlreadyDone,  // the ledger says done: not called
    kReconciled,   // an open intent whose effect GitHub already shows: recorded done, not called
    kSuperseded,   // GitHub refused it because the head moved (now or before): not done
    kFailed,       // GitHub refused it for another reason (recorded failed)
    kRateLimited,  // not called / refused by a rate limit (recorded failed; retried later)
    kUnknown,      // transient error: the intent stays open for reconciliation
    kNotRun,       // not attempted: an earlier action stopped the plan
  };
  decide::PlannedAction action;
  Result result = Result::kNotRun;
  std::string detail;     // GitHub's message, the reconciliation evidence, ...
  int64_t ledger_id = 0;  // 0 when no ledger row was touched
  int attempts = 0;       // the ledger row's attempts, this one included (0: no row touched)
};
std::string_view ActionResultName(ActionReport::Result r);

struct ExecResult {
  std::vector<ActionReport> actions;  // one per planned action, in plan order
  // A mutation was refused because the head moved: the caller should signal a fresh pass.
  bool superseded = false;
  // Set when the pass must end with this outcome instead of Done: rate limited (wait until),
  // transient (retry with backoff), or the fence was lost (Transient; the finish will be
  // rejected anyway).
  std::optional<PassOutcome> stop;
};

ExecResult Execute(Store& store, GitHub& github, const Clock& clock, const Target& target,
                   int64_t fence, const decide::Plan& plan,
                   const ExecutorOptions& options = ExecutorOptions());

}  // namespace gatehouse::act
