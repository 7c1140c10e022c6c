// See act/review_request.h.
#include "act/review_request.h"

#include <utility>

#include "act/github_outcome.h"
#include "act/reconcile.h"
#include "act/review_landing.h"
#include "base/ascii.h"
#include "decide/review_body.h"
#include "review/review_json.h"

namespace gatehouse::act {
namespace {

// The latest finished run of the role on another head: its findings are the prior ones.
const ReviewRun* PriorRun(const ReviewRun& run, const std::vector<ReviewRun>& runs) {
  const ReviewRun* prior = nullptr;
  for (const ReviewRun& r : runs) {
    if (r.id == run.id || r.key.head_sha == run.key.head_sha || r.result_json.empty()) continue;
    if (r.state != RunState::kDone && r.state != RunState::kFinished) continue;
    if (prior == nullptr || r.id > prior->id) prior = &r;
  }
  return prior;
}

}  // namespace

std::optional<PassOutcome> BuildReviewRequest(GitHub& github, const Target& target,
                                              const PullRequest& pr, const ReviewRun& run,
                                              const std::vector<ReviewRun>& runs,
                                              decide::ReviewRequest* request) {
  request->repo = target.repo.FullName();
  request->number = target.number;
  request->role = run.key.role;
  request->head_sha = run.key.head_sha;
  request->base_sha = pr.base_sha;
  request->title = pr.title;
  request->body = pr.body;
  request->author = pr.author;
  auto files = github.ListPullRequestFileDetails(target.call, target.repo, target.number);
  if (!files.ok()) return ReadFailureOutcome("listing the changed files", files.error());
  request->files.clear();
  for (PullFile& f : *files) {
    request->files.push_back(decide::ChangedFile{std::move(f.path), std::move(f.status),
                                                 f.additions, f.deletions, std::move(f.patch)});
  }
  PriorFindings(run, runs, &request->prior_findings, &request->prior_head_sha);
  return std::nullopt;
}

void PriorFindings(const ReviewRun& run, const std::vector<ReviewRun>& runs,
                   std::vector<decide::ReviewFinding>* findings, std::string* head) {
  const ReviewRun* prior = PriorRun(run, runs);
  if (prior == nullptr) return;
  auto parsed = review::ParseReviewResult(prior->result_json);
  if (!parsed.ok()) return;
  *findings = parsed->findings;
  *head = prior->key.head_sha;
}

namespace {

PostResult Stop(PassOutcome outcome, std::string detail) {
  PostResult r;
  r.kind = PostResult::Kind::kStop;
  r.stop = std::move(outcome);
  r.detail = std::move(detail);
  return r;
}

// Our review of `run` among the PR's reviews (by login and marker), if GitHub shows one.
GitHubResult<std::optional<int64_t>> FindPosted(GitHub& github, const Target& target,
                                                const ReviewRun& run,
                                                const std::string& app_login) {
  auto reviews = github.ListReviews(target.call, target.repo, target.number);
  if (!reviews.ok()) return reviews.error();
  for (const Review& r : *reviews) {
    if (!EqualsIgnoreCase(r.user, app_login)) continue;
    auto marker = decide::ParseReviewMarker(r.body);
    if (marker && marker->run_id == run.id && marker->role == run.key.role) {
      return std::optional<int64_t>(r.id);
    }
  }
  return std::optional<int64_t>();
}

}  // namespace

ActionKey ReviewPostKey(const std::string& work_key, const ReviewRun& run) {
  return ActionKey{work_key, "review", run.key.head_sha, "run:" + std::to_string(run.id), 1};
}

std::optional<PassOutcome> SettleEndedReviewPost(Store& store, GitHub& github, const Clock& clock,
                                                 const Target& target, int64_t fence,
                                                 const ActionRecord& intent, const ReviewRun& run,
                                                 const std::string& why,
                                                 const std::string& app_login) {
  auto found = FindPosted(github, target, run, app_login);
  if (!found.ok()) return ReadFailureOutcome("reconciling the review", found.error());
  const bool posted = found->has_value();
  const std::string result = posted ? "reconciled: review " + std::to_string(**found) +
                                          " found on the PR"
                                    : "never posted: " + why;
  Status s = store.ledger().RecordOutcome(
      intent.id, fence, posted ? ActionState::kDone : ActionState::kSuperseded, result,
      clock.Now());
  if (!s.ok()) return PassOutcome::Transient(s.ToString());
  return std::nullopt;
}

PostResult PostReview(Store& store, GitHub& github, const Clock& clock, const Target& target,
                      const std::string& work_key, int64_t fence, const ReviewRun& run,
                      const decide::ReviewResult& result,
                      const std::vector<decide::ReviewFinding>& prior_findings,
                      const std::string& prior_head, const std::string& app_login) {
  const ActionKey key = ReviewPostKey(work_key, run);
  // The PR's pass may have ended the run (a push, a close, a draft) since this pass read it:
  // then nothing is posted, and a post an earlier holder began is settled.
  auto now_run = store.reviews().GetRun(run.id);
  if (!now_run.ok()) return Stop(PassOutcome::Transient(now_run.status().ToString()), "");
  if (*now_run && IsTerminal((*now_run)->state)) {
    const std::string why = "the run was " + std::string(RunStateName((*now_run)->state)) + ": " +
                            (*now_run)->reason;
    auto rows = store.ledger().ListActions(work_key);
    if (!rows.ok()) return Stop(PassOutcome::Transient(rows.status().ToString()), "");
    for (const ActionRecord& a : *rows) {
      if (a.state != ActionState::kIntent || !(a.key == key)) continue;
      if (auto stop = SettleEndedReviewPost(store, github, clock, target, fence, a, run, why,
                                            app_login)) {
        return Stop(*stop, "settling the review's open intent");
      }
    }
    PostResult r;
    r.kind = PostResult::Kind::kEnded;
    r.detail = why;
    return r;
  }
  auto intent = store.ledger().RecordIntent(key, fence, clock.Now());
  if (!intent.ok()) return Stop(PassOutcome::Transient(intent.status().ToString()), "");
  switch (intent->kind) {
    case IntentResult::Kind::kAlreadyDone: {
      PostResult r;
      r.kind = PostResult::Kind::kAlreadyPosted;
      r.detail = intent->record.result;
      return r;
    }
    case IntentResult::Kind::kSuperseded: {
      PostResult r;
      r.kind = PostResult::Kind::kSuperseded;
      r.detail = intent->record.result;
      return r;
    }
    case IntentResult::Kind::kNeedsReconcile: {
      auto found = FindPosted(github, target, run, app_login);
      if (!found.ok()) return Stop(ReadFailureOutcome("reconciling the review", found.error()), "");
      if (*found) {
        const std::string why = "review " + std::to_string(**found) + " found on the PR";
        Status s = store.ledger().RecordOutcome(intent->record.id, fence, ActionState::kDone, why,
                                                clock.Now());
        if (!s.ok()) return Stop(PassOutcome::Transient(s.ToString()), "");
        PostResult r;
        r.kind = PostResult::Kind::kAlreadyPosted;
        r.review_id = **found;
        r.detail = "reconciled: " + why;
        return r;
      }
      break;  // not posted: post it now
    }
    case IntentResult::Kind::kRecorded:
      break;
  }
  // The PR re-read as late as it can be, right before the call: GitHub takes a review for any
  // commit_id, so no precondition of the call refuses a stale head; what is left is the window
  // of this read's round trip. A head that moved, a closed PR or a draft: superseded, no call.
  auto pr = github.GetPullRequest(target.call, target.repo, target.number);
  if (!pr.ok()) return Stop(ReadFailureOutcome("re-reading the pull request", pr.error()), "");
  if (pr->head_sha != run.key.head_sha || pr->state != "open" || pr->draft) {
    PostResult r;
    r.kind = PostResult::Kind::kSuperseded;
    r.detail = pr->state != "open" ? "the pull request is " + pr->state
               : pr->draft         ? std::string("the pull request is a draft")
                                   : "the head moved to " + ShortSha(pr->head_sha);
    Status s = store.ledger().RecordOutcome(intent->record.id, fence, ActionState::kSuperseded,
                                            "never posted: " + r.detail, clock.Now());
    if (!s.ok()) return Stop(PassOutcome::Transient(s.ToString()), "");
    return r;
  }
  const std::string body = decide::RenderReviewBody(run.key.role, run.key.head_sha, run.id, result,
                                                    prior_findings, prior_head);
  auto posted = github.CreateReview(target.call, target.repo, target.number, run.key.head_sha,
                                    std::string(decide::ReviewEventFor(result.verdict)), body);
  if (!posted.ok()) {
    const GitHubError& e = posted.error();
    if (e.kind == GitHubErrorKind::kTransient) {
      // It may have taken effect: the intent stays open and the next holder reconciles.
      return Stop(ToPassOutcome(e), "posting the review: " + e.ToString());
    }
    Status s = store.ledger().RecordOutcome(
        intent->record.id, fence, IsSuperseded(e) ? ActionState::kSuperseded : ActionState::kFailed,
        e.ToString(), clock.Now());
    if (!s.ok()) return Stop(PassOutcome::Transient(s.ToString()), "");
    if (IsSuperseded(e)) {
      PostResult r;
      r.kind = PostResult::Kind::kSuperseded;
      r.detail = "GitHub refused the review: " + e.ToString();
      return r;
    }
    return Stop(e.kind == GitHubErrorKind::kRateLimited
                    ? ToPassOutcome(e)
                    : PassOutcome::Transient("posting the review: " + e.ToString()),
                e.ToString());
  }
  // The second half of the action: a push that beat the call is undone by a dismissal.
  const ReviewLanding landing =
      CheckReviewLanding(github, target.call, target.repo, target.number, *posted,
                         run.key.head_sha, decide::ReviewEventFor(result.verdict));
  PostResult r;
  r.review_id = *posted;
  r.kind = landing.dismissed ? PostResult::Kind::kSuperseded : PostResult::Kind::kPosted;
  r.detail = landing.dismissed ? landing.note
                               : "review " + std::to_string(*posted) + " on " +
                                     ShortSha(run.key.head_sha) +
                                     (landing.note.empty() ? "" : " (" + landing.note + ")");
  Status s = store.ledger().RecordOutcome(
      intent->record.id, fence, landing.dismissed ? ActionState::kSuperseded : ActionState::kDone,
      r.detail, clock.Now());
  if (!s.ok()) return Stop(PassOutcome::Transient(s.ToString()), "");
  return r;
}

}  // namespace gatehouse::act
