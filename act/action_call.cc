#include "act/action_call.h"

#include <optional>
#include <string>

#include "act/pass_reviews.h"
#include "act/reconcile.h"
#include "act/review_landing.h"
#include "base/subject.h"
#include "decide/digest.h"
#include "decide/generations.h"
#include "decide/summary_record.h"

namespace gatehouse::act {
namespace {

using decide::ActionKind;
using decide::PlannedAction;

GitHubError UnknownKind() {
  GitHubError e;
  e.kind = GitHubErrorKind::kPermanent;
  e.message = "unknown action kind";
  return e;
}

// One action's call, with what it needs to make it.
class ActionCall {
 public:
  ActionCall(Store& store, GitHub& github, const Clock& clock, const Target& target, int64_t fence)
      : store_(store), github_(github), clock_(clock), target_(target), fence_(fence) {}

  // The GitHub call for `a`, bound to its head SHA where GitHub takes one. The value is what
  // the ledger keeps as the result of a success.
  GitHubResult<std::string> Call(const PlannedAction& a) const {
    const CallContext& ctx = target_.call;
    const RepoRef& repo = target_.repo;
    const int64_t n = target_.number;
    switch (a.kind) {
      case ActionKind::kMerge: {
        auto r = github_.Merge(ctx, repo, n, a.head_sha,
                               std::string(decide::MergeMethodName(a.merge_method)));
        if (!r.ok()) return r.error();
        return "merged " + ShortSha(a.head_sha) + " as " + r->sha;
      }
      case ActionKind::kApprove:
      case ActionKind::kRequestChanges: {
        const std::string event = a.kind == ActionKind::kApprove ? "APPROVE" : "REQUEST_CHANGES";
        auto r = github_.CreateReview(ctx, repo, n, a.head_sha, event, a.body);
        if (!r.ok()) return r.error();
        // A push that beat the call (act/review_landing.h): the review is dismissed, and the
        // action ends as a call the moved head refused would, superseded.
        const ReviewLanding landing =
            CheckReviewLanding(github_, ctx, repo, n, *r, a.head_sha, event);
        if (landing.dismissed) {
          GitHubError moved;
          moved.kind = GitHubErrorKind::kHeadModified;
          moved.message = landing.note;
          return moved;
        }
        return "review " + std::to_string(*r) + " on " + ShortSha(a.head_sha) +
               (landing.note.empty() ? "" : " (" + landing.note + ")");
      }
      case ActionKind::kClose:
      case ActionKind::kDraftDodgeClose:
      case ActionKind::kReopenReclose: {
        auto r = github_.ClosePullRequest(ctx, repo, n);
        if (!r.ok()) return r.error();
        return std::string("closed");
      }
      case ActionKind::kLabel: {
        auto r = github_.AddLabels(ctx, repo, n, {a.label});
        if (!r.ok()) return r.error();
        return "labelled " + a.label;
      }
      case ActionKind::kUnlabel: {
        auto r = github_.RemoveLabel(ctx, repo, n, a.label);
        if (r.ok()) return "unlabelled " + a.label;
        if (r.error().kind == GitHubErrorKind::kNotFound) return a.label + " already absent";
        return r.error();
      }
      case ActionKind::kComment: {
        if (a.comment_id) {
          auto r = github_.UpdateIssueComment(ctx, repo, *a.comment_id, a.body);
          if (!r.ok()) return r.error();
          return "edited comment " + std::to_string(*a.comment_id);
        }
        auto r = github_.CreateIssueComment(ctx, repo, n, a.body);
        if (!r.ok()) return r.error();
        // The summary's creation records its body's digest, so that the ledger knows what
        // the comment says (decide/summary_record.h).
        if (decide::BaseDetail(a.detail) == decide::kSummaryCreation) {
          return decide::SummaryCreatedResult(*r, decide::StableDigest(a.body));
        }
        return "comment " + std::to_string(*r);
      }
      case ActionKind::kCheckRun: {
        CheckRunSpec spec;
        spec.name = decide::CheckRunNameOf(a);
        spec.head_sha = a.head_sha;
        spec.status = a.check_status;
        spec.conclusion = a.check_conclusion;
        spec.title = a.check_title;
        spec.summary = a.check_summary;
        spec.external_id = a.Key();
        auto r = github_.CreateCheckRun(ctx, repo, spec);
        if (!r.ok()) return r.error();
        return "check run " + std::to_string(*r) + " on " + ShortSha(a.head_sha);
      }
      case ActionKind::kUpdateBranch: {
        auto r = github_.UpdateBranch(ctx, repo, n, a.head_sha);
        if (!r.ok()) return r.error();
        return "update-branch from " + ShortSha(a.head_sha);
      }
      case ActionKind::kReviewRun:
        return RequestReviewRun(a);
      case ActionKind::kQueueEnter:
        return EnterQueue(a);
      case ActionKind::kQueueLeave:
        return LeaveQueue(a);
      case ActionKind::kLandBatch: {
        const std::optional<QueueKey> queue = QueueKey::Parse(a.queue);
        if (!queue) return UnknownKind();
        auto r = github_.MoveBranch(ctx, repo, std::string(queue->base()), a.head_sha, false);
        if (!r.ok()) return r.error();
        return "fast-forwarded " + std::string(queue->base()) + " to " + ShortSha(a.head_sha);
      }
      case ActionKind::kReaction: {
        if (!a.comment_id) return UnknownKind();
        auto r = github_.CreateReaction(ctx, repo, *a.comment_id, a.reaction);
        if (!r.ok()) return r.error();
        return "reaction " + a.reaction + " on comment " + std::to_string(*a.comment_id);
      }
    }
    return UnknownKind();
  }

  // A review run is gatehouse's own record, not a GitHub call: the store creates it once per
  // key (a replay finds it) and signals its work item, fenced by this pass.
  GitHubResult<std::string> RequestReviewRun(const PlannedAction& a) const {
    std::string role, trigger;
    if (!ParseReviewRunDetail(decide::BaseDetail(a.detail), &role, &trigger)) return UnknownKind();
    auto r = store_.reviews().RequestRun(ReviewRunKey{target_.subject, role, a.head_sha, trigger},
                                         target_.subject, fence_, clock_.Now());
    if (!r.ok()) return StoreError(r.status());
    return std::string(r->created ? "requested" : "found") + " review run " +
           std::to_string(r->run.id) + " (" + role + ", " + trigger + ")";
  }

  // Entering and leaving the merge queue are gatehouse's own records too, fenced by this pass
  // (store/merge_queue.h): an entry is made once per head, so a replay finds it, and leaving
  // drops only what is still open.
  GitHubResult<std::string> EnterQueue(const PlannedAction& a) const {
    auto r = store_.queues().Enter(
        a.queue, QueueEntryKey{target_.subject, a.head_sha, a.head_occurrence, a.queue_admitted_by},
        a.queue_priority, fence_, clock_.Now());
    if (!r.ok()) return StoreError(r.status());
    return std::string(r->created ? "entered " : "found in ") + a.queue + " as entry " +
           std::to_string(r->entry.id);
  }
  GitHubResult<std::string> LeaveQueue(const PlannedAction& a) const {
    auto r = store_.queues().Leave(target_.subject, a.queue_keep_sha, a.why, fence_, clock_.Now());
    if (!r.ok()) return StoreError(r.status());
    std::string ids;
    for (const QueueEntry& e : *r) ids += (ids.empty() ? "" : ", ") + std::to_string(e.id);
    return ids.empty() ? std::string("no open entry left to drop") : "dropped entry " + ids;
  }
  // A store failure is like a lost answer: the intent stays open and the next holder asks
  // again (every store call here is idempotent).
  static GitHubError StoreError(const Status& s) {
    return GitHubError{GitHubErrorKind::kTransient, 0, {}, "store: " + s.ToString()};
  }

 private:
  Store& store_;
  GitHub& github_;
  const Clock& clock_;
  const Target& target_;
  const int64_t fence_;
};

}  // namespace

GitHubResult<std::string> CallAction(Store& store, GitHub& github, const Clock& clock,
                                     const Target& target, int64_t fence,
                                     const decide::PlannedAction& action) {
  return ActionCall(store, github, clock, target, fence).Call(action);
}

}  // namespace gatehouse::act
