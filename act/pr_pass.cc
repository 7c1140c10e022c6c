// The pass as a sequence of named steps; each step's contract is in its own header (see
// act/pr_pass.h).
#include "act/pr_pass.h"

#include <utility>

#include "act/live_state.h"
#include "act/pass_decision.h"
#include "act/pass_history.h"
#include "act/pass_queue.h"
#include "act/pass_reviews.h"
#include "act/pass_schedule.h"
#include "act/settle_intents.h"
#include "base/log.h"
#include "base/subject.h"
#include "decide/options.h"
#include "decide/reasons.h"

namespace gatehouse::act {

PrPass::PrPass(Store& store, GitHub& github, ClockPtr clock, PassConfig config)
    : store_(store),
      github_(github),
      clock_(std::move(clock)),
      config_(std::move(config)),
      policies_(github_, {config_.defaults, config_.policy_path, config_.override_dir}),
      login_(config_.executor.app_login, config_.discover_login) {}

PassOutcome PrPass::Run(const Lease& lease, const LeaseLostProbe& lease_lost) {
  const Time started = clock_->Now();
  PassAudit audit(store_, *clock_, lease.key, lease.fence);

  // 1. Who acts, and as whom.
  Target target;
  if (auto end = ResolveTarget(lease, audit, &target)) return *end;
  auto login = login_.Get();
  if (!login.ok()) return audit.ReadFailed("learning gatehouse's own login", login.error());
  ExecutorOptions executor = config_.executor;
  executor.app_login = *login;

  // 2. The ledger, then the live state, read inside the lease (with the PR's comments when
  // the ledger knows no summary comment: one request finds it).
  PassHistory history;
  if (auto end = ReadPassLedger(store_, lease, &history)) return *end;
  LiveState live;
  if (auto failed =
          ReadLiveState(github_, policies_, target, !LedgerKnowsSummary(history), &live)) {
    if (failed->pull_request_gone) {
      return audit.EndWithError("pull request not found on GitHub", PassOutcome::Done());
    }
    return audit.ReadFailed(failed->what, failed->error);
  }
  if (lease_lost()) return PassOutcome::Transient("lease lost while reading");

  // 3. The rest of the history, and which occurrence of its head the pass decides on.
  const decide::PlannerOptions options =
      decide::UnderServerSwitches(live.policy.policy.actions, executor.app_login, config_.dry_run);
  if (auto end = ReadPassHistory(store_, lease, live, options, clock_->Now(), &history)) {
    return *end;
  }
  if (history.head.kind == HeadObservation::Kind::kLagging) {
    return ReadAgainSoon(store_, *clock_, lease.key, live.pr, history.head.occurrence, audit);
  }

  // 3a. Open intents an earlier holder left (killed mid-call, an answer lost): what GitHub shows
  // was done is recorded before deciding, so the decision sees it (act/settle_intents.h).
  if (!history.open_intents.empty()) {
    LookResult looked = LookAtOpenIntents(store_, github_, *clock_, target, lease.fence,
                                          history.open_intents, executor, audit);
    if (looked.stop) return *looked.stop;
    if (looked.settled_any) {
      PassHistory again;
      if (auto end = ReadPassLedger(store_, lease, &again)) return *end;
      if (auto end = ReadPassHistory(store_, lease, live, options, clock_->Now(), &again)) {
        return *end;
      }
      history = std::move(again);
    }
  }

  // 3b. gatehouse's summary comment: from the ledger, or read (act/live_state.h).
  if (auto failed =
          ReadSummaryComment(github_, target, executor.app_login, history.ledger, &live)) {
    return audit.ReadFailed(failed->what, failed->error);
  }

  // 3c. The review runs: those for a head that is gone end now; the rest, and the commands
  // not answered yet, feed the gate and the plan.
  PrReviewState reviews;
  if (auto end = ReadReviews(lease, live, history, executor.app_login, &reviews)) return *end;

  // 3d. The merge queue: the PR's entries, when the policy queues merges (act/pass_queue.h).
  if (live.policy.error.empty() && live.policy.policy.merge_queue.enabled) {
    if (auto end = ReadQueueFacts(store_, lease.key, target.repo.FullName(), live.pr.base_ref,
                                  clock_->Now(), &history.facts.queue)) {
      return *end;
    }
  }
  history.facts.queue.commands = QueueCommandsOf(history.pr_facts, executor.app_login);
  if (auto end = WakeQueueOnRefresh(store_, clock_->Now(), history.facts.queue, reviews.commands,
                                    executor.app_login)) {
    return *end;
  }

  // 4. Evaluate and plan (decide/, pure).
  const PassDecision decision =
      DecidePass(live, history, options, config_.policy_path, clock_->Now(),
                 ReviewInputs{&reviews, config_.served_roles, lease.reasons});
  audit.Decision(decision, live, lease.reasons);

  // 5. Settle the open intents the plan no longer contains; 6. execute the plan.
  if (lease_lost()) {
    audit.Flush();
    return PassOutcome::Transient("lease lost before acting");
  }
  if (auto end = SettleOpenIntents(store_, github_, *clock_, target, lease.fence,
                                   history.open_intents, decision.plan, executor, audit)) {
    return *end;
  }
  const ExecResult result =
      Execute(store_, github_, *clock_, target, lease.fence, decision.plan, executor);

  // 7. Audit.
  audit.Executed(result);
  audit.PassDone(live.pr.head_sha, started, result.superseded);
  audit.Flush();
  Log(LogLevel::kInfo, "pass.done")
      .Field("subject", lease.key)
      .Field("fence", lease.fence)
      .Field("head", live.pr.head_sha)
      .Field("verdict", std::string(decide::VerdictName(decision.verdict.verdict)))
      .Field("actions", static_cast<int64_t>(decision.plan.actions.size()))
      .Field("superseded", result.superseded);

  // 8. Reschedule.
  return Reschedule(store_, *clock_, lease.key, result, decision, live, options);
}

std::optional<PassOutcome> PrPass::ReadReviews(const Lease& lease, const LiveState& live,
                                               const PassHistory& history,
                                               const std::string& app_login,
                                               PrReviewState* reviews) {
  if (auto end =
          ReadPrReviews(store_, lease.key, history.pr_facts, history.ledger, app_login, reviews)) {
    return end;
  }
  std::vector<std::string> cancelled;
  if (auto end = CancelStaleRuns(store_, lease.key, lease.fence, live.pr, reviews->runs,
                                 clock_->Now(), &cancelled)) {
    return end;
  }
  if (cancelled.empty()) return std::nullopt;
  Log(LogLevel::kInfo, "pass.reviews_cancelled")
      .Field("subject", lease.key)
      .Field("runs", static_cast<int64_t>(cancelled.size()))
      .Field("head", live.pr.head_sha);
  // A cancelled run's item notices at its next look; a running executor is stopped by its
  // cancellation probe. Read the runs again so the gate sees what is left.
  return ReadPrReviews(store_, lease.key, history.pr_facts, history.ledger, app_login, reviews);
}

std::optional<PassOutcome> PrPass::ResolveTarget(const Lease& lease, PassAudit& audit,
                                                 Target* target) {
  target->subject = lease.key;
  const std::optional<Subject> subject = Subject::Parse(lease.key);
  if (!subject) return PassOutcome::Permanent("not a pull request subject: " + lease.key);
  target->repo = RepoRef{std::string(subject->owner()), std::string(subject->repo_name())};
  target->number = subject->number();
  if (config_.app_mode) {
    auto repo = store_.repos().GetRepository(target->repo.FullName());
    if (!repo.ok()) return PassOutcome::Transient(repo.status().ToString());
    if (!*repo || !(*repo)->installation_id) {
      return audit.EndWithError("no installation known for " + target->repo.FullName() +
                                    " (no webhook with an installation id seen yet)",
                                PassOutcome::Done());
    }
    target->call.installation_id = *(*repo)->installation_id;
  }
  target->call.subject = lease.key;
  // Background work (the sweep, a timer, a mergeability recheck) stays out of the rate-limit
  // reserve kept for passes that webhooks asked for.
  target->call.background = decide::IsBackgroundPass(lease.reasons);
  return std::nullopt;
}

}  // namespace gatehouse::act
