#include "act/pass_decision.h"

#include <iterator>
#include <utility>

#include "decide/generations.h"
#include "decide/invalid_policy.h"

namespace gatehouse::act {

PassDecision DecidePass(const LiveState& live, const PassHistory& history,
                        const decide::PlannerOptions& options, std::string_view policy_path,
                        Time now, const ReviewInputs& reviews) {
  PassDecision d;
  d.now = now;
  d.facts = history.facts;
  d.facts.check_run_detail = LatestCheckRunDetail(live);
  d.facts.summary_comment_id = live.summary.id;
  d.facts.previous_summary = live.summary.body;
  d.facts.previous_summary_digest = live.summary.digest;
  // The clock of "missing required check" and of the mergeability rechecks starts when this
  // occurrence of the head was first read.
  d.snapshot = SnapshotOf(live, now, history.head.occurrence.observed_at, options.app_login);
  if (!live.policy.error.empty()) {
    decide::InvalidPolicyDecision invalid = decide::DecideInvalidPolicy(
        policy_path, live.policy.error, live.pr.head_sha, d.facts, options);
    d.verdict = std::move(invalid.verdict);
    d.plan = std::move(invalid.plan);
  } else {
    const decide::ReviewsPolicy& policy = live.policy.policy.reviews;
    if (reviews.state != nullptr) {
      d.snapshot.role_reviews =
          RoleReviewsAt(policy, d.snapshot, reviews.state->runs, reviews.served_roles);
    }
    d.verdict = decide::Evaluate(live.policy.policy, d.snapshot);
    d.plan = decide::PlanActions(live.policy.policy, d.snapshot, d.verdict, d.facts, options);
    if (reviews.state != nullptr) {
      std::vector<decide::PlannedAction> first =
          PlanReviewActions(policy, d.snapshot, *reviews.state, reviews.reasons, options.app_login,
                            reviews.served_roles, history.facts.head_occurrence,
                            QueueCommandContext{live.policy.policy.merge_queue.enabled,
                                                live.pr.base_ref,
                                                options.AutonomyFor(decide::ActionClass::kMerge)});
      // Report-class actions: `observe` and dry-run skip them like the planner's own.
      const bool observe =
          options.AutonomyFor(decide::ActionClass::kReport) == decide::Autonomy::kObserve;
      if (observe || options.dry_run) {
        for (auto& a : first) {
          d.plan.skipped.push_back(
              decide::SkippedAction{std::move(a), observe ? "observe" : "dry-run"});
        }
      } else {
        d.plan.actions.insert(d.plan.actions.begin(), std::make_move_iterator(first.begin()),
                              std::make_move_iterator(first.end()));
      }
    }
  }
  for (auto& a : d.plan.actions) decide::NumberGeneration(a, history.ledger);
  for (auto& s : d.plan.skipped) decide::NumberGeneration(s.action, history.ledger);
  return d;
}

}  // namespace gatehouse::act
