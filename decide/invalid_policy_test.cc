// An invalid policy file (decide/invalid_policy.h): a failing check run that lists the errors,
// under the server's report autonomy and dry-run, and nothing else.
#include "decide/invalid_policy.h"

#include <gtest/gtest.h>

#include <string>

#include "decide/digest.h"

namespace gatehouse::decide {
namespace {

constexpr char kErrors[] = ".github/gatehouse.yml:4: rules.approvals.min: expected an integer";

PlannerOptions AutoOptions() {
  PlannerOptions o;
  o.autonomy = Autonomy::kAuto;
  return o;
}

TEST(DecideInvalidPolicyTest, TheVerdictFailsOnThePolicyAndTheCheckRunSaysWhy) {
  PlannerInput facts;
  facts.head_occurrence = 3;
  const InvalidPolicyDecision d =
      DecideInvalidPolicy(".github/gatehouse.yml", kErrors, "abc", facts, AutoOptions());
  EXPECT_EQ(d.verdict.verdict, Verdict::kFail);
  EXPECT_EQ(d.verdict.score, 0);
  ASSERT_EQ(d.verdict.blockers.size(), 1u);
  EXPECT_EQ(d.verdict.blockers[0], (Finding{"policy", kErrors}));
  EXPECT_TRUE(d.verdict.waiting.empty());
  EXPECT_TRUE(d.verdict.warnings.empty());
  EXPECT_FALSE(d.verdict.close_exempt);

  ASSERT_EQ(d.plan.actions.size(), 1u);
  EXPECT_TRUE(d.plan.skipped.empty());
  const PlannedAction& a = d.plan.actions[0];
  EXPECT_EQ(a.kind, ActionKind::kCheckRun);
  EXPECT_EQ(a.head_sha, "abc");
  EXPECT_EQ(a.head_occurrence, 3);
  EXPECT_EQ(a.why, "invalid policy file");
  EXPECT_EQ(a.check_status, "completed");
  EXPECT_EQ(a.check_conclusion, "failure");
  EXPECT_EQ(a.check_title, "gatehouse: .github/gatehouse.yml is invalid");
  EXPECT_EQ(a.check_summary, std::string("```\n") + kErrors + "\n```");
  EXPECT_EQ(a.detail, "gatehouse:invalid:" + StableDigest(kErrors));
  EXPECT_EQ(a.Key(), "check_run|abc@3|gatehouse:invalid:" + StableDigest(kErrors));
}

TEST(DecideInvalidPolicyTest, TheReportClassAutonomyDecidesWhetherItIsWritten) {
  PlannerOptions suggest;
  suggest.autonomy = Autonomy::kSuggest;
  EXPECT_EQ(DecideInvalidPolicy("p", kErrors, "abc", {}, suggest).plan.actions.size(), 1u);

  PlannerOptions observe;  // the default
  auto d = DecideInvalidPolicy("p", kErrors, "abc", {}, observe);
  EXPECT_TRUE(d.plan.actions.empty());
  ASSERT_EQ(d.plan.skipped.size(), 1u);
  EXPECT_EQ(d.plan.skipped[0].reason, "observe");

  // A per-class override of the report class wins over the server-wide level.
  PlannerOptions report_only = observe;
  report_only.class_autonomy[ActionClass::kReport] = Autonomy::kAuto;
  EXPECT_EQ(DecideInvalidPolicy("p", kErrors, "abc", {}, report_only).plan.actions.size(), 1u);
  PlannerOptions report_observes = AutoOptions();
  report_observes.class_autonomy[ActionClass::kReport] = Autonomy::kObserve;
  d = DecideInvalidPolicy("p", kErrors, "abc", {}, report_observes);
  ASSERT_EQ(d.plan.skipped.size(), 1u);
  EXPECT_EQ(d.plan.skipped[0].reason, "observe");
  // Other classes do not matter: only the report class acts here.
  PlannerOptions label_auto = observe;
  label_auto.class_autonomy[ActionClass::kLabel] = Autonomy::kAuto;
  EXPECT_TRUE(DecideInvalidPolicy("p", kErrors, "abc", {}, label_auto).plan.actions.empty());
}

TEST(DecideInvalidPolicyTest, DryRunAndAnUnchangedCheckRunSkipIt) {
  PlannerOptions dry = AutoOptions();
  dry.dry_run = true;
  auto d = DecideInvalidPolicy("p", kErrors, "abc", {}, dry);
  ASSERT_EQ(d.plan.skipped.size(), 1u);
  EXPECT_EQ(d.plan.skipped[0].reason, "dry-run");
  EXPECT_EQ(d.plan.skipped[0].action.detail, "gatehouse:invalid:" + StableDigest(kErrors))
      << "planned in full";

  PlannerInput said;
  said.check_run_detail = "gatehouse:invalid:" + StableDigest(kErrors);
  d = DecideInvalidPolicy("p", kErrors, "abc", said, dry);
  ASSERT_EQ(d.plan.skipped.size(), 1u);
  EXPECT_EQ(d.plan.skipped[0].reason, "already in that state") << "before dry-run";
  // Other errors are another check run.
  d = DecideInvalidPolicy("p", "another error", "abc", said, AutoOptions());
  EXPECT_EQ(d.plan.actions.size(), 1u);
}

}  // namespace
}  // namespace gatehouse::decide
