// Branch protection in the simulator (sim/model.h, BranchProtection): "require up to date" and
// required checks refuse a merge as GitHub does (405, mergeable_state behind / blocked), and,
// not enforced, let it through marked untested for the `untested_merges` invariant.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <memory>

#include "sim/handler_test_util.h"
#include "sim/invariants.h"
#include "sim/model.h"
#include "sim/rest.h"

namespace gatehouse::sim {
namespace {

constexpr const char* kApp = "installation:7";

class ProtectionTest : public ::testing::Test {
 protected:
  ProtectionTest()
      : clock_(std::make_shared<SimClock>(FromMicros(1'800'000'000'000'000))),
        model_(clock_, ModelOptions{.mergeable_delay = std::chrono::seconds(1),
                                    .token_ttl = std::chrono::minutes(60)}) {}

  void MakeRepo(bool enforce) {
    ASSERT_TRUE(model_
                    .CreateRepo("acme", "strict", 7, {},
                                {.protection = {.strict = true,
                                                .required_checks = {"ci", "lint"},
                                                .enforce = enforce}})
                    .ok());
  }
  PullRequest Open() {
    auto pr = model_.CreatePull("acme/strict", NewPull{});
    EXPECT_TRUE(pr.ok());
    clock_->Advance(std::chrono::seconds(2));  // mergeability known
    return *pr;
  }
  void Check(const std::string& sha, const std::string& name, const std::string& conclusion) {
    CheckRun run;
    run.name = name;
    run.head_sha = sha;
    run.conclusion = conclusion;
    run.status = conclusion.empty() ? "in_progress" : "completed";
    ASSERT_TRUE(model_.UpsertCheckRun("ci-bot", "acme/strict", run, nullptr).ok());
  }
  std::string State(int number) { return model_.GetPull("acme/strict", number)->mergeable_state; }
  Outcome Merge(const PullRequest& pr) {
    return model_.Merge(kApp, "acme/strict", pr.number,
                        model_.GetPull("acme/strict", pr.number)->head_sha, "merge");
  }

  std::shared_ptr<SimClock> clock_;
  Model model_;
};

TEST_F(ProtectionTest, RequiredChecksMustSucceedOnTheHead) {
  MakeRepo(/*enforce=*/true);
  PullRequest pr = Open();
  EXPECT_EQ(State(pr.number), "blocked");
  Outcome missing = Merge(pr);
  EXPECT_EQ(missing.status, 405);
  EXPECT_EQ(missing.message, "Required status check \"ci\" is expected.");

  Check(pr.head_sha, "ci", "success");
  Check(pr.head_sha, "lint", "");  // in progress
  EXPECT_EQ(Merge(pr).message, "Required status check \"lint\" is expected.");
  Check(pr.head_sha, "lint", "failure");
  EXPECT_EQ(Merge(pr).message, "Required status check \"lint\" is failing.");
  // The latest run of a name counts: a re-run that passed clears the failure.
  Check(pr.head_sha, "lint", "success");
  EXPECT_EQ(State(pr.number), "clean");
  Outcome merged = Merge(pr);
  EXPECT_EQ(merged.status, 200) << merged.message;
  EXPECT_TRUE(UntestedMerges(model_.Effects()).empty());
}

TEST_F(ProtectionTest, AStrictBaseRefusesAPrBehindItUntilItIsUpdatedAndTestedAgain) {
  MakeRepo(/*enforce=*/true);
  PullRequest first = Open();
  PullRequest second = Open();
  for (const PullRequest* pr : {&first, &second}) {
    Check(pr->head_sha, "ci", "success");
    Check(pr->head_sha, "lint", "success");
  }
  ASSERT_EQ(Merge(first).status, 200);
  clock_->Advance(std::chrono::seconds(2));
  // The base moved: the second PR's green checks are of a head without the base's commit.
  EXPECT_EQ(State(second.number), "behind");
  Outcome behind = Merge(second);
  EXPECT_EQ(behind.status, 405);
  EXPECT_EQ(behind.message, "2 of 2 required status checks are expected.");

  ASSERT_EQ(model_.UpdateBranch(kApp, "acme/strict", second.number, second.head_sha).status, 202);
  clock_->Advance(std::chrono::seconds(2));
  const std::string updated = model_.GetPull("acme/strict", second.number)->head_sha;
  EXPECT_EQ(Merge(second).message, "Required status check \"ci\" is expected.")
      << "the new head has no checks yet";
  Check(updated, "ci", "success");
  Check(updated, "lint", "success");
  EXPECT_EQ(Merge(second).status, 200);
}

TEST_F(ProtectionTest, NotEnforcedAnUntestedMergeSucceedsAndTheInvariantCountsIt) {
  MakeRepo(/*enforce=*/false);
  PullRequest first = Open();
  PullRequest second = Open();
  Check(first.head_sha, "ci", "success");
  Check(first.head_sha, "lint", "success");
  ASSERT_EQ(Merge(first).status, 200);
  // Behind the base, tested only before the base moved; then a PR with a failing check.
  Check(second.head_sha, "ci", "success");
  Check(second.head_sha, "lint", "success");
  clock_->Advance(std::chrono::seconds(2));
  ASSERT_EQ(Merge(second).status, 200);
  PullRequest third = Open();  // opened on the new base: up to date, but its CI fails
  Check(third.head_sha, "ci", "failure");
  ASSERT_EQ(Merge(third).status, 200);

  const std::vector<std::string> untested = UntestedMerges(model_.Effects());
  ASSERT_EQ(untested.size(), 2u);
  EXPECT_NE(untested[0].find("acme/strict#2"), std::string::npos) << untested[0];
  EXPECT_NE(untested[0].find("2 of 2 required status checks are expected."), std::string::npos);
  EXPECT_NE(untested[1].find("acme/strict#3"), std::string::npos) << untested[1];
  EXPECT_NE(untested[1].find("\"ci\" is failing"), std::string::npos) << untested[1];
}

TEST_F(ProtectionTest, AStatusContextCountsAsARequiredCheck) {
  MakeRepo(/*enforce=*/true);
  PullRequest pr = Open();
  Check(pr.head_sha, "ci", "success");
  CommitStatus st;
  st.sha = pr.head_sha;
  st.context = "lint";
  st.state = "pending";
  ASSERT_TRUE(model_.SetStatus("ci-bot", "acme/strict", st, nullptr).ok());
  EXPECT_EQ(Merge(pr).message, "Required status check \"lint\" is expected.");
  st.state = "success";
  ASSERT_TRUE(model_.SetStatus("ci-bot", "acme/strict", st, nullptr).ok());
  EXPECT_EQ(Merge(pr).status, 200);
}

TEST_F(ProtectionTest, ARepositoryWithoutProtectionMergesAsBefore) {
  ASSERT_TRUE(model_.CreateRepo("acme", "lax", 7, {}).ok());
  auto pr = model_.CreatePull("acme/lax", NewPull{});
  ASSERT_TRUE(pr.ok());
  clock_->Advance(std::chrono::seconds(2));
  EXPECT_EQ(model_.GetPull("acme/lax", pr->number)->mergeable_state, "clean");
  EXPECT_EQ(model_.Merge(kApp, "acme/lax", pr->number, pr->head_sha, "merge").status, 200);
  EXPECT_TRUE(UntestedMerges(model_.Effects()).empty());
}

}  // namespace
}  // namespace gatehouse::sim

namespace gatehouse::sim {
namespace {

// The control API's `protection` and `ci` settings, as a scenario writes them.
TEST(ProtectionControlTest, ARepositoryTakesProtectionAndCiThroughTheControlApi) {
  auto clock = std::make_shared<SimClock>(FromMicros(1'800'000'000'000'000));
  Model model(clock, {});
  SimHandler handler(model, {.clock = clock, .insecure_any_token = true});
  auto call = [&](const std::string& body) {
    return sim_testing::CallSim(handler, "POST", "/_sim/repos", body);
  };
  ASSERT_EQ(call(R"({"owner":"acme","name":"q","protection":{"strict":true,
                "required_checks":["ci"],"enforce":false},
                "ci":{"checks":["ci","lint"],"duration_ms":1500,"failing":[3,4]}})")
                .status,
            201);
  const std::optional<Repository> repo = model.GetRepo("acme/q");
  ASSERT_TRUE(repo.has_value());
  EXPECT_TRUE(repo->protection.strict);
  EXPECT_EQ(repo->protection.required_checks, std::vector<std::string>{"ci"});
  EXPECT_FALSE(repo->protection.enforce);
  EXPECT_EQ(repo->ci.checks, (std::vector<std::string>{"ci", "lint"}));
  EXPECT_EQ(repo->ci.duration, std::chrono::milliseconds(1500));
  EXPECT_EQ(repo->ci.failing, (std::vector<int>{3, 4}));
  EXPECT_EQ(repo->ci.branch_settle, std::chrono::milliseconds(500)) << "the default";
  ASSERT_EQ(
      call(R"({"owner":"acme","name":"s","ci":{"checks":["ci"],"branch_settle_ms":0}})").status,
      201);
  EXPECT_EQ(model.GetRepo("acme/s")->ci.branch_settle, Duration::zero());

  const std::pair<const char*, const char*> bad[] = {
      {R"({"owner":"acme","name":"b1","protection":{"strickt":true}})",
       "protection: unknown key strickt"},
      {R"({"owner":"acme","name":"b2","ci":{"checks":["ci"],"duration_ms":-1}})",
       "ci: duration_ms must be between 0 and 86400000"},
      {R"({"owner":"acme","name":"b3","ci":{"checks":["ci"],"failing":["#3"]}})",
       "ci: failing must be an array of PR numbers"},
      {R"({"owner":"acme","name":"b4","protection":true})", "protection must be an object"},
      {R"({"owner":"acme","name":"b5","ci":{"checks":["ci"],"branch_settle_ms":-5}})",
       "ci: branch_settle_ms must be between 0 and 86400000"},
      {R"({"owner":"acme","name":"b6","ci":{"branch_settle":5}})", "ci: unknown key branch_settle"},
  };
  for (const auto& [body, message] : bad) {
    const HttpResponse r = call(body);
    EXPECT_EQ(r.status, 400) << body;
    EXPECT_NE(r.body.find(message), std::string::npos) << r.body;
  }
  EXPECT_FALSE(model.GetRepo("acme/b1").has_value()) << "nothing made of a refused call";
}

}  // namespace
}  // namespace gatehouse::sim
