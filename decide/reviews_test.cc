#include "decide/reviews.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace gatehouse::decide {
namespace {

Time At(int s) { return Time(std::chrono::seconds(s)); }

PrSnapshot Pr() {
  PrSnapshot pr;
  pr.author = "alice";
  pr.head_sha = "aaa";
  return pr;
}

TEST(LatestDecidingReviewsTest, TheLatestDecidingReviewPerUserWins) {
  PrSnapshot pr = Pr();
  pr.reviews = {{"bob", "CHANGES_REQUESTED", "aaa", At(1)},
                {"bob", "APPROVED", "aaa", At(2)},
                {"carol", "APPROVED", "aaa", At(1)},
                {"carol", "CHANGES_REQUESTED", "aaa", At(3)}};
  auto latest = LatestDecidingReviews(pr);
  ASSERT_EQ(latest.size(), 2u);
  EXPECT_EQ(latest.at("bob")->state, "APPROVED");
  EXPECT_EQ(latest.at("carol")->state, "CHANGES_REQUESTED");
  EXPECT_EQ(latest.begin()->first, "bob") << "ordered by login";
}

TEST(LatestDecidingReviewsTest, CommentsAndPendingReviewsDecideNothing) {
  PrSnapshot pr = Pr();
  pr.reviews = {{"bob", "CHANGES_REQUESTED", "aaa", At(1)},
                {"bob", "COMMENTED", "aaa", At(2)},
                {"bob", "PENDING", "aaa", At(3)},
                {"dave", "COMMENTED", "aaa", At(1)}};
  auto latest = LatestDecidingReviews(pr);
  ASSERT_EQ(latest.size(), 1u);
  EXPECT_EQ(latest.at("bob")->state, "CHANGES_REQUESTED") << "a comment withdraws nothing";
}

TEST(LatestDecidingReviewsTest, ADismissalDecidesAndTheAuthorIsLeftOut) {
  PrSnapshot pr = Pr();
  pr.reviews = {{"bob", "APPROVED", "aaa", At(1)},
                {"bob", "DISMISSED", "aaa", At(2)},
                {"alice", "APPROVED", "aaa", At(3)}};
  auto latest = LatestDecidingReviews(pr);
  ASSERT_EQ(latest.size(), 1u);
  EXPECT_EQ(latest.at("bob")->state, "DISMISSED");
  EXPECT_EQ(latest.count("alice"), 0u);
}

TEST(LatestDecidingReviewsTest, OnATieTheLaterListEntryWins) {
  PrSnapshot pr = Pr();
  pr.reviews = {{"bob", "APPROVED", "aaa", At(5)}, {"bob", "CHANGES_REQUESTED", "aaa", At(5)}};
  EXPECT_EQ(LatestDecidingReviews(pr).at("bob")->state, "CHANGES_REQUESTED");
  std::swap(pr.reviews[0], pr.reviews[1]);
  EXPECT_EQ(LatestDecidingReviews(pr).at("bob")->state, "APPROVED");
}

}  // namespace
}  // namespace gatehouse::decide
