// When the pass asks for another pass of its own PR (decide/recheck.h).
#include "decide/recheck.h"

#include <gtest/gtest.h>

#include <chrono>

namespace gatehouse::decide {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;

const Time kNow = Time(hours(1000));

GateVerdict Waiting(std::initializer_list<const char*> rules) {
  GateVerdict v;
  v.verdict = Verdict::kPending;
  for (const char* r : rules) v.waiting.push_back({r, "waits"});
  return v;
}

GateVerdict Failing() {
  GateVerdict v;
  v.verdict = Verdict::kFail;
  v.blockers.push_back({"required_checks", "ci failing"});
  return v;
}

TEST(MergeabilityRecheckAfterTest, ThreeSecondsThenAQuarterOfTheHeadsAge) {
  const GateVerdict v = Waiting({"mergeable"});
  EXPECT_EQ(MergeabilityRecheckAfter(v, std::nullopt, seconds(0)), seconds(3));
  EXPECT_EQ(MergeabilityRecheckAfter(v, std::nullopt, seconds(11)), seconds(3));
  EXPECT_EQ(MergeabilityRecheckAfter(v, std::nullopt, seconds(40)), seconds(10));
  EXPECT_EQ(MergeabilityRecheckAfter(v, std::nullopt, minutes(9)), seconds(135));
  EXPECT_EQ(MergeabilityRecheckAfter(v, std::nullopt, minutes(10)), std::nullopt)
      << "then the sweep takes over";
}

TEST(MergeabilityRecheckAfterTest, OnlyWhileMergeabilityIsAllTheGateWaitsFor) {
  EXPECT_EQ(MergeabilityRecheckAfter(Waiting({"mergeable"}), true, seconds(1)), std::nullopt)
      << "computed";
  EXPECT_EQ(MergeabilityRecheckAfter(Waiting({"mergeable"}), false, seconds(1)), std::nullopt);
  EXPECT_EQ(MergeabilityRecheckAfter(Waiting({"mergeable", "approvals"}), std::nullopt, seconds(1)),
            std::nullopt);
  EXPECT_EQ(MergeabilityRecheckAfter(Waiting({}), std::nullopt, seconds(1)), std::nullopt);
  GateVerdict failing = Waiting({"mergeable"});
  failing.verdict = Verdict::kFail;
  EXPECT_EQ(MergeabilityRecheckAfter(failing, std::nullopt, seconds(1)), std::nullopt);
}

TEST(NextTimedDecisionTest, TheGracePeriodsEndOnAFailingPr) {
  EXPECT_EQ(NextTimedDecision(Failing(), kNow - minutes(10), hours(1), kNow, hours(1), kNow),
            kNow + minutes(50));
  EXPECT_EQ(NextTimedDecision(Failing(), std::nullopt, hours(1), kNow, hours(1), kNow),
            std::nullopt)
      << "no grace period runs";
  GateVerdict pending = Waiting({"approvals"});
  EXPECT_EQ(NextTimedDecision(pending, kNow - minutes(10), hours(1), kNow, hours(1), kNow),
            std::nullopt)
      << "only a failing PR is closed";
  EXPECT_EQ(NextTimedDecision(Failing(), kNow - hours(2), hours(1), kNow, hours(1), kNow),
            std::nullopt)
      << "over already: this pass decided it";
}

TEST(NextTimedDecisionTest, ARequiredCheckThatHasNotReportedAndTheEarlierOfTwo) {
  const GateVerdict checks = Waiting({"required_checks"});
  EXPECT_EQ(NextTimedDecision(checks, std::nullopt, hours(1), kNow - minutes(5), minutes(30), kNow),
            kNow + minutes(25));
  EXPECT_EQ(
      NextTimedDecision(checks, std::nullopt, hours(1), kNow - minutes(30), minutes(30), kNow),
      std::nullopt)
      << "due now: decided by this pass";
  GateVerdict both = Failing();
  both.waiting.push_back({"required_checks", "lint has not reported yet"});
  EXPECT_EQ(
      NextTimedDecision(both, kNow - minutes(50), hours(1), kNow - minutes(5), minutes(30), kNow),
      kNow + minutes(10));
  EXPECT_EQ(
      NextTimedDecision(both, kNow - minutes(10), hours(1), kNow - minutes(5), minutes(30), kNow),
      kNow + minutes(25));
}

RecheckFacts Facts() {
  RecheckFacts f;
  f.head_first_seen = kNow - seconds(8);
  f.close_grace = hours(1);
  f.missing_after = minutes(30);
  f.now = kNow;
  return f;
}

TEST(PlanRecheckTest, AMergeabilityRecheckComesFirst) {
  auto r = PlanRecheck(Waiting({"mergeable"}), Facts());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->reason, "mergeable-unknown");
  EXPECT_EQ(r->after, seconds(3));
}

TEST(PlanRecheckTest, ATimerIsDueJustAfterTheInstant) {
  RecheckFacts f = Facts();
  f.pending_closure_since = kNow - minutes(59);
  auto r = PlanRecheck(Failing(), f);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->reason, "timer");
  EXPECT_EQ(r->after, minutes(1) + milliseconds(100));
  // A mergeability recheck past its ten minutes leaves the timers to decide.
  RecheckFacts late = Facts();
  late.head_first_seen = kNow - minutes(11);
  late.missing_after = minutes(12);
  r = PlanRecheck(Waiting({"mergeable"}), late);
  EXPECT_FALSE(r) << "no required check waits";
  GateVerdict v = Waiting({"required_checks"});
  r = PlanRecheck(v, late);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->reason, "timer");
  EXPECT_EQ(r->after, minutes(1) + milliseconds(100));
}

// A merge GitHub refused on an unmoved head used to be retried by the webhooks of gatehouse's
// own check run and approval; those start no pass now, so the pass retries it itself, a few
// times, later each time.
TEST(PlanRecheckTest, ARefusedMergeIsRetriedAFewTimes) {
  GateVerdict pass;
  pass.verdict = Verdict::kPass;
  RecheckFacts f = Facts();
  EXPECT_FALSE(PlanRecheck(pass, f)) << "a merge that was not refused needs no retry";
  for (int attempts = 1; attempts <= kRefusedRetries; ++attempts) {
    f.retry_attempts = attempts;
    auto r = PlanRecheck(pass, f);
    ASSERT_TRUE(r) << attempts;
    EXPECT_EQ(r->reason, "timer");
    EXPECT_EQ(r->after, kRefusedRetry * attempts);
  }
  f.retry_attempts = kRefusedRetries + 1;
  EXPECT_FALSE(PlanRecheck(pass, f)) << "then the sweep takes over";
  // An earlier timed decision still comes first.
  RecheckFacts both = Facts();
  both.retry_attempts = 3;
  both.missing_after = minutes(12);
  both.head_first_seen = kNow - minutes(12) + seconds(5);
  auto r = PlanRecheck(Waiting({"required_checks"}), both);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->after, seconds(5) + milliseconds(100));
}

TEST(PlanRecheckTest, NothingForAClosedPrASupersededPassOrAnInvalidPolicysTimers) {
  RecheckFacts closed = Facts();
  closed.open = false;
  EXPECT_FALSE(PlanRecheck(Waiting({"mergeable"}), closed));
  RecheckFacts superseded = Facts();
  superseded.superseded = true;
  EXPECT_FALSE(PlanRecheck(Waiting({"mergeable"}), superseded));
  RecheckFacts invalid = Facts();
  invalid.policy_valid = false;
  invalid.pending_closure_since = kNow - minutes(59);
  EXPECT_FALSE(PlanRecheck(Failing(), invalid));
  EXPECT_TRUE(PlanRecheck(Waiting({"mergeable"}), invalid)) << "the recheck does not need it";
  EXPECT_FALSE(PlanRecheck(Waiting({"approvals"}), Facts())) << "nothing time-based";
}

}  // namespace
}  // namespace gatehouse::decide
