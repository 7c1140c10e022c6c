// The git data API and POST /merges through the simulator's HTTP handler (sim/rest_git.cc):
// GitHub's shapes, statuses and messages, the effect log, and the checks of an integration
// commit read back by SHA or branch.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <memory>

#include "sim/handler_test_util.h"
#include "sim/model.h"
#include "sim/rest.h"

namespace gatehouse::sim {
namespace {

namespace json = boost::json;

constexpr const char* kRefs = "/repos/acme/mono/git/refs";
constexpr const char* kQueueRef = "/repos/acme/mono/git/refs/heads/gatehouse/queue/main";

class RestGitTest : public ::testing::Test {
 protected:
  RestGitTest()
      : clock_(std::make_shared<SimClock>(FromMicros(1'800'000'000'000'000))),
        model_(clock_, ModelOptions{.mergeable_delay = Duration::zero(),
                                    .token_ttl = std::chrono::minutes(60)}),
        handler_(model_, {.clock = clock_, .insecure_any_token = true}) {
    EXPECT_EQ(Call("POST", "/_sim/repos",
                   R"({"owner":"acme","name":"mono","installation_id":7,
                       "protection":{"required_checks":["ci"]}})")
                  .status,
              201);
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(Call("POST", "/_sim/repos/acme/mono/pulls", R"({"author":"alice"})").status, 201);
    }
  }

  HttpResponse Call(const std::string& method, const std::string& target,
                    const std::string& body = "") {
    return sim_testing::CallSim(handler_, method, target, body);
  }
  static json::value Json(const HttpResponse& r) { return json::parse(r.body); }
  static std::string Message(const HttpResponse& r) {
    return std::string(Json(r).at("message").as_string());
  }
  std::string Head(int n) { return model_.GetPull("acme/mono", n)->head_sha; }
  std::string Main() { return model_.GetRepo("acme/mono")->default_sha; }
  HttpResponse MergeIn(const std::string& head) {
    return Call("POST", "/repos/acme/mono/merges",
                R"({"base":"gatehouse/queue/main","head":")" + head +
                    R"(","commit_message":"queue: add )" + head.substr(0, 7) + "\"}");
  }
  std::string ShaOf(const HttpResponse& r) { return std::string(Json(r).at("sha").as_string()); }
  void CreateQueueBranch() {
    ASSERT_EQ(
        Call("POST", kRefs, R"({"ref":"refs/heads/gatehouse/queue/main","sha":")" + Main() + "\"}")
            .status,
        201);
  }

  std::shared_ptr<SimClock> clock_;
  Model model_;
  SimHandler handler_;
};

TEST_F(RestGitTest, RefsAreReadCreatedMovedAndDeletedAsGitHubAnswers) {
  const std::string main = Main();
  const HttpResponse read = Call("GET", "/repos/acme/mono/git/ref/heads/main");
  ASSERT_EQ(read.status, 200) << read.body;
  const json::value ref = Json(read);
  EXPECT_EQ(ref.at("ref").as_string(), "refs/heads/main");
  EXPECT_EQ(ref.at("object").at("sha").as_string(), main);
  EXPECT_EQ(ref.at("object").at("type").as_string(), "commit");
  EXPECT_TRUE(ref.at("node_id").is_string());
  EXPECT_TRUE(ref.at("url").is_string());
  const HttpResponse missing = Call("GET", "/repos/acme/mono/git/ref/heads/gatehouse/queue/main");
  EXPECT_EQ(missing.status, 404);
  EXPECT_EQ(Message(missing), "Not Found");

  const std::string create = R"({"ref":"refs/heads/gatehouse/queue/main","sha":")" + main + "\"}";
  const HttpResponse made = Call("POST", kRefs, create);
  ASSERT_EQ(made.status, 201) << made.body;
  EXPECT_EQ(Json(made).at("ref").as_string(), "refs/heads/gatehouse/queue/main");
  EXPECT_EQ(Json(made).at("object").at("sha").as_string(), main);
  EXPECT_EQ(Json(Call("GET", "/repos/acme/mono/git/ref/heads/gatehouse/queue/main"))
                .at("object")
                .at("sha")
                .as_string(),
            main);
  const HttpResponse again = Call("POST", kRefs, create);
  EXPECT_EQ(again.status, 422);
  EXPECT_EQ(Message(again), "Reference already exists");
  const HttpResponse unknown =
      Call("POST", kRefs, R"({"ref":"refs/heads/x","sha":")" + std::string(40, 'a') + "\"}");
  EXPECT_EQ(unknown.status, 422);
  EXPECT_EQ(Message(unknown), "Object does not exist");
  EXPECT_EQ(Call("POST", kRefs, R"({"ref":"refs/tags/v1","sha":")" + main + "\"}").status, 422);

  // PATCH: a fast-forward to #1's head; #2's is not one; force defaults to false.
  const HttpResponse moved = Call("PATCH", kQueueRef, R"({"sha":")" + Head(1) + "\"}");
  ASSERT_EQ(moved.status, 200) << moved.body;
  EXPECT_EQ(Json(moved).at("object").at("sha").as_string(), Head(1));
  const HttpResponse sideways = Call("PATCH", kQueueRef, R"({"sha":")" + Head(2) + "\"}");
  EXPECT_EQ(sideways.status, 422);
  EXPECT_EQ(Message(sideways), "Update is not a fast forward");
  EXPECT_EQ(Call("PATCH", kQueueRef, R"({"sha":")" + Head(2) + R"(","force":true})").status, 200);
  const HttpResponse gone =
      Call("PATCH", "/repos/acme/mono/git/refs/heads/nope", R"({"sha":")" + main + "\"}");
  EXPECT_EQ(gone.status, 422);
  EXPECT_EQ(Message(gone), "Reference does not exist");

  const HttpResponse deleted = Call("DELETE", kQueueRef);
  EXPECT_EQ(deleted.status, 204);
  EXPECT_TRUE(deleted.body.empty());
  const HttpResponse twice = Call("DELETE", kQueueRef);
  EXPECT_EQ(twice.status, 422);
  EXPECT_EQ(Message(twice), "Reference does not exist");
  EXPECT_EQ(Call("DELETE", "/repos/acme/mono/git/refs/heads/main").status, 422);

  // The writes are effects of the App's installation; the reads are not.
  std::vector<std::string> kinds;
  for (const Effect& e : model_.Effects()) {
    if (e.who == "installation:7") kinds.push_back(e.kind + " " + std::to_string(e.status));
  }
  EXPECT_EQ(kinds, (std::vector<std::string>{"create_ref 201", "create_ref 422", "create_ref 422",
                                             "create_ref 422", "update_ref 200", "update_ref 422",
                                             "update_ref 200", "update_ref 422", "delete_ref 204",
                                             "delete_ref 422", "delete_ref 422"}));
}

TEST_F(RestGitTest, MergesAnswerACommitNothingAConflictOrNotFound) {
  CreateQueueBranch();
  const std::string base = Main();
  const HttpResponse one = MergeIn(Head(1));
  ASSERT_EQ(one.status, 201) << one.body;
  const json::value commit = Json(one);
  const std::string sha = ShaOf(one);
  EXPECT_EQ(sha.size(), 40u);
  EXPECT_EQ(sha.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(commit.at("commit").at("message").as_string(), "queue: add " + Head(1).substr(0, 7));
  EXPECT_TRUE(commit.at("commit").at("tree").at("sha").is_string());
  ASSERT_EQ(commit.at("parents").as_array().size(), 2u);
  EXPECT_EQ(commit.at("parents").at(0).at("sha").as_string(), base);
  EXPECT_EQ(commit.at("parents").at(1).at("sha").as_string(), Head(1));
  EXPECT_TRUE(commit.at("html_url").is_string());
  EXPECT_EQ(Json(Call("GET", "/repos/acme/mono/git/ref/heads/gatehouse/queue/main"))
                .at("object")
                .at("sha")
                .as_string(),
            sha);

  const HttpResponse nothing = MergeIn(Head(1));
  EXPECT_EQ(nothing.status, 204);
  EXPECT_TRUE(nothing.body.empty());
  ASSERT_EQ(Call("POST", "/_sim/repos/acme/mono/pulls/2/base", R"({"conflicted":true})").status,
            200);
  const HttpResponse conflict = MergeIn(Head(2));
  EXPECT_EQ(conflict.status, 409);
  EXPECT_EQ(Message(conflict), "Merge conflict");
  const HttpResponse no_base =
      Call("POST", "/repos/acme/mono/merges", R"({"base":"nope","head":")" + Head(3) + "\"}");
  EXPECT_EQ(no_base.status, 404);
  EXPECT_EQ(Message(no_base), "Base does not exist");
  const HttpResponse no_head = MergeIn("no-such-branch");
  EXPECT_EQ(no_head.status, 404);
  EXPECT_EQ(Message(no_head), "Head does not exist");

  const std::vector<Effect> effects = model_.Effects();
  const Effect& first = *std::find_if(effects.begin(), effects.end(),
                                      [](const Effect& e) { return e.kind == "merge_branch"; });
  EXPECT_EQ(first.who, "installation:7");
  EXPECT_EQ(first.status, 201);
  EXPECT_EQ(first.sha, sha);
  EXPECT_EQ(first.detail, "gatehouse/queue/main <- " + Head(1));
  EXPECT_EQ(std::count_if(effects.begin(), effects.end(),
                          [](const Effect& e) { return e.kind == "merge_branch"; }),
            5);
}

TEST_F(RestGitTest, TheDefaultBranchMovesOnlyToACommitWhoseRequiredChecksPassed) {
  CreateQueueBranch();
  MergeIn(Head(1));
  const std::string tip = ShaOf(MergeIn(Head(2)));
  const HttpResponse refused =
      Call("PATCH", "/repos/acme/mono/git/refs/heads/main", R"({"sha":")" + tip + "\"}");
  EXPECT_EQ(refused.status, 422);
  EXPECT_EQ(Message(refused),
            "Protected branch update failed for refs/heads/main. Required status check \"ci\" is "
            "expected.");
  ASSERT_EQ(
      Call("POST", "/_sim/repos/acme/mono/check-runs", R"({"head_sha":")" + tip + "\"}").status,
      201);

  // The integration commit's checks, by SHA and by branch, as the App reads them.
  for (const std::string& ref : {tip, std::string("gatehouse/queue/main")}) {
    const json::value runs = Json(Call("GET", "/repos/acme/mono/commits/" + ref + "/check-runs"));
    ASSERT_EQ(runs.at("total_count").as_int64(), 1) << ref;
    EXPECT_EQ(runs.at("check_runs").at(0).at("conclusion").as_string(), "success");
    EXPECT_TRUE(runs.at("check_runs").at(0).at("pull_requests").as_array().empty());
  }

  const HttpResponse landed =
      Call("PATCH", "/repos/acme/mono/git/refs/heads/main", R"({"sha":")" + tip + "\"}");
  ASSERT_EQ(landed.status, 200) << landed.body;
  for (int n : {1, 2}) {
    const json::value pr = Json(Call("GET", "/repos/acme/mono/pulls/" + std::to_string(n)));
    EXPECT_TRUE(pr.at("merged").as_bool()) << n;
    EXPECT_EQ(pr.at("merge_commit_sha").as_string(), tip);
    EXPECT_EQ(pr.at("state").as_string(), "closed");
    // GitHub's issue events say who merged it.
    const json::value events =
        Json(Call("GET", "/repos/acme/mono/issues/" + std::to_string(n) + "/events"));
    ASSERT_FALSE(events.as_array().empty());
    EXPECT_EQ(events.at(0).at("event").as_string(), "merged");
  }
  const json::value third = Json(Call("GET", "/repos/acme/mono/pulls/3"));
  EXPECT_FALSE(third.at("merged").as_bool());
  EXPECT_EQ(third.at("mergeable_state").as_string(), "behind");
  EXPECT_EQ(Json(Call("GET", "/repos/acme/mono/git/ref/heads/main")).at("object").at("sha"),
            json::value(tip));
}

TEST_F(RestGitTest, OnlyTheRepositorysInstallationMayCallThem) {
  SimHandler strict(model_, {.clock = clock_});
  ASSERT_TRUE(model_.CreateRepo("other", "repo", 8, {}).ok());
  Time expires;
  const std::string token = model_.IssueToken(8, &expires);  // installation 8's
  auto call = [&](const std::string& auth, const std::string& method, const std::string& target) {
    return strict.Serve(HttpRequest{.method = method,
                                    .target = target,
                                    .headers = {{"Authorization", auth}},
                                    .body = R"({"ref":"refs/heads/x","sha":")" + Main() + "\"}",
                                    .peer = "test"});
  };
  EXPECT_EQ(call("Bearer nope", "GET", "/repos/acme/mono/git/ref/heads/main").status, 401);
  EXPECT_EQ(call("Bearer " + token, "GET", "/repos/acme/mono/git/ref/heads/main").status, 404);
  EXPECT_EQ(call("Bearer " + token, "POST", kRefs).status, 404);
  EXPECT_FALSE(model_.BranchSha("acme/mono", "x").has_value());
  const std::string own = model_.IssueToken(7, &expires);
  EXPECT_EQ(call("token " + own, "POST", kRefs).status, 201);
  EXPECT_EQ(model_.Effects().back().who, "installation:7");
}

// The control API's view: GET /_sim/state lists a repository's branches, GET /_sim/effects
// says why an update was untested, and the scenario invariant no_untested_merges counts it.
TEST_F(RestGitTest, TheControlApiShowsBranchesAndUntestedUpdates) {
  ASSERT_EQ(Call("POST", "/_sim/repos",
                 R"({"owner":"acme","name":"loose","installation_id":7,
                     "protection":{"required_checks":["ci"],"enforce":false}})")
                .status,
            201);
  ASSERT_EQ(Call("POST", "/_sim/repos/acme/loose/pulls", "{}").status, 201);
  const std::string main = model_.GetRepo("acme/loose")->default_sha;
  const std::string head = model_.GetPull("acme/loose", 1)->head_sha;
  ASSERT_EQ(
      Call("POST", "/repos/acme/loose/git/refs", R"({"ref":"refs/heads/q","sha":")" + main + "\"}")
          .status,
      201);
  const std::string tip =
      ShaOf(Call("POST", "/repos/acme/loose/merges", R"({"base":"q","head":")" + head + "\"}"));

  const json::value state = Json(Call("GET", "/_sim/state"));
  for (const json::value& repo : state.at("repos").as_array()) {
    if (repo.at("full_name") != "acme/loose") continue;
    EXPECT_EQ(repo.at("branches"), (json::object{{"q", tip}}));
  }
  ASSERT_EQ(
      Call("PATCH", "/repos/acme/loose/git/refs/heads/main", R"({"sha":")" + tip + "\"}").status,
      200);
  const json::value effects = Json(Call("GET", "/_sim/effects?repo=acme/loose&kind=update_ref"));
  ASSERT_EQ(effects.as_array().size(), 1u) << effects;
  EXPECT_EQ(effects.at(0).at("untested"), "Required status check \"ci\" is expected.");

  const json::value verdict = Json(Call("POST", "/_sim/expect", R"({"expect": [
      {"no_untested_merges": true},
      {"kind": "merge", "repo": "acme/loose", "number": 1, "status": 200, "count": 1},
      {"pull": "acme/loose#1", "state": "merged"}]})"));
  EXPECT_EQ(verdict.at("unmet"), 1) << verdict;
  EXPECT_EQ(verdict.at("results").at(0).at("offences").as_array().size(), 2u)
      << "the update and the merge it made";
}

}  // namespace
}  // namespace gatehouse::sim
