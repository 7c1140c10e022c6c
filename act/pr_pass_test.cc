// PrPass against a real SqliteStore and the in-process simulator (sim/in_process_github_test_
// util.h) on one SimClock: where the policy comes from (the default branch, an operator
// override file, the server defaults), what an invalid policy does, a repository with no known
// installation, and an intent an earlier holder left open on a PR that changed since. The
// end-to-end scenarios (tests/decide_act_e2e_test.cc) cover the pass inside `gatehouse serve`.
#include "act/pr_pass.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "act/pr_pass_test_util.h"
#include "sim/invariants.h"

namespace gatehouse::act {
namespace {

using pass_testing::kAppWho;
using pass_testing::kAutoPolicy;
using pass_testing::kFullName;
using pass_testing::kSubject;
using std::chrono::hours;
using std::chrono::seconds;

class PrPassTest : public pass_testing::PassFixture {
 protected:
  // The simulator's count of `method` requests to `endpoint` (GitHub's path template).
  int64_t Requests(std::string_view method, std::string_view endpoint) {
    HttpRequest req{
        .method = "GET", .target = "/_sim/requests", .headers = {}, .body = "", .peer = "test"};
    const boost::json::value doc = boost::json::parse(github_.handler().Serve(req).body);
    int64_t n = 0;
    for (const auto& e : doc.at("endpoints").as_array()) {
      if (e.at("endpoint").as_string() == endpoint && e.at("method").as_string() == method) {
        n += e.at("requests").as_int64();
      }
    }
    return n;
  }
};

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

// A store that lost its ledger (a restore, a new database) finds gatehouse's summary comment
// among the comments its first read carried: it edits that comment, writes no second one, and
// lists nothing. A store that knows the comment does not ask for the comments at all.
TEST_F(PrPassTest, ASummaryTheLedgerDoesNotKnowIsFoundInThePassesOneRead) {
  using pass_testing::kNoMergePolicy;
  ReadyPull({{".github/gatehouse.yml", kNoMergePolicy}});
  ASSERT_TRUE(RunPass(PassConfig{}).ok);
  ASSERT_EQ(github_.model().CommentsFor(kFullName, 1).size(), 1u);

  // A new database; CI goes red, so the summary must change.
  auto fresh = OpenSqliteStore(dir_.File("second.db"));
  ASSERT_TRUE(fresh.ok()) << fresh.status().ToString();
  store_ = std::move(fresh).value();
  const RepoInstallation r{kFullName, pass_testing::kInstallation};
  ASSERT_TRUE(store_->repos().RecordLearned({&r, 1}, {}, clock_->Now()).ok());
  ASSERT_NO_FATAL_FAILURE(CompleteCi("failure"));
  auto listings = [&] { return Requests("GET", "/repos/{owner}/{repo}/issues/{n}/comments"); };
  const int64_t listed_before = listings();
  clock_->Advance(seconds(1));
  ASSERT_TRUE(RunPass(PassConfig{}).ok);
  EXPECT_EQ(listings(), listed_before) << "found in the pass's read, not listed";
  const auto comments = github_.model().CommentsFor(kFullName, 1);
  ASSERT_EQ(comments.size(), 1u) << "no second summary";
  EXPECT_NE(comments[0].body.find("ci"), std::string::npos) << comments[0].body;
  EXPECT_EQ(sim::ExtraSummaryComments(github_.model()), std::vector<std::string>{});
  int edits = 0;
  for (const auto& e : AppEffects()) edits += e.kind == "comment_edit" && e.status == 200;
  EXPECT_EQ(edits, 1) << "the comment the first store wrote was edited";
}

// A protected-paths rule needs the PR's changed paths: the pass's one read carries them, and
// they decide (README.md, the PR's one file, protected: no merge; only docs/: the merge).
class ProtectedPathsPassTest : public PrPassTest,
                               public ::testing::WithParamInterface<std::string> {};

TEST_P(ProtectedPathsPassTest, TheChangedPathsTheRuleNeedsComeWithThePassesOneRead) {
  ReadyPull({{".github/gatehouse.yml", std::string(R"(version: 1
rules:
  required_checks:
    checks: [ci]
  approvals:
    min: 1
  protected_paths:
    mode: block
    paths: [")") + GetParam() + R"("]
actions:
  autonomy: auto
)"}});
  ASSERT_TRUE(RunPass(PassConfig{}).ok);
  EXPECT_EQ(Requests("GET", "/repos/{owner}/{repo}/pulls/{n}/files"), 0) << "not listed";
  EXPECT_EQ(github_.model().GetPull(kFullName, 1)->merged, GetParam() == "docs/**");
}

INSTANTIATE_TEST_SUITE_P(Paths, ProtectedPathsPassTest, ::testing::Values("README.md", "docs/**"),
                         [](const auto& param_info) {
                           return param_info.index == 0 ? "readme" : "docs";
                         });

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
