// Webhook rules: withholding or delaying chosen deliveries (by event, action and PR), set
// through PUT /_sim/faults and received by a real HttpServer on loopback. Delays are long and
// released by Stop, so the order asserted never depends on timing.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <memory>

#include "http/server.h"
#include "sim/model.h"
#include "sim/render.h"
#include "sim/rest.h"
#include "sim/webhook_sink_test_util.h"
#include "sim/webhooks.h"

namespace gatehouse::sim {
namespace {

namespace json = boost::json;

class WebhookRulesTest : public ::testing::Test {
 protected:
  WebhookRulesTest()
      : clock_(std::make_shared<SimClock>(FromMicros(1'800'000'000'000'000))),
        model_(clock_, {}),
        handler_(model_, {.clock = clock_, .insecure_any_token = true, .webhooks = &sender_}) {
    HttpServerOptions options;
    options.listen = "127.0.0.1:0";
    auto server = HttpServer::Start(options, sink_);
    EXPECT_TRUE(server.ok());
    server_ = std::move(server).value();
    sender_.SetUrl("http://127.0.0.1:" + std::to_string(server_->port()) + "/webhook");
    model_.SetListener([this](const Notification& n) {
      sender_.Enqueue(n.event, json::serialize(RenderWebhook(n)), DeliveryMetaOf(n));
    });
    EXPECT_EQ(Control("POST", "/_sim/repos", R"({"owner":"acme","name":"app"})").status, 201);
  }
  ~WebhookRulesTest() override {
    sender_.Stop();
    server_->Stop(std::chrono::seconds(1));
  }

  HttpResponse Control(const std::string& method, const std::string& target,
                       const std::string& body = "") {
    return handler_.Serve(HttpRequest{
        .method = method, .target = target, .headers = {}, .body = body, .peer = "test"});
  }

  // "event.action#number" of each delivery received so far.
  std::vector<std::string> Received() {
    std::vector<std::string> out;
    for (const HttpRequest& r : sink_.Received()) {
      json::object p = json::parse(r.body).as_object();
      std::string what = r.Header("X-GitHub-Event");
      if (const json::value* action = p.if_contains("action")) {
        what += "." + std::string(action->as_string());
      }
      if (const json::value* number = p.if_contains("number")) {
        what += "#" + std::to_string(number->as_int64());
      }
      out.push_back(what);
    }
    return out;
  }

  std::shared_ptr<SimClock> clock_;
  Model model_;
  sim_testing::WebhookSink sink_;
  WebhookSender sender_{{.url = "", .secret = "s3cret", .timeout_ms = 10'000}};
  SimHandler handler_;
  std::unique_ptr<HttpServer> server_;
};

TEST_F(WebhookRulesTest, ADroppedDeliveryIsWithheldAndADelayedOneArrivesLate) {
  ASSERT_EQ(Control("PUT", "/_sim/faults", R"({"webhook_rules": [
      {"event": "pull_request", "action": "synchronize", "pr": 1, "drop": true},
      {"event": "pull_request", "action": "labeled", "delay_ms": 600000}]})")
                .status,
            200);
  json::array rules =
      json::parse(Control("GET", "/_sim/faults").body).at("webhook_rules").as_array();
  ASSERT_EQ(rules.size(), 2u);
  EXPECT_EQ(rules[0].at("count"), 1) << "count defaults to 1";
  EXPECT_EQ(rules[1].at("delay_ms"), 600000);

  ASSERT_EQ(Control("POST", "/_sim/repos/acme/app/pulls", R"({"author":"alice"})").status, 201);
  ASSERT_EQ(Control("POST", "/_sim/repos/acme/app/pulls", R"({"author":"bob"})").status, 201);
  ASSERT_EQ(Control("POST", "/_sim/repos/acme/app/pulls/2/push", R"({"user":"bob"})").status, 200)
      << "PR 2's synchronize: another PR, not withheld";
  ASSERT_EQ(Control("POST", "/_sim/repos/acme/app/pulls/1/push", R"({"user":"alice"})").status,
            200);
  ASSERT_EQ(
      Control("POST", "/_sim/repos/acme/app/pulls/1/labels", R"({"user":"alice","labels":["wip"]})")
          .status,
      200);
  ASSERT_EQ(Control("POST", "/_sim/repos/acme/app/pulls/1/close", R"({"user":"alice"})").status,
            200);
  // The delivery after the delayed one goes on: it arrives before it.
  sink_.WaitFor(4);
  EXPECT_EQ(Received(),
            (std::vector<std::string>{"pull_request.opened#1", "pull_request.opened#2",
                                      "pull_request.synchronize#2", "pull_request.closed#1"}));
  EXPECT_EQ(sender_.withheld(), 1u);
  EXPECT_TRUE(sender_.faults().rules.empty()) << "each rule was used up";

  // Stop sends a delivery still delayed at once.
  sender_.Stop();
  EXPECT_EQ(Received().back(), "pull_request.labeled#1");
  EXPECT_EQ(sender_.delivered(), 5u);
  // A later synchronize of PR 1 is no longer withheld (count 1).
  EXPECT_EQ(sender_.withheld(), 1u);
}

TEST_F(WebhookRulesTest, ARuleOnAPrMatchesTheChecksThatListIt) {
  ASSERT_EQ(Control("POST", "/_sim/repos/acme/app/pulls", R"({"author":"alice"})").status, 201);
  ASSERT_EQ(Control("POST", "/_sim/repos/acme/app/pulls", R"({"author":"bob"})").status, 201);
  ASSERT_EQ(Control("PUT", "/_sim/faults", R"({"webhook_rules": [
      {"event": "check_run", "pr": 2, "drop": true, "count": 5},
      {"event": "status", "pr": 1, "drop": true}]})")
                .status,
            200);
  ASSERT_EQ(Control("POST", "/_sim/repos/acme/app/check-runs", R"({"pr": 1})").status, 201);
  ASSERT_EQ(Control("POST", "/_sim/repos/acme/app/check-runs", R"({"pr": 2})").status, 201);
  const std::string head1(model_.GetPull("acme/app", 1)->head_sha);
  ASSERT_EQ(
      Control("POST", "/_sim/repos/acme/app/statuses/" + head1, R"({"state":"success"})").status,
      201);
  sender_.Stop();
  // PR 2's check run withheld, its suite (another event) delivered; PR 1's status withheld.
  EXPECT_EQ(Received(), (std::vector<std::string>{"pull_request.opened#1", "pull_request.opened#2",
                                                  "check_run.completed", "check_suite.completed",
                                                  "check_suite.completed"}));
  EXPECT_EQ(sender_.withheld(), 2u);
  json::array left =
      json::parse(Control("GET", "/_sim/faults").body).at("webhook_rules").as_array();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0].at("count"), 4);
}

TEST_F(WebhookRulesTest, MalformedRulesAreRefusedAndChangeNothing) {
  ASSERT_EQ(Control("PUT", "/_sim/faults", R"({"webhook_duplicates": 3})").status, 200);
  const std::pair<const char*, const char*> bad[] = {
      {R"({"webhook_rules": [{"action": "opened", "drop": true}]})", "webhook_rules[0].event"},
      {R"({"webhook_rules": [{"event": "pull_request"}]})", "drop"},
      {R"({"webhook_rules": [{"event": "pull_request", "drop": true, "delay_ms": 5}]})", "exclude"},
      {R"({"webhook_rules": [{"event": "pull_request", "drop": true, "count": 0}]})", "count"},
      {R"({"webhook_rules": [{"event": "pull_request", "drop": true, "pr": "1"}]})", "pr"},
      {R"({"webhook_rules": [{"event": "pull_request", "delay_ms": 5, "sha": "x"}]})", "sha"},
      {R"({"webhook_rules": {"event": "pull_request"}})", "array"},
  };
  for (const auto& [body, names] : bad) {
    HttpResponse r = Control("PUT", "/_sim/faults", body);
    EXPECT_EQ(r.status, 400) << body;
    EXPECT_NE(r.body.find(names), std::string::npos) << body << " -> " << r.body;
  }
  EXPECT_EQ(sender_.faults().duplicates, 3) << "a refused PUT replaces nothing";
}

}  // namespace
}  // namespace gatehouse::sim
