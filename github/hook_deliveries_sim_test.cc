// AppClient against the real simulator served in-process, as the App (RS256
// JWTs the simulator verifies): deliveries the simulator failed to make (nothing listening)
// listed newest first through cursor pages, one fetched with its headers and payload, one
// redelivered; per_page checked before anything is sent; a rate limit typed and then refused
// locally without another call.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <boost/json.hpp>
#include <chrono>
#include <thread>

#include "github/app_client.h"
#include "http/server.h"
#include "sim/in_process_github_test_util.h"
#include "sim/webhooks.h"

namespace gatehouse {
namespace {

using sim_testing::InProcessGitHub;

class Accepting final : public HttpHandler {
 public:
  void Handle(HttpRequest, Responder respond) override { respond(JsonResponse(202, "{}")); }
};

// A port nothing listens on: one a server had and gave back.
std::string RefusingUrl() {
  Accepting handler;
  HttpServerOptions options;
  options.listen = "127.0.0.1:0";
  auto server = HttpServer::Start(options, handler);
  EXPECT_TRUE(server.ok());
  const std::string url = "http://127.0.0.1:" + std::to_string((*server)->port()) + "/webhook";
  (*server)->Stop(std::chrono::seconds(1));
  return url;
}

// Counts what reaches the wire.
class WireCounter final : public HttpTransport {
 public:
  explicit WireCounter(HttpTransport& target) : target_(target) {}
  Result<HttpReply> Send(const HttpCall& call) override {
    ++sent_;
    return target_.Send(call);
  }
  int sent() const { return sent_.load(); }

 private:
  HttpTransport& target_;
  std::atomic<int> sent_{0};
};

class HookDeliveriesClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    github_.set_webhooks(&sender_);
    ASSERT_NO_FATAL_FAILURE(github_.Start());
    counting_ = std::make_unique<WireCounter>(github_.transport());
    client_ = std::make_unique<AppClient>(*counting_, github_.signer(), clock_);
    for (int i = 0; i < 5; ++i) {
      guids_.push_back(sender_.Enqueue(
          "pull_request",
          boost::json::serialize(boost::json::object{
              {"action", "opened"}, {"number", i}, {"installation", {{"id", 7}}}})));
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    while (sender_.log().All().size() < 5 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_EQ(sender_.log().All().size(), 5u);
  }
  void TearDown() override { sender_.Stop(); }

  void PutFaults(const std::string& body) {
    HttpResponse r = github_.handler().Serve(HttpRequest{"PUT", "/_sim/faults", {}, body, "t"});
    ASSERT_EQ(r.status, 200) << r.body;
  }

  std::shared_ptr<SimClock> clock_ = std::make_shared<SimClock>(RealClock().Now());
  sim::WebhookSender sender_{
      {.url = RefusingUrl(), .secret = "s", .timeout_ms = 2000, .clock = clock_}};
  InProcessGitHub github_{clock_};
  std::unique_ptr<WireCounter> counting_;
  std::unique_ptr<AppClient> client_;
  std::vector<std::string> guids_;
};

TEST_F(HookDeliveriesClientTest, ListsNewestFirstThroughCursorPages) {
  std::vector<HookDelivery> all;
  std::string cursor;
  int pages = 0;
  do {
    auto page = client_->ListDeliveries(2, cursor);
    ASSERT_TRUE(page.ok()) << page.error().ToString();
    all.insert(all.end(), page->deliveries.begin(), page->deliveries.end());
    cursor = page->next_cursor;
    ++pages;
  } while (!cursor.empty() && pages < 10);
  EXPECT_EQ(pages, 3);
  ASSERT_EQ(all.size(), 5u);
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(all[i].guid, guids_[4 - i]) << "newest first";
    EXPECT_GT(all[i].id, int64_t{1} << 32);
    EXPECT_EQ(all[i].status, "failed to connect");
    EXPECT_EQ(all[i].status_code, 0);
    EXPECT_FALSE(all[i].Succeeded());
    EXPECT_FALSE(all[i].redelivery);
    EXPECT_EQ(all[i].event, "pull_request");
    EXPECT_EQ(all[i].action, "opened");
    EXPECT_EQ(all[i].installation_id, 7);
    EXPECT_FALSE(all[i].repository_id.has_value());
    ASSERT_TRUE(all[i].delivered_time.has_value()) << all[i].delivered_at;
    if (i > 0) {
      EXPECT_LT(all[i].id, all[i - 1].id);
    }
  }
}

// GET /app/installations pages by Link like any GitHub list (per_page at most 100): 105
// installations are two pages, and every one is listed once.
TEST_F(HookDeliveriesClientTest, ListsEveryInstallationThroughLinkPages) {
  for (int i = 1; i <= 105; ++i) {
    ASSERT_TRUE(github_.model().CreateRepo("org" + std::to_string(i), "r", i, {}).ok());
  }
  const int before = counting_->sent();
  auto ids = client_->ListInstallationIds();
  ASSERT_TRUE(ids.ok()) << ids.error().ToString();
  EXPECT_EQ(counting_->sent() - before, 2) << "two pages of at most 100";
  std::vector<int64_t> expected;
  for (int64_t i = 1; i <= 105; ++i) expected.push_back(i);
  std::vector<int64_t> got = *ids;
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, expected);
}

TEST_F(HookDeliveriesClientTest, FetchesOneWithHeadersAndPayloadAndRedeliversIt) {
  const int64_t id = sender_.log().All()[0].id;
  auto detail = client_->GetDelivery(id);
  ASSERT_TRUE(detail.ok()) << detail.error().ToString();
  EXPECT_EQ(detail->delivery.guid, guids_[0]);
  boost::json::object payload = boost::json::parse(detail->payload).as_object();
  EXPECT_EQ(payload.at("number").as_int64(), 0);
  bool event_header = false;
  for (const auto& [name, value] : detail->request_headers) {
    if (name == "X-GitHub-Event") event_header = value == "pull_request";
  }
  EXPECT_TRUE(event_header);

  auto missing = client_->GetDelivery(123);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, GitHubErrorKind::kNotFound);

  auto redelivered = client_->Redeliver(id);
  ASSERT_TRUE(redelivered.ok()) << redelivered.error().ToString();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (sender_.log().All().size() < 6 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  auto all = sender_.log().All();
  ASSERT_EQ(all.size(), 6u);
  EXPECT_EQ(all[5].guid, guids_[0]);
  EXPECT_TRUE(all[5].redelivery);
  auto gone = client_->Redeliver(123);
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().kind, GitHubErrorKind::kNotFound);
}

TEST_F(HookDeliveriesClientTest, PerPageIsCheckedBeforeAnythingIsSent) {
  for (int bad : {0, 101, -1}) {
    auto page = client_->ListDeliveries(bad, "");
    ASSERT_FALSE(page.ok());
    EXPECT_EQ(page.error().kind, GitHubErrorKind::kPermanent);
  }
  EXPECT_EQ(counting_->sent(), 0);
  EXPECT_TRUE(client_->ListDeliveries(100, "").ok());
  EXPECT_EQ(counting_->sent(), 1);
}

TEST_F(HookDeliveriesClientTest, ARateLimitIsTypedAndThenRefusedLocally) {
  PutFaults(R"({"aimed": [{"method": "GET", "path": "/app/hook/deliveries",
                "fault": "secondary_rate_limit", "count": 1, "retry_after_seconds": 30}]})");
  auto limited = client_->ListDeliveries(100, "");
  ASSERT_FALSE(limited.ok());
  EXPECT_EQ(limited.error().kind, GitHubErrorKind::kRateLimited);
  EXPECT_EQ(limited.error().until, clock_->Now() + std::chrono::seconds(30));
  const int sent = counting_->sent();
  auto again = client_->GetDelivery(sender_.log().All()[0].id);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().kind, GitHubErrorKind::kRateLimited);
  EXPECT_EQ(counting_->sent(), sent) << "refused locally while the wait lasts";
  clock_->Advance(std::chrono::seconds(31));
  EXPECT_TRUE(client_->ListDeliveries(100, "").ok());
}

TEST_F(HookDeliveriesClientTest, ServerErrorsAreTransient) {
  PutFaults(R"({"aimed": [{"path": "/app/hook/deliveries/*", "fault": "server_error",
                "status": 503}]})");
  auto failed = client_->GetDelivery(sender_.log().All()[0].id);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().kind, GitHubErrorKind::kTransient);
  EXPECT_TRUE(client_->GetDelivery(sender_.log().All()[0].id).ok());
}

}  // namespace
}  // namespace gatehouse
