// ReviewPass: one pass over one review work item ("owner/repo#12/review/security", the mailbox
// of a PR's runs of one role; store/review_runs.h), run inside that item's lease with its fence
// (docs/REVIEWERS.md, "A run, step by step"):
//   0. open posts of runs that are over (the PR's pass ended them while no holder was here)
//      settled against the PR's reviews: done when posted, else superseded;
//   1. the runs of the role that are not over yet, oldest first; none: done;
//   2. for the oldest (unless its result is already recorded), a reviewer chosen and a slot
//      claimed in one store transaction (affinity, capacity: ReviewRuns::AssignAndClaimSlot),
//      recorded before the executor starts; a paused or busy reviewer makes the run
//      *unavailable* (the engine's availability budget, no attempt spent) before any GitHub
//      call, so waiting runs cost no rate limit;
//   3. the PR read live: closed or draft -> every open run cancelled; runs for another head ->
//      cancelled (never started, or started by a holder that is gone) or superseded (a result
//      that was not posted yet);
//   4. the review request built (changed files with patches, this role's prior findings), the
//      executor run with no store transaction open, polled for cancellation (the run cancelled
//      by a push, or the lease lost);
//   5. the result recorded (kFinished, slot released, runs waiting for a slot woken);
//   6. posted through the action ledger, exactly once: the intent recorded (an open one of an
//      earlier holder reconciled against the PR's reviews), then the PR re-read right before
//      the call (a result for a head that is no longer the PR's is superseded, never posted),
//      then a PR review bound to commit_id = the run's head, with the summary, findings and a
//      hidden marker naming role, head and run;
//   7. the PR's own work item signalled (its gate reads the verdict), and this item again when
//      more runs wait.
// Every step appends to the PR's audit log (assignment, start, result, post, cancellation).
//
// Outcomes: executor failures and timeouts -> Transient (the engine's backoff and attempt
// budget, then dead with the reason, re-armable); 429 -> RateLimited; paused / at capacity ->
// Unavailable with the reviewers file's availability budget; no reviewer for the role ->
// Permanent.
//
// Thread-safe: one ReviewPass serves every worker; Run() may be called concurrently for
// different work items.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "act/app_login.h"
#include "act/pass_outcome.h"
#include "act/pr_pass.h"
#include "base/clock.h"
#include "decide/reviewers_config.h"
#include "github/github.h"
#include "review/executor.h"
#include "store/store.h"

namespace gatehouse::act {

struct ReviewPassConfig {
  decide::ReviewersConfig reviewers;
  // One executor per reviewer name (review::MakeExecutor), built at start-up.
  std::map<std::string, std::shared_ptr<review::ReviewExecutor>> executors;
  bool app_mode = true;
  std::string app_login = "gatehouse[bot]";
  AppLogin::Discover discover_login;
  // How often a running executor's run is looked up in the store for a cancellation.
  Duration cancel_poll = std::chrono::milliseconds(500);
  // Fault injection (crash tests): called once the executor returned, before its result is
  // recorded.
  std::function<void(int64_t run_id)> after_review;
};

class ReviewPass {
 public:
  ReviewPass(Store& store, GitHub& github, ClockPtr clock, ReviewPassConfig config);

  PassOutcome Run(const Lease& lease, const LeaseLostProbe& lease_lost);

 private:
  Store& store_;
  GitHub& github_;
  ClockPtr clock_;
  const ReviewPassConfig config_;
  AppLogin login_;
};

// Wakes every run waiting for a reviewer (after a resume or a freed slot): their work items
// become due now (WorkQueue::Wake). Errors are logged: waking is an optimisation over the
// backoff, never needed for correctness.
void WakeWaitingRuns(Store& store, Time now);
// The same, leaving out the work item `except` (the caller's own, whose backoff must hold).
void WakeWaitingRunsExcept(Store& store, std::string_view except, Time now);

}  // namespace gatehouse::act
