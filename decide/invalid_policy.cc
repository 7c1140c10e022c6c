#include "decide/invalid_policy.h"

#include <string>
#include <utility>

#include "decide/digest.h"

namespace gatehouse::decide {

InvalidPolicyDecision DecideInvalidPolicy(std::string_view policy_path, std::string_view errors,
                                          std::string_view head_sha, const PlannerInput& facts,
                                          const PlannerOptions& options) {
  InvalidPolicyDecision d;
  d.verdict.verdict = Verdict::kFail;
  d.verdict.score = 0;
  d.verdict.blockers.push_back({"policy", std::string(errors)});

  PlannedAction check;
  check.kind = ActionKind::kCheckRun;
  check.head_sha = std::string(head_sha);
  check.head_occurrence = facts.head_occurrence;
  check.why = "invalid policy file";
  check.check_status = "completed";
  check.check_conclusion = "failure";
  check.check_title = "gatehouse: " + std::string(policy_path) + " is invalid";
  check.check_summary = "```\n" + std::string(errors) + "\n```";
  check.detail = std::string(kCheckRunName) + ":invalid:" + StableDigest(errors);
  if (facts.check_run_detail == check.detail) {
    d.plan.skipped.push_back({std::move(check), "already in that state"});
  } else if (options.dry_run) {
    d.plan.skipped.push_back({std::move(check), "dry-run"});
  } else if (options.AutonomyFor(ActionClass::kReport) == Autonomy::kObserve) {
    d.plan.skipped.push_back({std::move(check), "observe"});
  } else {
    d.plan.actions.push_back(std::move(check));
  }
  return d;
}

}  // namespace gatehouse::decide
