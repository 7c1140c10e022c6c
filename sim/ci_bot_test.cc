// The simulator's CI bot (sim/ci_bot.h) on a simulated clock: every new head of an open PR in a
// repository with CI gets its checks, in progress at once and completed when the clock reaches
// the configured duration; failing PRs fail; update-branch heads are tested again; an
// integration branch's commit is tested once it has settled as the branch's tip.
#include "sim/ci_bot.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <memory>

#include "sim/render.h"

namespace gatehouse::sim {
namespace {

namespace json = boost::json;

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

// An integration branch (POST /merges): only the commit that stayed the tip for branch_settle
// is tested, once, with check runs that list no PR and name the branch.
class CiBotBranchTest : public CiBotTest {
 protected:
  static constexpr const char* kRepo = "acme/queue";
  static constexpr const char* kBranch = "gatehouse/queue/main";
  static constexpr const char* kApp = "installation:7";

  void SetUp() override {
    ASSERT_TRUE(model_
                    .CreateRepo("acme", "queue", 7, {},
                                {.ci = {.checks = {"ci"},
                                        .duration = std::chrono::seconds(10),
                                        .failing_later = {2},
                                        .hanging_later = {3},
                                        .branch_settle = std::chrono::milliseconds(500)}})
                    .ok());
    for (int i = 0; i < 4; ++i) ASSERT_TRUE(model_.CreatePull(kRepo, NewPull{}).ok());
    bot_->AwaitIdle();
    clock_->Advance(std::chrono::seconds(10));  // every PR's first head passes
    bot_->AwaitIdle();
    ASSERT_EQ(bot_->runs(), 4);
    ASSERT_EQ(model_.CreateRef(kApp, kRepo, std::string("refs/heads/") + kBranch, Main()).status,
              201);
  }
  std::string Main() { return model_.GetRepo(kRepo)->default_sha; }
  std::string Merge(int n) {
    Model::MergeCommitMade made;
    const std::string head = model_.GetPull(kRepo, n)->head_sha;
    EXPECT_EQ(model_.MergeIntoBranch(kApp, kRepo, kBranch, head, &made).status, 201);
    return made.sha;
  }
  // The branch afresh at the default branch's tip.
  void Reset() { ASSERT_EQ(model_.UpdateRef(kApp, kRepo, kBranch, Main(), true).status, 200); }
  std::vector<std::string> Runs(const std::string& sha) {
    std::vector<std::string> out;
    for (const char* status : {"in_progress", "completed"}) {
      for (const std::string& run : RunsOn(kRepo, sha, status)) out.push_back(run);
    }
    return out;
  }
};

TEST_F(CiBotBranchTest, TheSettledTipIsTestedOnceAndItsChecksNameTheBranch) {
  std::vector<json::object> payloads;  // check_run and check_suite webhooks, rendered
  model_.SetListener([&](const Notification& n) {
    if (n.event == "check_run" || n.event == "check_suite") payloads.push_back(RenderWebhook(n));
  });
  const std::string first = Merge(1);
  clock_->Advance(std::chrono::milliseconds(100));
  const std::string tip = Merge(4);
  clock_->Advance(std::chrono::milliseconds(400));  // `first` is due, and superseded
  EXPECT_TRUE(Runs(first).empty());
  EXPECT_TRUE(Runs(tip).empty()) << "not settled yet";
  clock_->Advance(std::chrono::milliseconds(100));
  EXPECT_EQ(Runs(tip), (std::vector<std::string>{"ci:in_progress:"}));
  clock_->Advance(std::chrono::seconds(10));
  EXPECT_EQ(Runs(tip), (std::vector<std::string>{"ci:completed:success"}));
  EXPECT_TRUE(Runs(first).empty());
  EXPECT_EQ(bot_->runs(), 5);
  int created = 0;
  for (const Effect& e : model_.Effects()) {
    created += e.kind == "check_run" && e.who == kCiBotActor && e.status == 201;
  }
  EXPECT_EQ(created, 5) << "the four PR heads and the settled tip";

  ASSERT_EQ(payloads.size(), 3u);  // created, completed, the suite completed
  for (const json::object& p : payloads) {
    const json::object& o =
        (p.contains("check_suite") ? p.at("check_suite") : p.at("check_run")).as_object();
    EXPECT_EQ(o.at("head_sha").as_string(), tip);
    EXPECT_TRUE(o.at("pull_requests").as_array().empty());
    const json::value& branch =
        p.contains("check_suite") ? o.at("head_branch") : o.at("check_suite").at("head_branch");
    EXPECT_EQ(branch, json::value(kBranch));
  }
  EXPECT_EQ(payloads[2].at("check_suite").at("conclusion").as_string(), "success");
}

TEST_F(CiBotBranchTest, ABatchFailsWithAFailingLaterPrAndHangsWithAHangingLaterOne) {
  Merge(1);
  const std::string broken = Merge(2);  // #2 passes alone on its first head, not combined
  clock_->Advance(std::chrono::milliseconds(500));
  bot_->AwaitIdle();
  clock_->Advance(std::chrono::seconds(10));
  EXPECT_EQ(Runs(broken), (std::vector<std::string>{"ci:completed:failure"}));

  // Bisected: #1 alone passes, #2 alone fails.
  Reset();
  const std::string one = Merge(1);
  clock_->Advance(std::chrono::milliseconds(500));
  bot_->AwaitIdle();
  clock_->Advance(std::chrono::seconds(10));
  EXPECT_EQ(Runs(one), (std::vector<std::string>{"ci:completed:success"}));
  Reset();
  const std::string two = Merge(2);
  clock_->Advance(std::chrono::milliseconds(500));
  bot_->AwaitIdle();
  clock_->Advance(std::chrono::seconds(10));
  EXPECT_EQ(Runs(two), (std::vector<std::string>{"ci:completed:failure"}));

  // #3 in it: started, never completed.
  const std::string hung = Merge(3);
  clock_->Advance(std::chrono::milliseconds(500));
  bot_->AwaitIdle();
  clock_->Advance(std::chrono::hours(24));
  EXPECT_EQ(Runs(hung), (std::vector<std::string>{"ci:in_progress:"}));
  EXPECT_EQ(bot_->runs(), 4 + 4);

  // A branch deleted before its commit settled: nothing is tested.
  Reset();
  const std::string dropped = Merge(4);
  ASSERT_EQ(model_.DeleteRef(kApp, kRepo, kBranch).status, 204);
  clock_->Advance(std::chrono::seconds(1));
  EXPECT_TRUE(Runs(dropped).empty());
  EXPECT_EQ(bot_->runs(), 8);
}

}  // namespace
}  // namespace gatehouse::sim
