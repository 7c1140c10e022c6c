// Reconciliation of an open intent. See act/reconcile.h.
#include "act/reconcile.h"

#include "base/subject.h"
#include "act/pass_reviews.h"
#include "decide/digest.h"
#include "decide/generations.h"
#include "decide/labels.h"
#include "decide/pr_facts.h"
#include "decide/review_body.h"

namespace gatehouse::act {
namespace {

using decide::ActionKind;

Evidence Exists(std::string detail) {
  return {Evidence::Verdict::kEffectExists, std::move(detail)};
}
Evidence Moved(std::string detail) { return {Evidence::Verdict::kHeadMoved, std::move(detail)}; }
Evidence Absent(std::string detail) { return {Evidence::Verdict::kCall, std::move(detail)}; }

bool IsCloseKind(std::string_view kind_name) {
  auto kind = decide::ParseActionKind(kind_name);
  return kind && decide::ClassOf(*kind) == decide::ActionClass::kClose;
}

// The decimal id right after `prefix` in `text` ("summary:12:ab" after "summary:" is 12).
std::optional<int64_t> IdAfter(std::string_view text, std::string_view prefix) {
  if (!text.starts_with(prefix)) return std::nullopt;
  text.remove_prefix(prefix.size());
  int64_t id = 0;
  size_t digits = 0;
  for (; digits < text.size() && digits < 18 && text[digits] >= '0' && text[digits] <= '9';
       ++digits) {
    id = id * 10 + (text[digits] - '0');
  }
  if (digits == 0 || (digits < text.size() && text[digits] != ':')) return std::nullopt;
  return id;
}

// The comment kinds (docs/ACTIONS.md, "Reconciliation"). A settled intent (reconcile_only)
// carries only its key, no body: the summary's creation is found by its marker, an edit by
// the body digest its key holds, a reply by the marker its body ends with.
Evidence CommentEvidence(const decide::PlannedAction& a, const std::vector<IssueComment>& comments,
                         const std::string& me) {
  const std::string detail = decide::BaseDetail(a.detail);
  if (detail == "summary:new") {
    // Planned only when no summary comment of gatehouse's was there; one there now is it.
    for (const IssueComment& c : comments) {
      if (c.user != me) continue;
      if (c.body.starts_with(decide::kSummaryMarker) || (!a.body.empty() && c.body == a.body)) {
        return Exists("summary comment " + std::to_string(c.id));
      }
    }
    return Absent("no summary comment by " + me);
  }
  const std::optional<int64_t> edited = a.comment_id ? a.comment_id : IdAfter(detail, "summary:");
  if (edited) {
    const size_t colon = detail.rfind(':');
    const std::string digest = colon == std::string::npos ? "" : detail.substr(colon + 1);
    for (const IssueComment& c : comments) {
      if (c.id != *edited) continue;
      const bool has = a.body.empty() ? decide::StableDigest(c.body) == digest : c.body == a.body;
      if (has) return Exists("comment " + std::to_string(c.id) + " has the body");
      return Absent("comment " + std::to_string(c.id) + " has another body");
    }
    return Absent("no comment " + std::to_string(*edited));
  }
  const std::optional<int64_t> replied = IdAfter(detail, "reply:");
  for (const IssueComment& c : comments) {
    if (c.user != me) continue;
    if (!a.body.empty() && c.body == a.body) {
      return Exists("comment " + std::to_string(c.id) + " has the body");
    }
    if (replied && c.body.ends_with(ReplyMarker(*replied))) {
      return Exists("comment " + std::to_string(c.id) + " replies to comment " +
                    std::to_string(*replied));
    }
  }
  return Absent("no comment with the body");
}

}  // namespace

std::string ShortSha(const std::string& sha) { return sha.substr(0, 12); }

GitHubResult<Evidence> Reconcile(const ReconcileContext& context, const decide::PlannedAction& a) {
  const CallContext& ctx = context.target.call;
  const RepoRef& repo = context.target.repo;
  const int64_t n = context.target.number;
  const std::string me(context.app_login);
  switch (a.kind) {
    case ActionKind::kMerge: {
      auto pr = context.github.GetPullRequest(ctx, repo, n);
      if (!pr.ok()) return pr.error();
      if (pr->merged) return Exists("merged");
      if (pr->head_sha != a.head_sha) {
        if (auto e = context.note_head(*pr)) return *e;
        return Moved("head moved to " + ShortSha(pr->head_sha));
      }
      return Absent("not merged");
    }
    case ActionKind::kApprove:
    case ActionKind::kRequestChanges: {
      const std::string state = a.kind == ActionKind::kApprove ? "APPROVED" : "CHANGES_REQUESTED";
      auto reviews = context.github.ListReviews(ctx, repo, n);
      if (!reviews.ok()) return reviews.error();
      // A dismissed review was still given. A head that came back may rightly carry an
      // earlier occurrence's (dismissed) review of the same commit, so the question is
      // whether GitHub shows more of gatehouse's reviews of that commit than the ledger has
      // done: then this intent's call took effect, and calling again would be a second one.
      int64_t given = 0;
      int64_t last_id = 0;
      for (const Review& r : *reviews) {
        // A review run's review (it carries the run marker) is a reviewer's, not the gate's.
        if (r.user == me && r.commit_id == a.head_sha && !decide::ParseReviewMarker(r.body) &&
            (r.state == "APPROVED" || r.state == "CHANGES_REQUESTED" || r.state == "DISMISSED")) {
          ++given;
          last_id = r.id;
        }
      }
      auto rows = context.store.ledger().ListActions(context.target.subject);
      if (!rows.ok()) {
        return GitHubError{GitHubErrorKind::kTransient, 0, {}, rows.status().ToString()};
      }
      int64_t recorded = 0;
      for (const ActionRecord& r : *rows) {
        recorded +=
            r.state == ActionState::kDone && r.key.head_sha == a.head_sha &&
            decide::ClassOf(decide::ParseActionKind(r.key.kind).value_or(ActionKind::kMerge)) ==
                decide::ActionClass::kReview;
      }
      if (given > recorded) return Exists("review " + std::to_string(last_id) + " " + state);
      return Absent("no " + state + " review by " + me + " beyond the " + std::to_string(recorded) +
                    " in the ledger");
    }
    case ActionKind::kClose:
    case ActionKind::kDraftDodgeClose:
    case ActionKind::kReopenReclose: {
      auto pr = context.github.GetPullRequest(ctx, repo, n);
      if (!pr.ok()) return pr.error();
      if (pr->state == "closed") return Exists("closed");
      // Open again: if gatehouse closed it more often than its ledger knows, the open
      // intent's close happened (and someone reopened the PR since); closing again here
      // would be a second close. The issue events say who closed it, without clocks.
      auto events = context.github.ListIssueEvents(ctx, repo, n);
      if (events.ok()) {
        int64_t closed_by_me = 0;
        for (const IssueEvent& e : *events) closed_by_me += e.event == "closed" && e.actor == me;
        int64_t recorded = 0;
        if (auto rows = context.store.ledger().ListActions(context.target.subject); rows.ok()) {
          for (const ActionRecord& r : *rows) {
            recorded += r.state == ActionState::kDone && IsCloseKind(r.key.kind);
          }
        } else {
          return GitHubError{GitHubErrorKind::kTransient, 0, {}, rows.status().ToString()};
        }
        if (closed_by_me > recorded) {
          return Exists("closed by " + me + " (issue events), reopened since");
        }
        return Absent("open; every close by " + me + " is in the ledger");
      }
      if (events.error().kind != GitHubErrorKind::kNotFound) return events.error();
      // No issue events (an old GitHub Enterprise): a reopen webhook newer than the intent
      // says the same, less surely.
      auto facts = context.store.repos().GetPrFacts(context.target.subject);
      if (facts.ok()) {
        for (const PrFact& f : *facts) {
          if (f.name == decide::kFactReopened && f.at >= context.intent_at) {
            return Exists("reopened by " + f.value + " after the close");
          }
        }
      }
      return Absent("open");
    }
    case ActionKind::kLabel:
    case ActionKind::kUnlabel: {
      auto pr = context.github.GetPullRequest(ctx, repo, n);
      if (!pr.ok()) return pr.error();
      const bool has = decide::HasLabel(pr->labels, a.label);
      if (a.kind == ActionKind::kLabel) {
        return has ? Exists("labelled " + a.label) : Absent(a.label + " absent");
      }
      return has ? Absent(a.label + " present") : Exists(a.label + " absent");
    }
    case ActionKind::kComment: {
      auto comments = context.github.ListIssueComments(ctx, repo, n);
      if (!comments.ok()) return comments.error();
      return CommentEvidence(a, *comments, me);
    }
    case ActionKind::kCheckRun: {
      auto runs = context.github.ListCheckRuns(ctx, repo, a.head_sha);
      if (!runs.ok()) return runs.error();
      for (const CheckRun& r : *runs) {
        // Our runs carry the action's key as external_id: an exact match. A run without
        // one (created by another tool under our name) matches on status and conclusion.
        const bool ours = r.name == decide::CheckRunNameOf(a) && r.head_sha == a.head_sha;
        if (ours && (r.external_id.empty()
                         ? r.status == a.check_status && r.conclusion == a.check_conclusion
                         : r.external_id == a.Key())) {
          return Exists("check run " + std::to_string(r.id) + " " + r.status + " " + r.conclusion);
        }
      }
      return Absent("no matching check run");
    }
    case ActionKind::kUpdateBranch: {
      auto pr = context.github.GetPullRequest(ctx, repo, n);
      if (!pr.ok()) return pr.error();
      if (pr->head_sha != a.head_sha) {
        if (auto e = context.note_head(*pr)) return *e;
        return Exists("head moved to " + ShortSha(pr->head_sha));
      }
      return Absent("head unchanged");
    }
    case ActionKind::kReviewRun:
      // The store makes a run once per key: asking again finds it if it was made.
      return Absent("a run request is idempotent");
    case ActionKind::kQueueEnter:
    case ActionKind::kQueueLeave: {
      // The effect is in gatehouse's own store: an entry of this head (admitted by the command
      // the detail names, if any) was made; the entry the detail names has ended. Otherwise
      // calling again is harmless: the store makes an entry once per key, and leaving drops
      // only what is still open.
      auto entries = context.store.queues().EntriesOf(context.target.subject);
      if (!entries.ok()) {
        return GitHubError{GitHubErrorKind::kTransient, 0, {}, entries.status().ToString()};
      }
      const std::string detail = decide::BaseDetail(a.detail);
      if (a.kind == ActionKind::kQueueLeave) {
        const std::optional<int64_t> id = IdAfter(detail, "entry:");
        for (const QueueEntry& e : *entries) {
          if (id && e.id == *id && IsTerminal(e.state)) {
            return Exists("entry " + std::to_string(e.id) + " is " +
                          std::string(EntryStateName(e.state)));
          }
        }
        return Absent("the entry is still open");
      }
      const size_t by = detail.find("+comment:");
      const int64_t admitted_by =
          by == std::string::npos ? 0 : IdAfter(detail.substr(by + 1), "comment:").value_or(-1);
      for (const QueueEntry& e : *entries) {
        if (e.key.head_sha == a.head_sha && e.key.head_occurrence == a.head_occurrence &&
            e.key.admitted_by == admitted_by) {
          return Exists("entry " + std::to_string(e.id) + " of " + e.queue);
        }
      }
      return Absent("no entry of this head yet");
    }
    case ActionKind::kLandBatch: {
      // Landed when the base branch is the tested SHA (or has moved on from it: then the pass
      // sees the PRs merged, or not, and rebuilds).
      const std::optional<QueueKey> queue = QueueKey::Parse(a.queue);
      if (!queue) return Absent("not a queue: " + a.queue);
      auto sha = context.github.GetBranchSha(ctx, repo, std::string(queue->base()));
      if (!sha.ok()) return sha.error();
      if (*sha == a.head_sha) return Exists(std::string(queue->base()) + " is " + ShortSha(*sha));
      return Absent(std::string(queue->base()) + " is " + ShortSha(*sha));
    }
    case ActionKind::kReaction: {
      // Settling an intent knows the comment from the detail ("comment:<id>") only.
      const std::optional<int64_t> comment =
          a.comment_id ? a.comment_id : IdAfter(decide::BaseDetail(a.detail), "comment:");
      if (!comment) return Absent("no comment id");
      auto reactions = context.github.ListReactions(ctx, repo, *comment);
      if (!reactions.ok()) return reactions.error();
      // gatehouse reacts once per command comment: any reaction of its own is this one (the
      // command may be judged otherwise now, which must not add a second reaction).
      for (const Reaction& r : *reactions) {
        if (r.user == me) return Exists("reaction " + std::to_string(r.id) + " " + r.content);
      }
      return Absent("no reaction by " + me + " on comment " + std::to_string(*comment));
    }
  }
  return GitHubError{GitHubErrorKind::kPermanent, 0, {}, "unknown action kind"};
}

}  // namespace gatehouse::act
