// The sweeper against a real SqliteStore on a temporary file and the real simulator, reached
// through GitHubClient over loopback (engine/sim_github_test_util.h). Rounds run on the test's
// thread (SweepOnce), except in the background loop's own test, where moving the SimClock is
// what makes the loop's next repository due.
#include "engine/sweeper.h"

#include <gtest/gtest.h>

#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "decide/planner.h"
#include "engine/engine_test_util.h"
#include "engine/sim_github_test_util.h"
#include "github/app_client.h"
#include "github/client.h"

namespace gatehouse {
namespace {

using std::chrono::seconds;
using testing::kInstallation;

const Time kStart = testing::kSimStart;

class SweeperTest : public testing::SimGitHubTest {
 protected:
  Sweeper MakeSweeper(SweepOptions options = {}, GitHub* github = nullptr) {
    return Sweeper(*store_, github != nullptr ? *github : *client_, clock_, options,
                   [this] { ++signalled_; });
  }

  // The world most tests start from: for each {name, prs}, a repository acme/<name> of
  // kInstallation with `prs` open PRs (numbered from 1), and the first repository's
  // installation learned, as a webhook would have taught it.
  // Call it under ASSERT_NO_FATAL_FAILURE.
  void OpenWorld(std::initializer_list<std::pair<std::string, int>> repos) {
    ASSERT_NE(repos.size(), 0u);
    for (const auto& [name, prs] : repos) {
      Repo("acme", name, kInstallation);
      for (int n = 1; n <= prs; ++n) {
        ASSERT_EQ(NewPull("acme/" + name, "pr " + std::to_string(n)), n);
      }
    }
    Learn("acme/" + repos.begin()->first, kInstallation);
  }
};

// --- SweepOnce ---

TEST_F(SweeperTest, SweepSignalsEveryOpenPrOfEveryRepositoryOfAKnownInstallation) {
  Repo("acme", "app", kInstallation);
  Repo("Acme", "Lib", kInstallation);  // GitHub's spelling; keys are lower-case
  Repo("other", "thing", 9);           // an installation gatehouse has never heard of
  ASSERT_EQ(NewPull("acme/app", "one"), 1);
  ASSERT_EQ(NewPull("acme/app", "two"), 2);
  ASSERT_EQ(NewPull("acme/app", "three"), 3);
  Close("acme/app", 2);
  ASSERT_EQ(NewPull("Acme/Lib", "one"), 1);
  ASSERT_EQ(NewPull("other/thing", "one"), 1);
  Learn("acme/app", kInstallation);  // as a webhook would have taught it
  ASSERT_FALSE(Known("acme/lib").has_value());

  Sweeper sweeper = MakeSweeper();
  SweepStats stats = sweeper.SweepOnce();
  EXPECT_EQ(stats.repos, 2);
  EXPECT_EQ(stats.prs, 3);
  EXPECT_EQ(stats.skipped, 0);
  EXPECT_GE(signalled_, 1);

  for (const char* key : {"acme/app#1", "acme/app#3", "acme/lib#1"}) {
    auto w = Item(key);
    ASSERT_TRUE(w.has_value()) << key;
    EXPECT_EQ(w->reasons, std::vector<std::string>{"swept"}) << key;
    EXPECT_EQ(w->state, WorkState::kPending) << key;
    EXPECT_EQ(w->requested_gen, 1) << key;
    EXPECT_EQ(w->due_at, kStart + seconds(1)) << key << ": the default debounce";
  }
  EXPECT_FALSE(Item("acme/app#2").has_value()) << "closed";
  EXPECT_FALSE(Item("Acme/Lib#1").has_value()) << "keys are lower-case only";
  EXPECT_FALSE(Item("other/thing#1").has_value()) << "installation 9 is not known";

  // The repository found only through the installation listing is remembered with it.
  auto lib = Known("acme/lib");
  ASSERT_TRUE(lib.has_value());
  EXPECT_EQ(lib->repo, "acme/lib");
  EXPECT_EQ(lib->installation_id, kInstallation);
  EXPECT_EQ(Known("acme/app")->installation_id, kInstallation);
  EXPECT_FALSE(Known("other/thing").has_value());

  // The second round lists the same PRs as the first: it signals none of them.
  clock_->Advance(seconds(5));
  SweepStats again = sweeper.SweepOnce();
  EXPECT_FALSE(again.full);
  EXPECT_EQ(again.repos, 2);
  EXPECT_EQ(again.prs, 0);
  EXPECT_EQ(again.unchanged, 3);
  EXPECT_EQ(Item("acme/app#1")->requested_gen, 1);
  EXPECT_FALSE(Item("acme/app#2").has_value());
}

// Between full rounds only what the listing shows as new or changed is signalled: a push (new
// head), a new PR, a reopened one; every `full_every`-th round is full (the tests below).
TEST_F(SweeperTest, AChangesRoundSignalsOnlyNewOrChangedPrsAndEveryNthRoundIsFull) {
  ASSERT_NO_FATAL_FAILURE(OpenWorld({{"app", 3}, {"lib", 1}}));
  SweepOptions options;
  options.full_every = 3;
  Sweeper sweeper = MakeSweeper(options);

  SweepStats first = sweeper.SweepOnce();
  EXPECT_TRUE(first.full);
  EXPECT_EQ(first.prs, 4);

  clock_->Advance(seconds(5));
  ASSERT_TRUE(model_->Push("alice", "acme/app", 1, "").ok());  // a new head
  ASSERT_EQ(NewPull("acme/app", "four"), 4);
  Close("acme/app", 3);
  SweepStats second = sweeper.SweepOnce();
  EXPECT_FALSE(second.full);
  EXPECT_EQ(second.prs, 2);
  EXPECT_EQ(second.unchanged, 2);  // app#2, lib#1
  EXPECT_EQ(Item("acme/app#1")->requested_gen, 2);
  EXPECT_EQ(Item("acme/app#4")->requested_gen, 1);
  EXPECT_EQ(Item("acme/app#2")->requested_gen, 1);
  EXPECT_EQ(Item("acme/lib#1")->requested_gen, 1);

  // Reopened: it was not in the last listing, so it is new to this one.
  clock_->Advance(seconds(5));
  ASSERT_TRUE(model_->SetState("alice", "acme/app", 3, "open").ok());
  SweepStats third = sweeper.SweepOnce();
  EXPECT_FALSE(third.full);
  EXPECT_EQ(third.prs, 1);
  EXPECT_EQ(Item("acme/app#3")->requested_gen, 2);

  // The fourth round is full: it lists every PR with its head's checks and signals those whose
  // row, merge state or checks moved since the first round's (pushed #1, new #4, reopened #3).
  clock_->Advance(seconds(5));
  SweepStats fourth = sweeper.SweepOnce();
  EXPECT_TRUE(fourth.full);
  EXPECT_EQ(fourth.prs, 3);
  EXPECT_EQ(fourth.unchanged, 2);
  EXPECT_EQ(Item("acme/app#2")->requested_gen, 1);
  EXPECT_EQ(Item("acme/lib#1")->requested_gen, 1);
}

// A check run or a status on a PR's head, or a base that moved, does not move its `updated_at`:
// changes rounds cannot see one whose webhook was lost, and the next full round signals that
// PR, and only it. gatehouse's own check runs are what its passes wrote, and do not count.
TEST_F(SweeperTest, AFullRoundSignalsThePrsWhoseHeadChecksMovedAndNoOther) {
  ASSERT_NO_FATAL_FAILURE(OpenWorld({{"app", 4}}));
  SweepOptions options;
  options.full_every = 2;
  Sweeper sweeper = MakeSweeper(options);
  ASSERT_EQ(sweeper.SweepOnce().prs, 4);  // the first round: every PR

  auto head = [&](int n) { return model_->GetPull("acme/app", n)->head_sha; };
  sim::CheckRun ci;
  ci.name = "ci";
  ci.head_sha = head(1);
  ci.status = "completed";
  ci.conclusion = "success";
  ASSERT_TRUE(model_->UpsertCheckRun("ci-bot", "acme/app", ci, nullptr).ok());
  sim::CommitStatus deploy;
  deploy.sha = head(2);
  deploy.context = "deploy";
  deploy.state = "success";
  ASSERT_TRUE(model_->SetStatus("ci-bot", "acme/app", deploy, nullptr).ok());
  sim::CheckRun own;
  own.name = std::string(decide::kCheckRunName);
  own.head_sha = head(3);
  own.status = "completed";
  own.conclusion = "neutral";
  ASSERT_TRUE(model_->UpsertCheckRun("installation:7", "acme/app", own, nullptr).ok());
  ASSERT_TRUE(model_->MoveBase("acme/app", 4, /*conflicted=*/false).ok());  // #4 is behind

  clock_->Advance(seconds(5));
  SweepStats changes = sweeper.SweepOnce();
  EXPECT_FALSE(changes.full);
  EXPECT_EQ(changes.prs, 0) << "nothing moved a listing row";

  clock_->Advance(seconds(5));
  SweepStats full = sweeper.SweepOnce();
  EXPECT_TRUE(full.full);
  EXPECT_EQ(full.prs, 3);
  EXPECT_EQ(full.unchanged, 1);
  EXPECT_EQ(Item("acme/app#1")->requested_gen, 2);
  EXPECT_EQ(Item("acme/app#2")->requested_gen, 2);
  EXPECT_EQ(Item("acme/app#3")->requested_gen, 1);
  EXPECT_EQ(Item("acme/app#4")->requested_gen, 2);

  // Nothing moved since: the next full round signals nothing, at one costing request (its
  // GraphQL query) for the repository.
  clock_->Advance(seconds(5));
  ASSERT_EQ(sweeper.SweepOnce().prs, 0);
  clock_->Advance(seconds(5));
  handler_->requests().RenderAndReset();
  SweepStats quiet = sweeper.SweepOnce();
  EXPECT_TRUE(quiet.full);
  EXPECT_EQ(quiet.prs, 0);
  EXPECT_EQ(quiet.unchanged, 4);
  const boost::json::object counted = handler_->requests().RenderAndReset();
  EXPECT_EQ(counted.at("total").at("costing"), 1) << boost::json::serialize(counted);

  // A status posted again with the state the last full round saw is a new one: between the two
  // it may have been pending, and the webhook that said it came back may be the one lost.
  clock_->Advance(seconds(5));
  deploy.state = "pending";
  ASSERT_TRUE(model_->SetStatus("ci-bot", "acme/app", deploy, nullptr).ok());
  clock_->Advance(seconds(5));
  deploy.state = "success";
  ASSERT_TRUE(model_->SetStatus("ci-bot", "acme/app", deploy, nullptr).ok());
  ASSERT_EQ(sweeper.SweepOnce().prs, 0);  // a changes round
  clock_->Advance(seconds(5));
  SweepStats again = sweeper.SweepOnce();
  EXPECT_TRUE(again.full);
  EXPECT_EQ(again.prs, 1);
  EXPECT_EQ(Item("acme/app#2")->requested_gen, 3);
}

// A push that changes the policy file is not a webhook gatehouse routes: the next full round
// sees the file's new object id and signals every open PR of that repository, and of no other.
TEST_F(SweeperTest, AFullRoundSignalsEveryPrOfARepositoryWhosePolicyFileChanged) {
  ASSERT_NO_FATAL_FAILURE(OpenWorld({{"app", 2}, {"lib", 1}}));
  SweepOptions options;
  options.full_every = 1;
  Sweeper sweeper = MakeSweeper(options);
  ASSERT_EQ(sweeper.SweepOnce().prs, 3);
  clock_->Advance(seconds(5));
  ASSERT_EQ(sweeper.SweepOnce().prs, 0);

  ASSERT_TRUE(
      model_->PutDefaultBranchFile("acme/app", ".github/gatehouse.yml", "autonomy: observe\n")
          .ok());
  clock_->Advance(seconds(5));
  SweepStats moved = sweeper.SweepOnce();
  EXPECT_EQ(moved.prs, 2);
  EXPECT_EQ(Item("acme/app#1")->requested_gen, 2);
  EXPECT_EQ(Item("acme/app#2")->requested_gen, 2);
  EXPECT_EQ(Item("acme/lib#1")->requested_gen, 1);
  clock_->Advance(seconds(5));
  EXPECT_EQ(sweeper.SweepOnce().prs, 0);

  // So does the operator's override file, through SweepOptions::local_policy.
  std::string override_text = "a";
  options.local_policy = [&override_text](const RepoRef& repo) {
    return repo.name == "lib" ? override_text : std::string();
  };
  Sweeper local = MakeSweeper(options);
  ASSERT_EQ(local.SweepOnce().prs, 3);
  override_text = "b";
  clock_->Advance(seconds(5));
  EXPECT_EQ(local.SweepOnce().prs, 1);
  EXPECT_EQ(Item("acme/lib#1")->requested_gen, 3);
}

// Every `deep_every`-th full round signals every open PR, changed or not: the net under what
// only time or GitHub's side changes (a mergeability computed late, a refused merge).
TEST_F(SweeperTest, EveryDeepEveryThFullRoundSignalsEveryOpenPr) {
  ASSERT_NO_FATAL_FAILURE(OpenWorld({{"app", 2}}));
  SweepOptions options;
  options.full_every = 1;
  options.deep_every = 2;
  Sweeper sweeper = MakeSweeper(options);
  SweepStats first = sweeper.SweepOnce();
  EXPECT_TRUE(first.deep);
  EXPECT_EQ(first.prs, 2);
  clock_->Advance(seconds(5));
  SweepStats second = sweeper.SweepOnce();
  EXPECT_TRUE(second.full);
  EXPECT_FALSE(second.deep);
  EXPECT_EQ(second.prs, 0);
  clock_->Advance(seconds(5));
  SweepStats third = sweeper.SweepOnce();
  EXPECT_TRUE(third.deep);
  EXPECT_EQ(third.prs, 2);
  EXPECT_EQ(Item("acme/app#1")->requested_gen, 2);
  EXPECT_EQ(Item("acme/app#2")->requested_gen, 2);
}

// A full round whose GraphQL listing fails (here a secondary rate limit) skips the repository
// and keeps what the last full round saw: it does not fall back to passing every PR, and the
// next full round compares with the old listing.
TEST_F(SweeperTest, AFullRoundThatCannotListChecksSkipsTheRepositoryAndPassesNothing) {
  ASSERT_NO_FATAL_FAILURE(OpenWorld({{"app", 1}, {"lib", 1}}));
  SweepOptions options;
  options.full_every = 2;
  Sweeper sweeper = MakeSweeper(options);
  ASSERT_EQ(sweeper.SweepOnce().prs, 2);
  clock_->Advance(seconds(5));
  ASSERT_EQ(sweeper.SweepOnce().prs, 0);  // a changes round

  arming_->ArmOn("/graphql", R"({"secondary_rate_limits":1,"retry_after_seconds":30})");
  clock_->Advance(seconds(5));
  SweepStats limited = sweeper.SweepOnce();
  EXPECT_TRUE(limited.full);
  EXPECT_EQ(arming_->fired(), 1);
  EXPECT_EQ(limited.skipped, 2);  // the second repository is refused locally, within Retry-After
  EXPECT_EQ(limited.prs, 0);
  EXPECT_EQ(Item("acme/app#1")->requested_gen, 1);
  EXPECT_EQ(Item("acme/lib#1")->requested_gen, 1);

  clock_->Advance(seconds(31));
  ASSERT_FALSE(sweeper.SweepOnce().full);
  clock_->Advance(seconds(5));
  SweepStats next = sweeper.SweepOnce();
  EXPECT_TRUE(next.full);
  EXPECT_EQ(next.skipped, 0);
  EXPECT_EQ(next.prs, 0);
  EXPECT_EQ(next.unchanged, 2);
}

// An execution error of the listing (GitHub's 200 with an error and no data) skips the
// repository as any error does, and GraphQL stays on: the next full round lists it again.
TEST_F(SweeperTest, AnExecutionErrorSkipsTheRepositoryAndTheNextFullRoundListsIt) {
  ASSERT_NO_FATAL_FAILURE(OpenWorld({{"app", 1}}));
  SweepOptions options;
  options.full_every = 1;
  Sweeper sweeper = MakeSweeper(options);
  ASSERT_EQ(sweeper.SweepOnce().prs, 1);
  arming_->ArmOn("/graphql", R"({"aimed":[{"path":"/graphql","fault":"graphql_timeout"}]})");
  clock_->Advance(seconds(5));
  SweepStats timed_out = sweeper.SweepOnce();
  EXPECT_EQ(arming_->fired(), 1);
  EXPECT_TRUE(timed_out.full);
  EXPECT_EQ(timed_out.skipped, 1);
  EXPECT_EQ(timed_out.prs, 0);
  EXPECT_TRUE(client_->ListsOpenPullChecks());
  clock_->Advance(seconds(5));
  SweepStats next = sweeper.SweepOnce();
  EXPECT_EQ(next.skipped, 0);
  EXPECT_EQ(next.unchanged, 1);
  EXPECT_EQ(Item("acme/app#1")->requested_gen, 1) << "nothing changed, nothing signalled";
}

// In App mode a fresh database knows no installation; GET /app/installations names them, so
// the first round finds every repository and PR before any webhook arrived.
TEST_F(SweeperTest, TheAppsInstallationListingFindsInstallationsNoWebhookNamed) {
  Repo("acme", "app", kInstallation);
  Repo("other", "thing", 9);
  NewPull("acme/app", "one");
  NewPull("other/thing", "one");
  AppClient app(github_.transport(), github_.signer(), clock_);
  SweepOptions options;
  options.installations = &app;
  Sweeper sweeper = MakeSweeper(options);
  SweepStats stats = sweeper.SweepOnce();
  EXPECT_EQ(stats.repos, 2);
  EXPECT_EQ(stats.prs, 2);
  EXPECT_TRUE(Signalled("acme/app#1", "swept"));
  EXPECT_TRUE(Signalled("other/thing#1", "swept"));
  ASSERT_TRUE(Known("other/thing").has_value());
  EXPECT_EQ(Known("other/thing")->installation_id, 9);
}

TEST_F(SweeperTest, SweepWithNothingKnownCallsNothingAndSignalsNothing) {
  Repo("acme", "app", kInstallation);
  NewPull("acme/app", "one");
  Sweeper sweeper = MakeSweeper();
  SweepStats stats = sweeper.SweepOnce();
  EXPECT_EQ(stats.repos, 0);
  EXPECT_EQ(stats.prs, 0);
  EXPECT_EQ(signalled_, 0);
  EXPECT_FALSE(Item("acme/app#1").has_value());
  EXPECT_FALSE(Known("acme/app").has_value());
}

TEST_F(SweeperTest, PersonalTokenModeSweepsOnlyStoreKnownRepositories) {
  Repo("acme", "app", kInstallation);
  Repo("acme", "lib", kInstallation);
  NewPull("acme/app", "one");
  NewPull("acme/app", "two");
  NewPull("acme/lib", "one");
  Learn("acme/app", std::nullopt);  // a personal-token webhook names no installation

  // App mode: without an installation nothing can be called for it.
  {
    Sweeper app = MakeSweeper();
    SweepStats stats = app.SweepOnce();
    EXPECT_EQ(stats.repos, 0);
    EXPECT_FALSE(Item("acme/app#1").has_value());
  }

  // Personal-token mode: a fixed token for every call (here one the simulator issued).
  Time expires;
  PersonalTokenSource pat(model_->IssueToken(kInstallation, &expires));
  GitHubClient pat_client(*curl_, pat, clock_);
  SweepOptions options;
  options.app_mode = false;
  Sweeper sweeper = MakeSweeper(options, &pat_client);
  SweepStats stats = sweeper.SweepOnce();
  EXPECT_EQ(stats.repos, 1);
  EXPECT_EQ(stats.prs, 2);
  EXPECT_EQ(stats.skipped, 0);
  EXPECT_TRUE(Signalled("acme/app#1", "swept"));
  EXPECT_TRUE(Signalled("acme/app#2", "swept"));
  EXPECT_FALSE(Item("acme/lib#1").has_value()) << "not learned: not listed in this mode";
  EXPECT_FALSE(Known("acme/lib").has_value());
  EXPECT_FALSE(Known("acme/app")->installation_id.has_value());
}

TEST_F(SweeperTest, ASecondaryRateLimitSkipsTheRepositoryUntilTheNextRoundAfterRetryAfter) {
  ASSERT_NO_FATAL_FAILURE(OpenWorld({{"app", 2}, {"lib", 1}}));
  Sweeper sweeper = MakeSweeper();
  ASSERT_EQ(sweeper.SweepOnce().prs, 3);  // the first round (full) reads over GraphQL

  // The simulator lists acme/app before acme/lib; lib's PR listing meets the limit.
  arming_->ArmOn("/repos/acme/lib/pulls",
                 R"({"secondary_rate_limits":1,"retry_after_seconds":30})");
  ASSERT_TRUE(model_->Push("alice", "acme/app", 1, "").ok());
  ASSERT_TRUE(model_->Push("alice", "acme/lib", 1, "").ok());
  clock_->Advance(seconds(1));
  SweepStats stats = sweeper.SweepOnce();
  EXPECT_EQ(arming_->fired(), 1);
  EXPECT_EQ(stats.skipped, 1);
  EXPECT_EQ(stats.repos, 1);
  EXPECT_EQ(stats.prs, 1);
  EXPECT_EQ(Item("acme/app#1")->requested_gen, 2);
  EXPECT_EQ(Item("acme/lib#1")->requested_gen, 1) << "nothing enqueued for the skipped repository";

  // Within Retry-After the installation's calls are refused locally: everything is skipped.
  clock_->Advance(seconds(10));
  SweepStats early = sweeper.SweepOnce();
  EXPECT_EQ(early.repos, 0);
  EXPECT_EQ(early.skipped, 2);
  EXPECT_EQ(Item("acme/lib#1")->requested_gen, 1);

  // The skipped repositories were forgotten: each of their PRs is new to the next round.
  clock_->Advance(seconds(21));
  SweepStats next = sweeper.SweepOnce();
  EXPECT_EQ(next.skipped, 0);
  EXPECT_EQ(next.repos, 2);
  EXPECT_EQ(next.prs, 3);
  EXPECT_EQ(Item("acme/lib#1")->requested_gen, 2);
}

// --- The background loop ---

// The first round catches up at once; later rounds spread their repositories over the
// interval and wait for each one's share on the injected clock: a repository comes due when
// the test moves the SimClock past its share, not before, and each round starts one interval
// after the last.
TEST_F(SweeperTest, TheLoopSweepsEachRepositoryWhenTheClockReachesItsShareOfTheInterval) {
  ASSERT_NO_FATAL_FAILURE(OpenWorld({{"app", 1}, {"lib", 1}}));
  SweepOptions options;
  options.interval = std::chrono::minutes(10);  // two repositories: one every 5 minutes
  options.full_every = 1;                       // every round is full
  testing::EventCount sweeps;
  Sweeper sweeper(*store_, *client_, clock_, options, [&sweeps] { sweeps.Add(); });
  sweeper.Start();

  // The first round: both repositories back to back; then the loop parks until the next.
  clock_->AwaitWaiters(1);
  EXPECT_EQ(sweeps.count(), 2);
  EXPECT_EQ(Item("acme/app#1")->requested_gen, 1);
  EXPECT_EQ(Item("acme/lib#1")->requested_gen, 1);

  // New heads, so that the full rounds below have something to signal.
  ASSERT_TRUE(model_->Push("alice", "acme/app", 1, "").ok());
  ASSERT_TRUE(model_->Push("alice", "acme/lib", 1, "").ok());
  clock_->Advance(std::chrono::minutes(10));
  ASSERT_TRUE(sweeps.AwaitAtLeast(3));
  EXPECT_EQ(Item("acme/app#1")->requested_gen, 2);
  EXPECT_EQ(Item("acme/lib#1")->requested_gen, 1) << "its share of the interval has not come";

  clock_->Advance(std::chrono::minutes(5));
  ASSERT_TRUE(sweeps.AwaitAtLeast(4));
  EXPECT_EQ(Item("acme/lib#1")->requested_gen, 2);
  sweeper.Stop();
  EXPECT_EQ(Item("acme/app#1")->requested_gen, 2);
}

}  // namespace
}  // namespace gatehouse
