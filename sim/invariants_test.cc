// The invariants (sim/invariants.h) as `gatehouse demo` counts them: one line per offence,
// so that three merges of one head are two duplicates and two extra summary comments are two.
#include "sim/invariants.h"

#include <gtest/gtest.h>

#include <memory>

#include "sim/app_identity.h"
#include "sim/model.h"

namespace gatehouse::sim {
namespace {

constexpr char kInvariantsApp[] = "installation:1";
constexpr char kSummary[] = "<!-- gatehouse:summary -->\ngatehouse: pass";

class InvariantsTest : public ::testing::Test {
 protected:
  InvariantsTest()
      : clock_(std::make_shared<SimClock>(FromMicros(1'800'000'000'000'000))),
        model_(clock_, {.mergeable_delay = Duration::zero()}) {}

  void SetUp() override {
    ASSERT_TRUE(model_.CreateRepo("acme", "app", 1, {}).ok());
    ASSERT_TRUE(model_.CreatePull("acme/app", NewPull{}).ok());
    ASSERT_TRUE(model_.CreatePull("acme/app", NewPull{}).ok());
  }
  std::string Head(int number) { return model_.GetPull("acme/app", number)->head_sha; }

  std::shared_ptr<SimClock> clock_;
  Model model_;
};

TEST_F(InvariantsTest, EveryRepeatOfAnActionIsOneDuplicate) {
  const std::string head = Head(1);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(model_.SubmitReview(kInvariantsApp, "acme/app", 1, "APPROVE", head, "", nullptr).ok());
  }
  ASSERT_TRUE(model_.SetState(kInvariantsApp, "acme/app", 2, "closed").ok());
  std::vector<std::string> duplicates = DuplicateEffects(model_.Effects());
  ASSERT_EQ(duplicates.size(), 2u);
  EXPECT_NE(duplicates[0].find("#3 installation:1 review"), std::string::npos) << duplicates[0];
  EXPECT_NE(duplicates[1].find("#3 installation:1 review"), std::string::npos) << duplicates[1];
  EXPECT_NE(duplicates[1].find("#5 installation:1 review"), std::string::npos) << duplicates[1];
  EXPECT_TRUE(StaleEffects(model_.Effects()).empty());
}

TEST_F(InvariantsTest, EveryActionOnAMovedHeadIsOneStaleEffect) {
  const std::string first = Head(1);
  ASSERT_TRUE(model_.Push("alice", "acme/app", 1, "").ok());
  ASSERT_TRUE(model_.SubmitReview(kInvariantsApp, "acme/app", 1, "APPROVE", first, "", nullptr).ok());
  ASSERT_TRUE(
      model_.SubmitReview(kInvariantsApp, "acme/app", 1, "REQUEST_CHANGES", first, "no", nullptr).ok());
  // Refused calls did nothing, and people's calls are not the App's.
  EXPECT_EQ(model_.Merge(kInvariantsApp, "acme/app", 1, first, "merge").status, 409);
  ASSERT_TRUE(model_.SubmitReview("bob", "acme/app", 1, "APPROVE", first, "", nullptr).ok());
  std::vector<std::string> stale = StaleEffects(model_.Effects());
  ASSERT_EQ(stale.size(), 2u);
  EXPECT_NE(stale[0].find("review acme/app#1 sha=" + first + " head=" + Head(1)), std::string::npos)
      << stale[0];
}

// A review landing after a push: an approval or request for changes the App dismissed itself no
// longer counts for any head; a COMMENT review has no standing to begin with. Anyone else's
// dismissal does not excuse the App, and an undismissed approval stays stale.
TEST_F(InvariantsTest, AStaleReviewTheAppDismissedOrACommentIsNotStale) {
  const std::string first = Head(1);
  ASSERT_TRUE(model_.Push("alice", "acme/app", 1, "").ok());
  Review dismissed, by_maintainer, kept;
  ASSERT_TRUE(model_.SubmitReview(kInvariantsApp, "acme/app", 1, "APPROVE", first, "", &dismissed).ok());
  ASSERT_TRUE(
      model_.SubmitReview(kInvariantsApp, "acme/app", 1, "REQUEST_CHANGES", first, "no", &by_maintainer)
          .ok());
  ASSERT_TRUE(model_.SubmitReview(kInvariantsApp, "acme/app", 1, "COMMENT", first, "fyi", nullptr).ok());
  ASSERT_TRUE(model_.SubmitReview(kInvariantsApp, "acme/app", 1, "APPROVE", first, "again", &kept).ok());
  ASSERT_TRUE(
      model_.DismissReview(kInvariantsApp, "acme/app", 1, {.review_id = dismissed.id}, nullptr).ok());
  ASSERT_TRUE(
      model_.DismissReview("maintainer", "acme/app", 1, {.review_id = by_maintainer.id}, nullptr)
          .ok());
  std::vector<std::string> stale = StaleEffects(model_.Effects());
  ASSERT_EQ(stale.size(), 2u);
  EXPECT_NE(stale[0].find("REQUEST_CHANGES"), std::string::npos) << stale[0];
  EXPECT_NE(stale[1].find("APPROVE"), std::string::npos) << stale[1];
  EXPECT_EQ(model_.Effects().back().review_id, by_maintainer.id);
}

TEST_F(InvariantsTest, EverySummaryCommentAfterAPullRequestsFirstIsExtra) {
  Comment first;
  ASSERT_TRUE(model_.AddComment(kInvariantsApp, "acme/app", 1, kSummary, &first).ok());
  // Edited in place: still one.
  ASSERT_TRUE(
      model_.EditComment(kInvariantsApp, "acme/app", first.id, std::string(kSummary) + "!", nullptr).ok());
  // Not summaries: another comment by the App, a quoted marker by someone else.
  ASSERT_TRUE(model_.AddComment(kInvariantsApp, "acme/app", 1, "thanks", nullptr).ok());
  ASSERT_TRUE(model_.AddComment("mallory", "acme/app", 1, kSummary, nullptr).ok());
  // One summary on the second PR is fine too.
  ASSERT_TRUE(model_.AddComment(kInvariantsApp, "acme/app", 2, kSummary, nullptr).ok());
  EXPECT_TRUE(ExtraSummaryComments(model_).empty());

  Comment second, third;
  ASSERT_TRUE(model_.AddComment(kInvariantsApp, "acme/app", 1, kSummary, &second).ok());
  ASSERT_TRUE(model_.AddComment("installation:2", "acme/app", 1, kSummary, &third).ok());
  std::vector<std::string> extra = ExtraSummaryComments(model_);
  ASSERT_EQ(extra.size(), 2u);
  EXPECT_EQ(extra[0], "acme/app#1: summary comment " + std::to_string(second.id) + " by " +
                          AppLogin() + " besides the first, " + std::to_string(first.id));
  EXPECT_NE(extra[1].find(std::to_string(third.id)), std::string::npos) << extra[1];
  EXPECT_TRUE(IsSummaryComment(second));
  Comment quoted;
  quoted.user = "mallory";
  quoted.body = kSummary;
  EXPECT_FALSE(IsSummaryComment(quoted));
}

TEST_F(InvariantsTest, ASecondReplyToOneCommandIsExtra) {
  const std::string marker = "<!-- gatehouse:reply 41 -->";
  Comment first, second;
  ASSERT_TRUE(model_.AddComment(kInvariantsApp, "acme/app", 1, "ok\n\n" + marker, &first).ok());
  // Not extra: a reply to another command, the marker quoted by someone else, or not at the end.
  ASSERT_TRUE(model_.AddComment(kInvariantsApp, "acme/app", 1, "<!-- gatehouse:reply 42 -->", nullptr).ok());
  ASSERT_TRUE(model_.AddComment("mallory", "acme/app", 1, marker, nullptr).ok());
  ASSERT_TRUE(model_.AddComment(kInvariantsApp, "acme/app", 1, marker + " later", nullptr).ok());
  EXPECT_TRUE(ExtraSummaryComments(model_).empty());

  ASSERT_TRUE(model_.AddComment(kInvariantsApp, "acme/app", 1, "again\n\n" + marker, &second).ok());
  std::vector<std::string> extra = ExtraSummaryComments(model_);
  ASSERT_EQ(extra.size(), 1u);
  EXPECT_EQ(extra[0], "acme/app#1: reply comment " + std::to_string(second.id) +
                          " to comment 41 besides the first, " + std::to_string(first.id));
  EXPECT_EQ(RepliedCommand(second), 41);
}

// An update of the default branch (update_ref, or merge_branch into it) to a commit not tested
// counts as an untested merge, as does each PR merge it made; branch updates are never
// duplicates, a retry after a 422 included.
TEST(InvariantsUpdateTest, UntestedBranchUpdatesCountAndRepeatedOnesAreNoDuplicates) {
  int64_t seq = 0;
  auto effect = [&seq](const std::string& who, const std::string& kind, int number, int status,
                       const std::string& untested) {
    Effect e;
    e.seq = ++seq;
    e.who = who;
    e.kind = kind;
    e.repo = "acme/app";
    e.number = number;
    e.sha = "abc";
    e.head = number ? "abc" : "";
    e.status = status;
    e.detail = number ? "fast-forward abc" : "main";
    e.untested = untested;
    return e;
  };
  const std::string why = "Required status check \"ci\" is expected.";
  const std::vector<Effect> effects = {
      effect(kInvariantsApp, "update_ref", 0, 422, ""),  // refused: enforced
      effect(kInvariantsApp, "update_ref", 0, 422, ""),  // retried, refused again
      effect(kInvariantsApp, "update_ref", 0, 200, why),
      effect(kInvariantsApp, "merge", 1, 200, why),
      effect(kInvariantsApp, "update_ref", 0, 200, ""),  // the same update again: a no-op
      effect(kInvariantsApp, "merge_branch", 0, 201, why),
      effect(kInvariantsApp, "merge_branch", 0, 201, ""),  // into an integration branch
      effect("control", "update_ref", 0, 200, why),        // not the App's
  };
  const std::vector<std::string> untested = UntestedMerges(effects);
  ASSERT_EQ(untested.size(), 3u);
  EXPECT_NE(untested[0].find("#3 installation:1 update_ref acme/app sha=abc"), std::string::npos)
      << untested[0];
  EXPECT_NE(untested[0].find("untested: " + why), std::string::npos) << untested[0];
  EXPECT_NE(untested[1].find(" merge acme/app#1 "), std::string::npos) << untested[1];
  EXPECT_NE(untested[2].find(" merge_branch "), std::string::npos) << untested[2];
  EXPECT_TRUE(DuplicateEffects(effects).empty());
}

}  // namespace
}  // namespace gatehouse::sim
