// The lost-answer faults (docs/SIMULATOR.md, "Faults"): the call takes effect in the model —
// logged as accepted, visible to later GETs — and then its answer is lost: the connection is
// reset, or a bare 502 is answered in its place. Aimed at every mutating endpoint gatehouse
// calls, and as counters that spend themselves on mutating calls only.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <memory>
#include <string>

#include "sim/faults.h"
#include "sim/handler_test_util.h"
#include "sim/model.h"
#include "sim/rest.h"

namespace gatehouse::sim {
namespace {

namespace json = boost::json;

class LostAnswerFaultTest : public ::testing::Test {
 protected:
  LostAnswerFaultTest()
      : clock_(std::make_shared<SimClock>(FromMicros(int64_t{1'800'000'000} * 1'000'000))),
        model_(clock_, {.mergeable_delay = Duration::zero()}),
        handler_(model_, {.clock = clock_, .insecure_any_token = true, .rate_limit = 100}) {
    EXPECT_EQ(
        Call("POST", "/_sim/repos", R"({"owner":"acme","name":"app","installation_id":7})").status,
        201);
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(Call("POST", "/_sim/repos/acme/app/pulls", R"({"title":"t"})").status, 201);
    }
  }

  HttpResponse Call(const std::string& method, const std::string& target,
                    const std::string& body = "") {
    return sim_testing::CallSim(handler_, method, target, body);
  }
  json::object Faults() { return json::parse(Call("GET", "/_sim/faults").body).as_object(); }
  std::string Head(int n) { return model_.GetPull("acme/app", n)->head_sha; }
  // The status the model logged for the last effect of `kind`; 0 when there is none.
  int LoggedStatus(const std::string& kind) {
    int status = 0;
    for (const Effect& e : model_.Effects()) {
      if (e.kind == kind) status = e.status;
    }
    return status;
  }

  std::shared_ptr<SimClock> clock_;
  Model model_;
  SimHandler handler_;
};

struct Endpoint {
  std::string method, path, body, effect;
};

TEST_F(LostAnswerFaultTest, EveryMutatingCallTakesEffectThenLosesItsAnswer) {
  Comment mine;
  ASSERT_TRUE(model_.AddComment("installation:7", "acme/app", 1, "summary", &mine).ok());
  ASSERT_TRUE(model_.AddLabels("control", "acme/app", 1, {"stale"}).ok());
  ASSERT_TRUE(model_.MoveBase("acme/app", 2, /*conflicted=*/false).ok());
  CheckRun queued;
  queued.name = "gatehouse";
  queued.head_sha = Head(1);
  queued.status = "queued";
  CheckRun run;
  ASSERT_TRUE(model_.UpsertCheckRun("installation:7", "acme/app", queued, &run).ok());
  const std::string comment = std::to_string(mine.id);
  const std::string behind = Head(2);
  const std::vector<Endpoint> endpoints = {
      {"POST", "/repos/acme/app/check-runs",
       R"({"name":"gatehouse","head_sha":")" + Head(1) + R"(","status":"in_progress"})",
       "check_run"},
      {"PATCH", "/repos/acme/app/check-runs/" + std::to_string(run.id),
       R"({"status":"completed","conclusion":"success"})", "check_run"},
      {"POST", "/repos/acme/app/issues/1/comments", R"({"body":"hello"})", "comment"},
      {"PATCH", "/repos/acme/app/issues/comments/" + comment, R"({"body":"edited"})",
       "comment_edit"},
      {"POST", "/repos/acme/app/issues/comments/" + comment + "/reactions", R"({"content":"+1"})",
       "reaction"},
      {"POST", "/repos/acme/app/issues/1/labels", R"({"labels":["ready"]})", "label_add"},
      {"DELETE", "/repos/acme/app/issues/1/labels/stale", "", "label_remove"},
      {"POST", "/repos/acme/app/pulls/1/requested_reviewers", R"({"reviewers":["bob"]})",
       "request_reviewers"},
      {"POST", "/repos/acme/app/pulls/1/reviews",
       R"({"event":"APPROVE","commit_id":")" + Head(1) + R"("})", "review"},
      {"PUT", "/repos/acme/app/pulls/2/update-branch",
       R"({"expected_head_sha":")" + behind + R"("})", "update_branch"},
      {"PUT", "/repos/acme/app/pulls/1/merge", R"({"sha":")" + Head(1) + R"("})", "merge"},
      {"PATCH", "/repos/acme/app/pulls/3", R"({"state":"closed"})", "close"},
  };
  for (const char* fault : {"lost_answer_reset", "lost_answer_502"}) {
    // Each endpoint in turn; the second round finds its effects done already (or refused).
    for (const Endpoint& e : endpoints) {
      const std::string rule = R"({"aimed":[{"method":")" + e.method + R"(","path":")" + e.path +
                               R"(","fault":")" + fault + R"("}]})";
      ASSERT_EQ(Call("PUT", "/_sim/faults", rule).status, 200) << rule;
      const size_t before = model_.Effects().size();
      HttpResponse r = Call(e.method, e.path, e.body);
      EXPECT_EQ(r.status, 502) << e.path;
      EXPECT_EQ(r.reset_connection, std::string(fault) == "lost_answer_reset") << e.path;
      if (!r.reset_connection) {
        EXPECT_EQ(r.content_type, "text/html") << "a lost 502 is a proxy's page, not GitHub's";
      }
      ASSERT_EQ(model_.Effects().size(), before + 1) << e.path << ": the call reached the model";
      EXPECT_TRUE(Faults().at("aimed").as_array().empty()) << e.path;
    }
    if (std::string(fault) == "lost_answer_reset") {
      // The first round: every call was accepted by the model.
      for (const Endpoint& e : endpoints) {
        EXPECT_GE(LoggedStatus(e.effect), 200) << e.effect;
        EXPECT_LT(LoggedStatus(e.effect), 300) << e.effect;
      }
    }
  }
  // Later reads show the effects whose answers were lost.
  auto pr1 = model_.GetPull("acme/app", 1);
  EXPECT_TRUE(pr1->merged);
  EXPECT_EQ(pr1->labels, std::vector<std::string>{"ready"});
  EXPECT_EQ(model_.GetPull("acme/app", 3)->state, "closed");
  EXPECT_NE(Head(2), behind) << "the branch was updated";
  json::value comments = json::parse(Call("GET", "/repos/acme/app/issues/1/comments").body);
  ASSERT_EQ(comments.as_array().size(), 3u) << "summary, then hello twice (one per round)";
  EXPECT_EQ(comments.as_array()[0].at("body"), "edited");
}

TEST_F(LostAnswerFaultTest, CountersSpendThemselvesOnMutatingCallsOnly) {
  ASSERT_EQ(Call("PUT", "/_sim/faults", R"({"lost_answer_resets":1,"lost_answer_502s":2})").status,
            200);
  EXPECT_EQ(Faults().at("lost_answer_resets"), 1);
  EXPECT_EQ(Faults().at("lost_answer_502s"), 2);
  EXPECT_EQ(Call("GET", "/repos/acme/app/pulls/1").status, 200) << "a read is not lost";
  HttpResponse reset = Call("POST", "/repos/acme/app/issues/1/comments", R"({"body":"a"})");
  EXPECT_TRUE(reset.reset_connection) << "resets first";
  EXPECT_EQ(Faults().at("lost_answer_resets"), 0);
  HttpResponse lost = Call("POST", "/repos/acme/app/issues/1/labels", R"({"labels":["x"]})");
  EXPECT_EQ(lost.status, 502);
  EXPECT_FALSE(lost.reset_connection);
  EXPECT_EQ(Call("DELETE", "/repos/acme/app/issues/1/labels/x").status, 502);
  EXPECT_EQ(Faults().at("lost_answer_502s"), 0);
  EXPECT_EQ(Call("POST", "/repos/acme/app/issues/1/comments", R"({"body":"b"})").status, 201);
  EXPECT_EQ(model_.CommentsFor("acme/app", 1).size(), 2u) << "a lost answer's comment is there";
  EXPECT_TRUE(model_.GetPull("acme/app", 1)->labels.empty()) << "added, then removed";
  EXPECT_EQ(LoggedStatus("label_add"), 200);
}

TEST_F(LostAnswerFaultTest, ARefusedCallLosesItsAnswerWithoutAnEffect) {
  // The model refuses the merge (a stale SHA): the answer is lost all the same, and nothing
  // changed — a lost answer never makes a refusal into an effect.
  ASSERT_EQ(Call("PUT", "/_sim/faults",
                 R"({"aimed":[{"path":"*/merge","fault":"lost_answer_502","count":1}]})")
                .status,
            200);
  EXPECT_EQ(Call("PUT", "/repos/acme/app/pulls/1/merge", R"({"sha":"0000"})").status, 502);
  EXPECT_EQ(LoggedStatus("merge"), 409);
  EXPECT_FALSE(model_.GetPull("acme/app", 1)->merged);
}

TEST(LostAnswerFaultSettingsTest, ValidatedAndShownLikeEveryAimedFault) {
  auto parsed = ParseFaultSettings(json::parse(R"({"lost_answer_resets": 2,
      "aimed": [{"method": "put", "path": "*/merge", "fault": "lost_answer_reset", "count": 3},
                {"path": "*/labels", "fault": "lost_answer_502"}]})")
                                       .as_object(),
                                   0);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(LostAnswerOf(parsed->rest.aimed[0]), LostAnswer::kReset);
  EXPECT_EQ(LostAnswerOf(parsed->rest.aimed[1]), LostAnswer::kBadGateway);
  json::object shown = RenderFaultSettings(parsed->rest, parsed->delivery, 0);
  EXPECT_EQ(shown.at("lost_answer_resets"), 2);
  EXPECT_EQ(shown.at("lost_answer_502s"), 0);
  EXPECT_EQ(shown.at("aimed"), json::parse(R"([
      {"method": "PUT", "path": "*/merge", "fault": "lost_answer_reset", "count": 3},
      {"path": "*/labels", "fault": "lost_answer_502", "count": 1}])"));
  auto again = ParseFaultSettings(shown, 0);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(RenderFaultSettings(again->rest, again->delivery, 0), shown);

  const std::pair<const char*, const char*> bad[] = {
      {R"({"aimed": [{"path": "*", "fault": "lost_answer_502", "status": 503}]})",
       "aimed[0].status applies to server_error only"},
      {R"({"aimed": [{"path": "*", "fault": "lost_answer"}]})", "aimed[0].fault must be"},
      {R"({"aimed": [{"path": "*", "fault": "lost_answer_reset", "count": 0}]})", "aimed[0].count"},
      {R"({"lost_answer_resets": -1})", "lost_answer_resets"},
      {R"({"lost_answer_502s": "1"})", "lost_answer_502s"},
  };
  for (const auto& [body, names] : bad) {
    auto r = ParseFaultSettings(json::parse(body).as_object(), 0);
    ASSERT_FALSE(r.ok()) << body;
    EXPECT_NE(r.status().message().find(names), std::string::npos)
        << body << " -> " << r.status().message();
  }
  EXPECT_FALSE(IsMutatingMethod("GET"));
  EXPECT_FALSE(IsMutatingMethod("head"));
  EXPECT_TRUE(IsMutatingMethod("PATCH"));
}

}  // namespace
}  // namespace gatehouse::sim
