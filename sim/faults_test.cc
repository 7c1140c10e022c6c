// REST faults through PUT /_sim/faults: a timed primary-limit exhaustion on the injected
// clock, exhaustion that does not spend the real budget, faults aimed at one endpoint, and
// the validation of the settings.
#include "sim/faults.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <memory>

#include "sim/handler_test_util.h"
#include "sim/model.h"
#include "sim/rest.h"

namespace gatehouse::sim {
namespace {

namespace json = boost::json;

constexpr int64_t kFaultsStart = 1'800'000'000;

using sim_testing::HeaderOf;

class SimFaultsTest : public ::testing::Test {
 protected:
  SimFaultsTest()
      : clock_(std::make_shared<SimClock>(FromMicros(kFaultsStart * 1'000'000))),
        model_(clock_, {}),
        handler_(model_, {.clock = clock_, .insecure_any_token = true, .rate_limit = 100}) {
    EXPECT_EQ(
        Call("POST", "/_sim/repos", R"({"owner":"acme","name":"app","installation_id":7})").status,
        201);
    EXPECT_EQ(Call("POST", "/_sim/repos/acme/app/pulls", R"({"title":"t"})").status, 201);
  }

  HttpResponse Call(const std::string& method, const std::string& target,
                    const std::string& body = "") {
    return sim_testing::CallSim(handler_, method, target, body);
  }
  HttpResponse Get() { return Call("GET", "/repos/acme/app/pulls/1"); }
  json::object Faults() { return json::parse(Call("GET", "/_sim/faults").body).as_object(); }

  std::shared_ptr<SimClock> clock_;
  Model model_;
  SimHandler handler_;
};

TEST_F(SimFaultsTest, TimedExhaustionEndsAtItsResetWithAFreshWindow) {
  ASSERT_EQ(HeaderOf(Get(), "X-RateLimit-Remaining"), "99");
  clock_->Advance(std::chrono::seconds(10));
  ASSERT_EQ(Call("PUT", "/_sim/faults", R"({"primary_exhausted_seconds": 120})").status, 200);
  const std::string reset = std::to_string(kFaultsStart + 10 + 120);
  EXPECT_EQ(Faults().at("primary_exhausted_seconds"), 120);
  EXPECT_EQ(Faults().at("primary_exhausted"), false);

  HttpResponse refused = Get();
  EXPECT_EQ(refused.status, 403);
  EXPECT_EQ(HeaderOf(refused, "X-RateLimit-Remaining"), "0");
  EXPECT_EQ(HeaderOf(refused, "X-RateLimit-Used"), "100");
  EXPECT_EQ(HeaderOf(refused, "X-RateLimit-Reset"), reset);
  clock_->Advance(std::chrono::seconds(119));
  EXPECT_EQ(Get().status, 403);
  EXPECT_EQ(Faults().at("primary_exhausted_seconds"), 1);

  // At the reset: a full window, reset an hour on, as GitHub's.
  clock_->Advance(std::chrono::seconds(1));
  HttpResponse after = Get();
  EXPECT_EQ(after.status, 200);
  EXPECT_EQ(HeaderOf(after, "X-RateLimit-Remaining"), "99");
  EXPECT_EQ(HeaderOf(after, "X-RateLimit-Reset"), std::to_string(kFaultsStart + 130 + 3600));
  EXPECT_EQ(Faults().at("primary_exhausted_seconds"), 0);
}

TEST_F(SimFaultsTest, ClearedExhaustionLeavesTheBudgetAsItWas) {
  Get();
  ASSERT_EQ(HeaderOf(Get(), "X-RateLimit-Remaining"), "98");
  for (const char* fault :
       {R"({"primary_exhausted": true})", R"({"primary_exhausted_seconds": 600})"}) {
    ASSERT_EQ(Call("PUT", "/_sim/faults", fault).status, 200);
    for (int i = 0; i < 3; ++i) EXPECT_EQ(Get().status, 403) << fault;
    ASSERT_EQ(Call("PUT", "/_sim/faults", "{}").status, 200);
    HttpResponse r = Get();
    EXPECT_EQ(r.status, 200) << fault;
    EXPECT_EQ(HeaderOf(r, "X-RateLimit-Reset"), std::to_string(kFaultsStart + 3600)) << fault;
  }
  EXPECT_EQ(HeaderOf(Get(), "X-RateLimit-Remaining"), "95") << "3 answered calls, then this one";
}

TEST_F(SimFaultsTest, AimedFaultsHitOnlyTheirEndpointAndComeBeforeTheCounters) {
  const std::string head(model_.GetPull("acme/app", 1)->head_sha);
  ASSERT_EQ(Call("PUT", "/_sim/faults", R"({"server_errors": 1, "aimed": [
      {"method": "put", "path": "/repos/acme/app/pulls/*/merge", "fault": "server_error",
       "count": 2, "status": 503},
      {"method": "POST", "path": "*/reviews", "fault": "connection_reset"},
      {"method": "GET", "path": "*/pulls/1", "fault": "secondary_rate_limit", "count": 1,
       "retry_after_seconds": 30}]})")
                .status,
            200);
  json::array aimed = Faults().at("aimed").as_array();
  ASSERT_EQ(aimed.size(), 3u);
  EXPECT_EQ(aimed[0].at("method"), "PUT");
  EXPECT_EQ(aimed[1].at("count"), 1);

  HttpResponse limited = Get();
  EXPECT_EQ(limited.status, 403);
  EXPECT_EQ(HeaderOf(limited, "Retry-After"), "30");
  EXPECT_EQ(Get().status, 502) << "then the global counter";
  EXPECT_EQ(Get().status, 200);
  // `*` spans `/`, but the pattern covers the whole path: /pulls/1/files is another endpoint.
  EXPECT_EQ(Call("GET", "/repos/acme/app/pulls/1/files").status, 200);

  const std::string merge = R"({"sha":")" + head + R"("})";
  EXPECT_EQ(Call("GET", "/repos/acme/app/pulls/1/reviews").status, 200) << "GET is not POST";
  HttpResponse reset = Call("POST", "/repos/acme/app/pulls/1/reviews",
                            R"({"event":"APPROVE","commit_id":")" + head + R"("})");
  EXPECT_TRUE(reset.reset_connection);
  EXPECT_EQ(Call("PUT", "/repos/acme/app/pulls/1/merge?x=1", merge).status, 503);
  EXPECT_EQ(Call("PUT", "/repos/acme/app/pulls/1/merge", merge).status, 503);
  EXPECT_EQ(Call("PUT", "/repos/acme/app/pulls/1/merge", merge).status, 405)
      << "the model's answer: mergeable is still unknown";
  EXPECT_TRUE(Faults().at("aimed").as_array().empty());
  // Faulted calls never reached the model: one merge effect (the 405), no review.
  int merges = 0, reviews = 0;
  for (const Effect& e : model_.Effects()) {
    merges += e.kind == "merge";
    reviews += e.kind == "review";
  }
  EXPECT_EQ(merges, 1);
  EXPECT_EQ(reviews, 0);
}

TEST_F(SimFaultsTest, MalformedSettingsAre400AndChangeNothing) {
  ASSERT_EQ(Call("PUT", "/_sim/faults", R"({"server_errors": 4})").status, 200);
  const std::pair<const char*, const char*> bad[] = {
      {R"({"aimed": [{"path": "*", "fault": "teapot"}]})", "aimed[0].fault"},
      {R"({"aimed": [{"path": "*", "fault": "server_error", "count": 0}]})", "aimed[0].count"},
      {R"({"aimed": [{"path": "*", "fault": "server_error", "count": "2"}]})", "aimed[0].count"},
      {R"({"aimed": [{"path": "*", "fault": "server_error", "count": 1.5}]})", "aimed[0].count"},
      {R"({"aimed": [{"fault": "server_error"}]})", "aimed[0].path is required"},
      {R"({"aimed": [{"path": "*", "fault": "connection_reset", "status": 500}]})", "status"},
      {R"({"aimed": [{"path": "*", "fault": "server_error", "status": 200}]})", "status"},
      {R"({"aimed": [{"path": "*", "fault": "server_error", "paht": "x"}]})", "paht"},
      {R"({"aimed": [3]})", "aimed[0]"},
      {R"({"aimed": [{"path": "/repos/*", "fault": "graphql_timeout"}]})", "POST /graphql only"},
      {R"({"aimed": [{"path": "*", "fault": "graphql_timeout"}]})", "POST /graphql only"},
      {R"({"aimed": [{"method": "GET", "path": "/graphql", "fault": "graphql_timeout"}]})",
       "POST /graphql only"},
      {R"({"primary_exhausted_seconds": -1})", "primary_exhausted_seconds"},
      {R"({"primary_exhausted": 1})", "primary_exhausted"},
      {R"({"server_erorrs": 1})", "server_erorrs"},
  };
  for (const auto& [body, names] : bad) {
    HttpResponse r = Call("PUT", "/_sim/faults", body);
    EXPECT_EQ(r.status, 400) << body;
    EXPECT_NE(r.body.find(names), std::string::npos) << body << " -> " << r.body;
  }
  EXPECT_EQ(Faults().at("server_errors"), 4);
}

TEST(SimFaultSettingsTest, GetShowsWhatPutSet) {
  auto parsed = ParseFaultSettings(json::parse(R"({
      "connection_resets": 1, "server_errors": 2, "server_error_status": 503,
      "secondary_rate_limits": 3, "retry_after_seconds": 4, "primary_exhausted": true,
      "primary_exhausted_seconds": 50, "latency_ms": 6, "push_on_merge": 7,
      "aimed": [{"path": "/repos/*", "fault": "server_error"}],
      "webhook_duplicates": 8, "webhook_reorders": 9, "webhook_delay_ms": 10,
      "webhook_rules": [{"event": "status", "delay_ms": 11, "count": 2}]})")
                                       .as_object(),
                                   1000);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->rest.primary_exhausted_until_s, 1050);
  json::object shown = RenderFaultSettings(parsed->rest, parsed->delivery, 1010);
  EXPECT_EQ(shown.at("primary_exhausted_seconds"), 40);
  EXPECT_EQ(shown.at("aimed"), json::parse(R"([{"path": "/repos/*", "fault": "server_error",
                                                "count": 1, "status": 502}])"));
  EXPECT_EQ(shown.at("webhook_rules"),
            json::parse(R"([{"event": "status", "delay_ms": 11, "count": 2}])"));
  // What GET shows is a valid PUT body: the settings round-trip.
  auto again = ParseFaultSettings(shown, 1010);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(RenderFaultSettings(again->rest, again->delivery, 1010), shown);
}

}  // namespace
}  // namespace gatehouse::sim
