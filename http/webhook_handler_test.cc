// The webhook handler behind a real HttpServer on loopback, with a fake DeliverySink that
// completes each Accept from its own thread, as the real inbox writer does.
#include "http/webhook_handler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "github/signature.h"
#include "http/server.h"
#include "http/test_client.h"

namespace gatehouse {
namespace {

using http_testing::BuildRequest;
using http_testing::ClientResponse;
using http_testing::RoundTrip;
using http_testing::TestConnection;
using ::testing::HasSubstr;

const Time kT0 = FromMicros(1'800'000'000'000'000);
constexpr char kSecret[] = "current secret";
constexpr char kPreviousSecret[] = "previous secret";
constexpr char kPayload[] = R"({"action":"opened","number":7,"installation":{"id":42}})";

// Decides like the real inbox (first id stored; same id and hash a duplicate; same id and
// another hash a conflict) and completes on its worker thread. Hold() parks Accepts until
// Release(), so a test can keep a delivery in flight.
class FakeSink final : public DeliverySink {
 public:
  FakeSink() : worker_([this] { Run(); }) {}
  ~FakeSink() override {
    {
      std::lock_guard<std::mutex> lock(mu_);
      quit_ = true;
      held_ = false;
    }
    cv_.notify_all();
    worker_.join();
  }

  void Accept(Delivery delivery, std::function<void(Result<AcceptOutcome>)> done) override {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.emplace_back(std::move(delivery), std::move(done));
    cv_.notify_all();
  }
  void CountRejected(std::string_view reason) override {
    std::lock_guard<std::mutex> lock(mu_);
    ++rejected_[std::string(reason)];
  }
  Status CheckWritable() override {
    std::lock_guard<std::mutex> lock(mu_);
    return writable_;
  }

  void FailAcceptsWith(Status status) {
    std::lock_guard<std::mutex> lock(mu_);
    fail_ = std::move(status);
  }
  void SetWritable(Status status) {
    std::lock_guard<std::mutex> lock(mu_);
    writable_ = std::move(status);
  }
  void Hold() {
    std::lock_guard<std::mutex> lock(mu_);
    held_ = true;
  }
  void Release() {
    std::lock_guard<std::mutex> lock(mu_);
    held_ = false;
    cv_.notify_all();
  }
  bool WaitForQueued(size_t n) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(30), [&] { return queue_.size() >= n; });
  }
  std::vector<Delivery> Stored() {
    std::lock_guard<std::mutex> lock(mu_);
    return stored_;
  }
  int AcceptCalls() {
    std::lock_guard<std::mutex> lock(mu_);
    return accept_calls_;
  }
  std::map<std::string, int> Rejected() {
    std::lock_guard<std::mutex> lock(mu_);
    return rejected_;
  }

 private:
  void Run() {
    std::unique_lock<std::mutex> lock(mu_);
    for (;;) {
      cv_.wait(lock, [&] { return quit_ || (!held_ && !queue_.empty()); });
      if (queue_.empty()) return;  // quitting, and nothing left to complete
      auto [delivery, done] = std::move(queue_.front());
      queue_.pop_front();
      Result<AcceptOutcome> outcome = Decide(delivery);
      lock.unlock();
      done(std::move(outcome));
      lock.lock();
    }
  }
  Result<AcceptOutcome> Decide(const Delivery& delivery) {
    ++accept_calls_;
    if (!fail_.ok()) return fail_;
    auto [it, inserted] = hashes_.emplace(delivery.delivery_id, delivery.body_sha256);
    if (inserted) {
      stored_.push_back(delivery);
      return AcceptOutcome::kAccepted;
    }
    return it->second == delivery.body_sha256 ? AcceptOutcome::kDuplicate
                                              : AcceptOutcome::kConflict;
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::pair<Delivery, std::function<void(Result<AcceptOutcome>)>>> queue_;
  std::map<std::string, std::string> hashes_;
  std::vector<Delivery> stored_;
  std::map<std::string, int> rejected_;
  int accept_calls_ = 0;
  Status fail_;
  Status writable_;
  bool held_ = false;
  bool quit_ = false;
  std::thread worker_;  // last: starts after every other member exists
};

using Headers = std::vector<std::pair<std::string, std::string>>;

Headers Signed(const std::string& id, const std::string& event, const std::string& body,
               const std::string& secret = kSecret) {
  return {{"Content-Type", "application/json"},
          {"X-GitHub-Event", event},
          {"X-GitHub-Delivery", id},
          {"X-Hub-Signature-256", "sha256=" + HmacSha256Hex(secret, body)}};
}

std::string Post(const Headers& headers, const std::string& body,
                 const std::string& path = "/webhook") {
  return BuildRequest("POST", path, headers, body);
}

class WebhookTest : public ::testing::Test {
 protected:
  void Start(WebhookOptions webhook = {}, size_t body_limit = size_t{64} * 1024) {
    if (webhook.secrets.empty() && !webhook.insecure_no_signature) {
      webhook.secrets = {kSecret, kPreviousSecret};
    }
    ASSERT_TRUE(ValidateWebhookOptions(webhook).ok());
    handler_ = std::make_unique<WebhookHandler>(webhook, sink_, clock_);
    HttpServerOptions options;
    options.listen = "127.0.0.1:0";
    options.body_limit = body_limit;
    options.on_body_too_large = [handler = handler_.get()] { handler->OnBodyTooLarge(); };
    auto server = HttpServer::Start(options, *handler_);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    port_ = server_->port();
  }
  ClientResponse Send(const std::string& request) { return RoundTrip(port_, request); }
  ClientResponse Deliver(const std::string& id, const std::string& body = kPayload,
                         const std::string& event = "pull_request") {
    return Send(Post(Signed(id, event, body), body));
  }

  FakeSink sink_;
  SimClock clock_{kT0};
  std::unique_ptr<WebhookHandler> handler_;
  std::unique_ptr<HttpServer> server_;  // stops before the handler and sink go away
  uint16_t port_ = 0;
};

TEST(WebhookOptionsTest, Validation) {
  WebhookOptions options;
  EXPECT_FALSE(ValidateWebhookOptions(options).ok());  // no secret
  options.secrets = {"", ""};
  EXPECT_FALSE(ValidateWebhookOptions(options).ok());
  options.secrets = {"s"};
  EXPECT_TRUE(ValidateWebhookOptions(options).ok());
  options.path = "webhook";
  EXPECT_FALSE(ValidateWebhookOptions(options).ok());
  options.path = "/healthz";
  EXPECT_FALSE(ValidateWebhookOptions(options).ok());
  options = WebhookOptions{};
  options.insecure_no_signature = true;
  EXPECT_TRUE(ValidateWebhookOptions(options).ok());
}

TEST_F(WebhookTest, SignedDeliveryIsAcceptedAndHandedToTheSinkIntact) {
  Start();
  ClientResponse response = Deliver("d-1");
  EXPECT_EQ(response.status, 202);
  EXPECT_EQ(response.body, R"({"status":"accepted","delivery":"d-1"})");
  EXPECT_EQ(response.Header("content-type"), "application/json");
  auto stored = sink_.Stored();
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].delivery_id, "d-1");
  EXPECT_EQ(stored[0].event, "pull_request");
  EXPECT_EQ(stored[0].action, "opened");
  EXPECT_EQ(stored[0].installation_id, std::optional<int64_t>(42));
  EXPECT_EQ(stored[0].body, kPayload);
  EXPECT_EQ(stored[0].body_sha256, Sha256Hex(kPayload));
  EXPECT_EQ(stored[0].received_at, kT0);
  EXPECT_TRUE(sink_.Rejected().empty());
  // The headers worth keeping, as sent (the test client's Host and Content-Length are not).
  const std::vector<std::pair<std::string, std::string>> kept = {
      {"Content-Type", "application/json"},
      {"X-GitHub-Event", "pull_request"},
      {"X-GitHub-Delivery", "d-1"},
      {"X-Hub-Signature-256", "sha256=" + HmacSha256Hex(kSecret, kPayload)}};
  EXPECT_EQ(stored[0].headers, kept);
}

TEST_F(WebhookTest, PreviousSecretIsAcceptedDuringRotation) {
  Start();
  std::string body = kPayload;
  EXPECT_EQ(Send(Post(Signed("d-1", "push", body, kPreviousSecret), body)).status, 202);
  EXPECT_EQ(sink_.Stored().size(), 1u);
}

TEST_F(WebhookTest, BadSignaturesAre401AndNothingIsDelivered) {
  Start();
  std::string body = kPayload;
  Headers wrong = Signed("d-1", "push", body, "another secret");
  Headers missing = Signed("d-2", "push", body);
  missing.pop_back();
  Headers malformed = Signed("d-3", "push", body);
  malformed.back().second = "sha1=" + HmacSha256Hex(kSecret, body);
  Headers other_body = Signed("d-4", "push", "{}");  // signs a different body
  for (const Headers& headers : {wrong, missing, malformed, other_body}) {
    ClientResponse response = Send(Post(headers, body));
    EXPECT_EQ(response.status, 401);
    EXPECT_THAT(response.body, HasSubstr("\"error\""));
  }
  EXPECT_EQ(sink_.AcceptCalls(), 0);
  EXPECT_EQ(sink_.Rejected(), (std::map<std::string, int>{{"signature", 4}}));
}

TEST_F(WebhookTest, InsecureModeAcceptsUnsignedDeliveries) {
  WebhookOptions options;
  options.insecure_no_signature = true;
  Start(options);
  Headers headers = {{"X-GitHub-Event", "ping"}, {"X-GitHub-Delivery", "d-1"}};
  // A ping is stored like any delivery, and answered 200.
  EXPECT_EQ(Send(Post(headers, R"({"zen":"Keep it logically awesome."})")).status, 200);
  auto stored = sink_.Stored();
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].event, "ping");
  EXPECT_EQ(stored[0].action, "");
  EXPECT_EQ(stored[0].installation_id, std::nullopt);
}

TEST_F(WebhookTest, MissingOrMalformedGitHubHeadersAre400) {
  Start();
  std::string body = kPayload;
  auto without = [&](const std::string& name) {
    Headers headers = Signed("d-1", "push", body);
    std::erase_if(headers, [&](const auto& h) { return h.first == name; });
    return headers;
  };
  std::vector<Headers> bad = {
      without("X-GitHub-Event"),
      without("X-GitHub-Delivery"),
      Signed("", "push", body),
      Signed("d-1", "", body),
      Signed(std::string(129, 'd'), "push", body),
      Signed("d 1", "push", body),
  };
  for (const Headers& headers : bad) {
    ClientResponse response = Send(Post(headers, body));
    EXPECT_EQ(response.status, 400);
    EXPECT_THAT(response.body, HasSubstr("X-GitHub-"));
  }
  EXPECT_EQ(sink_.AcceptCalls(), 0);
  EXPECT_EQ(sink_.Rejected(), (std::map<std::string, int>{{"headers", 6}}));
  EXPECT_EQ(Deliver(std::string(128, 'd')).status, 202);  // the longest id allowed
}

TEST_F(WebhookTest, BodyThatIsNotAJsonObjectIs400) {
  Start();
  for (std::string body : {"{\"action\": ", "not json", "[1,2]", "\"text\"", "",
                           "payload=%7B%22action%22%3A%22opened%22%7D"}) {
    ClientResponse response = Deliver("d-1", body);
    EXPECT_EQ(response.status, 400) << body;
    EXPECT_THAT(response.body, HasSubstr("JSON"));
  }
  EXPECT_EQ(sink_.AcceptCalls(), 0);
  EXPECT_EQ(sink_.Rejected(), (std::map<std::string, int>{{"json", 6}}));
}

TEST_F(WebhookTest, OptionalFieldsMayBeAbsentOrOddlyTyped) {
  Start();
  EXPECT_EQ(Deliver("d-1", R"({"action":7,"installation":{"id":"42"}})").status, 202);
  EXPECT_EQ(Deliver("d-2", R"({"installation":5})").status, 202);
  auto stored = sink_.Stored();
  ASSERT_EQ(stored.size(), 2u);
  for (const Delivery& delivery : stored) {
    EXPECT_EQ(delivery.action, "");
    EXPECT_EQ(delivery.installation_id, std::nullopt);
  }
}

TEST_F(WebhookTest, BodyOverTheLimitIs413WithoutReachingTheHandler) {
  Start({}, /*body_limit=*/1024);
  std::string big = R"({"action":"opened","padding":")" + std::string(2048, 'x') + "\"}";
  ClientResponse whole = Deliver("d-1", big);
  EXPECT_EQ(whole.status, 413);
  EXPECT_THAT(whole.body, HasSubstr("\"error\""));

  // Refused from the Content-Length alone, before a byte of the body is sent.
  auto connection = TestConnection::Connect(port_);
  ASSERT_NE(connection, nullptr);
  std::string header = Post(Signed("d-2", "push", big), "");
  header.replace(header.find("Content-Length: 0"), 17, "Content-Length: 10485760");
  ASSERT_TRUE(connection->Send(header));
  EXPECT_EQ(connection->Read().status, 413);
  EXPECT_TRUE(connection->ReadsEof());

  EXPECT_EQ(sink_.AcceptCalls(), 0);
  EXPECT_EQ(sink_.Rejected(), (std::map<std::string, int>{{"too_large", 2}}));
  EXPECT_EQ(Deliver("d-3").status, 202);  // the server goes on
}

TEST_F(WebhookTest, RedeliveryIsADuplicateAndAnotherBodyAConflict) {
  Start();
  EXPECT_EQ(Deliver("d-1").status, 202);
  ClientResponse duplicate = Deliver("d-1");
  EXPECT_EQ(duplicate.status, 200);
  EXPECT_EQ(duplicate.body, R"({"status":"duplicate"})");
  ClientResponse conflict = Deliver("d-1", R"({"action":"closed"})");
  EXPECT_EQ(conflict.status, 409);
  EXPECT_EQ(conflict.body, R"({"error":"delivery id reused with a different body"})");
  EXPECT_EQ(sink_.Stored().size(), 1u);
}

TEST_F(WebhookTest, SinkErrorIs503WithTheStatusMessage) {
  Start();
  sink_.FailAcceptsWith(Unavailable("inbox commit failed: disk I/O error"));
  ClientResponse response = Deliver("d-1");
  EXPECT_EQ(response.status, 503);
  EXPECT_EQ(response.body, R"({"error":"inbox commit failed: disk I/O error"})");
  EXPECT_TRUE(sink_.Stored().empty());
}

TEST_F(WebhookTest, KeepAliveCarriesSeveralDeliveries) {
  Start();
  auto connection = TestConnection::Connect(port_);
  ASSERT_NE(connection, nullptr);
  for (const char* id : {"d-1", "d-2"}) {
    ASSERT_TRUE(connection->Send(Post(Signed(id, "push", kPayload), kPayload)));
    EXPECT_EQ(connection->Read().status, 202);
  }
  EXPECT_EQ(sink_.Stored().size(), 2u);
}

TEST_F(WebhookTest, HealthAndReadiness) {
  Start();
  ClientResponse health = Send(BuildRequest("GET", "/healthz", {}, ""));
  EXPECT_EQ(health.status, 200);
  EXPECT_EQ(health.body, R"({"status":"ok"})");
  EXPECT_EQ(Send(BuildRequest("GET", "/readyz", {}, "")).status, 200);
  sink_.SetWritable(Unavailable("database is read-only"));
  ClientResponse ready = Send(BuildRequest("GET", "/readyz", {}, ""));
  EXPECT_EQ(ready.status, 503);
  EXPECT_EQ(ready.body, R"({"error":"database is read-only"})");
  EXPECT_EQ(Send(BuildRequest("GET", "/healthz", {}, "")).status, 200);  // still alive
}

TEST_F(WebhookTest, UnknownPathsAre404AndWrongMethods405) {
  Start();
  ClientResponse unknown = Send(Post(Signed("d-1", "push", kPayload), kPayload, "/hooks"));
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(unknown.body, R"({"error":"not found"})");
  ClientResponse get = Send(BuildRequest("GET", "/webhook", {}, ""));
  EXPECT_EQ(get.status, 405);
  EXPECT_EQ(get.Header("allow"), "POST");
  EXPECT_EQ(Send(BuildRequest("POST", "/healthz", {}, "")).status, 405);
  EXPECT_EQ(sink_.Rejected(), (std::map<std::string, int>{{"method", 1}}));
  EXPECT_EQ(sink_.AcceptCalls(), 0);
}

TEST_F(WebhookTest, QueryStringOnTheWebhookPathIsIgnored) {
  WebhookOptions options;
  options.path = "/github/events";
  Start(options);
  EXPECT_EQ(Send(Post(Signed("d-1", "push", kPayload), kPayload, "/github/events?src=gh")).status,
            202);
}

TEST_F(WebhookTest, StopWaitsForADeliveryInFlight) {
  Start();
  auto idle = TestConnection::Connect(port_);
  ASSERT_NE(idle, nullptr);
  ASSERT_TRUE(idle->Send(BuildRequest("GET", "/healthz", {}, "")));
  ASSERT_EQ(idle->Read().status, 200);

  sink_.Hold();
  auto busy = TestConnection::Connect(port_);
  ASSERT_NE(busy, nullptr);
  ASSERT_TRUE(busy->Send(Post(Signed("d-1", "push", kPayload), kPayload)));
  ASSERT_TRUE(sink_.WaitForQueued(1));

  std::thread stopper([&] { server_->Stop(std::chrono::seconds(60)); });
  EXPECT_TRUE(idle->ReadsEof());  // Stop has begun: idle connections are closed
  sink_.Release();                // the commit completes
  ClientResponse response = busy->Read();
  EXPECT_EQ(response.status, 202);
  EXPECT_EQ(response.Header("connection"), "close");
  stopper.join();
  EXPECT_EQ(sink_.Stored().size(), 1u);
}

TEST_F(WebhookTest, ConcurrentClientsAllGetTheirDeliveriesAccepted) {
  Start();
  constexpr int kClients = 32;
  constexpr int kPerClient = 50;
  std::vector<std::vector<int>> statuses(kClients);
  std::vector<std::thread> clients;
  clients.reserve(kClients);
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      auto connection = TestConnection::Connect(port_);
      if (!connection) return;
      for (int i = 0; i < kPerClient; ++i) {
        std::string id = "c" + std::to_string(c) + "-" + std::to_string(i);
        std::string body = R"({"action":"synchronize","n":")" + id + "\"}";
        if (!connection->Send(Post(Signed(id, "pull_request", body), body))) break;
        statuses[c].push_back(connection->Read().status);
      }
    });
  }
  for (std::thread& client : clients) client.join();
  for (int c = 0; c < kClients; ++c) {
    EXPECT_EQ(statuses[c], std::vector<int>(kPerClient, 202)) << "client " << c;
  }
  std::set<std::string> ids;
  for (const Delivery& delivery : sink_.Stored()) ids.insert(delivery.delivery_id);
  EXPECT_EQ(ids.size(), static_cast<size_t>(kClients * kPerClient));
  EXPECT_EQ(sink_.AcceptCalls(), kClients * kPerClient);
}

}  // namespace
}  // namespace gatehouse
