// The simulator's CI bot (sim/ci_bot.h) on a simulated clock: every new head of an open PR in a
// repository with CI gets its checks, in progress at once and completed when the clock reaches
// the configured duration; failing PRs fail; update-branch heads are tested again.
#include "sim/ci_bot.h"

#include <gtest/gtest.h>

#include <memory>

namespace gatehouse::sim {
namespace {

class CiBotTest : public ::testing::Test {
 protected:
  CiBotTest()
      : clock_(std::make_shared<SimClock>(FromMicros(1'800'000'000'000'000))),
        model_(clock_, ModelOptions{.mergeable_delay = Duration::zero(),
                                    .token_ttl = std::chrono::minutes(60)}) {
    EXPECT_TRUE(model_
                    .CreateRepo("acme", "app", 7, {},
                                {.ci = {.checks = {"ci", "lint"},
                                        .duration = std::chrono::seconds(30),
                                        .failing = {2}}})
                    .ok());
    EXPECT_TRUE(model_.CreateRepo("acme", "quiet", 7, {}).ok());
    model_.SetListener([this](const Notification& n) {
      if (n.event == "check_run" && n.action == "completed") ++completed_;
    });
    bot_ = std::make_unique<CiBot>(model_, clock_);
  }

  // The bot's check runs on `sha` in `status`, as "name:status:conclusion", once the bot has
  // done what is due now.
  std::vector<std::string> RunsOn(const std::string& repo, const std::string& sha,
                                  const std::string& status) {
    bot_->AwaitIdle();
    std::vector<std::string> out;
    for (const CheckRun& r : model_.CheckRunsFor(repo, sha)) {
      if (r.app == kCiBotActor && r.status == status) {
        out.push_back(r.name + ":" + r.status + ":" + r.conclusion);
      }
    }
    return out;
  }

  std::shared_ptr<SimClock> clock_;
  Model model_;
  std::unique_ptr<CiBot> bot_;
  int completed_ = 0;
};

TEST_F(CiBotTest, ANewPrIsTestedAndCompletesWhenTheClockReachesTheDuration) {
  auto pr = model_.CreatePull("acme/app", NewPull{});
  ASSERT_TRUE(pr.ok());
  EXPECT_EQ(RunsOn("acme/app", pr->head_sha, "in_progress"),
            (std::vector<std::string>{"ci:in_progress:", "lint:in_progress:"}));
  clock_->Advance(std::chrono::seconds(29));
  EXPECT_TRUE(RunsOn("acme/app", pr->head_sha, "completed").empty());
  clock_->Advance(std::chrono::seconds(1));
  EXPECT_EQ(RunsOn("acme/app", pr->head_sha, "completed"),
            (std::vector<std::string>{"ci:completed:success", "lint:completed:success"}));
  EXPECT_EQ(bot_->runs(), 1);
}

TEST_F(CiBotTest, AFailingPrFailsAndEveryNewHeadIsTestedAgain) {
  auto first = model_.CreatePull("acme/app", NewPull{});
  auto second = model_.CreatePull("acme/app", NewPull{});  // #2 fails
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(RunsOn("acme/app", second->head_sha, "in_progress").size(), 2u);
  clock_->Advance(std::chrono::seconds(30));
  EXPECT_EQ(RunsOn("acme/app", second->head_sha, "completed"),
            (std::vector<std::string>{"ci:completed:failure", "lint:completed:failure"}));
  EXPECT_EQ(RunsOn("acme/app", first->head_sha, "completed").size(), 2u);

  // A merge moves the base; the update-branch head is a new SHA, tested again.
  ASSERT_EQ(
      model_.Merge("installation:7", "acme/app", first->number, first->head_sha, "merge").status,
      200);
  ASSERT_EQ(
      model_.UpdateBranch("installation:7", "acme/app", second->number, second->head_sha).status,
      202);
  const std::string updated = model_.GetPull("acme/app", second->number)->head_sha;
  EXPECT_EQ(RunsOn("acme/app", updated, "in_progress").size(), 2u);
  ASSERT_TRUE(model_.Push("alice", "acme/app", second->number, "").ok());
  const std::string pushed = model_.GetPull("acme/app", second->number)->head_sha;
  EXPECT_EQ(RunsOn("acme/app", pushed, "in_progress").size(), 2u);
  clock_->Advance(std::chrono::seconds(30));
  EXPECT_EQ(RunsOn("acme/app", updated, "completed").size(), 2u);
  EXPECT_EQ(RunsOn("acme/app", pushed, "completed").size(), 2u);
  EXPECT_EQ(bot_->runs(), 4);  // two opened heads, the update-branch head, the pushed head
  EXPECT_EQ(model_.CheckRunsFor("acme/app", first->head_sha).size(), 2u) << "nothing re-run";
}

// failing_later and hanging_later: the PR's first head passes; its later heads (here made by
// an update-branch) fail, or stay in progress however long the clock runs.
TEST_F(CiBotTest, LaterHeadsFailOrHangAsConfigured) {
  ASSERT_TRUE(model_
                  .CreateRepo("acme", "later", 7, {},
                              {.ci = {.checks = {"ci"},
                                      .duration = std::chrono::seconds(30),
                                      .failing_later = {2},
                                      .hanging_later = {3}}})
                  .ok());
  auto first = model_.CreatePull("acme/later", NewPull{});
  auto breaks = model_.CreatePull("acme/later", NewPull{});
  auto hangs = model_.CreatePull("acme/later", NewPull{});
  ASSERT_TRUE(first.ok() && breaks.ok() && hangs.ok());
  bot_->AwaitIdle();  // started now, due 30 s from now
  clock_->Advance(std::chrono::seconds(30));
  for (const auto& pr : {*breaks, *hangs}) {
    EXPECT_EQ(RunsOn("acme/later", pr.head_sha, "completed"),
              (std::vector<std::string>{"ci:completed:success"}));
  }
  ASSERT_EQ(model_.Merge("installation:7", "acme/later", 1, first->head_sha, "merge").status,
            200);
  for (int n : {2, 3}) {
    const std::string from = model_.GetPull("acme/later", n)->head_sha;
    ASSERT_EQ(model_.UpdateBranch("installation:7", "acme/later", n, from).status, 202);
  }
  bot_->AwaitIdle();
  clock_->Advance(std::chrono::hours(24));
  EXPECT_EQ(RunsOn("acme/later", model_.GetPull("acme/later", 2)->head_sha, "completed"),
            (std::vector<std::string>{"ci:completed:failure"}));
  EXPECT_EQ(RunsOn("acme/later", model_.GetPull("acme/later", 3)->head_sha, "in_progress"),
            (std::vector<std::string>{"ci:in_progress:"}));
}

TEST_F(CiBotTest, ARepositoryWithoutCiGetsNoChecks) {
  auto pr = model_.CreatePull("acme/quiet", NewPull{});
  ASSERT_TRUE(pr.ok());
  auto tested = model_.CreatePull("acme/app", NewPull{});  // after it: the bot has seen both
  EXPECT_EQ(RunsOn("acme/app", tested->head_sha, "in_progress").size(), 2u);
  EXPECT_TRUE(model_.CheckRunsFor("acme/quiet", pr->head_sha).empty());
  EXPECT_EQ(bot_->runs(), 1);
}

}  // namespace
}  // namespace gatehouse::sim
