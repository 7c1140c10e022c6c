// The App's webhook deliveries in the simulator (sim/delivery_log.h, sim/rest_hook_deliveries.cc):
// every attempt the WebhookSender makes is recorded with its outcome — a 2xx, another status,
// connection refused ("failed to connect"), a timeout ("timed out") — and served as GitHub
// serves GET /app/hook/deliveries (newest first, cursor pages through Link, per_page 1..100),
// GET /app/hook/deliveries/{id} (headers and payload) and POST .../{id}/attempts (redeliver:
// a new attempt, same guid, redelivery true). Real deliveries over loopback.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "http/server.h"
#include "sim/model.h"
#include "sim/rest.h"
#include "sim/webhook_sink_test_util.h"
#include "sim/webhooks.h"

namespace gatehouse::sim {
namespace {

namespace json = boost::json;
using sim_testing::WebhookSink;

// Answers every delivery with `status`; or never answers (a hung receiver) when status is 0.
class FixedAnswer final : public HttpHandler {
 public:
  explicit FixedAnswer(int status) : status_(status) {}
  void Handle(HttpRequest, Responder respond) override {
    if (status_ == 0) {
      std::lock_guard<std::mutex> lock(mu_);
      parked_.push_back(std::move(respond));  // answered when the server stops
      return;
    }
    respond(JsonResponse(status_, "{}"));
  }

 private:
  const int status_;
  std::mutex mu_;
  std::vector<Responder> parked_;
};

HttpServerOptions Loopback() {
  HttpServerOptions options;
  options.listen = "127.0.0.1:0";
  return options;
}

std::string Url(const HttpServer& server) {
  return "http://127.0.0.1:" + std::to_string(server.port()) + "/webhook";
}

// A port nothing listens on: one a server had and gave back.
std::string RefusingUrl() {
  WebhookSink sink;
  auto server = HttpServer::Start(Loopback(), sink);
  EXPECT_TRUE(server.ok());
  std::string url = Url(**server);
  (*server)->Stop(std::chrono::seconds(1));
  return url;
}

// Polls (bounded) until the sender has finished `n` attempts.
void WaitForAttempts(const WebhookSender& sender, size_t n) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (sender.log().All().size() < n && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_GE(sender.log().All().size(), n) << "attempts not made within 20 s";
}

class HookDeliveriesTest : public ::testing::Test {
 protected:
  HttpResponse Get(const std::string& target, bool with_jwt = true) {
    std::vector<std::pair<std::string, std::string>> headers;
    if (with_jwt) headers.emplace_back("Authorization", "Bearer any.app.jwt");
    return handler_->Serve(HttpRequest{"GET", target, headers, "", "test"});
  }
  HttpResponse Post(const std::string& target) {
    return handler_->Serve(
        HttpRequest{"POST", target, {{"Authorization", "Bearer any.app.jwt"}}, "", "test"});
  }
  void MakeHandler(WebhookSender& sender) {
    SimHandlerOptions options;
    options.clock = clock_;
    options.insecure_any_token = true;
    options.webhooks = &sender;
    handler_ = std::make_unique<SimHandler>(model_, options);
  }
  static std::string Body(int64_t installation) {
    return json::serialize(json::object{{"action", "opened"},
                                        {"installation", {{"id", installation}}},
                                        {"repository", {{"id", 555}}}});
  }

  std::shared_ptr<SimClock> clock_ = std::make_shared<SimClock>(RealClock().Now());
  Model model_{clock_, {}};
  std::unique_ptr<SimHandler> handler_;
};

TEST_F(HookDeliveriesTest, EveryAttemptIsRecordedWithItsOutcome) {
  WebhookSink ok_sink;
  FixedAnswer failing(503);
  FixedAnswer hung(0);
  auto ok_server = HttpServer::Start(Loopback(), ok_sink);
  auto bad_server = HttpServer::Start(Loopback(), failing);
  auto hung_server = HttpServer::Start(Loopback(), hung);
  ASSERT_TRUE(ok_server.ok() && bad_server.ok() && hung_server.ok());
  WebhookSender sender(
      {.url = Url(**ok_server), .secret = "s", .timeout_ms = 300, .clock = clock_});
  MakeHandler(sender);

  const std::string a = sender.Enqueue("pull_request", Body(7));
  WaitForAttempts(sender, 1);
  sender.SetUrl(Url(**bad_server));
  const std::string b = sender.Enqueue("pull_request", Body(7));
  WaitForAttempts(sender, 2);
  sender.SetUrl(RefusingUrl());
  const std::string c = sender.Enqueue("check_run", Body(8));
  WaitForAttempts(sender, 3);
  sender.SetUrl(Url(**hung_server));
  const std::string d = sender.Enqueue("status", "{}");
  WaitForAttempts(sender, 4);

  auto all = sender.log().All();
  ASSERT_EQ(all.size(), 4u);
  EXPECT_EQ(all[0].guid, a);
  EXPECT_EQ(all[0].status_code, 202);
  EXPECT_EQ(all[0].status, "OK");
  EXPECT_EQ(all[0].action, "opened");
  EXPECT_EQ(all[0].installation_id, 7);
  EXPECT_EQ(all[0].repository_id, 555);
  EXPECT_EQ(all[1].guid, b);
  EXPECT_EQ(all[1].status_code, 503);
  EXPECT_EQ(all[1].status, "Invalid HTTP Response: 503");
  EXPECT_EQ(all[2].guid, c);
  EXPECT_EQ(all[2].status_code, 0);
  EXPECT_EQ(all[2].status, "failed to connect");
  EXPECT_EQ(all[3].guid, d);
  EXPECT_EQ(all[3].status_code, 0);
  EXPECT_EQ(all[3].status, "timed out");
  for (size_t i = 1; i < all.size(); ++i) EXPECT_GT(all[i].id, all[i - 1].id);
  EXPECT_GT(all[0].id, int64_t{1} << 32) << "ids must need 64 bits, as GitHub's do";
  sender.Stop();
  (*hung_server)->Stop(std::chrono::seconds(1));
}

TEST_F(HookDeliveriesTest, ListIsNewestFirstWithCursorPagesAndValidatesPerPage) {
  WebhookSender sender({.url = RefusingUrl(), .secret = "s", .timeout_ms = 1000, .clock = clock_});
  MakeHandler(sender);
  for (int i = 0; i < 5; ++i) sender.Enqueue("pull_request", Body(7));
  WaitForAttempts(sender, 5);
  const auto all = sender.log().All();

  std::vector<int64_t> seen;
  std::string target = "/app/hook/deliveries?per_page=2";
  for (int page = 0; page < 10 && !target.empty(); ++page) {
    HttpResponse r = Get(target);
    ASSERT_EQ(r.status, 200) << r.body;
    const json::value parsed = json::parse(r.body);
    for (const auto& item : parsed.as_array()) {
      const json::object& o = item.as_object();
      seen.push_back(o.at("id").as_int64());
      EXPECT_EQ(o.at("status").as_string(), "failed to connect");
      EXPECT_EQ(o.at("status_code").as_int64(), 0);
      EXPECT_FALSE(o.at("redelivery").as_bool());
      EXPECT_EQ(o.at("installation_id").as_int64(), 7);
    }
    target.clear();
    for (const auto& [name, value] : r.headers) {
      if (name != "Link") continue;
      const size_t at = value.find("/app/hook/deliveries?");
      target = value.substr(at, value.find('>') - at);
      EXPECT_NE(value.find("rel=\"next\""), std::string::npos);
    }
  }
  ASSERT_EQ(seen.size(), 5u);
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(seen[i], all[4 - i].id) << "newest first";

  EXPECT_EQ(Get("/app/hook/deliveries?per_page=0").status, 422);
  EXPECT_EQ(Get("/app/hook/deliveries?per_page=101").status, 422);
  EXPECT_EQ(Get("/app/hook/deliveries?cursor=nonsense").status, 422);
  EXPECT_EQ(Get("/app/hook/deliveries?per_page=100").status, 200);
  EXPECT_EQ(Get("/app/hook/deliveries", /*with_jwt=*/false).status, 401);
  sender.Stop();
}

TEST_F(HookDeliveriesTest, OneDeliveryInFullAndRedeliveryMakesANewAttemptOfTheSameGuid) {
  WebhookSink sink;
  auto server = HttpServer::Start(Loopback(), sink);
  ASSERT_TRUE(server.ok());
  WebhookSender sender(
      {.url = RefusingUrl(), .secret = "s3cret", .timeout_ms = 1000, .clock = clock_});
  MakeHandler(sender);
  const std::string guid = sender.Enqueue("pull_request", Body(7));
  WaitForAttempts(sender, 1);
  const int64_t first = sender.log().All()[0].id;

  HttpResponse r = Get("/app/hook/deliveries/" + std::to_string(first));
  ASSERT_EQ(r.status, 200) << r.body;
  json::object o = json::parse(r.body).as_object();
  EXPECT_EQ(o.at("guid").as_string(), guid);
  const json::object& request = o.at("request").as_object();
  EXPECT_EQ(request.at("headers").as_object().at("X-GitHub-Delivery").as_string(), guid);
  EXPECT_EQ(request.at("headers").as_object().at("X-GitHub-Event").as_string(), "pull_request");
  EXPECT_EQ(request.at("payload").as_object().at("action").as_string(), "opened");
  EXPECT_EQ(Get("/app/hook/deliveries/999").status, 404);
  EXPECT_EQ(Post("/app/hook/deliveries/999/attempts").status, 404);

  // gatehouse is back: the redelivery reaches it, with the same guid, and is recorded.
  sender.SetUrl(Url(**server));
  EXPECT_EQ(Post("/app/hook/deliveries/" + std::to_string(first) + "/attempts").status, 202);
  HttpRequest got = sink.WaitFor(1);
  EXPECT_EQ(got.Header("X-GitHub-Delivery"), guid);
  WaitForAttempts(sender, 2);
  auto all = sender.log().All();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[1].guid, guid);
  EXPECT_TRUE(all[1].redelivery);
  EXPECT_EQ(all[1].status_code, 202);
  EXPECT_GT(all[1].id, first);
  sender.Stop();
}

}  // namespace
}  // namespace gatehouse::sim
