// The review run's pass as named steps; the contract is in act/review_pass.h.
#include "act/review_pass.h"

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

#include "act/github_outcome.h"
#include "act/pass_audit.h"
#include "act/reconcile.h"
#include "act/review_request.h"
#include "act/target.h"
#include "base/log.h"
#include "base/subject.h"
#include "decide/reasons.h"
#include "review/review_json.h"

namespace gatehouse::act {
namespace {

// The outcome that ends a pass when the store failed.
PassOutcome StoreFailed(std::string_view what, const Status& s) {
  return PassOutcome::Transient(std::string(what) + ": " + s.ToString());
}

Status Signal1(Store& store, const std::string& key, std::string_view reason, Time now) {
  Signal s{key, std::string(reason), Duration::zero()};
  Status st = store.work().Enqueue(std::span<const Signal>(&s, 1), now, Durability::kRecoverable);
  if (!st.ok()) {
    Log(LogLevel::kWarn, "review.signal_failed")
        .Field("subject", key)
        .Field("error", st.ToString());
  }
  return st;
}

}  // namespace

void WakeWaitingRuns(Store& store, Time now) { WakeWaitingRunsExcept(store, "", now); }

void WakeWaitingRunsExcept(Store& store, std::string_view except, Time now) {
  auto keys = store.reviews().WaitingWorkKeys();
  if (!keys.ok()) {
    Log(LogLevel::kWarn, "review.wake_failed").Field("error", keys.status().ToString());
    return;
  }
  std::vector<std::string> wake;
  for (std::string& k : *keys) {
    if (k != except) wake.push_back(std::move(k));
  }
  if (wake.empty()) return;
  if (Status s = store.work().Wake(wake, now); !s.ok()) {
    Log(LogLevel::kWarn, "review.wake_failed").Field("error", s.ToString());
  }
}

// One pass over one review work item, as the steps of act/review_pass.h.
class ReviewRunPass {
 public:
  ReviewRunPass(Store& store, GitHub& github, const Clock& clock, const ReviewPassConfig& config,
                const Lease& lease, const LeaseLostProbe& lease_lost, std::string subject,
                std::string role)
      : store_(store),
        github_(github),
        clock_(clock),
        config_(config),
        lease_(lease),
        lease_lost_(lease_lost),
        subject_(std::move(subject)),
        role_(std::move(role)),
        audit_(store, clock, subject_, lease.fence) {}

  PassOutcome Run(const std::string& app_login) {
    app_login_ = app_login;
    auto runs = store_.reviews().ListRuns(subject_, role_);
    if (!runs.ok()) return StoreFailed("listing review runs", runs.status());
    runs_ = std::move(runs).value();
    if (auto end = SettleEndedPosts()) return Finish(*end);
    std::vector<const ReviewRun*> open;
    for (const ReviewRun& r : runs_) {
      if (!IsTerminal(r.state)) open.push_back(&r);
    }
    if (open.empty()) return Finish(PassOutcome::Done());
    if (auto end = ResolveTarget()) return Finish(*end);

    // 3 first: a paused or busy reviewer ends the attempt before any GitHub call, so runs
    // waiting for a slot cost the rate limit nothing.
    const ReviewRun& first = *open.front();
    std::string reviewer;
    if (first.state != RunState::kFinished) {
      if (auto end = Assign(first, &reviewer)) return Finish(*end);
    }

    // 2. The PR as it is now: runs for anything else are over.
    auto pr = github_.GetPullRequest(target_.call, target_.repo, target_.number);
    if (!pr.ok()) {
      if (!reviewer.empty()) Release();
      return Finish(audit_.ReadFailed("reading the pull request", pr.error()));
    }
    pr_ = std::move(pr).value();
    const ReviewRun* current = nullptr;
    size_t waiting_after = 0;
    for (const ReviewRun* r : open) {
      if (std::string why = StaleReason(*r); !why.empty()) {
        const RunState end =
            r->state == RunState::kFinished ? RunState::kSuperseded : RunState::kCancelled;
        if (Status st = End(*r, end, why, 0); !st.ok()) return Finish(StoreFailed("ending", st));
        if (auto stop = SettleOpenPostOf(*r, why)) return Finish(*stop);
        continue;
      }
      if (current == nullptr) {
        current = r;
      } else {
        ++waiting_after;
      }
    }
    if (current != &first) {
      // The run assigned above is over (its slot went with it); the next pass takes the rest.
      return Finish(current != nullptr ? AgainForTheRest() : Done());
    }

    // 4-6. Review (unless an earlier holder already has the result) and post.
    PassOutcome outcome =
        first.state == RunState::kFinished ? PostStored(first) : ReviewAssigned(first, reviewer);
    if (outcome.ok && waiting_after > 0) outcome = AgainForTheRest();
    return Finish(outcome);
  }

 private:
  // Before step 1: posts an earlier holder began (an open intent: it was killed, or its call's
  // answer was lost) for runs that are over now — the PR's pass ended them (a push, a merge, a
  // close) while no holder was here. Nothing else would ever settle them: each is reconciled
  // against the PR's reviews (SettleEndedReviewPost). nullopt when none is left open.
  std::optional<PassOutcome> SettleEndedPosts() {
    for (const ReviewRun& run : runs_) {
      if (!IsTerminal(run.state)) continue;  // an open run's post is settled when it is posted
      const std::string why =
          "the run was " + std::string(RunStateName(run.state)) + ": " + run.reason;
      if (auto end = SettleOpenPostOf(run, why)) return end;
    }
    return std::nullopt;
  }

  // The open post of `run` (now over, `why`), if an earlier holder left one: settled.
  std::optional<PassOutcome> SettleOpenPostOf(const ReviewRun& run, const std::string& why) {
    if (!ledger_read_) {
      auto rows = store_.ledger().ListActions(lease_.key);
      if (!rows.ok()) return StoreFailed("listing the ledger", rows.status());
      for (ActionRecord& a : *rows) {
        if (a.state == ActionState::kIntent && a.key.kind == "review") {
          open_posts_.push_back(std::move(a));
        }
      }
      ledger_read_ = true;
    }
    for (const ActionRecord& a : open_posts_) {
      if (!(ReviewPostKey(lease_.key, run) == a.key)) continue;
      if (auto end = ResolveTarget()) return end;
      if (auto stop = SettleEndedReviewPost(store_, github_, clock_, target_, lease_.fence, a,
                                            run, why, app_login_)) {
        return stop;
      }
      audit_.Add("review_settled", run.key.head_sha,
                 role_ + " run " + std::to_string(run.id) + ": an open post settled (" + why +
                     ")");
    }
    return std::nullopt;
  }

  // Step 1: the PR's repository and the installation its calls are made for. Idempotent.
  std::optional<PassOutcome> ResolveTarget() {
    if (target_resolved_) return std::nullopt;
    const std::optional<Subject> s = Subject::Parse(subject_);
    if (!s) return PassOutcome::Permanent("not a pull request subject: " + subject_);
    target_.subject = lease_.key;
    target_.repo = RepoRef{std::string(s->owner()), std::string(s->repo_name())};
    target_.number = s->number();
    if (config_.app_mode) {
      auto repo = store_.repos().GetRepository(target_.repo.FullName());
      if (!repo.ok()) return StoreFailed("reading the repository", repo.status());
      if (!*repo || !(*repo)->installation_id) {
        return audit_.EndWithError(
            "no installation known for " + target_.repo.FullName(),
            PassOutcome::Permanent("no installation known for " + target_.repo.FullName()));
      }
      target_.call.installation_id = *(*repo)->installation_id;
    }
    target_.call.subject = lease_.key;
    target_resolved_ = true;
    return std::nullopt;
  }

  // Why run `r` can no longer be reviewed or posted on the PR as read; "" when it can.
  std::string StaleReason(const ReviewRun& r) const {
    if (pr_.merged) return "the pull request was merged";
    if (pr_.state != "open") return "the pull request was closed";
    if (pr_.draft) return "the pull request was converted to draft";
    if (pr_.head_sha != r.key.head_sha) return "the head moved to " + ShortSha(pr_.head_sha);
    return "";
  }

  Status End(const ReviewRun& r, RunState end, const std::string& why, int64_t review_id) {
    Status s = store_.reviews().EndRun(r.id, end, why, review_id, lease_.fence, clock_.Now());
    if (s.ok()) {
      audit_.Add(std::string("review_") + std::string(RunStateName(end)), r.key.head_sha,
                 role_ + " run " + std::to_string(r.id) + " " + std::string(RunStateName(end)) +
                     ": " + why);
      ended_any_ = true;
    }
    return s;
  }

  // Step 3: a reviewer and one of its slots, recorded on the run; nullopt with `*reviewer`
  // set, else the outcome that ends the pass (unavailable, ...).
  std::optional<PassOutcome> Assign(const ReviewRun& run, std::string* reviewer) {
    std::vector<ReviewerSlotSpec> candidates;
    for (const decide::ReviewerSpec* spec : config_.reviewers.ForRole(role_)) {
      candidates.push_back(ReviewerSlotSpec{spec->name, spec->concurrency});
    }
    if (candidates.empty()) {
      return audit_.EndWithError(
          "no reviewer serves role " + role_,
          PassOutcome::Permanent("no reviewer serves role " + role_ + " (see the reviewers file)"));
    }
    auto assigned =
        store_.reviews().AssignAndClaimSlot(run.id, candidates, lease_.fence, clock_.Now());
    if (!assigned.ok()) return StoreFailed("assigning a reviewer", assigned.status());
    const Duration budget = config_.reviewers.availability_budget;
    switch (assigned->kind) {
      case Assignment::Kind::kPaused:
        if (!lease_.availability_since) {  // the first wait since it last ran: once in the log
          audit_.Add("review_waiting", run.key.head_sha,
                     role_ + " run " + std::to_string(run.id) +
                         " waits: every reviewer of the role is paused");
        }
        return PassOutcome::Unavailable("every reviewer of role " + role_ + " is paused", budget);
      case Assignment::Kind::kAtCapacity:
        if (!lease_.availability_since) {
          audit_.Add("review_waiting", run.key.head_sha,
                     role_ + " run " + std::to_string(run.id) + " waits for a slot of " +
                         assigned->reviewer);
        }
        return PassOutcome::Unavailable("reviewer " + assigned->reviewer + " is at capacity",
                                        budget);
      case Assignment::Kind::kAssigned:
        break;
    }
    *reviewer = assigned->reviewer;
    audit_.Add("review_assigned", run.key.head_sha,
               role_ + " run " + std::to_string(run.id) + " assigned to " + *reviewer +
                   (assigned->affinity ? " (affinity)" : "") + ", start " +
                   std::to_string(run.starts + 1));
    audit_.Flush();  // the assignment is history even if this process dies now
    return std::nullopt;
  }

  // Steps 4-5: the request, the executor, the result; then step 6.
  PassOutcome ReviewAssigned(const ReviewRun& run, const std::string& reviewer) {
    const decide::ReviewerSpec* spec = config_.reviewers.Find(reviewer);
    auto exec = config_.executors.find(reviewer);
    if (spec == nullptr || exec == config_.executors.end()) {
      Release();
      return PassOutcome::Permanent("reviewer " + reviewer + " has no executor in this process");
    }
    decide::ReviewRequest request;
    if (auto end = BuildReviewRequest(github_, target_, pr_, run, runs_, &request)) {
      Release();
      return *end;
    }
    review::ExecOutcome out = exec->second->Review(request, spec->timeout, CancelProbe(run));
    if (config_.after_review) config_.after_review(run.id);
    return AfterReview(run, reviewer, request, std::move(out));
  }

  PassOutcome AfterReview(const ReviewRun& run, const std::string& reviewer,
                          const decide::ReviewRequest& request, review::ExecOutcome out) {
    const std::string what = role_ + " run " + std::to_string(run.id) + " by " + reviewer;
    switch (out.kind) {
      case review::ExecOutcome::Kind::kResult: {
        Status s = store_.reviews().RecordResult(run.id, review::EncodeReviewResult(out.result),
                                                 lease_.fence, clock_.Now());
        if (!s.ok()) return StoreFailed("recording the review result", s);
        WakeWaitingRunsExcept(store_, lease_.key, clock_.Now());
        audit_.Add("review_result", run.key.head_sha,
                   what + ": " + std::string(decide::ReviewVerdictName(out.result.verdict)) + ", " +
                       std::to_string(out.result.findings.size()) + " findings, " +
                       std::to_string(out.result.blockers()) + " blocking");
        return Post(run, out.result, request.prior_findings, request.prior_head_sha);
      }
      case review::ExecOutcome::Kind::kTransient:
        Release();
        audit_.Add("review_failed", run.key.head_sha, what + " failed: " + out.reason);
        return PassOutcome::Transient(what + ": " + out.reason);
      case review::ExecOutcome::Kind::kUnavailable:
        // An outage: the availability budget, not the attempts, bounds the wait.
        Release();
        audit_.Add("review_failed", run.key.head_sha, what + " unavailable: " + out.reason);
        return PassOutcome::Unavailable(what + ": " + out.reason,
                                        config_.reviewers.availability_budget);
      case review::ExecOutcome::Kind::kRateLimited:
        Release();
        audit_.Add("review_failed", run.key.head_sha, what + " rate limited: " + out.reason);
        return PassOutcome::RateLimited(clock_.Now() + out.retry_after, what + ": " + out.reason);
      case review::ExecOutcome::Kind::kCancelled:
        Release();
        if (lease_lost_()) return PassOutcome::Transient("lease lost while reviewing");
        audit_.Add("review_stopped", run.key.head_sha, what + " stopped: " + out.reason);
        return Done();
    }
    return PassOutcome::Transient("unknown executor outcome");
  }

  // Whether the executor should stop: the lease is gone, or the run was ended by a push,
  // close or draft (looked up at most every cancel_poll).
  review::CancelProbe CancelProbe(const ReviewRun& run) {
    const int64_t id = run.id;
    // Real time, whatever the pass's clock: the executor's own wait is real.
    using Steady = std::chrono::steady_clock;
    return [this, id, last = Steady::time_point{}]() mutable {
      if (lease_lost_()) return true;
      const Steady::time_point now = Steady::now();
      if (now - last < config_.cancel_poll) return false;
      last = now;
      auto r = store_.reviews().GetRun(id);
      return r.ok() && *r && IsTerminal((*r)->state);
    };
  }

  void Release() {
    Status s = store_.reviews().ReleaseSlot(lease_.key, lease_.fence, clock_.Now());
    if (!s.ok()) {
      // The slot comes back when this lease runs out.
      Log(LogLevel::kWarn, "review.release_failed")
          .Field("subject", lease_.key)
          .Field("fence", lease_.fence)
          .Field("error", s.ToString());
    }
    WakeWaitingRunsExcept(store_, lease_.key, clock_.Now());
  }

  // Step 6 for a run whose result an earlier holder recorded.
  PassOutcome PostStored(const ReviewRun& run) {
    auto result = review::ParseReviewResult(run.result_json);
    if (!result.ok()) {
      return PassOutcome::Permanent("stored result of run " + std::to_string(run.id) +
                                    " is unreadable: " + result.status().ToString());
    }
    std::vector<decide::ReviewFinding> prior;
    std::string prior_head;
    PriorFindings(run, runs_, &prior, &prior_head);
    return Post(run, *result, prior, prior_head);
  }

  PassOutcome Post(const ReviewRun& run, const decide::ReviewResult& result,
                   const std::vector<decide::ReviewFinding>& prior, const std::string& prior_head) {
    PostResult posted = PostReview(store_, github_, clock_, target_, lease_.key, lease_.fence, run,
                                   result, prior, prior_head, app_login_);
    switch (posted.kind) {
      case PostResult::Kind::kPosted:
      case PostResult::Kind::kAlreadyPosted:
        if (Status s = End(run, RunState::kDone, posted.detail, posted.review_id); !s.ok()) {
          return StoreFailed("ending the run", s);
        }
        return Done();
      case PostResult::Kind::kSuperseded:
        if (Status s = End(run, RunState::kSuperseded, posted.detail, 0); !s.ok()) {
          if (s.code() == StatusCode::kFailedPrecondition) return Done();  // ended meanwhile
          return StoreFailed("ending the run", s);
        }
        return Done();
      case PostResult::Kind::kEnded:
        audit_.Add("review_stopped", run.key.head_sha,
                   role_ + " run " + std::to_string(run.id) + " not posted: " + posted.detail);
        return Done();
      case PostResult::Kind::kStop:
        audit_.Add(
            "review_failed", run.key.head_sha,
            role_ + " run " + std::to_string(run.id) + " not posted yet: " + posted.stop.error);
        return posted.stop;
    }
    return PassOutcome::Transient("unknown post outcome");
  }

  PassOutcome Done() { return PassOutcome::Done(); }

  // More runs wait in this mailbox: signal it again (it becomes pending once this pass ends).
  // Nothing else would: if the signal cannot be written, the pass fails so the engine retries.
  PassOutcome AgainForTheRest() {
    Status s = Signal1(store_, lease_.key, decide::kReasonReviewRun, clock_.Now());
    return s.ok() ? Done() : StoreFailed("signalling the runs still waiting", s);
  }

  // Every pass ends here: the audit is flushed, and the PR's gate is told when a run ended.
  PassOutcome Finish(PassOutcome outcome) {
    audit_.Flush();
    // The PR's gate reads the verdict; a lost signal is repaired by the PR's next pass or sweep.
    if (ended_any_) (void)Signal1(store_, subject_, decide::kReasonReviewFinished, clock_.Now());
    return outcome;
  }

  Store& store_;
  GitHub& github_;
  const Clock& clock_;
  const ReviewPassConfig& config_;
  const Lease& lease_;
  const LeaseLostProbe& lease_lost_;
  const std::string subject_;
  const std::string role_;
  PassAudit audit_;
  std::string app_login_;
  std::vector<ReviewRun> runs_;
  Target target_;
  bool target_resolved_ = false;
  bool ledger_read_ = false;
  std::vector<ActionRecord> open_posts_;  // the item's open review intents, once read
  PullRequest pr_;
  bool ended_any_ = false;
};

ReviewPass::ReviewPass(Store& store, GitHub& github, ClockPtr clock, ReviewPassConfig config)
    : store_(store),
      github_(github),
      clock_(std::move(clock)),
      config_(std::move(config)),
      login_(config_.app_login, config_.discover_login) {}

PassOutcome ReviewPass::Run(const Lease& lease, const LeaseLostProbe& lease_lost) {
  std::string subject, role;
  if (!ParseReviewWorkKey(lease.key, &subject, &role)) {
    return PassOutcome::Permanent("not a review work key: " + lease.key);
  }
  auto login = login_.Get();
  if (!login.ok()) return ReadFailureOutcome("learning gatehouse's own login", login.error());
  ReviewRunPass pass(store_, github_, *clock_, config_, lease, lease_lost, std::move(subject),
                     std::move(role));
  return pass.Run(*login);
}

}  // namespace gatehouse::act
