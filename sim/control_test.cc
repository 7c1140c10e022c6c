// The control API's review dismissals, the repository's dismiss_stale_reviews option and
// force-pushes, seen through REST as the App sees them.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <memory>

#include "sim/app_identity.h"
#include "sim/handler_test_util.h"
#include "sim/model.h"
#include "sim/rest.h"

namespace gatehouse::sim {
namespace {

namespace json = boost::json;

class SimControlTest : public ::testing::Test {
 protected:
  SimControlTest()
      : clock_(std::make_shared<SimClock>(FromMicros(1'800'000'000'000'000))),
        model_(clock_, {}),
        handler_(model_, {.clock = clock_, .insecure_any_token = true}) {}

  HttpResponse Call(const std::string& method, const std::string& target,
                    const std::string& body = "") {
    return sim_testing::CallSim(handler_, method, target, body);
  }
  json::value Json(const HttpResponse& r) { return json::parse(r.body); }
  std::string Head(const std::string& repo) {
    return std::string(
        Json(Call("GET", "/repos/" + repo + "/pulls/1")).at("head").at("sha").as_string());
  }
  void Approve(const std::string& repo, const std::string& sha) {
    ASSERT_EQ(Call("POST", "/repos/" + repo + "/pulls/1/reviews",
                   R"({"event":"APPROVE","commit_id":")" + sha + R"("})")
                  .status,
              200);
  }
  std::vector<std::string> States(const std::string& repo) {
    std::vector<std::string> out;
    const json::value reviews = Json(Call("GET", "/repos/" + repo + "/pulls/1/reviews"));
    for (const auto& r : reviews.as_array()) out.emplace_back(r.at("state").as_string());
    return out;
  }

  std::shared_ptr<SimClock> clock_;
  Model model_;
  SimHandler handler_;
};

TEST_F(SimControlTest, AMaintainerDismissesTheAppsReviewByLoginOrById) {
  ASSERT_EQ(
      Call("POST", "/_sim/repos", R"({"owner":"acme","name":"app","installation_id":3})").status,
      201);
  ASSERT_EQ(Call("POST", "/_sim/repos/acme/app/pulls", R"({"author":"alice"})").status, 201);
  const std::string head = Head("acme/app");
  Approve("acme/app", head);
  ASSERT_EQ(Call("POST", "/_sim/repos/acme/app/pulls/1/reviews",
                 R"({"user":"bob","event":"COMMENT","body":"hm"})")
                .status,
            200);

  HttpResponse dismissed =
      Call("POST", "/_sim/repos/acme/app/pulls/1/dismissals",
           R"({"user":"maintainer","reviewer":")" + AppLogin() + R"(","message":"stale"})");
  ASSERT_EQ(dismissed.status, 200) << dismissed.body;
  json::value review = Json(dismissed);
  EXPECT_EQ(review.at("state"), "DISMISSED");
  EXPECT_EQ(review.at("user").at("login"), json::value(AppLogin()));
  EXPECT_EQ(States("acme/app"), (std::vector<std::string>{"DISMISSED", "COMMENTED"}));

  const int64_t comment_id =
      Json(Call("GET", "/repos/acme/app/pulls/1/reviews")).at(1).at("id").as_int64();
  EXPECT_EQ(Call("POST", "/_sim/repos/acme/app/pulls/1/dismissals",
                 R"({"user":"maintainer","review_id":)" + std::to_string(comment_id) + "}")
                .status,
            422);
  EXPECT_EQ(
      Call("POST", "/_sim/repos/acme/app/pulls/1/dismissals", R"({"review_id":999999})").status,
      404);
  EXPECT_EQ(
      Call("POST", "/_sim/repos/acme/app/pulls/1/dismissals", R"({"reviewer":"installation:3"})")
          .status,
      404)
      << "the App's only approval is dismissed already";

  json::array effects = Json(Call("GET", "/_sim/effects?kind=dismiss_review")).as_array();
  ASSERT_EQ(effects.size(), 4u);
  EXPECT_EQ(effects[0].at("who"), "maintainer");
  EXPECT_EQ(effects[0].at("sha"), json::value(head));
  EXPECT_EQ(effects[0].at("status"), 200);
  EXPECT_EQ(
      effects[0].at("detail"),
      json::value("review=" + std::to_string(review.at("id").as_int64()) + " user=" + AppLogin()));
}

TEST_F(SimControlTest, DismissStaleReviewsIsARepositoryOption) {
  ASSERT_EQ(Call("POST", "/_sim/repos",
                 R"({"owner":"acme","name":"strict","dismiss_stale_reviews":true})")
                .status,
            201);
  ASSERT_EQ(Call("POST", "/_sim/repos", R"({"owner":"acme","name":"lax"})").status, 201);
  const std::string repos[] = {"acme/strict", "acme/lax"};
  for (const std::string& repo : repos) {
    ASSERT_EQ(Call("POST", "/_sim/repos/" + repo + "/pulls", "{}").status, 201);
    Approve(repo, Head(repo));
    ASSERT_EQ(Call("POST", "/_sim/repos/" + repo + "/pulls/1/push", R"({"user":"alice"})").status,
              200);
  }
  EXPECT_EQ(States("acme/strict"), std::vector<std::string>{"DISMISSED"});
  EXPECT_EQ(States("acme/lax"), std::vector<std::string>{"APPROVED"});
  json::array effects = Json(Call("GET", "/_sim/effects?kind=dismiss_review")).as_array();
  ASSERT_EQ(effects.size(), 1u);
  EXPECT_EQ(effects[0].at("who"), "control");
  EXPECT_EQ(effects[0].at("repo"), "acme/strict");
}

TEST_F(SimControlTest, AForcePushBackToAnEarlierHeadFindsItsCheckRuns) {
  ASSERT_EQ(Call("POST", "/_sim/repos", R"({"owner":"acme","name":"app"})").status, 201);
  ASSERT_EQ(Call("POST", "/_sim/repos/acme/app/pulls", "{}").status, 201);
  const std::string first = Head("acme/app");
  ASSERT_EQ(
      Call("POST", "/_sim/repos/acme/app/check-runs", R"({"pr":1,"name":"gatehouse"})").status,
      201);
  ASSERT_EQ(Call("POST", "/_sim/repos/acme/app/pulls/1/push", "{}").status, 200);
  const std::string second = Head("acme/app");
  const std::string updated(
      Json(Call("GET", "/repos/acme/app/pulls/1")).at("updated_at").as_string());

  clock_->Advance(std::chrono::seconds(5));
  HttpResponse back =
      Call("POST", "/_sim/repos/acme/app/pulls/1/push", R"({"sha":")" + first + R"("})");
  ASSERT_EQ(back.status, 200) << back.body;
  json::value pr = Json(back);
  EXPECT_EQ(pr.at("head").at("sha"), json::value(first));
  EXPECT_NE(pr.at("updated_at"), json::value(updated));
  json::value runs = Json(Call("GET", "/repos/acme/app/commits/" + first + "/check-runs"));
  ASSERT_EQ(runs.at("total_count"), 1);
  EXPECT_EQ(runs.at("check_runs").at(0).at("name"), "gatehouse");
  EXPECT_EQ(runs.at("check_runs").at(0).at("pull_requests").at(0).at("number"), 1)
      << "the PR is back on that SHA";

  HttpResponse same =
      Call("POST", "/_sim/repos/acme/app/pulls/1/push", R"({"sha":")" + first + R"("})");
  EXPECT_EQ(same.status, 422);
  EXPECT_NE(same.body.find("head is already " + first), std::string::npos) << same.body;
  json::array pushes = Json(Call("GET", "/_sim/effects?kind=push")).as_array();
  ASSERT_EQ(pushes.size(), 3u);
  EXPECT_EQ(pushes[1].at("detail"), json::value("before=" + second));
  EXPECT_EQ(pushes[1].at("head"), json::value(second));
}

// POST /_sim/expect: a harness that plays the world itself (gatehouse demo) has the
// scenario expectations evaluated now, one result per expectation, an invariant's offences
// one line each.
TEST_F(SimControlTest, ExpectationsAreEvaluatedOnTheWorldAsItIsNow) {
  ASSERT_EQ(
      Call("POST", "/_sim/repos", R"({"owner":"acme","name":"app","installation_id":3})").status,
      201);
  ASSERT_EQ(Call("POST", "/_sim/repos/acme/app/pulls", "{}").status, 201);
  for (int i = 0; i < 3; ++i) {
    ASSERT_EQ(Call("POST", "/repos/acme/app/issues/1/comments",
                   R"({"body":"<!-- gatehouse:summary -->\nwaiting"})")
                  .status,
              201);
  }
  HttpResponse r = Call("POST", "/_sim/expect", R"({"expect": [
      {"no_stale_effects": true}, {"no_duplicate_summaries": true},
      {"pull": "acme/app#1", "state": "open"}, {"pull": "acme/app#1", "state": "merged"}]})");
  ASSERT_EQ(r.status, 200) << r.body;
  json::value v = Json(r);
  EXPECT_EQ(v.at("unmet"), 2);
  const json::array& results = v.at("results").as_array();
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[0].at("met"), true);
  EXPECT_EQ(results[0].at("failure"), "");
  EXPECT_TRUE(results[0].at("offences").as_array().empty());
  EXPECT_EQ(results[1].at("met"), false);
  EXPECT_EQ(results[1].at("offences").as_array().size(), 2u) << "two comments after the first";
  EXPECT_NE(std::string(results[1].at("failure").as_string()).find("besides the first"),
            std::string::npos);
  EXPECT_EQ(results[2].at("met"), true);
  EXPECT_EQ(results[3].at("met"), false);
  EXPECT_NE(std::string(results[3].at("failure").as_string()).find("got state open"),
            std::string::npos);

  // A malformed expectation is refused, as in a scenario.
  EXPECT_EQ(Call("POST", "/_sim/expect", R"({"expect": [{"pull": "acme/app"}]})").status, 400);
  EXPECT_EQ(Call("POST", "/_sim/expect", R"({"expect": [{"no_duplicate_summaries": 1}]})").status,
            400);
  EXPECT_EQ(Call("POST", "/_sim/expect", R"({"expectations": []})").status, 400);
}

}  // namespace
}  // namespace gatehouse::sim
