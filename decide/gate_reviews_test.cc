// The gate's `reviews` rule (decide/gate.h), over PrSnapshot::role_reviews.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "decide/gate.h"

namespace gatehouse::decide {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// Everything but reviews off, so the score is the reviews rule's alone.
Policy ReviewsOnly() {
  Policy p;
  p.required_checks.mode = p.approvals.mode = p.mergeable.mode = p.draft.mode = RuleMode::kOff;
  p.labels.mode = p.size.mode = p.protected_paths.mode = RuleMode::kOff;
  return p;
}

PrSnapshot OpenPr(std::vector<RoleReview> reviews) {
  PrSnapshot pr;
  pr.state = "open";
  pr.head_sha = "head1";
  pr.role_reviews = std::move(reviews);
  return pr;
}

RoleReview Role(std::string role, bool required, std::string state,
                std::optional<ReviewResult> result = std::nullopt, std::string reason = "") {
  RoleReview r;
  r.role = std::move(role);
  r.required = required;
  r.state = std::move(state);
  r.result = std::move(result);
  r.reviewer = "gpt";
  r.reason = std::move(reason);
  return r;
}

ReviewResult Result(ReviewVerdict verdict, int blockers, int warnings = 0) {
  ReviewResult r;
  r.verdict = verdict;
  r.summary = "looked";
  for (int i = 0; i < blockers; ++i) {
    r.findings.push_back({"src/a.cc", i + 1, Severity::kBlocking, "leak"});
  }
  for (int i = 0; i < warnings; ++i) {
    r.findings.push_back({"src/b.cc", i + 1, Severity::kWarning, "style"});
  }
  return r;
}

TEST(GateReviewsTest, NoRoleReviewsLeavesTheRuleOff) {
  const GateVerdict v = Evaluate(ReviewsOnly(), OpenPr({}));
  EXPECT_EQ(v.verdict, Verdict::kPass);
  EXPECT_EQ(v.score, 100);
  EXPECT_THAT(v.warnings, IsEmpty());
}

TEST(GateReviewsTest, RequiredRoleWaitsUntilItsReviewIsPosted) {
  for (const char* state : {"missing", "queued", "running", "finished", "cancelled"}) {
    const GateVerdict v = Evaluate(
        ReviewsOnly(), OpenPr({Role("security", true, state, Result(ReviewVerdict::kApprove, 0))}));
    EXPECT_EQ(v.verdict, Verdict::kPending) << state;
    EXPECT_EQ(v.score, 0) << state;
    ASSERT_EQ(v.waiting.size(), 1u) << state;
    EXPECT_EQ(v.waiting[0].rule, "reviews");
  }
  const GateVerdict v =
      Evaluate(ReviewsOnly(),
               OpenPr({Role("security", true, "missing", {}, "no reviewer serves this role")}));
  EXPECT_THAT(v.waiting, ElementsAre(Finding{
                             "reviews", "security: no review yet: no reviewer serves this role"}));
  const GateVerdict q = Evaluate(ReviewsOnly(), OpenPr({Role("security", true, "queued")}));
  EXPECT_THAT(q.waiting, ElementsAre(Finding{"reviews", "security: review queued (gpt)"}));
}

TEST(GateReviewsTest, RequiredRoleApprovedOrCommentedPasses) {
  const GateVerdict v = Evaluate(
      ReviewsOnly(), OpenPr({Role("security", true, "done", Result(ReviewVerdict::kApprove, 0)),
                             Role("style", true, "done", Result(ReviewVerdict::kComment, 0, 3))}));
  EXPECT_EQ(v.verdict, Verdict::kPass);
  EXPECT_EQ(v.score, 100);
  EXPECT_THAT(v.blockers, IsEmpty());
  EXPECT_THAT(v.warnings, IsEmpty());
}

TEST(GateReviewsTest, RequestChangesOrABlockingFindingBlocks) {
  const GateVerdict v =
      Evaluate(ReviewsOnly(),
               OpenPr({Role("security", true, "done", Result(ReviewVerdict::kRequestChanges, 1)),
                       Role("secrets", true, "done", Result(ReviewVerdict::kComment, 2)),
                       Role("style", true, "done", Result(ReviewVerdict::kRequestChanges, 0)),
                       Role("docs", true, "done", Result(ReviewVerdict::kApprove, 0))}));
  EXPECT_EQ(v.verdict, Verdict::kFail);
  EXPECT_EQ(v.score, 25);  // one of four required roles passed
  EXPECT_THAT(v.blockers, ElementsAre(Finding{"reviews", "security: request_changes, 1 blocker"},
                                      Finding{"reviews", "secrets: comment, 2 blockers"},
                                      Finding{"reviews", "style: request_changes"}));
}

TEST(GateReviewsTest, ADeadRunBlocksWithItsReason) {
  const GateVerdict v = Evaluate(
      ReviewsOnly(), OpenPr({Role("security", true, "dead", {}, "availability budget 6h spent")}));
  EXPECT_EQ(v.verdict, Verdict::kFail);
  EXPECT_THAT(v.blockers,
              ElementsAre(Finding{"reviews",
                                  "security: review failed (gpt): availability budget 6h spent"}));
}

TEST(GateReviewsTest, AdvisoryRolesOnlyWarnAndDoNotScore) {
  const GateVerdict v =
      Evaluate(ReviewsOnly(),
               OpenPr({Role("style", false, "done", Result(ReviewVerdict::kRequestChanges, 1)),
                       Role("docs", false, "dead", {}, "bad JSON"), Role("perf", false, "queued"),
                       Role("lint", false, "done", Result(ReviewVerdict::kApprove, 0))}));
  EXPECT_EQ(v.verdict, Verdict::kPass);
  EXPECT_EQ(v.score, 100);
  EXPECT_THAT(v.blockers, IsEmpty());
  EXPECT_THAT(v.waiting, IsEmpty());
  EXPECT_THAT(v.warnings, ElementsAre(Finding{"reviews", "style: request_changes, 1 blocker"},
                                      Finding{"reviews", "docs: review failed (gpt): bad JSON"},
                                      Finding{"reviews", "perf: review queued (gpt)"}));
}

TEST(GateReviewsTest, ReviewsAreRenormalizedWithTheOtherRules) {
  Policy p = ReviewsOnly();
  p.approvals.mode = RuleMode::kBlock;  // weight 25, min 1
  PrSnapshot pr = OpenPr({Role("security", true, "running")});
  pr.reviews = {Review{"alice", "APPROVED", "head1", {}}};
  // approvals 25/25, reviews 0/15: 25 / 40 = 62.5
  const GateVerdict v = Evaluate(p, pr);
  EXPECT_EQ(v.score, 62);
  EXPECT_EQ(v.verdict, Verdict::kPending);
  // Only advisory roles: the reviews rule does not score.
  pr.role_reviews = {Role("style", false, "running")};
  EXPECT_EQ(Evaluate(p, pr).score, 100);
}

}  // namespace
}  // namespace gatehouse::decide
