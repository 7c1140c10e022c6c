// HttpExecutor against a real HttpServer on 127.0.0.1:0, through the real CurlTransport. The
// test endpoint checks the signature with OpenSSL directly, not with the code that made it.
// Tests wait for events (a request reaching the endpoint), never for time.
#include "review/http_executor.h"
#include "review/executor_test_util.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <atomic>
#include <boost/json.hpp>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <thread>

#include "http/server.h"

namespace gatehouse::review {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using Kind = ExecOutcome::Kind;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr const char* kBlockingAnswer =
    R"({"verdict":"request_changes","summary":"one issue","findings":[)"
    R"({"path":"a.py","line":4,"severity":"blocking","message":"eval of input"}]})";

std::string IndependentHmacHex(const std::string& key, const std::string& data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), mac, &len);
  std::string hex;
  char byte[3];
  for (unsigned int i = 0; i < len; ++i) {
    std::snprintf(byte, sizeof(byte), "%02x", mac[i]);
    hex += byte;
  }
  return hex;
}

// A reviewer endpoint: records each request and answers with `answer`, or keeps the Responder
// when `hold` is set.
class ReviewerEndpoint : public HttpHandler {
 public:
  void Handle(HttpRequest request, Responder respond) override {
    std::unique_lock<std::mutex> lock(mu_);
    requests_.push_back(request);
    cv_.notify_all();
    if (hold_) {
      held_.push_back(std::move(respond));
      return;
    }
    HttpResponse response = answer_(request);
    lock.unlock();
    respond(std::move(response));
  }

  void Answer(std::function<HttpResponse(const HttpRequest&)> answer) {
    std::lock_guard<std::mutex> lock(mu_);
    answer_ = std::move(answer);
  }
  void Hold() {
    std::lock_guard<std::mutex> lock(mu_);
    hold_ = true;
  }
  bool Received() {
    std::lock_guard<std::mutex> lock(mu_);
    return !requests_.empty();
  }
  std::vector<HttpRequest> Requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }
  void ReleaseHeld(HttpResponse response) {
    std::vector<Responder> held;
    {
      std::lock_guard<std::mutex> lock(mu_);
      held.swap(held_);
    }
    for (auto& r : held) r(response);
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::function<HttpResponse(const HttpRequest&)> answer_ = [](const HttpRequest&) {
    return JsonResponse(200, kBlockingAnswer);
  };
  bool hold_ = false;
  std::vector<HttpRequest> requests_;
  std::vector<Responder> held_;
};

class HttpExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    HttpServerOptions options;
    options.listen = "127.0.0.1:0";
    auto server = HttpServer::Start(options, endpoint_);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    url_ = "http://127.0.0.1:" + std::to_string(server_->port()) + "/hook?team=sec";
  }
  void TearDown() override { server_->Stop(milliseconds(0)); }

  ExecOutcome Run(const std::string& secret = "", Duration timeout = seconds(30),
                  CancelProbe cancelled = nullptr, decide::ReviewRequest request = {}) {
    auto executor = HttpExecutor::Create({url_, secret});
    EXPECT_TRUE(executor.ok()) << executor.status().ToString();
    if (!executor.ok()) return ExecOutcome::Transient("no executor");
    return (*executor)->Review(request, timeout, cancelled);
  }

  ReviewerEndpoint endpoint_;
  std::unique_ptr<HttpServer> server_;
  std::string url_;
};

TEST_F(HttpExecutorTest, PostsASignedRequestAndReadsTheResult) {
  decide::ReviewRequest request;
  request.repo = "acme/app";
  request.role = "security";
  request.head_sha = "abc";
  auto out = Run("s3cret", seconds(30), nullptr, request);
  ASSERT_EQ(out.kind, Kind::kResult) << out.reason;
  EXPECT_EQ(out.result.verdict, decide::ReviewVerdict::kRequestChanges);
  ASSERT_EQ(out.result.findings.size(), 1u);
  EXPECT_EQ(out.result.findings[0].line, 4);

  auto requests = endpoint_.Requests();
  ASSERT_EQ(requests.size(), 1u);
  const HttpRequest& got = requests[0];
  EXPECT_EQ(got.method, "POST");
  EXPECT_EQ(got.target, "/hook?team=sec");
  EXPECT_EQ(got.Header("content-type"), "application/json");
  EXPECT_EQ(got.Header("x-gatehouse-event"), "review_request");
  EXPECT_EQ(got.Header("x-gatehouse-signature-256"),
            "sha256=" + IndependentHmacHex("s3cret", got.body));
  EXPECT_NE(got.Header("x-gatehouse-signature-256"),
            "sha256=" + IndependentHmacHex("other", got.body));
  auto body = boost::json::parse(got.body).as_object();
  EXPECT_EQ(body.at("repo"), "acme/app");
  EXPECT_EQ(body.at("role"), "security");
  EXPECT_EQ(body.at("head_sha"), "abc");
}

TEST_F(HttpExecutorTest, WithoutASecretTheRequestIsNotSigned) {
  auto out = Run();
  ASSERT_EQ(out.kind, Kind::kResult) << out.reason;
  auto requests = endpoint_.Requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_FALSE(requests[0].HasHeader("X-Gatehouse-Signature-256"));
}

TEST_F(HttpExecutorTest, TooManyRequestsIsRateLimitedWithRetryAfter) {
  endpoint_.Answer([](const HttpRequest&) {
    HttpResponse r = JsonError(429, "slow down");
    r.headers.emplace_back("Retry-After", "30");
    return r;
  });
  auto out = Run();
  EXPECT_EQ(out.kind, Kind::kRateLimited);
  EXPECT_EQ(out.retry_after, seconds(30));
  EXPECT_EQ(out.reason, "HTTP 429 from " + url_ + ": retry after 30s");

  endpoint_.Answer([](const HttpRequest&) { return JsonError(429, "slow down"); });
  auto bare = Run();
  EXPECT_EQ(bare.kind, Kind::kRateLimited);
  EXPECT_EQ(bare.retry_after, seconds(60));
}

TEST_F(HttpExecutorTest, GatewayErrorsAreAnOutageWithTheStatusAndBody) {
  for (int status : {502, 503, 504}) {
    endpoint_.Answer([status](const HttpRequest&) { return JsonError(status, "model down"); });
    auto out = Run();
    EXPECT_EQ(out.kind, Kind::kUnavailable) << status;
    EXPECT_EQ(out.reason,
              "HTTP " + std::to_string(status) + " from " + url_ + R"(: {"error":"model down"})");
  }
}

TEST_F(HttpExecutorTest, OtherServerErrorsAreTransientWithTheStatusAndBody) {
  for (int status : {500, 501, 507}) {
    endpoint_.Answer([status](const HttpRequest&) { return JsonError(status, "it broke"); });
    auto out = Run();
    EXPECT_EQ(out.kind, Kind::kTransient) << status;
    EXPECT_EQ(out.reason,
              "HTTP " + std::to_string(status) + " from " + url_ + R"(: {"error":"it broke"})");
  }
}

TEST_F(HttpExecutorTest, ClientErrorsAreTransientWithAClippedBody) {
  endpoint_.Answer([](const HttpRequest&) {
    HttpResponse r;
    r.status = 404;
    r.content_type = "text/plain";
    r.body = "no such hook\n" + std::string(1000, 'z');
    return r;
  });
  auto out = Run();
  EXPECT_EQ(out.kind, Kind::kTransient);
  EXPECT_THAT(out.reason, StartsWith("HTTP 404 from " + url_ + ": no such hook zzz"));
  EXPECT_THAT(out.reason, ::testing::EndsWith("z…"));
  EXPECT_LT(out.reason.size(), 400u);
}

TEST_F(HttpExecutorTest, ABodyThatIsNotAResultIsTransient) {
  endpoint_.Answer([](const HttpRequest&) {
    return JsonResponse(200, R"({"verdict":"approve","summary":"ok","findings":[{"path":""}]})");
  });
  auto out = Run();
  EXPECT_EQ(out.kind, Kind::kTransient);
  EXPECT_EQ(out.reason,
            "response is not a review result: findings[0].path: expected a non-empty string");
}

TEST_F(HttpExecutorTest, NoAnswerWithinTheTimeoutIsTransient) {
  endpoint_.Hold();
  auto out = Run("", milliseconds(300));
  EXPECT_EQ(out.kind, Kind::kTransient);
  EXPECT_EQ(out.reason, "timed out after 300ms");
  endpoint_.ReleaseHeld(JsonResponse(200, kBlockingAnswer));
}

TEST_F(HttpExecutorTest, CancelAbandonsTheCall) {
  endpoint_.Hold();
  auto out = Run("", seconds(60), [this] { return endpoint_.Received(); });
  EXPECT_EQ(out.kind, Kind::kCancelled) << out.reason;
  // The abandoned exchange still gets its answer, on its own thread.
  endpoint_.ReleaseHeld(JsonResponse(200, kBlockingAnswer));
}

TEST_F(HttpExecutorTest, ConcurrentReviewsShareOneExecutor) {
  endpoint_.Answer([](const HttpRequest& r) {
    auto role = boost::json::parse(r.body).as_object().at("role").as_string();
    return JsonResponse(200, R"({"verdict":"comment","summary":")" + std::string(role) + "\"}");
  });
  auto executor = HttpExecutor::Create({url_, "k"});
  ASSERT_TRUE(executor.ok());
  EXPECT_EQ(executor_testing::ConcurrentRoleEchoes(**executor), 32);
}

TEST(HttpExecutorConnectTest, NoResponseAtAllIsAnOutage) {
  ReviewerEndpoint endpoint;
  HttpServerOptions options;
  options.listen = "127.0.0.1:0";
  auto server = HttpServer::Start(options, endpoint);
  ASSERT_TRUE(server.ok());
  const std::string url = "http://127.0.0.1:" + std::to_string((*server)->port()) + "/hook";
  (*server)->Stop(milliseconds(0));
  server->reset();  // nothing listens there now

  auto executor = HttpExecutor::Create({url, ""});
  ASSERT_TRUE(executor.ok());
  auto out = (*executor)->Review({}, seconds(10), nullptr);
  EXPECT_EQ(out.kind, Kind::kUnavailable) << out.reason;
  EXPECT_THAT(out.reason, StartsWith("no response: POST " + url + ": "));

  // A name that cannot resolve (.invalid is reserved, RFC 2606) is no response either.
  auto nowhere = HttpExecutor::Create({"http://reviewer.invalid/hook", ""});
  ASSERT_TRUE(nowhere.ok());
  auto dns = (*nowhere)->Review({}, seconds(10), nullptr);
  EXPECT_EQ(dns.kind, Kind::kUnavailable) << dns.reason;
  EXPECT_THAT(dns.reason, StartsWith("no response: POST http://reviewer.invalid/hook: "));
}

TEST(ParseHttpEndpointTest, SplitsBaseAndTarget) {
  auto a = ParseHttpEndpoint("https://review.example/hook");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->base_url, "https://review.example");
  EXPECT_EQ(a->target, "/hook");
  auto b = ParseHttpEndpoint("http://127.0.0.1:9000");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->base_url, "http://127.0.0.1:9000");
  EXPECT_EQ(b->target, "/");
  auto c = ParseHttpEndpoint("HTTP://h:1?x=1");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->base_url, "HTTP://h:1");
  EXPECT_EQ(c->target, "/?x=1");
}

TEST(ParseHttpEndpointTest, RejectsWhatItCannotPost) {
  auto message = [](std::string_view url) {
    auto r = ParseHttpEndpoint(url);
    EXPECT_FALSE(r.ok()) << url;
    return r.ok() ? std::string() : r.status().message();
  };
  EXPECT_EQ(message("ftp://x/y"),
            "http executor: url must start with http:// or https://: ftp://x/y");
  EXPECT_EQ(message("review.example/hook"),
            "http executor: url must start with http:// or https://: review.example/hook");
  EXPECT_EQ(message("https:///hook"), "http executor: url has no host: https:///hook");
  EXPECT_EQ(message("https://:80/hook"), "http executor: url has no host: https://:80/hook");
  EXPECT_EQ(message("https://u:p@h/hook"),
            "http executor: url may not carry credentials; use secret_env");
  EXPECT_EQ(message("https://h/hook#x"),
            "http executor: url may not have a fragment: https://h/hook#x");
}

}  // namespace
}  // namespace gatehouse::review
