// The openai executor against gatehouse-sim's fake chat-completions endpoint, served
// in-process on 127.0.0.1:0: valid, fenced and malformed answers, 429 with Retry-After, 5xx,
// a wrong key, latency against the timeout, cancellation, and the factory's refusals.
#include "review/openai_executor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <boost/json.hpp>
#include <cstdlib>
#include <memory>

#include "http/server.h"
#include "sim/model.h"
#include "sim/rest.h"

namespace gatehouse::review {
namespace {

namespace json = boost::json;
using Kind = ExecOutcome::Kind;

constexpr char kKey[] = "sk-openai-executor-test";
constexpr char kKeyEnv[] = "GATEHOUSE_OPENAI_EXECUTOR_TEST_KEY";
constexpr auto kTimeout = std::chrono::seconds(20);

decide::ReviewRequest Request() {
  decide::ReviewRequest r;
  r.repo = "acme/app";
  r.number = 12;
  r.role = "security";
  r.head_sha = std::string(40, 'a');
  r.base_sha = std::string(40, 'b');
  r.title = "Add login";
  r.body = "Adds a login form.";
  r.author = "alice";
  r.files.push_back({"src/login.cc", "added", 2, 0, "@@ -0,0 +1,2 @@\n+int a;\n+// FIXME check"});
  r.files.push_back({"logo.png", "added", 0, 0, ""});
  r.prior_findings.push_back({"src/old.cc", 3, decide::Severity::kBlocking, "leak"});
  r.prior_head_sha = std::string(40, 'c');
  return r;
}

class OpenAiExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    clock_ = std::make_shared<SimClock>(FromMicros(1'800'000'000'000'000));
    model_ = std::make_unique<sim::Model>(clock_, sim::ModelOptions{});
    handler_ = std::make_unique<sim::SimHandler>(
        *model_, sim::SimHandlerOptions{.clock = clock_, .openai_api_key = kKey});
    HttpServerOptions options;
    options.listen = "127.0.0.1:0";
    options.threads = 2;
    auto server = HttpServer::Start(options, *handler_);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(server).value();
    ::setenv(kKeyEnv, kKey, 1);
    auto executor = MakeOpenAiExecutor(Spec());
    ASSERT_TRUE(executor.ok()) << executor.status().ToString();
    executor_ = std::move(executor).value();
  }
  void TearDown() override {
    if (server_) server_->Stop(std::chrono::seconds(1));
  }

  decide::ExecutorSpec Spec() const {
    decide::ExecutorSpec spec;
    spec.type = decide::ExecutorType::kOpenAi;
    spec.base_url = "http://127.0.0.1:" + std::to_string(server_->port()) + "/v1/";
    spec.model = "gpt-sim";
    spec.api_key_env = kKeyEnv;
    return spec;
  }
  void Script(const std::string& steps) {
    json::object body{{"model", "gpt-sim"}, {"steps", json::parse(steps)}};
    ASSERT_TRUE(handler_->chat().Append(body).ok());
  }
  ExecOutcome Review(Duration timeout = kTimeout, CancelProbe cancelled = nullptr) {
    return executor_->Review(
        Request(), timeout, cancelled ? cancelled : [] { return false; });
  }

  std::shared_ptr<SimClock> clock_;
  std::unique_ptr<sim::Model> model_;
  std::unique_ptr<sim::SimHandler> handler_;
  std::unique_ptr<HttpServer> server_;
  ReviewExecutorPtr executor_;
};

TEST_F(OpenAiExecutorTest, AValidAnswerIsTheResult) {
  Script(R"([{"content":{"verdict":"request_changes","summary":"a leak",
              "findings":[{"path":"src/login.cc","line":2,"severity":"blocking",
                           "message":"leaks the password"}]}}])");
  ExecOutcome out = Review();
  ASSERT_EQ(out.kind, Kind::kResult) << out.reason;
  EXPECT_EQ(out.result.verdict, decide::ReviewVerdict::kRequestChanges);
  EXPECT_EQ(out.result.summary, "a leak");
  ASSERT_EQ(out.result.findings.size(), 1u);
  EXPECT_EQ(out.result.findings[0].line, 2);
  EXPECT_EQ(out.result.blockers(), 1);
  EXPECT_EQ(handler_->chat().requests("gpt-sim"), 1);
}

TEST_F(OpenAiExecutorTest, TheRequestCarriesTheSchemaThePrAndTheOptions) {
  ExecOutcome out = Review();  // nothing scripted: the fake answers from the request
  ASSERT_EQ(out.kind, Kind::kResult) << out.reason;
  EXPECT_EQ(out.result.summary, "fake model gpt-sim reviewed 2 files, 1 FIXME");
  ASSERT_EQ(out.result.findings.size(), 1u);
  EXPECT_EQ(out.result.findings[0].path, "src/login.cc");
  EXPECT_EQ(out.result.findings[0].line, 2);

  ASSERT_EQ(handler_->chat().recent().size(), 1u);
  json::value sent = json::parse(handler_->chat().recent()[0]);
  EXPECT_EQ(sent.at("model"), "gpt-sim");
  EXPECT_EQ(sent.at("temperature").to_number<double>(), 0.0);
  EXPECT_EQ(sent.at("response_format").at("type"), "json_object");
  const json::array& messages = sent.at("messages").as_array();
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[0].at("role"), "system");
  EXPECT_EQ(messages[0].at("content").as_string(), OpenAiSystemPrompt());
  const std::string user(messages[1].at("content").as_string());
  for (const char* part : {"Add login", "Adds a login form.", "+// FIXME check", "logo.png",
                           "src/old.cc", "leak", "security"}) {
    EXPECT_NE(user.find(part), std::string::npos) << part;
  }
  EXPECT_EQ(user.find(kKey), std::string::npos);
}

TEST_F(OpenAiExecutorTest, AFencedAnswerIsAccepted) {
  Script(R"([{"content":"```json\n{\"verdict\":\"approve\",\"summary\":\"fine\"}\n```\n"}])");
  ExecOutcome out = Review();
  ASSERT_EQ(out.kind, Kind::kResult) << out.reason;
  EXPECT_EQ(out.result.verdict, decide::ReviewVerdict::kApprove);
  EXPECT_EQ(StripCodeFence("  ```\n{}\n```  "), "{}");
  EXPECT_EQ(StripCodeFence("{\"a\":1}"), "{\"a\":1}");
}

TEST_F(OpenAiExecutorTest, AnInvalidAnswerIsTransientWithTheValidationProblem) {
  Script(R"([{"content":{"verdict":"approve","summary":"x",
                         "findings":[{"path":"a","severity":"high","message":"m"}]}},
             {"content":"I think it looks good!"},
             {"malformed":true},
             {"content":"{\"verdict\":\"approve\",\"summary\":\"cut\"}","finish_reason":"length"}])");
  ExecOutcome bad_severity = Review();
  EXPECT_EQ(bad_severity.kind, Kind::kTransient);
  EXPECT_NE(bad_severity.reason.find("findings[0].severity"), std::string::npos)
      << bad_severity.reason;
  ExecOutcome prose = Review();
  EXPECT_EQ(prose.kind, Kind::kTransient);
  EXPECT_NE(prose.reason.find("not a valid result"), std::string::npos) << prose.reason;
  ExecOutcome not_json = Review();
  EXPECT_EQ(not_json.kind, Kind::kTransient);
  EXPECT_NE(not_json.reason.find("not a JSON object"), std::string::npos) << not_json.reason;
  ExecOutcome cut = Review();
  EXPECT_EQ(cut.kind, Kind::kTransient);
  EXPECT_NE(cut.reason.find("cut off"), std::string::npos) << cut.reason;
}

TEST_F(OpenAiExecutorTest, A429WaitsItsRetryAfterOrTenSeconds) {
  Script(R"([{"status":429,"retry_after":7},{"status":429}])");
  ExecOutcome told = Review();
  ASSERT_EQ(told.kind, Kind::kRateLimited) << told.reason;
  EXPECT_EQ(told.retry_after, std::chrono::seconds(7));
  EXPECT_NE(told.reason.find("429"), std::string::npos);
  ExecOutcome untold = Review();
  ASSERT_EQ(untold.kind, Kind::kRateLimited);
  EXPECT_EQ(untold.retry_after, std::chrono::seconds(10));
}

TEST_F(OpenAiExecutorTest, GatewayErrorsAreAnOutageWithTheStatus) {
  Script(R"([{"status":502},{"status":503},{"status":504}])");
  for (const char* status : {"openai: HTTP 502", "openai: HTTP 503", "openai: HTTP 504"}) {
    ExecOutcome out = Review();
    EXPECT_EQ(out.kind, Kind::kUnavailable) << out.reason;
    EXPECT_EQ(out.reason.find(status), 0u) << out.reason;
  }
}

TEST_F(OpenAiExecutorTest, OtherServerErrorsAndRefusalsAreTransientWithTheStatus) {
  Script(R"([{"status":500},{"status":501},{"status":400}])");
  for (const char* status : {"HTTP 500", "HTTP 501", "HTTP 400"}) {
    ExecOutcome out = Review();
    EXPECT_EQ(out.kind, Kind::kTransient);
    EXPECT_NE(out.reason.find(status), std::string::npos) << out.reason;
  }
  ASSERT_TRUE(handler_->chat().Configure(json::object{{"api_key", "sk-rotated"}}).ok());
  ExecOutcome unauthorized = Review();
  EXPECT_EQ(unauthorized.kind, Kind::kTransient);
  EXPECT_NE(unauthorized.reason.find("HTTP 401"), std::string::npos) << unauthorized.reason;
  EXPECT_EQ(unauthorized.reason.find(kKey), std::string::npos);
}

TEST_F(OpenAiExecutorTest, LatencyWithinTheTimeoutIsWaitedForBeyondItIsTransient) {
  Script(R"([{"latency_ms":300,"content":{"verdict":"comment","summary":"slow"}},
             {"latency_ms":5000,"content":{"verdict":"comment","summary":"too slow"}}])");
  ExecOutcome slow = Review();
  ASSERT_EQ(slow.kind, Kind::kResult) << slow.reason;
  EXPECT_EQ(slow.result.summary, "slow");
  ExecOutcome late = Review(std::chrono::milliseconds(200));
  EXPECT_EQ(late.kind, Kind::kTransient);
  EXPECT_NE(late.reason.find("no answer"), std::string::npos) << late.reason;
}

TEST_F(OpenAiExecutorTest, CancellationAbandonsTheCall) {
  Script(R"([{"latency_ms":5000,"content":{"verdict":"comment","summary":"never seen"}}])");
  std::atomic<int> polls{0};
  ExecOutcome out = Review(kTimeout, [&polls] { return ++polls >= 2; });
  EXPECT_EQ(out.kind, Kind::kCancelled) << out.reason;
  EXPECT_GE(polls.load(), 2);
}

TEST_F(OpenAiExecutorTest, NothingListeningIsAnOutage) {
  decide::ExecutorSpec spec = Spec();
  const uint16_t port = server_->port();
  server_->Stop(std::chrono::seconds(1));
  server_.reset();
  spec.base_url = "http://127.0.0.1:" + std::to_string(port) + "/v1";
  auto executor = MakeOpenAiExecutor(spec);
  ASSERT_TRUE(executor.ok());
  ExecOutcome out = (*executor)->Review(Request(), kTimeout, [] { return false; });
  EXPECT_EQ(out.kind, Kind::kUnavailable) << out.reason;
  EXPECT_EQ(out.reason.find("openai: no response from " + spec.base_url + ": "), 0u) << out.reason;
  EXPECT_EQ(out.reason.find(kKey), std::string::npos);
}

TEST_F(OpenAiExecutorTest, TheFactoryRefusesWhatCannotWork) {
  decide::ExecutorSpec spec = Spec();
  spec.api_key_env = "GATEHOUSE_OPENAI_EXECUTOR_TEST_UNSET";
  ::unsetenv(spec.api_key_env.c_str());
  auto unset = MakeOpenAiExecutor(spec);
  ASSERT_FALSE(unset.ok());
  EXPECT_NE(unset.status().message().find("GATEHOUSE_OPENAI_EXECUTOR_TEST_UNSET is not set"),
            std::string::npos)
      << unset.status().message();
  spec = Spec();
  spec.base_url = "ftp://host/v1";
  EXPECT_FALSE(MakeOpenAiExecutor(spec).ok());
  spec = Spec();
  spec.model = "";
  EXPECT_FALSE(MakeOpenAiExecutor(spec).ok());
}

TEST(OpenAiChatRequestTest, HugePatchesAreClipped) {
  decide::ReviewRequest r = Request();
  r.files[0].patch = "@@ -0,0 +1 @@\n+" + std::string(100'000, 'x');
  const std::string body = BuildChatRequest(r, "m");
  EXPECT_LT(body.size(), 60'000u);
  EXPECT_NE(body.find("patch clipped by gatehouse"), std::string::npos);
}

}  // namespace
}  // namespace gatehouse::review
