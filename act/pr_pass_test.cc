// PrPass against a real SqliteStore and the in-process simulator (sim/in_process_github_test_
// util.h) on one SimClock: where the policy comes from (the default branch, an operator
// override file, the server defaults), what an invalid policy does, a repository with no known
// installation, and an intent an earlier holder left open on a PR that changed since. The
// end-to-end scenarios (tests/decide_act_e2e_test.cc) cover the pass inside `gatehouse serve`.
#include "act/pr_pass.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "act/pr_pass_test_util.h"

namespace gatehouse::act {
namespace {

using pass_testing::kAppWho;
using pass_testing::kAutoPolicy;
using pass_testing::kFullName;
using pass_testing::kSubject;
using std::chrono::hours;
using std::chrono::seconds;

class PrPassTest : public pass_testing::PassFixture {};

TEST_F(PrPassTest, TheRepositoryPolicyOnTheDefaultBranchDecides) {
  ReadyPull({{".github/gatehouse.yml", kAutoPolicy}});
  PassOutcome outcome = RunPass(PassConfig{});
  EXPECT_TRUE(outcome.ok) << outcome.error;
  ASSERT_EQ(AppEffects("merge").size(), 1u);
  EXPECT_EQ(AppEffects("merge")[0].sha, head_);
  EXPECT_EQ(AppEffects("merge")[0].status, 200);
  auto verdicts = Audit("verdict");
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_NE(verdicts[0].summary.find("pass"), std::string::npos);
  EXPECT_NE(verdicts[0].summary.find("acme/app:.github/gatehouse.yml"), std::string::npos);
  EXPECT_EQ(verdicts[0].head_sha, head_);
  EXPECT_EQ(Audit("planned").size(), 1u);
  EXPECT_GE(Audit("executed").size(), 3u);  // check run, comment, approve, merge, ...
}

TEST_F(PrPassTest, WithoutAPolicyFileTheServerDefaultObserveDoesNothing) {
  ReadyPull({});
  PassOutcome outcome = RunPass(PassConfig{});
  EXPECT_TRUE(outcome.ok) << outcome.error;
  EXPECT_TRUE(AppEffects().empty());
  auto verdicts = Audit("verdict");
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_NE(verdicts[0].summary.find("policy defaults"), std::string::npos);
  EXPECT_FALSE(Audit("skipped").empty());
}

TEST_F(PrPassTest, AnOperatorOverrideFileReplacesTheRepositoryFile) {
  ReadyPull({{".github/gatehouse.yml", kAutoPolicy}});
  const std::string dir = dir_.File("policies");
  std::filesystem::create_directories(dir + "/acme");
  std::ofstream(dir + "/acme/app.yml") << "version: 1\nactions:\n  autonomy: suggest\n";
  PassConfig config;
  config.override_dir = dir;
  PassOutcome outcome = RunPass(config);
  EXPECT_TRUE(outcome.ok) << outcome.error;
  EXPECT_TRUE(AppEffects("merge").empty()) << "suggest: no merge";
  EXPECT_TRUE(AppEffects("review").empty());
  EXPECT_EQ(AppEffects("check_run").size(), 1u) << "suggest: the report class acts";
  auto verdicts = Audit("verdict");
  ASSERT_EQ(verdicts.size(), 1u);
  EXPECT_NE(verdicts[0].summary.find(dir + "/acme/app.yml"), std::string::npos);
}

TEST_F(PrPassTest, AnInvalidPolicyIsReportedAsAFailingCheckRunAndNothingElse) {
  ReadyPull({{".github/gatehouse.yml", "version: 1\nrules:\n  approvals:\n    min: many\n"}});
  PassConfig config;
  config.defaults.actions.autonomy = decide::Autonomy::kAuto;  // server default
  PassOutcome outcome = RunPass(config);
  EXPECT_TRUE(outcome.ok) << outcome.error;
  auto effects = AppEffects();
  ASSERT_EQ(effects.size(), 1u) << "only the check run";
  EXPECT_EQ(effects[0].kind, "check_run");
  auto runs = github_.model().CheckRunsFor(kFullName, head_);
  bool found = false;
  for (const auto& r : runs) {
    if (r.name != "gatehouse") continue;
    found = true;
    EXPECT_EQ(r.conclusion, "failure");
    EXPECT_NE(r.summary.find("approvals.min"), std::string::npos) << r.summary;
    EXPECT_NE(r.summary.find(":4:"), std::string::npos) << "the line: " << r.summary;
  }
  EXPECT_TRUE(found);
}

TEST_F(PrPassTest, ARepositoryWithoutAKnownInstallationIsAuditedNotCalled) {
  ReadyPull({{".github/gatehouse.yml", kAutoPolicy}}, /*known=*/false);
  PassOutcome outcome = RunPass(PassConfig{});
  EXPECT_TRUE(outcome.ok) << "retrying cannot help; the next webhook teaches the installation";
  EXPECT_TRUE(AppEffects().empty());
  auto errors = Audit("error");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].summary.find("no installation known"), std::string::npos);
}

// A payload may name an installation GitHub does not know (a forged or stale payload that
// passed the signature check, an App uninstalled since): the token exchange is refused, and
// the pass reports it without a call on the PR and without crashing.
TEST_F(PrPassTest, AnInstallationGitHubDoesNotKnowIsAnAuditedErrorAndNoEffect) {
  ReadyPull({{".github/gatehouse.yml", kAutoPolicy}}, /*known=*/false);
  const RepoInstallation stale{kFullName, 999'999};
  ASSERT_TRUE(store_->repos().RecordLearned({&stale, 1}, {}, clock_->Now()).ok());
  PassOutcome outcome = RunPass(PassConfig{});
  EXPECT_TRUE(AppEffects().empty());
  auto errors = Audit("error");
  ASSERT_FALSE(errors.empty()) << outcome.error;
  EXPECT_NE(errors.back().summary.find("999999"), std::string::npos) << errors.back().summary;
}

TEST_F(PrPassTest, AnOpenIntentTheNewPlanDoesNotContainIsSettledWithoutACall) {
  ReadyPull({{".github/gatehouse.yml", kAutoPolicy}});
  // An earlier holder recorded a merge intent, merged, and died before recording it.
  Signal s{kSubject, "pushed", {}};
  ASSERT_TRUE(store_->work().Enqueue({&s, 1}, clock_->Now(), Durability::kRecoverable).ok());
  auto leases = store_->work().Claim("dead-worker", 1, seconds(30), clock_->Now());
  ASSERT_TRUE(leases.ok() && leases->size() == 1u);
  auto intent = store_->ledger().RecordIntent(ActionKey{kSubject, "merge", head_, "squash"},
                                     (*leases)[0].fence, clock_->Now());
  ASSERT_TRUE(intent.ok());
  ASSERT_TRUE(github_.model().Merge(kAppWho, kFullName, 1, head_, "squash").ok());
  clock_->Advance(seconds(31));  // its lease runs out

  PassOutcome outcome = RunPass(PassConfig{});
  EXPECT_TRUE(outcome.ok) << outcome.error;
  EXPECT_EQ(AppEffects("merge").size(), 1u) << "no second merge";
  auto rows = store_->ledger().ListActions(kSubject);
  ASSERT_TRUE(rows.ok());
  bool settled = false;
  for (const auto& a : *rows) {
    if (a.key.kind == "merge") {
      EXPECT_EQ(a.state, ActionState::kDone);
      EXPECT_NE(a.result.find("reconciled"), std::string::npos) << a.result;
      settled = true;
    }
  }
  EXPECT_TRUE(settled);
  EXPECT_EQ(Audit("reconciled").size(), 1u);
}

TEST_F(PrPassTest, ALabelGatehouseRemovedCanComeBackOnTheSameHead) {
  ReadyPull({{".github/gatehouse.yml", kAutoPolicy}});
  // CI flips on one head: red, re-running, red again. The pending-closure label follows.
  auto ci = [&](const std::string& status, const std::string& conclusion) {
    sim::CheckRun run;
    run.name = "ci";
    run.head_sha = head_;
    run.status = status;
    run.conclusion = conclusion;
    ASSERT_TRUE(github_.model().UpsertCheckRun("ci-app", kFullName, run, nullptr).ok());
  };
  ci("completed", "failure");
  ASSERT_TRUE(RunPass(PassConfig{}).ok);
  ci("in_progress", "");  // a re-run: pending, no longer a close candidate
  ASSERT_TRUE(RunPass(PassConfig{}).ok);
  ci("completed", "failure");
  ASSERT_TRUE(RunPass(PassConfig{}).ok);

  int added = 0, removed = 0;
  for (const auto& e : AppEffects()) {
    if (e.detail.find("pending-closure") == std::string::npos) continue;
    added += e.kind == "label_add" && e.status == 200;
    removed += e.kind == "label_remove" && e.status == 200;
  }
  EXPECT_EQ(added, 2) << "put back after gatehouse removed it, on the same head";
  EXPECT_EQ(removed, 1);
  const auto labels = github_.model().GetPull(kFullName, 1)->labels;
  EXPECT_NE(std::find(labels.begin(), labels.end(), "pending-closure"), labels.end());
}

TEST_F(PrPassTest, TheLoginIsDiscoveredOnceAndPassesWaitWhileGitHubCannotTell) {
  ReadyPull({{".github/gatehouse.yml", kAutoPolicy}});
  int asked = 0;
  PassConfig waiting;
  waiting.discover_login = [&asked]() -> GitHubResult<std::string> {
    ++asked;
    return GitHubError{GitHubErrorKind::kTransient, 502, {}, "GET /app: 502"};
  };
  PassOutcome outcome = RunPass(waiting);
  EXPECT_FALSE(outcome.ok);
  EXPECT_EQ(outcome.failure, FailureClass::kTransient);
  EXPECT_TRUE(AppEffects().empty()) << "nothing done under an unknown login";

  PassConfig known;
  known.discover_login = [&asked]() -> GitHubResult<std::string> {
    ++asked;
    return std::string("gatehouse[bot]");
  };
  // One PrPass, two passes: asked once.
  Signal s{kSubject, "pushed", {}};
  PrPass pass(*store_, github_.client(), clock_, known);
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(store_->work().Enqueue({&s, 1}, clock_->Now(), Durability::kRecoverable).ok());
    auto leases = store_->work().Claim("test", 1, hours(1), clock_->Now());
    ASSERT_TRUE(leases.ok() && leases->size() == 1u);
    EXPECT_TRUE(pass.Run((*leases)[0], LeaseRunsOut((*leases)[0])).ok);
    PassFinish finish{kSubject, (*leases)[0].fence, PassFinish::Kind::kCompleted, {}, 0, {}, ""};
    ASSERT_TRUE(store_->work().Finish({&finish, 1}, clock_->Now()).ok());
  }
  EXPECT_EQ(asked, 2) << "once while GitHub could not tell, once when it could";
  EXPECT_EQ(AppEffects("merge").size(), 1u);
}

TEST_F(PrPassTest, TheCloseAfterTheGracePeriodIsScheduledNotLeftToTheSweep) {
  ReadyPull({{".github/gatehouse.yml", std::string(kAutoPolicy) + "  close_grace: 1h\n"}});
  sim::CheckRun red;
  red.name = "ci";
  red.head_sha = head_;
  red.status = "completed";
  red.conclusion = "failure";
  ASSERT_TRUE(github_.model().UpsertCheckRun("ci-app", kFullName, red, nullptr).ok());
  const Time labelled = clock_->Now();
  // Labels pending-closure and schedules the close: gatehouse's own `labeled` webhook starts
  // no pass, so no later pass is waited for.
  ASSERT_TRUE(RunPass(PassConfig{}).ok);
  const auto labels = github_.model().GetPull(kFullName, 1)->labels;
  EXPECT_NE(std::find(labels.begin(), labels.end(), "pending-closure"), labels.end());
  auto item = store_->work().GetWorkItem(kSubject);
  ASSERT_TRUE(item.ok() && item->has_value());
  EXPECT_EQ((*item)->state, WorkState::kPending);
  EXPECT_EQ((*item)->reasons, std::vector<std::string>{"timer"});
  ASSERT_TRUE((*item)->due_at.has_value());
  EXPECT_GE(*(*item)->due_at, labelled + hours(1));
  EXPECT_LE(*(*item)->due_at, labelled + hours(1) + seconds(1));
  EXPECT_TRUE(AppEffects("close").empty());

  clock_->Advance(hours(1));
  ASSERT_TRUE(RunPass(PassConfig{}).ok);  // the timer's pass closes it
  EXPECT_EQ(AppEffects("close").size(), 1u);
  EXPECT_EQ(github_.model().GetPull(kFullName, 1)->state, "closed");
}

}  // namespace
}  // namespace gatehouse::act
