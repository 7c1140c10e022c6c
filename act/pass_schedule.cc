#include "act/pass_schedule.h"

#include <algorithm>
#include <span>

#include "base/log.h"
#include "decide/reasons.h"
#include "decide/recheck.h"
#include "decide/summary_record.h"

namespace gatehouse::act {
namespace {

Status Signal1(Store& store, const Clock& clock, const std::string& subject,
               std::string_view reason, Duration delay) {
  Signal again{subject, std::string(reason), delay};
  return store.work().Enqueue(std::span<const Signal>(&again, 1), clock.Now(), Durability::kRecoverable);
}

// `result` put `label` on the PR now (called, or found done by reconciliation).
bool AppliedLabel(const ExecResult& result, const std::string& label) {
  for (const ActionReport& r : result.actions) {
    if (r.action.kind != decide::ActionKind::kLabel || r.action.label != label) continue;
    if (r.result == ActionReport::Result::kDone || r.result == ActionReport::Result::kReconciled) {
      return true;
    }
  }
  return false;
}

// The attempts of `result`'s merge when GitHub refused it on an unmoved, open head (the executor
// records that as failed, not superseded), or of its failed summary-comment edit; 0 otherwise
// (decide::RecheckFacts::retry_attempts).
int RetryAttempts(const ExecResult& result) {
  int attempts = 0;
  for (const ActionReport& r : result.actions) {
    if (r.result != ActionReport::Result::kFailed) continue;
    const bool merge = r.action.kind == decide::ActionKind::kMerge;
    const bool summary_edit = r.action.kind == decide::ActionKind::kComment &&
                              r.action.comment_id.has_value() &&
                              r.action.detail.starts_with(decide::kSummaryDetailPrefix);
    if (merge || summary_edit) attempts = std::max(attempts, r.attempts);
  }
  return attempts;
}

}  // namespace

PassOutcome ReadAgainSoon(Store& store, const Clock& clock, const std::string& subject,
                          const PullRequest& pr, const HeadOccurrence& latest, PassAudit& audit) {
  // GitHub answered from a replica that has not seen what an earlier read already showed:
  // deciding on it would undo decisions made on the newer state.
  audit.Add("error", pr.head_sha,
            "the read of the pull request (head " + pr.head_sha.substr(0, 12) + ", updated " +
                pr.updated_at + ") is older than head " + latest.head_sha.substr(0, 12) +
                " already decided on; reading again");
  audit.Flush();
  if (Status st =
          Signal1(store, clock, subject, decide::kReasonLaggingRead, decide::kLaggingReadRetry);
      !st.ok()) {
    return PassOutcome::Transient("could not signal a fresh pass: " + st.ToString());
  }
  return PassOutcome::Done();
}

PassOutcome Reschedule(Store& store, const Clock& clock, const std::string& subject,
                       const ExecResult& result, const PassDecision& decision,
                       const LiveState& live, const decide::PlannerOptions& options) {
  if (result.superseded) {
    // The head moved under the plan: decide again on the new head, as soon as this pass is
    // recorded.
    if (Status s = Signal1(store, clock, subject, decide::kReasonSuperseded, Duration(0));
        !s.ok()) {
      return PassOutcome::Transient("could not signal a fresh pass: " + s.ToString());
    }
  }
  if (result.stop) return *result.stop;
  decide::RecheckFacts facts;
  facts.open = live.pr.state == "open";
  facts.superseded = result.superseded;
  facts.policy_valid = live.policy.error.empty();
  facts.mergeable = live.pr.mergeable;
  facts.head_first_seen = *decision.snapshot.head_pushed_at;
  facts.pending_closure_since = decision.facts.pending_closure_since;
  if (!facts.pending_closure_since && AppliedLabel(result, options.label_pending_closure)) {
    // This pass started the grace period: its clock runs from now (a little after the label's
    // intent, so the close is never early). No webhook is waited for: gatehouse's own
    // `labeled` is not routed (docs/ENGINE.md, "gatehouse's own effects").
    facts.pending_closure_since = clock.Now();
  }
  facts.close_grace = options.close_grace;
  facts.missing_after = live.policy.policy.required_checks.missing_after;
  facts.retry_attempts = RetryAttempts(result);
  facts.now = decision.now;
  if (auto recheck = decide::PlanRecheck(decision.verdict, facts)) {
    if (Status s = Signal1(store, clock, subject, recheck->reason, recheck->after); !s.ok()) {
      Log(LogLevel::kWarn, "pass.recheck").Field("subject", subject).Field("error", s.ToString());
    }
  }
  return PassOutcome::Done();
}

}  // namespace gatehouse::act
