#include "sim/model.h"

#include <gtest/gtest.h>

#include <memory>

namespace gatehouse::sim {
namespace {

class ModelTest : public ::testing::Test {
 protected:
  ModelTest()
      : clock_(std::make_shared<SimClock>(FromMicros(1'800'000'000'000'000))),
        model_(clock_, ModelOptions{.mergeable_delay = std::chrono::seconds(5),
                                    .token_ttl = std::chrono::minutes(60)}) {
    EXPECT_TRUE(model_.CreateRepo("acme", "app", 7, {{"README.md", "hi"}}).ok());
    model_.SetListener(
        [this](const Notification& n) { events_.push_back(n.event + "." + n.action); });
  }

  PullRequest Open() {
    auto pr = model_.CreatePull("acme/app", NewPull{});
    EXPECT_TRUE(pr.ok());
    return *pr;
  }

  std::shared_ptr<SimClock> clock_;
  Model model_;
  std::vector<std::string> events_;
};

TEST_F(ModelTest, MergeableIsNullForTheWindowAfterAPush) {
  PullRequest pr = Open();
  EXPECT_FALSE(pr.mergeable.has_value());
  EXPECT_EQ(pr.mergeable_state, "unknown");
  clock_->Advance(std::chrono::seconds(5));
  auto now = model_.GetPull("acme/app", pr.number);
  ASSERT_TRUE(now.has_value());
  ASSERT_TRUE(now->mergeable.has_value());
  EXPECT_TRUE(*now->mergeable);
  EXPECT_EQ(now->mergeable_state, "clean");
  ASSERT_TRUE(model_.Push("control", "acme/app", pr.number, "").ok());
  EXPECT_FALSE(model_.GetPull("acme/app", pr.number)->mergeable.has_value());
  clock_->Advance(std::chrono::seconds(4));
  EXPECT_FALSE(model_.GetPull("acme/app", pr.number)->mergeable.has_value());
  clock_->Advance(std::chrono::seconds(1));
  EXPECT_TRUE(model_.GetPull("acme/app", pr.number)->mergeable.has_value());
}

TEST_F(ModelTest, MergeGuards) {
  PullRequest pr = Open();
  // Unknown mergeability: 405.
  EXPECT_EQ(model_.Merge("installation:7", "acme/app", pr.number, pr.head_sha, "merge").status,
            405);
  clock_->Advance(std::chrono::seconds(10));
  // A stale sha: 409, before mergeability is even considered.
  EXPECT_EQ(model_.Merge("installation:7", "acme/app", pr.number, "deadbeef", "merge").status, 409);
  ASSERT_TRUE(model_.MoveBase("acme/app", pr.number, /*conflicted=*/true).ok());
  clock_->Advance(std::chrono::seconds(10));
  EXPECT_EQ(model_.GetPull("acme/app", pr.number)->mergeable_state, "dirty");
  EXPECT_EQ(model_.Merge("installation:7", "acme/app", pr.number, pr.head_sha, "merge").status,
            405);
  EXPECT_EQ(model_.Merge("installation:7", "acme/app", 99, "", "merge").status, 404);
}

TEST_F(ModelTest, MergeThenActionsOnTheClosedPrFail) {
  PullRequest pr = Open();
  clock_->Advance(std::chrono::seconds(10));
  Outcome merged = model_.Merge("installation:7", "acme/app", pr.number, pr.head_sha, "squash");
  EXPECT_EQ(merged.status, 200);
  auto after = model_.GetPull("acme/app", pr.number);
  EXPECT_TRUE(after->merged);
  EXPECT_EQ(after->state, "closed");
  EXPECT_EQ(model_.Merge("installation:7", "acme/app", pr.number, pr.head_sha, "merge").status,
            405);
  EXPECT_EQ(model_
                .SubmitReview("installation:7", "acme/app", pr.number, "APPROVE", pr.head_sha, "",
                              nullptr)
                .status,
            422);
  EXPECT_EQ(model_.UpdateBranch("installation:7", "acme/app", pr.number, pr.head_sha).status, 422);
  EXPECT_EQ(model_.SetState("installation:7", "acme/app", pr.number, "open").status, 422);
}

TEST_F(ModelTest, UpdateBranchWithStaleExpectedHeadIs422) {
  PullRequest pr = Open();
  ASSERT_TRUE(model_.MoveBase("acme/app", pr.number, false).ok());
  ASSERT_TRUE(model_.Push("control", "acme/app", pr.number, "").ok());
  EXPECT_EQ(model_.UpdateBranch("installation:7", "acme/app", pr.number, pr.head_sha).status, 422);
  std::string head = model_.GetPull("acme/app", pr.number)->head_sha;
  EXPECT_EQ(model_.UpdateBranch("installation:7", "acme/app", pr.number, head).status, 202);
  EXPECT_NE(model_.GetPull("acme/app", pr.number)->head_sha, head);
  // Up to date now: nothing to do.
  head = model_.GetPull("acme/app", pr.number)->head_sha;
  EXPECT_EQ(model_.UpdateBranch("installation:7", "acme/app", pr.number, head).status, 422);
}

TEST_F(ModelTest, ReviewsAreBoundToACommitOfThePr) {
  PullRequest pr = Open();
  EXPECT_EQ(
      model_.SubmitReview("installation:7", "acme/app", pr.number, "APPROVE", "0000", "", nullptr)
          .status,
      422);
  Review review;
  EXPECT_EQ(model_
                .SubmitReview("installation:7", "acme/app", pr.number, "APPROVE", pr.head_sha, "",
                              &review)
                .status,
            200);
  EXPECT_EQ(review.state, "APPROVED");
  EXPECT_EQ(review.commit_id, pr.head_sha);
  EXPECT_EQ(model_.GetPull("acme/app", pr.number)->reviews.size(), 1u);
}

TEST_F(ModelTest, EffectLogRecordsEveryMutatingCallWithItsResult) {
  PullRequest pr = Open();
  clock_->Advance(std::chrono::seconds(10));
  (void)model_.Merge("installation:7", "acme/app", pr.number, "stale", "merge");
  (void)model_.AddLabels("installation:7", "acme/app", pr.number, {"ready"});
  (void)model_.Merge("installation:7", "acme/app", pr.number, pr.head_sha, "merge");
  std::vector<Effect> effects = model_.Effects();
  std::vector<Effect> merges;
  for (const auto& e : effects)
    if (e.kind == "merge") merges.push_back(e);
  ASSERT_EQ(merges.size(), 2u);
  EXPECT_EQ(merges[0].status, 409);
  EXPECT_EQ(merges[0].sha, "stale");
  EXPECT_EQ(merges[1].status, 200);
  EXPECT_EQ(merges[1].who, "installation:7");
  EXPECT_EQ(merges[1].repo, "acme/app");
  EXPECT_EQ(merges[1].number, pr.number);
  EXPECT_EQ(merges[1].sha, pr.head_sha);
  EXPECT_LT(merges[0].seq, merges[1].seq);
  EXPECT_EQ(events_, (std::vector<std::string>{"pull_request.opened", "pull_request.labeled",
                                               "pull_request.closed"}));
}

TEST_F(ModelTest, EffectsRecordTheHeadTheCallFound) {
  PullRequest pr = Open();
  const std::string first = pr.head_sha;
  clock_->Advance(std::chrono::seconds(10));
  ASSERT_TRUE(
      model_.Push("alice", "acme/app", pr.number, "", std::vector<std::string>{"a", "b"}).ok());
  const std::string second = model_.GetPull("acme/app", pr.number)->head_sha;
  (void)model_.SubmitReview("installation:7", "acme/app", pr.number, "APPROVE", first, "", nullptr);
  ASSERT_TRUE(model_.MoveBase("acme/app", pr.number, false).ok());
  clock_->Advance(std::chrono::seconds(10));
  ASSERT_EQ(model_.UpdateBranch("installation:7", "acme/app", pr.number, second).status, 202);
  CheckRun run;
  run.name = "ci";
  run.head_sha = second;
  ASSERT_TRUE(model_.UpsertCheckRun("ci", "acme/app", run, nullptr).ok());
  (void)model_.Merge("installation:7", "acme/app", 99, "x", "merge");

  std::vector<Effect> e = model_.Effects();
  ASSERT_EQ(e.size(), 7u);
  EXPECT_EQ(e[0].kind, "create_pull");
  EXPECT_EQ(e[0].head, "") << "the PR did not exist before the call";
  EXPECT_EQ(e[1].kind, "push");
  EXPECT_EQ(e[1].sha, second);
  EXPECT_EQ(e[1].head, first) << "the head before the push";
  EXPECT_EQ(e[2].kind, "review");
  EXPECT_EQ(e[2].sha, first);
  EXPECT_EQ(e[2].head, second) << "a review of an older commit: stale";
  EXPECT_EQ(e[3].kind, "move_base");
  EXPECT_EQ(e[4].kind, "update_branch");
  EXPECT_EQ(e[4].head, second) << "the head before the update";
  EXPECT_NE(model_.GetPull("acme/app", pr.number)->head_sha, second);
  EXPECT_EQ(e[5].kind, "check_run");
  EXPECT_EQ(e[5].head, "") << "not a call about one PR";
  EXPECT_EQ(e[6].head, "") << "no such PR";

  PullRequest now = *model_.GetPull("acme/app", pr.number);
  EXPECT_EQ(now.files, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(now.changed_files, 2);
}

TEST_F(ModelTest, NewPullDefaultsAndAuthorFields) {
  PullRequest pr = Open();
  EXPECT_EQ(pr.author_association, "CONTRIBUTOR");
  EXPECT_EQ(pr.author_type, "User");
  EXPECT_EQ(pr.files, std::vector<std::string>{"README.md"});
  EXPECT_EQ(pr.changed_files, 1);
  NewPull np;
  np.author = "renovate[bot]";
  np.author_type = "Bot";
  np.author_association = "NONE";
  np.files = {"a", "b", "c"};
  auto bot = model_.CreatePull("acme/app", np);
  ASSERT_TRUE(bot.ok());
  EXPECT_EQ(bot->author_type, "Bot");
  EXPECT_EQ(bot->author_association, "NONE");
  EXPECT_EQ(bot->changed_files, 3);
  np.changed_files = 40;
  EXPECT_EQ(model_.CreatePull("acme/app", np)->changed_files, 40) << "explicit wins";
}

TEST_F(ModelTest, DraftConversionNotifiesOnlyOnChange) {
  PullRequest pr = Open();
  events_.clear();
  EXPECT_EQ(model_.SetDraft("alice", "acme/app", pr.number, true).status, 200);
  EXPECT_TRUE(model_.GetPull("acme/app", pr.number)->draft);
  EXPECT_EQ(model_.SetDraft("alice", "acme/app", pr.number, true).message, "unchanged");
  EXPECT_EQ(model_.SetDraft("alice", "acme/app", pr.number, false).status, 200);
  EXPECT_FALSE(model_.GetPull("acme/app", pr.number)->draft);
  ASSERT_TRUE(model_.SetState("alice", "acme/app", pr.number, "closed").ok());
  EXPECT_EQ(model_.SetDraft("alice", "acme/app", pr.number, true).status, 422);
  EXPECT_EQ(model_.SetDraft("alice", "acme/app", 42, true).status, 404);
  EXPECT_EQ(events_,
            (std::vector<std::string>{"pull_request.converted_to_draft",
                                      "pull_request.ready_for_review", "pull_request.closed"}));
  std::vector<std::string> kinds;
  for (const auto& e : model_.Effects()) kinds.push_back(e.kind);
  EXPECT_EQ(kinds, (std::vector<std::string>{"create_pull", "convert_to_draft", "convert_to_draft",
                                             "ready_for_review", "close", "convert_to_draft",
                                             "convert_to_draft"}));
}

TEST_F(ModelTest, ChecksAndStatusesDriveMergeableStateAndNotify) {
  PullRequest pr = Open();
  clock_->Advance(std::chrono::seconds(10));
  CheckRun run;
  run.name = "ci";
  run.head_sha = pr.head_sha;
  run.status = "in_progress";
  CheckRun created;
  EXPECT_EQ(model_.UpsertCheckRun("control", "acme/app", run, &created).status, 201);
  EXPECT_EQ(model_.GetPull("acme/app", pr.number)->mergeable_state, "unstable");
  CheckRun done;
  done.id = created.id;
  done.conclusion = "success";
  EXPECT_EQ(model_.UpsertCheckRun("control", "acme/app", done, nullptr).status, 200);
  EXPECT_EQ(model_.GetPull("acme/app", pr.number)->mergeable_state, "clean");
  CommitStatus st;
  st.sha = pr.head_sha;
  st.state = "failure";
  st.context = "lint";
  EXPECT_EQ(model_.SetStatus("control", "acme/app", st, nullptr).status, 201);
  EXPECT_EQ(model_.GetPull("acme/app", pr.number)->mergeable_state, "unstable");
  EXPECT_EQ(events_.back(), "status.");
  EXPECT_EQ(events_[events_.size() - 2], "check_suite.completed");
  EXPECT_EQ(events_[events_.size() - 3], "check_run.completed");
}

TEST_F(ModelTest, TokensExpire) {
  Time expiry;
  std::string token = model_.IssueToken(7, &expiry);
  EXPECT_EQ(model_.TokenInstallation(token), std::optional<int64_t>(7));
  EXPECT_FALSE(model_.TokenInstallation("nope").has_value());
  clock_->Advance(std::chrono::minutes(60));
  EXPECT_FALSE(model_.TokenInstallation(token).has_value());
}

}  // namespace
}  // namespace gatehouse::sim
