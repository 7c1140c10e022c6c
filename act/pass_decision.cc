#include "act/pass_decision.h"

#include <utility>

#include "decide/generations.h"
#include "decide/invalid_policy.h"

namespace gatehouse::act {

PassDecision DecidePass(const LiveState& live, const PassHistory& history,
                        const decide::PlannerOptions& options, std::string_view policy_path,
                        Time now) {
  PassDecision d;
  d.now = now;
  d.facts = history.facts;
  d.facts.check_run_detail = LatestCheckRunDetail(live);
  if (const IssueComment* summary = SummaryComment(live, options.app_login)) {
    d.facts.summary_comment_id = summary->id;
    d.facts.previous_summary = summary->body;
  }
  // The clock of "missing required check" and of the mergeability rechecks starts when this
  // occurrence of the head was first read.
  d.snapshot = SnapshotOf(live, now, history.head.occurrence.observed_at);
  if (!live.policy.error.empty()) {
    decide::InvalidPolicyDecision invalid = decide::DecideInvalidPolicy(
        policy_path, live.policy.error, live.pr.head_sha, d.facts, options);
    d.verdict = std::move(invalid.verdict);
    d.plan = std::move(invalid.plan);
  } else {
    d.verdict = decide::Evaluate(live.policy.policy, d.snapshot);
    d.plan = decide::PlanActions(live.policy.policy, d.snapshot, d.verdict, d.facts, options);
  }
  for (auto& a : d.plan.actions) decide::NumberGeneration(a, history.ledger);
  for (auto& s : d.plan.skipped) decide::NumberGeneration(s.action, history.ledger);
  return d;
}

}  // namespace gatehouse::act
