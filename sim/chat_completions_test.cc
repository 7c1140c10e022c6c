// The fake chat-completions endpoint over loopback: auth, request checks, OpenAI's response
// shape, scripted steps (per model and default), latency, counts, and the default answer.
#include "sim/chat_completions.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <memory>

#include "http/server.h"
#include "http/test_client.h"
#include "sim/model.h"
#include "sim/rest.h"
#include "sim/scenario.h"

namespace gatehouse::sim {
namespace {

namespace json = boost::json;
using http_testing::BuildRequest;
using http_testing::ClientResponse;
using http_testing::RoundTrip;

constexpr char kKey[] = "sk-sim-test";

std::string ChatBody(const std::string& model, const std::string& user = "hello") {
  return json::serialize(json::object{
      {"model", model},
      {"messages", json::array{json::object{{"role", "system"}, {"content", "be brief"}},
                               json::object{{"role", "user"}, {"content", user}}}}});
}

class SimChatTest : public ::testing::Test {
 protected:
  SimChatTest()
      : clock_(std::make_shared<SimClock>(FromMicros(1'800'000'000'000'000))),
        model_(clock_, {}),
        handler_(model_, {.clock = clock_, .openai_api_key = kKey}) {
    HttpServerOptions options;
    options.listen = "127.0.0.1:0";
    auto server = HttpServer::Start(options, handler_);
    EXPECT_TRUE(server.ok());
    server_ = std::move(server).value();
  }
  ~SimChatTest() override { server_->Stop(std::chrono::seconds(1)); }

  ClientResponse Chat(const std::string& body, const std::string& key = kKey,
                      const std::string& path = "/v1/chat/completions") {
    std::vector<std::pair<std::string, std::string>> headers;
    if (!key.empty()) headers.emplace_back("Authorization", "Bearer " + key);
    return RoundTrip(server_->port(), BuildRequest("POST", path, headers, body));
  }
  ClientResponse Control(const std::string& method, const std::string& target,
                         const std::string& body = "") {
    return RoundTrip(server_->port(), BuildRequest(method, target, {}, body));
  }
  static std::string Content(const ClientResponse& r) {
    return std::string(
        json::parse(r.body).at("choices").at(0).at("message").at("content").as_string());
  }

  std::shared_ptr<SimClock> clock_;
  Model model_;
  SimHandler handler_;
  std::unique_ptr<HttpServer> server_;
};

TEST_F(SimChatTest, AnswersInOpenAisShape) {
  ClientResponse r = Chat(ChatBody("gpt-test"));
  ASSERT_EQ(r.status, 200) << r.body;
  json::value v = json::parse(r.body);
  EXPECT_EQ(v.at("object"), "chat.completion");
  EXPECT_EQ(v.at("model"), "gpt-test");
  EXPECT_EQ(v.at("created").as_int64(), 1'800'000'000);
  EXPECT_EQ(v.at("choices").at(0).at("index"), 0);
  EXPECT_EQ(v.at("choices").at(0).at("message").at("role"), "assistant");
  EXPECT_EQ(v.at("choices").at(0).at("finish_reason"), "stop");
  EXPECT_GT(v.at("usage").at("prompt_tokens").as_int64(), 0);
  EXPECT_EQ(v.at("usage").at("total_tokens").as_int64(),
            v.at("usage").at("prompt_tokens").as_int64() +
                v.at("usage").at("completion_tokens").as_int64());
  EXPECT_EQ(handler_.chat().requests("gpt-test"), 1);
  // Any prefix: an OpenAI-compatible server is often mounted below a path.
  EXPECT_EQ(Chat(ChatBody("gpt-test"), kKey, "/openai/v1/chat/completions").status, 200);
  EXPECT_EQ(handler_.chat().requests("gpt-test"), 2);
}

TEST_F(SimChatTest, RefusesAWrongKeyAndABadRequestInOpenAisWords) {
  ClientResponse none = Chat(ChatBody("m"), "");
  EXPECT_EQ(none.status, 401);
  EXPECT_EQ(json::parse(none.body).at("error").at("code"), "invalid_api_key");
  EXPECT_EQ(Chat(ChatBody("m"), "sk-wrong").status, 401);
  for (const std::string& bad :
       {std::string("not json"), std::string(R"({"messages":[{"role":"user","content":"x"}]})"),
        std::string(R"({"model":"m","messages":[]})"),
        std::string(R"({"model":"m","messages":[{"role":"robot","content":"x"}]})"),
        std::string(R"({"model":"m","messages":[{"role":"user"}]})")}) {
    ClientResponse r = Chat(bad);
    EXPECT_EQ(r.status, 400) << bad;
    EXPECT_EQ(json::parse(r.body).at("error").at("type"), "invalid_request_error") << bad;
  }
  EXPECT_EQ(handler_.chat().requests("m"), 0);
  EXPECT_EQ(handler_.chat().rejected(), 7);
}

TEST_F(SimChatTest, ScriptedStepsPlayInOrderPerModelThenTheDefaultQueue) {
  ASSERT_EQ(Control("POST", "/_sim/openai/script",
                    R"({"model":"a","steps":[{"status":429,"retry_after":2},
                                               {"content":{"verdict":"approve","summary":"ok"}},
                                               {"malformed":true},
                                               {"status":500}]})")
                .status,
            200);
  ASSERT_EQ(Control("POST", "/_sim/openai/script", R"({"steps":[{"content":"any text"}]})").status,
            200);
  ClientResponse limited = Chat(ChatBody("a"));
  EXPECT_EQ(limited.status, 429);
  EXPECT_EQ(limited.Header("retry-after"), "2");
  ClientResponse ok = Chat(ChatBody("a"));
  ASSERT_EQ(ok.status, 200);
  EXPECT_EQ(json::parse(Content(ok)).at("verdict"), "approve");
  ClientResponse malformed = Chat(ChatBody("a"));
  EXPECT_EQ(malformed.status, 200);
  boost::system::error_code ec;
  (void)json::parse(malformed.body, ec);
  EXPECT_TRUE(ec) << "not JSON at all: " << malformed.body;
  EXPECT_EQ(Chat(ChatBody("a")).status, 500);
  // Model b has no queue of its own: it takes the default one, then the computed answer.
  EXPECT_EQ(Content(Chat(ChatBody("b"))), "any text");
  EXPECT_EQ(json::parse(Content(Chat(ChatBody("a")))).at("verdict"), "approve");
  json::value state = json::parse(Control("GET", "/_sim/openai").body);
  EXPECT_EQ(state.at("requests").at("a"), 5);
  EXPECT_EQ(state.at("requests").at("b"), 1);
  EXPECT_EQ(state.at("queued").at("a"), 0);
  EXPECT_EQ(state.at("recent").as_array().size(), 6u);
  EXPECT_EQ(state.at("recent").at(0).at("model"), "a");
}

TEST_F(SimChatTest, ALatencyStepHoldsTheAnswerBack) {
  ASSERT_EQ(
      Control("POST", "/_sim/openai/script", R"({"steps":[{"latency_ms":200,"content":"slow"}]})")
          .status,
      200);
  const auto start = std::chrono::steady_clock::now();
  ClientResponse r = Chat(ChatBody("m"));
  ASSERT_EQ(r.status, 200);
  EXPECT_EQ(Content(r), "slow");
  // A lower bound only: the answer cannot come before its latency.
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(200));
}

TEST_F(SimChatTest, ConfigureReplacesTheKeyAndTheScriptAndRefusesBadSteps) {
  ASSERT_EQ(
      Control("PUT", "/_sim/openai", R"({"api_key":"sk-new","script":{"m":[{"content":"one"}]}})")
          .status,
      200);
  EXPECT_EQ(Chat(ChatBody("m")).status, 401) << "the old key no longer works";
  EXPECT_EQ(Content(Chat(ChatBody("m"), "sk-new")), "one");
  ClientResponse bad = Control("POST", "/_sim/openai/script", R"({"steps":[{"status":"429"}]})");
  EXPECT_EQ(bad.status, 400);
  EXPECT_NE(bad.body.find("status"), std::string::npos) << bad.body;
  EXPECT_EQ(Control("POST", "/_sim/openai/script", R"({"steps":[{"colour":1}]})").status, 400);
  ASSERT_EQ(Control("POST", "/_sim/openai/script", R"({"steps":[{"content":"x"}]})").status, 200);
  ASSERT_EQ(Control("DELETE", "/_sim/openai/script").status, 200);
  EXPECT_EQ(json::parse(Control("GET", "/_sim/openai").body).at("queued").as_object().size(), 0u);
}

TEST_F(SimChatTest, TheDefaultAnswerCountsTheFilesAndFindsFixmes) {
  const std::string request = json::serialize(json::object{
      {"files",
       json::array{json::object{{"path", "a.cc"}, {"patch", "@@ -3,1 +10,2 @@\n ctx\n+// FIXME"}},
                   json::object{{"path", "b.cc"}, {"patch", ""}}}}});
  ClientResponse r = Chat(ChatBody("m", "Review this. The request as JSON:\n" + request));
  ASSERT_EQ(r.status, 200);
  json::value result = json::parse(Content(r));
  EXPECT_EQ(result.at("verdict"), "comment");
  EXPECT_EQ(result.at("summary"), "fake model m reviewed 2 files, 1 FIXME");
  ASSERT_EQ(result.at("findings").as_array().size(), 1u);
  EXPECT_EQ(result.at("findings").at(0).at("path"), "a.cc");
  EXPECT_EQ(result.at("findings").at(0).at("line"), 11);
  EXPECT_EQ(result.at("findings").at(0).at("severity"), "warning");
  json::value plain = json::parse(Content(Chat(ChatBody("m", "no json here"))));
  EXPECT_EQ(plain.at("verdict"), "approve");
  EXPECT_EQ(plain.at("summary"), "fake model m reviewed 0 files");
}

TEST_F(SimChatTest, AScenarioSetsTheScriptBeforeItsSetupSteps) {
  auto verdict = RunScenario(R"({"openai":{"script":{"m":[{"content":"from the scenario"}]}},
                                  "setup":[{"call":"POST /_sim/repos",
                                            "body":{"owner":"acme","name":"app"}}]})",
                             handler_, model_, [](Duration) {});
  ASSERT_TRUE(verdict.ok()) << verdict.status().ToString();
  EXPECT_TRUE(verdict->ok);
  EXPECT_EQ(Content(Chat(ChatBody("m"))), "from the scenario");
  EXPECT_FALSE(
      RunScenario(R"({"openai":{"script":{"m":[{"status":99}]}}})", handler_, model_, [](Duration) {
      })->ok);
}

}  // namespace
}  // namespace gatehouse::sim
