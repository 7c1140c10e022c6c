// The calls reviewer dispatch adds to GitHubClient, against the real simulator in-process:
// a PR's files with their patches, reactions on comments (idempotent like GitHub's), and the
// review body and commit a review was bound to.
#include <gtest/gtest.h>

#include <memory>

#include "github/client.h"
#include "github/client_sim_test_util.h"
#include "github/github.h"
#include "sim/in_process_github_test_util.h"
#include "sim/model.h"

namespace gatehouse {
namespace {

using client_testing::kStart;
using client_testing::kInstallation;
using client_testing::kRepo;
using client_testing::kFullName;

class ClientReviewCallsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(github_.Start());
    ASSERT_TRUE(github_.model().CreateRepo("acme", "app", kInstallation, {}).ok());
  }
  GitHubClient& client() { return github_.client(); }

  std::shared_ptr<SimClock> clock_ = std::make_shared<SimClock>(kStart);
  sim_testing::InProcessGitHub github_{clock_};
  const CallContext ctx_{kInstallation, false};
};

TEST_F(ClientReviewCallsTest, FileDetailsCarryStatusCountsAndPatchOnEveryPage) {
  sim::NewPull spec;
  spec.files.clear();
  for (int i = 1; i <= 120; ++i) spec.files.push_back("src/f" + std::to_string(i) + ".cc");
  spec.files.push_back("img/logo.png");
  spec.file_changes["src/f1.cc"] = {"added", 2, 1, "@@ -1 +1,2 @@\n-a\n+b\n+c"};
  spec.file_changes["img/logo.png"] = {"added", 0, 0, ""};
  spec.additions = 119;  // one line for each of the other files
  ASSERT_TRUE(github_.model().CreatePull(kFullName, spec).ok());

  auto files = client().ListPullRequestFileDetails(ctx_, kRepo, 1);
  ASSERT_TRUE(files.ok()) << files.error().ToString();
  ASSERT_EQ(files->size(), 121u) << "two pages of 100";
  const PullFile& first = files->front();
  EXPECT_EQ(first.path, "src/f1.cc");
  EXPECT_EQ(first.status, "added");
  EXPECT_EQ(first.additions, 2);
  EXPECT_EQ(first.deletions, 1);
  EXPECT_EQ(first.patch, "@@ -1 +1,2 @@\n-a\n+b\n+c");
  const PullFile& other = (*files)[1];
  EXPECT_EQ(other.status, "modified");
  EXPECT_EQ(other.additions, 1);
  EXPECT_EQ(other.patch, "@@ -0,0 +1,1 @@\n+added line 1 of src/f2.cc");
  EXPECT_EQ(files->back().path, "img/logo.png");
  EXPECT_EQ(files->back().patch, "") << "binary: no patch";

  auto missing = client().ListPullRequestFileDetails(ctx_, kRepo, 99);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, GitHubErrorKind::kNotFound);
}

TEST_F(ClientReviewCallsTest, AReactionIsMadeOnceAndListed) {
  ASSERT_TRUE(github_.model().CreatePull(kFullName, sim::NewPull{}).ok());
  sim::Comment comment;
  ASSERT_TRUE(
      github_.model().AddComment("alice", kFullName, 1, "@gatehouse review", &comment).ok());

  auto first = client().CreateReaction(ctx_, kRepo, comment.id, "+1");
  ASSERT_TRUE(first.ok()) << first.error().ToString();
  auto again = client().CreateReaction(ctx_, kRepo, comment.id, "+1");
  ASSERT_TRUE(again.ok()) << "GitHub's 200 for an existing reaction is a success";
  EXPECT_EQ(*again, *first);
  auto eyes = client().CreateReaction(ctx_, kRepo, comment.id, "eyes");
  ASSERT_TRUE(eyes.ok());
  EXPECT_NE(*eyes, *first);

  auto reactions = client().ListReactions(ctx_, kRepo, comment.id);
  ASSERT_TRUE(reactions.ok()) << reactions.error().ToString();
  ASSERT_EQ(reactions->size(), 2u);
  EXPECT_EQ((*reactions)[0].id, *first);
  EXPECT_EQ((*reactions)[0].content, "+1");
  EXPECT_EQ((*reactions)[0].user, "gatehouse[bot]");
  EXPECT_EQ((*reactions)[1].content, "eyes");

  auto unknown = client().CreateReaction(ctx_, kRepo, comment.id, "thumbs");
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().kind, GitHubErrorKind::kUnprocessable);
  auto no_comment = client().CreateReaction(ctx_, kRepo, 424242, "+1");
  ASSERT_FALSE(no_comment.ok());
  EXPECT_EQ(no_comment.error().kind, GitHubErrorKind::kNotFound);
  auto no_list = client().ListReactions(ctx_, kRepo, 424242);
  ASSERT_FALSE(no_list.ok());
  EXPECT_EQ(no_list.error().kind, GitHubErrorKind::kNotFound);
}

TEST_F(ClientReviewCallsTest, ReviewsKeepTheirBodyAndCommit) {
  auto pr = github_.model().CreatePull(kFullName, sim::NewPull{});
  ASSERT_TRUE(pr.ok());
  const std::string body =
      "1 blocker\n<!-- gatehouse:review role=security head=" + pr->head_sha + " -->";
  auto id = client().CreateReview(ctx_, kRepo, 1, pr->head_sha, "REQUEST_CHANGES", body);
  ASSERT_TRUE(id.ok()) << id.error().ToString();
  auto reviews = client().ListReviews(ctx_, kRepo, 1);
  ASSERT_TRUE(reviews.ok());
  ASSERT_EQ(reviews->size(), 1u);
  EXPECT_EQ((*reviews)[0].id, *id);
  EXPECT_EQ((*reviews)[0].state, "CHANGES_REQUESTED");
  EXPECT_EQ((*reviews)[0].commit_id, pr->head_sha);
  EXPECT_EQ((*reviews)[0].body, body);
}

}  // namespace
}  // namespace gatehouse
