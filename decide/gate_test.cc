#include "decide/gate.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace gatehouse::decide {
namespace {

using std::chrono::minutes;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const Time kT0 = FromMicros(1'800'000'000'000'000);
constexpr char kHead[] = "head1";

CheckRun MakeRun(int64_t id, std::string name, std::string status, std::string conclusion = "",
                 std::string app = "github-actions", std::string sha = kHead) {
  return CheckRun{id,
                  std::move(name),
                  std::move(app),
                  std::move(status),
                  std::move(conclusion),
                  std::move(sha)};
}

CheckRun Passed(int64_t id, std::string name) {
  return MakeRun(id, std::move(name), "completed", "success");
}

Review At(std::string user, std::string state, int minute, std::string sha = kHead) {
  return Review{std::move(user), std::move(state), std::move(sha), kT0 + minutes(minute)};
}

// A policy with one required check ("build") and the defaults otherwise.
Policy BasePolicy() {
  Policy p;
  p.required_checks.checks = {{"build", ""}};
  return p;
}

// A PR that passes BasePolicy(): build green, one approval, clean, open, not a draft.
PrSnapshot ReadyPr() {
  PrSnapshot pr;
  pr.number = 12;
  pr.author = "carol";
  pr.author_role = AuthorRole::kContributor;
  pr.state = "open";
  pr.head_sha = kHead;
  pr.base_sha = "base1";
  pr.mergeable = true;
  pr.mergeable_state = "clean";
  pr.changed_files = 2;
  pr.additions = 10;
  pr.deletions = 3;
  pr.changed_paths = {"src/a.cc", "src/a.h"};
  pr.reviews = {At("alice", "APPROVED", 1)};
  pr.check_runs = {Passed(1, "build")};
  pr.head_pushed_at = kT0;
  pr.now = kT0 + minutes(10);
  return pr;
}

std::vector<std::string> Rules(const std::vector<Finding>& findings) {
  std::vector<std::string> out;
  for (const Finding& f : findings) out.push_back(f.rule);
  return out;
}

TEST(GateTest, ReadyPrPassesWithFullScore) {
  const GateVerdict v = Evaluate(BasePolicy(), ReadyPr());
  EXPECT_EQ(v.verdict, Verdict::kPass);
  EXPECT_EQ(v.score, 100);
  EXPECT_THAT(v.blockers, IsEmpty());
  EXPECT_THAT(v.waiting, IsEmpty());
  EXPECT_THAT(v.warnings, IsEmpty());
  EXPECT_EQ(VerdictName(v.verdict), "pass");
}

// --- required checks ---

TEST(GateTest, RunningRequiredCheckIsPending) {
  PrSnapshot pr = ReadyPr();
  pr.check_runs = {MakeRun(1, "build", "in_progress")};
  const GateVerdict v = Evaluate(BasePolicy(), pr);
  EXPECT_EQ(v.verdict, Verdict::kPending);
  EXPECT_THAT(Rules(v.waiting), ElementsAre("required_checks"));
  EXPECT_THAT(v.waiting[0].reason, HasSubstr("build (in_progress)"));
  EXPECT_EQ(v.score, 65);  // 100 - 35 (no check passed)
}

TEST(GateTest, FailingRequiredCheckBlocks) {
  PrSnapshot pr = ReadyPr();
  pr.check_runs = {MakeRun(1, "build", "completed", "timed_out")};
  const GateVerdict v = Evaluate(BasePolicy(), pr);
  EXPECT_EQ(v.verdict, Verdict::kFail);
  ASSERT_THAT(Rules(v.blockers), ElementsAre("required_checks"));
  EXPECT_THAT(v.blockers[0].reason, HasSubstr("build (timed_out)"));
}

TEST(GateTest, FailureWinsOverPending) {
  Policy p = BasePolicy();
  p.required_checks.checks = {{"build", ""}, {"test", ""}};
  PrSnapshot pr = ReadyPr();
  pr.check_runs = {MakeRun(1, "build", "queued"), MakeRun(2, "test", "completed", "failure")};
  const GateVerdict v = Evaluate(p, pr);
  EXPECT_EQ(v.verdict, Verdict::kFail);
  EXPECT_THAT(Rules(v.blockers), ElementsAre("required_checks"));
  EXPECT_THAT(Rules(v.waiting), ElementsAre("required_checks"));
}

TEST(GateTest, MissingCheckWaitsUntilMissingAfterThenBlocks) {
  Policy p = BasePolicy();
  p.required_checks.missing_after = minutes(30);
  PrSnapshot pr = ReadyPr();
  pr.check_runs.clear();

  pr.now = kT0 + minutes(29);
  GateVerdict v = Evaluate(p, pr);
  EXPECT_EQ(v.verdict, Verdict::kPending);
  EXPECT_THAT(v.waiting[0].reason, HasSubstr("has not reported yet"));

  pr.now = kT0 + minutes(30);
  v = Evaluate(p, pr);
  EXPECT_EQ(v.verdict, Verdict::kFail);
  EXPECT_THAT(v.blockers[0].reason, HasSubstr("is missing"));
  EXPECT_THAT(v.blockers[0].reason, HasSubstr("30m"));
}

TEST(GateTest, MissingTimerPrefersThePatternsFirstSeenTime) {
  PrSnapshot pr = ReadyPr();
  pr.check_runs.clear();
  pr.head_pushed_at = kT0;
  pr.required_check_first_seen["build"] = kT0 + minutes(20);
  pr.now = kT0 + minutes(40);  // 40m after the push, only 20m after first seen
  EXPECT_EQ(Evaluate(BasePolicy(), pr).verdict, Verdict::kPending);
  pr.now = kT0 + minutes(50);
  EXPECT_EQ(Evaluate(BasePolicy(), pr).verdict, Verdict::kFail);
}

TEST(GateTest, MissingCheckWithoutAnyReferenceTimeStaysPending) {
  PrSnapshot pr = ReadyPr();
  pr.check_runs.clear();
  pr.head_pushed_at.reset();
  pr.now = kT0 + minutes(24 * 60);
  EXPECT_EQ(Evaluate(BasePolicy(), pr).verdict, Verdict::kPending);
}

TEST(GateTest, ChecksOnAnotherShaDoNotCount) {
  PrSnapshot pr = ReadyPr();
  pr.check_runs = {MakeRun(1, "build", "completed", "success", "github-actions", "old-head")};
  const GateVerdict v = Evaluate(BasePolicy(), pr);
  EXPECT_EQ(v.verdict, Verdict::kPending);
  EXPECT_THAT(v.waiting[0].reason, HasSubstr("has not reported yet"));
}

TEST(GateTest, LatestRerunWins) {
  PrSnapshot pr = ReadyPr();
  pr.check_runs = {MakeRun(2, "build", "completed", "success"),
                   MakeRun(1, "build", "completed", "failure")};
  EXPECT_EQ(Evaluate(BasePolicy(), pr).verdict, Verdict::kPass);
  pr.check_runs.push_back(MakeRun(3, "build", "completed", "failure"));
  EXPECT_EQ(Evaluate(BasePolicy(), pr).verdict, Verdict::kFail);
}

TEST(GateTest, GlobPatternRequiresEveryMatchingCheck) {
  Policy p = BasePolicy();
  p.required_checks.checks = {{"test/*", ""}};
  PrSnapshot pr = ReadyPr();
  pr.check_runs = {Passed(1, "test/unit"), Passed(2, "test/integration"), Passed(3, "other")};
  EXPECT_EQ(Evaluate(p, pr).verdict, Verdict::kPass);

  pr.check_runs.push_back(MakeRun(4, "test/e2e", "completed", "cancelled"));
  const GateVerdict v = Evaluate(p, pr);
  EXPECT_EQ(v.verdict, Verdict::kFail);
  EXPECT_THAT(v.blockers[0].reason, HasSubstr("test/e2e (cancelled)"));
}

TEST(GateTest, CommitStatusesSatisfyChecksAndLatestStatusWins) {
  PrSnapshot pr = ReadyPr();
  pr.check_runs.clear();
  pr.statuses = {{1, "build", "pending"}, {2, "build", "success"}};
  EXPECT_EQ(Evaluate(BasePolicy(), pr).verdict, Verdict::kPass);
  pr.statuses.push_back({3, "build", "error"});
  EXPECT_EQ(Evaluate(BasePolicy(), pr).verdict, Verdict::kFail);
}

TEST(GateTest, AppRestrictedCheckIgnoresOtherApps) {
  Policy p = BasePolicy();
  p.required_checks.checks = {{"lint", "github-actions"}};
  PrSnapshot pr = ReadyPr();
  pr.check_runs = {MakeRun(1, "lint", "completed", "success", "impostor-app")};
  pr.statuses = {{1, "lint", "success"}};
  EXPECT_EQ(Evaluate(p, pr).verdict, Verdict::kPending);
  pr.check_runs.push_back(Passed(2, "lint"));
  EXPECT_EQ(Evaluate(p, pr).verdict, Verdict::kPass);
}

TEST(GateTest, AdvisoryChecksOnlyWarn) {
  Policy p = BasePolicy();
  p.required_checks.mode = RuleMode::kAdvisory;
  PrSnapshot pr = ReadyPr();
  pr.check_runs = {MakeRun(1, "build", "completed", "failure")};
  const GateVerdict v = Evaluate(p, pr);
  EXPECT_EQ(v.verdict, Verdict::kPass);
  EXPECT_THAT(Rules(v.warnings), ElementsAre("required_checks"));
  EXPECT_EQ(v.score, 65);
}

// --- approvals ---

TEST(GateTest, TooFewApprovalsWaits) {
  Policy p = BasePolicy();
  p.approvals.min = 2;
  const GateVerdict v = Evaluate(p, ReadyPr());
  EXPECT_EQ(v.verdict, Verdict::kPending);
  ASSERT_THAT(Rules(v.waiting), ElementsAre("approvals"));
  EXPECT_EQ(v.waiting[0].reason, "needs 2 approvals, has 1");
  EXPECT_EQ(v.score, 87);  // 100 - 25 * 1/2 = 87.5, rounded down
}

TEST(GateTest, LatestReviewPerUserWins) {
  PrSnapshot pr = ReadyPr();
  pr.reviews = {At("bob", "CHANGES_REQUESTED", 1), At("bob", "APPROVED", 5)};
  EXPECT_EQ(Evaluate(BasePolicy(), pr).verdict, Verdict::kPass);

  // Order in the list does not matter, submitted_at does.
  pr.reviews = {At("bob", "APPROVED", 1), At("bob", "CHANGES_REQUESTED", 5)};
  GateVerdict v = Evaluate(BasePolicy(), pr);
  EXPECT_EQ(v.verdict, Verdict::kFail);
  EXPECT_EQ(v.blockers[0], (Finding{"approvals", "changes requested by bob"}));

  // A later comment does not withdraw the change request; a dismissal does.
  pr.reviews.push_back(At("bob", "COMMENTED", 9));
  EXPECT_EQ(Evaluate(BasePolicy(), pr).verdict, Verdict::kFail);
  pr.reviews.push_back(At("bob", "DISMISSED", 10));
  pr.reviews.push_back(At("alice", "APPROVED", 11));
  EXPECT_EQ(Evaluate(BasePolicy(), pr).verdict, Verdict::kPass);
}

TEST(GateTest, OutstandingChangeRequestBlocksDespiteOtherApprovals) {
  PrSnapshot pr = ReadyPr();
  pr.reviews = {At("alice", "APPROVED", 1), At("dan", "APPROVED", 2),
                At("bob", "CHANGES_REQUESTED", 3)};
  GateVerdict v = Evaluate(BasePolicy(), pr);
  EXPECT_EQ(v.verdict, Verdict::kFail);
  EXPECT_EQ(v.score, 75);

  Policy p = BasePolicy();
  p.approvals.block_changes_requested = false;
  EXPECT_EQ(Evaluate(p, pr).verdict, Verdict::kPass);
}

TEST(GateTest, AuthorsOwnReviewDoesNotCount) {
  PrSnapshot pr = ReadyPr();
  pr.reviews = {At("carol", "APPROVED", 1)};
  EXPECT_EQ(Evaluate(BasePolicy(), pr).verdict, Verdict::kPending);
}

TEST(GateTest, RequireOnHeadIgnoresStaleApprovals) {
  Policy p = BasePolicy();
  p.approvals.require_on_head = true;
  PrSnapshot pr = ReadyPr();
  pr.reviews = {At("alice", "APPROVED", 1, "old-head")};
  EXPECT_EQ(Evaluate(p, pr).verdict, Verdict::kPending);
  p.approvals.require_on_head = false;
  EXPECT_EQ(Evaluate(p, pr).verdict, Verdict::kPass);
}

TEST(GateTest, ZeroMinApprovalsPasses) {
  Policy p = BasePolicy();
  p.approvals.min = 0;
  PrSnapshot pr = ReadyPr();
  pr.reviews.clear();
  EXPECT_EQ(Evaluate(p, pr).score, 100);
}

// --- mergeable ---

TEST(GateTest, MergeableStates) {
  Policy p = BasePolicy();
  PrSnapshot pr = ReadyPr();

  pr.mergeable = false;
  pr.mergeable_state = "dirty";
  GateVerdict v = Evaluate(p, pr);
  EXPECT_EQ(v.verdict, Verdict::kFail);
  EXPECT_EQ(v.blockers[0], (Finding{"mergeable", "merge conflicts with the base branch"}));

  pr.mergeable.reset();
  pr.mergeable_state = "unknown";
  v = Evaluate(p, pr);
  EXPECT_EQ(v.verdict, Verdict::kPending);
  EXPECT_THAT(Rules(v.waiting), ElementsAre("mergeable"));

  pr.mergeable = true;
  pr.mergeable_state = "behind";
  EXPECT_EQ(Evaluate(p, pr).verdict, Verdict::kPass);
  p.mergeable.allow_behind = false;
  EXPECT_EQ(Evaluate(p, pr).verdict, Verdict::kPending);

  pr.mergeable_state = "blocked";
  EXPECT_EQ(Evaluate(p, pr).verdict, Verdict::kPass);
  p.mergeable.allow_blocked = false;
  EXPECT_EQ(Evaluate(p, pr).verdict, Verdict::kPending);

  pr.mergeable_state = "unstable";
  EXPECT_EQ(Evaluate(p, pr).verdict, Verdict::kPass);
}

// --- draft ---

TEST(GateTest, DraftIsNeutralOrPendingPerPolicy) {
  Policy p = BasePolicy();
  PrSnapshot pr = ReadyPr();
  pr.draft = true;
  pr.check_runs = {MakeRun(1, "build", "completed", "failure")};  // still listed, not judged

  GateVerdict v = Evaluate(p, pr);
  EXPECT_EQ(v.verdict, Verdict::kNeutral);
  EXPECT_THAT(Rules(v.waiting), ElementsAre("draft"));
  EXPECT_THAT(Rules(v.blockers), ElementsAre("required_checks"));

  p.draft.verdict = DraftVerdict::kPending;
  EXPECT_EQ(Evaluate(p, pr).verdict, Verdict::kPending);

  p.draft.mode = RuleMode::kAdvisory;
  v = Evaluate(p, pr);
  EXPECT_EQ(v.verdict, Verdict::kFail);
  EXPECT_THAT(Rules(v.warnings), ElementsAre("draft"));

  p.draft.mode = RuleMode::kOff;
  pr.check_runs = {Passed(1, "build")};
  v = Evaluate(p, pr);
  EXPECT_EQ(v.verdict, Verdict::kPass);
  EXPECT_EQ(v.score, 100);
}

TEST(GateTest, ClosedPrIsNeutral) {
  PrSnapshot pr = ReadyPr();
  pr.state = "closed";
  pr.check_runs.clear();
  const GateVerdict v = Evaluate(BasePolicy(), pr);
  EXPECT_EQ(v.verdict, Verdict::kNeutral);
  EXPECT_THAT(v.blockers, IsEmpty());
}

// --- labels ---

TEST(GateTest, RequiredAndBlockingLabels) {
  Policy p = BasePolicy();
  p.labels.required = {"Reviewed"};
  p.labels.blocking = {"do-not-merge", "wip"};
  PrSnapshot pr = ReadyPr();

  GateVerdict v = Evaluate(p, pr);
  EXPECT_EQ(v.verdict, Verdict::kFail);
  EXPECT_EQ(v.blockers[0], (Finding{"labels", "missing required label \"Reviewed\""}));
  EXPECT_EQ(v.score, 90);

  pr.labels = {"reviewed"};  // case-insensitive, like GitHub
  EXPECT_EQ(Evaluate(p, pr).verdict, Verdict::kPass);

  pr.labels.push_back("WIP");
  v = Evaluate(p, pr);
  EXPECT_EQ(v.verdict, Verdict::kFail);
  EXPECT_EQ(v.blockers[0], (Finding{"labels", "blocking label \"wip\" is present"}));
}

// --- size ---

TEST(GateTest, SizeLimitsAreAdvisoryByDefault) {
  Policy p = BasePolicy();
  p.size.max_files = 1;
  p.size.max_lines = 13;
  PrSnapshot pr = ReadyPr();  // 2 files, 13 lines

  GateVerdict v = Evaluate(p, pr);
  EXPECT_EQ(v.verdict, Verdict::kPass);
  ASSERT_EQ(v.warnings.size(), 1u);
  EXPECT_EQ(v.warnings[0], (Finding{"size", "changes 2 files (max 1)"}));
  EXPECT_EQ(v.score, 95);

  p.size.mode = RuleMode::kBlock;
  pr.additions = 11;
  v = Evaluate(p, pr);
  EXPECT_EQ(v.verdict, Verdict::kFail);
  EXPECT_THAT(Rules(v.blockers), ElementsAre("size", "size"));
  EXPECT_EQ(v.blockers[1].reason, "changes 14 lines (max 13)");
}

// --- protected paths ---

TEST(GateTest, ProtectedPathsUseGlobs) {
  Policy p = BasePolicy();
  p.protected_paths.paths = {".github/**", "*.lock"};
  PrSnapshot pr = ReadyPr();
  pr.changed_paths = {"src/a.cc", "sub/Cargo.lock"};  // "*.lock" does not cross '/'
  EXPECT_EQ(Evaluate(p, pr).verdict, Verdict::kPass);

  pr.changed_paths = {"src/a.cc", ".github/workflows/ci.yml", "Cargo.lock"};
  const GateVerdict v = Evaluate(p, pr);
  EXPECT_EQ(v.verdict, Verdict::kFail);
  ASSERT_THAT(Rules(v.blockers), ElementsAre("protected_paths"));
  EXPECT_EQ(v.blockers[0].reason,
            "touches protected paths: .github/workflows/ci.yml (.github/**), Cargo.lock (*.lock)");
}

// --- authors ---

TEST(GateTest, BotsAndMaintainersAreExemptFromClosing) {
  Policy p = BasePolicy();
  PrSnapshot pr = ReadyPr();
  EXPECT_FALSE(Evaluate(p, pr).close_exempt);  // CONTRIBUTOR

  pr.author_role = AuthorRole::kMember;
  GateVerdict v = Evaluate(p, pr);
  EXPECT_TRUE(v.close_exempt);
  EXPECT_EQ(v.close_exempt_reason, "author carol is a maintainer (MEMBER)");

  pr.author_role = AuthorRole::kNone;
  pr.author_is_bot = true;
  pr.author = "dependabot[bot]";
  v = Evaluate(p, pr);
  EXPECT_TRUE(v.close_exempt);
  EXPECT_EQ(v.close_exempt_reason, "author dependabot[bot] is a bot");

  p.authors.exempt_bots = false;
  EXPECT_FALSE(Evaluate(p, pr).close_exempt);
  p.authors.exempt_bots = true;
  p.authors.mode = RuleMode::kOff;
  EXPECT_FALSE(Evaluate(p, pr).close_exempt);
}

// --- score ---

TEST(GateTest, ScoreBoundaries) {
  PrSnapshot pr = ReadyPr();
  pr.check_runs = {MakeRun(1, "build", "completed", "failure")};
  pr.reviews = {At("bob", "CHANGES_REQUESTED", 1)};
  pr.mergeable = false;
  pr.mergeable_state = "dirty";
  pr.labels = {"do-not-merge"};
  pr.changed_paths = {".github/ci.yml"};
  pr.changed_files = 500;
  pr.draft = true;
  Policy p = BasePolicy();
  p.protected_paths.paths = {".github/**"};
  p.size.max_files = 10;
  p.draft.mode = RuleMode::kAdvisory;  // judge the draft instead of going neutral
  GateVerdict v = Evaluate(p, pr);
  EXPECT_EQ(v.score, 0);
  EXPECT_EQ(v.verdict, Verdict::kFail);

  // Every rule off: nothing to judge, full score.
  Policy none;
  none.required_checks.mode = none.approvals.mode = none.mergeable.mode = RuleMode::kOff;
  none.draft.mode = none.labels.mode = none.size.mode = RuleMode::kOff;
  none.protected_paths.mode = RuleMode::kOff;
  v = Evaluate(none, pr);
  EXPECT_EQ(v.score, 100);
  EXPECT_EQ(v.verdict, Verdict::kPass);

  // Off rules drop out of the denominator: only checks (35) and approvals (25) remain.
  Policy two = none;
  two.required_checks.mode = two.approvals.mode = RuleMode::kBlock;
  pr = ReadyPr();
  pr.reviews.clear();
  EXPECT_EQ(Evaluate(two, pr).score, 58);  // 35 / 60 = 58.3
}

// The merge rules sum to 100; the reviews rule, which only counts when a required review role
// applies, adds 15 on top (renormalized like any other).
TEST(GateTest, WeightsSumToOneHundredWithoutReviews) {
  int sum = 0;
  for (const RuleWeight& w : kRuleWeights) sum += w.rule == "reviews" ? 0 : w.weight;
  EXPECT_EQ(sum, 100);
}

TEST(GateTest, PartialCheckCredit) {
  Policy p = BasePolicy();
  p.required_checks.checks = {{"a", ""}, {"b", ""}, {"c", ""}};
  PrSnapshot pr = ReadyPr();
  pr.check_runs = {Passed(1, "a"), Passed(2, "b"), MakeRun(3, "c", "queued")};
  EXPECT_EQ(Evaluate(p, pr).score, 88);  // 100 - 35/3 = 88.3
}

}  // namespace
}  // namespace gatehouse::decide
