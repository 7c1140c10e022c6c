#include "act/executor.h"

#include <algorithm>
#include <utility>

#include "act/action_call.h"
#include "act/github_outcome.h"
#include "act/head_occurrence.h"
#include "act/reconcile.h"

namespace gatehouse::act {
namespace {

using decide::ActionKind;
using decide::PlannedAction;
using ActionResult = ActionReport::Result;

// One plan's execution: the per-action ledger protocol of act/executor.h.
class PlanRun {
 public:
  PlanRun(Store& store, GitHub& github, const Clock& clock, const Target& target, int64_t fence,
          const ExecutorOptions& options)
      : store_(store),
        github_(github),
        clock_(clock),
        target_(target),
        fence_(fence),
        options_(options) {}

  ExecResult Run(const decide::Plan& plan) {
    ExecResult out;
    out.actions.reserve(plan.actions.size());
    for (const PlannedAction& a : plan.actions) {
      ActionReport report;
      report.action = a;
      out.actions.push_back(std::move(report));
    }
    for (ActionReport& report : out.actions) {
      if (!Step(report, out)) break;  // the rest stay kNotRun
    }
    return out;
  }

 private:
  // Runs one action; false when the plan must stop here.
  bool Step(ActionReport& report, ExecResult& out) {
    const PlannedAction& a = report.action;
    ActionKey key{target_.subject, std::string(decide::ActionKindName(a.kind)), a.head_sha,
                  a.detail, a.head_occurrence};
    auto intent = store_.ledger().RecordIntent(key, fence_, clock_.Now());
    if (!intent.ok()) {
      // Fence lost (another worker holds the PR) or the store failed: no call without a
      // durable, fenced intent.
      report.detail = "intent not recorded: " + intent.status().ToString();
      out.stop = PassOutcome::Transient(report.detail);
      return false;
    }
    report.ledger_id = intent->record.id;
    report.attempts = intent->record.attempts;
    switch (intent->kind) {
      case IntentResult::Kind::kAlreadyDone:
        report.result = ActionResult::kAlreadyDone;
        report.detail = intent->record.result;
        return true;
      case IntentResult::Kind::kSuperseded:
        // Recorded superseded by an earlier pass, which already asked for a fresh one; asking
        // again for the same key would loop. Everything after it was decided on that same
        // stale head, so stop.
        report.result = ActionResult::kSuperseded;
        report.detail = intent->record.result;
        return false;
      case IntentResult::Kind::kNeedsReconcile:
        // The time of the attempt that left the intent open (a retried failed row keeps its
        // first created_at; updated_at is when this intent was recorded).
        intent_at_ = intent->record.updated_at;
        return ReconcileThenCall(report, out);
      case IntentResult::Kind::kRecorded:
        if (options_.reconcile_only) {
          // Not an open intent after all (nothing to reconcile): never call in this mode.
          return Record(report, out, ActionState::kFailed, "abandoned (no longer planned)",
                        ActionResult::kFailed);
        }
        return CallAndRecord(report, out);
    }
    return false;
  }

  bool ReconcileThenCall(ActionReport& report, ExecResult& out) {
    const ReconcileContext context{store_,
                                   github_,
                                   target_,
                                   options_.app_login,
                                   intent_at_,
                                   [this](const PullRequest& pr) -> std::optional<GitHubError> {
                                     if (NoteHead(pr)) return std::nullopt;
                                     return NoteHeadError();
                                   }};
    auto evidence = Reconcile(context, report.action);
    if (!evidence.ok()) {
      // The intent stays open whatever the error: recording `failed` would let the next pass
      // repeat a call that may have taken effect without looking first.
      const GitHubError& e = evidence.error();
      report.detail = "reconcile: " + e.ToString();
      if (e.kind == GitHubErrorKind::kRateLimited) {
        report.result = ActionResult::kRateLimited;
        out.stop = ToPassOutcome(e);
        return false;
      }
      if (e.kind == GitHubErrorKind::kTransient) {
        report.result = ActionResult::kUnknown;
        out.stop = ToPassOutcome(e);
        return false;
      }
      report.result = ActionResult::kFailed;
      return true;
    }
    switch (evidence->verdict) {
      case Evidence::Verdict::kEffectExists:
        return Record(report, out, ActionState::kDone, "reconciled: " + evidence->detail,
                      ActionResult::kReconciled);
      case Evidence::Verdict::kHeadMoved:
        if (!options_.reconcile_only) out.superseded = true;
        Record(report, out, ActionState::kSuperseded, "reconciled: " + evidence->detail,
               ActionResult::kSuperseded);
        return false;
      case Evidence::Verdict::kCall:
        if (options_.reconcile_only && options_.leave_absent_open) {
          report.result = ActionResult::kUnknown;
          report.detail = "not on GitHub: left open for the plan (" + evidence->detail + ")";
          return true;
        }
        if (options_.reconcile_only) {
          return Record(report, out, ActionState::kFailed,
                        "abandoned (no longer planned): " + evidence->detail,
                        ActionResult::kFailed);
        }
        return CallAndRecord(report, out);
    }
    return false;
  }

  // GitHub refuses a merge or an update-branch on a moved head or a closed PR, and check runs
  // belong to their commit whatever the PR does. Everything else it would accept on a PR whose
  // head moved, or that was closed or merged, since the plan was made (a review may name an old
  // commit; a close or a label names none), so the executor looks at the PR itself
  // right before those calls. After a pass's first head check the read costs nothing while the
  // PR is unchanged: GitHub answers the conditional request with a 304 (the first is a 304 too
  // when the pass read the PR over REST). A label this pass changed changes the PR, so the next
  // check after it costs (docs/ACTIONS.md).
  // gatehouse's comments (the summary, a reply to a command) need no look: the summary names the
  // head it judged ("On `<sha>`"), the PR's passes run one at a time under its lease (the next
  // one, which a push starts, writes after this one), and a fenced-out pass cannot record the
  // intent that must precede the call.
  static bool ChecksHeadFirst(ActionKind kind) {
    switch (decide::ClassOf(kind)) {
      case decide::ActionClass::kReview:
      case decide::ActionClass::kClose:
      case decide::ActionClass::kLabel:
        return true;
      default:
        return false;
    }
  }
  static bool IsClose(ActionKind kind) {
    return decide::ClassOf(kind) == decide::ActionClass::kClose;
  }
  static bool IsClose(std::string_view kind_name) {
    auto kind = decide::ParseActionKind(kind_name);
    return kind && IsClose(*kind);
  }

  bool CallAndRecord(ActionReport& report, ExecResult& out) {
    const PlannedAction& a = report.action;
    if (ChecksHeadFirst(a.kind)) {
      auto pr = github_.GetPullRequest(target_.call, target_.repo, target_.number);
      if (!pr.ok()) {
        // The call has not been made: `failed` is the truth, whatever the read's error, and
        // nothing after it runs (a merge must not follow an approval that was not given).
        const GitHubError& e = pr.error();
        out.stop = e.kind == GitHubErrorKind::kRateLimited
                       ? ToPassOutcome(e)
                       : PassOutcome::Transient("head check before the call: " + e.ToString());
        Record(report, out, ActionState::kFailed, "head check before the call: " + e.ToString(),
               e.kind == GitHubErrorKind::kRateLimited ? ActionResult::kRateLimited
                                                       : ActionResult::kFailed);
        return false;
      }
      if (pr->head_sha != a.head_sha) {
        // Not called, so `failed` (retryable) rather than the final `superseded`: if this read
        // lagged behind GitHub, the fresh pass plans the same key again and it may run. The
        // head seen here ends the plan's occurrence: if it comes back, that is a new one.
        NoteHead(*pr);
        out.superseded = true;
        Record(report, out, ActionState::kFailed,
               "not called: the head moved to " + ShortSha(pr->head_sha) + " before the call",
               ActionResult::kSuperseded);
        return false;
      }
      if (IsClose(a.kind) && pr->state != "open") {
        return Record(report, out, ActionState::kFailed,
                      pr->merged ? "already merged" : "already closed (not by gatehouse)",
                      ActionResult::kFailed);
      }
      if (pr->state != "open") {
        // Closed or merged between the pass's read and this call: no call on a PR that is no
        // longer open (no approval, no label, no summary for a state it is no longer in).
        // `failed`, so that a reopened PR is decided again; the rest of the plan was made for
        // an open PR, so it stops, and a fresh pass looks at what it is now.
        out.superseded = true;
        Record(report, out, ActionState::kFailed,
               std::string("not called: the pull request was ") +
                   (pr->merged ? "merged" : "closed") + " before the call",
               ActionResult::kSuperseded);
        return false;
      }
    }
    GitHubResult<std::string> call = CallAction(store_, github_, clock_, target_, fence_, a);
    if (options_.after_call) options_.after_call(a);
    if (call.ok()) {
      return Record(report, out, ActionState::kDone, *call, ActionResult::kDone);
    }
    const GitHubError& e = call.error();
    if (IsSuperseded(e)) {
      // 409/405/422 usually mean the head moved, but also "not mergeable yet", branch
      // protection, a label name GitHub refuses. Only a moved (or closed) head supersedes the
      // plan; otherwise the action failed on this head and the rest of the plan goes on.
      auto pr = github_.GetPullRequest(target_.call, target_.repo, target_.number);
      if (!pr.ok()) {
        // GitHub refused the call, so nothing happened: `failed` (retryable), not the final
        // `superseded` on a guess; the pass stops with the read's error and retries.
        const GitHubError& re = pr.error();
        out.stop = re.kind == GitHubErrorKind::kRateLimited
                       ? ToPassOutcome(re)
                       : PassOutcome::Transient("re-reading the PR: " + re.ToString());
        Record(report, out, ActionState::kFailed,
               e.ToString() + " (could not tell whether the head moved: " + re.ToString() + ")",
               ActionResult::kFailed);
        return false;
      }
      if (pr->head_sha == a.head_sha && pr->state == "open") {
        return Record(report, out, ActionState::kFailed, e.ToString() + " (the head did not move)",
                      ActionResult::kFailed);
      }
      out.superseded = true;
      if (pr->head_sha == a.head_sha) {
        // Closed (or merged) on the same head: nothing happened, and a PR reopened on this head
        // must be decided again, so `failed` rather than the final `superseded`.
        Record(report, out, ActionState::kFailed,
               e.ToString() + " (the pull request is " + (pr->merged ? "merged" : "closed") + ")",
               ActionResult::kSuperseded);
        return false;
      }
      // The head moved: superseded for this occurrence. The head seen here starts the next one,
      // so the plan's head, should it come back, is decided afresh. If that cannot be recorded,
      // `failed` keeps the key retryable instead.
      if (!NoteHead(*pr)) {
        Record(report, out, ActionState::kFailed,
               e.ToString() + " (the head moved; could not record the new head)",
               ActionResult::kSuperseded);
        return false;
      }
      Record(report, out, ActionState::kSuperseded, e.ToString(), ActionResult::kSuperseded);
      return false;
    }
    switch (e.kind) {
      case GitHubErrorKind::kRateLimited:
        // The call did not happen: `failed` lets the next pass retry it without reconciling.
        out.stop = ToPassOutcome(e);
        Record(report, out, ActionState::kFailed, e.ToString(), ActionResult::kRateLimited);
        return false;
      case GitHubErrorKind::kTransient:
        // It may have taken effect: no outcome, the next holder reconciles.
        report.result = ActionResult::kUnknown;
        report.detail = e.ToString();
        out.stop = ToPassOutcome(e);
        return false;
      default:
        return Record(report, out, ActionState::kFailed, e.ToString(), ActionResult::kFailed);
    }
  }

  // Records the outcome of report's intent. When the ledger refuses (fence lost, store down)
  // the intent stays open for the next holder to reconcile: the action becomes kUnknown and
  // the plan stops. Returns whether the plan may go on.
  bool Record(ActionReport& report, ExecResult& out, ActionState state, std::string result,
              ActionResult on_success) {
    Status s = store_.ledger().RecordOutcome(report.ledger_id, fence_, state, result, clock_.Now());
    report.detail = std::move(result);
    if (!s.ok()) {
      report.result = ActionResult::kUnknown;
      report.detail += "; outcome not recorded: " + s.ToString();
      out.stop = PassOutcome::Transient(report.detail);
      return false;
    }
    report.result = on_success;
    return true;
  }

  // Records the head a read inside the lease showed (act/head_occurrence.h): a head other than
  // the plan's ends the plan's occurrence. False when it could not be recorded.
  bool NoteHead(const PullRequest& pr) {
    if (!options_.note_heads) return true;
    // A lagging re-read records nothing (ObserveHead's rules); that is not a failure.
    auto seen = ObserveHead(store_, target_.subject, fence_, pr, std::nullopt, clock_.Now());
    if (!seen.ok()) note_error_ = seen.status().ToString();
    return seen.ok();
  }
  GitHubError NoteHeadError() const {
    // Not GitHub's fault, but the intent must stay open and the pass retry: transient.
    return GitHubError{GitHubErrorKind::kTransient, 0, {}, "recording the head: " + note_error_};
  }

  Store& store_;
  GitHub& github_;
  const Clock& clock_;
  const Target& target_;
  const int64_t fence_;
  const ExecutorOptions& options_;
  Time intent_at_{};        // created_at of the open intent being reconciled
  std::string note_error_;  // why the last NoteHead failed
};

}  // namespace

std::string_view ActionResultName(ActionReport::Result r) {
  switch (r) {
    case ActionResult::kDone:
      return "done";
    case ActionResult::kAlreadyDone:
      return "already_done";
    case ActionResult::kReconciled:
      return "reconciled";
    case ActionResult::kSuperseded:
      return "superseded";
    case ActionResult::kFailed:
      return "failed";
    case ActionResult::kRateLimited:
      return "rate_limited";
    case ActionResult::kUnknown:
      return "unknown";
    case ActionResult::kNotRun:
      return "not_run";
  }
  return "unknown";
}

ExecResult Execute(Store& store, GitHub& github, const Clock& clock, const Target& target,
                   int64_t fence, const decide::Plan& plan, const ExecutorOptions& options) {
  return PlanRun(store, github, clock, target, fence, options).Run(plan);
}

}  // namespace gatehouse::act
