// ParseWebhookPayload (the streaming read of "action" and "installation.id") against the JSON
// tree's answer, on every real payload in ../shared/fixtures/github-webhooks and on bodies
// built to trip a path-tracking parser: nesting, repeated keys, wrong types, bad JSON.
#include "http/webhook_payload.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/parse_options.hpp>
#include <boost/json/value.hpp>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace gatehouse {
namespace {

namespace fs = std::filesystem;

// What the DOM gives for the same two fields: the reference the streaming parse must match.
std::optional<WebhookPayload> FromTree(std::string_view body) {
  boost::json::parse_options options;
  options.max_depth = 64;
  boost::json::error_code ec;
  boost::json::value v = boost::json::parse(body, ec, {}, options);
  if (ec || !v.is_object()) return std::nullopt;
  WebhookPayload p;
  const boost::json::object& o = v.get_object();
  if (const auto* a = o.if_contains("action"); a != nullptr && a->is_string()) {
    p.action = std::string(a->get_string());
  }
  if (const auto* i = o.if_contains("installation"); i != nullptr && i->is_object()) {
    const auto* id = i->get_object().if_contains("id");
    if (id != nullptr && id->is_int64()) p.installation_id = id->get_int64();
    if (id != nullptr && id->is_uint64() &&
        id->get_uint64() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
      p.installation_id = static_cast<int64_t>(id->get_uint64());
    }
  }
  return p;
}

void ExpectSame(std::string_view body, const std::string& what) {
  const std::optional<WebhookPayload> want = FromTree(body);
  const std::optional<WebhookPayload> got = ParseWebhookPayload(body);
  ASSERT_EQ(got.has_value(), want.has_value()) << what;
  if (!want) return;
  EXPECT_EQ(got->action, want->action) << what;
  EXPECT_EQ(got->installation_id, want->installation_id) << what;
}

TEST(WebhookPayloadTest, EveryRealPayloadReadsAsTheTreeDoes) {
  int checked = 0, with_installation = 0, with_action = 0;
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(GATEHOUSE_FIXTURES))) {
    if (!entry.is_regular_file() || !entry.path().string().ends_with(".payload.json")) continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    const std::string body = text.str();
    ExpectSame(body, entry.path().string());
    const auto got = ParseWebhookPayload(body);
    ASSERT_TRUE(got.has_value()) << entry.path();
    with_installation += got->installation_id.has_value();
    with_action += !got->action.empty();
    ++checked;
  }
  EXPECT_GE(checked, 200) << "fixtures not found under " << GATEHOUSE_FIXTURES;
  // The comparison must have had something to compare.
  EXPECT_GT(with_action, checked / 2);
  EXPECT_GT(with_installation, 10);
}

TEST(WebhookPayloadTest, ReadsOnlyTheTopLevelActionAndTheInstallationsOwnId) {
  const auto p = ParseWebhookPayload(
      R"({"pull_request":{"action":"nested","id":1},"installation":{"account":{"id":7},)"
      R"("id":42,"x":[{"id":9}]},"action":"opened","id":3})");
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->action, "opened");
  EXPECT_EQ(p->installation_id, 42);
}

TEST(WebhookPayloadTest, MatchesTheTreeOnTrickyBodies) {
  const std::vector<std::string> bodies = {
      R"({})",
      R"({"action":"a","action":"b"})",
      R"({"action":"a","action":5})",
      R"({"action":["opened"]})",
      R"({"action":{"x":"y"}})",
      R"({"action":null})",
      R"({"action":"es\u00e7aped \"q\" \\"})",
      R"({"installation":{"id":1},"installation":{"id":2}})",
      R"({"installation":{"id":1},"installation":null})",
      R"({"installation":{"id":1},"installation":{"node_id":"x"}})",
      R"({"installation":{"id":1,"id":"2"}})",
      R"({"installation":{"id":1.5}})",
      R"({"installation":{"id":-4}})",
      R"({"installation":{"id":9223372036854775807}})",
      R"({"installation":{"id":9223372036854775808}})",
      R"({"installation":{"id":18446744073709551615}})",
      R"({"installation":{"id":true}})",
      R"({"installation":[{"id":3}]})",
      R"({"installation":{"nested":{"installation":{"id":8}}}})",
      R"({"a":{"action":"deep"},"b":[{"action":"deeper"}]})",
      R"({"installation":{"id":12},"action":"created"})",
      R"({"installation":{"id":5},"repository":{"id":9,"installation":{"id":6}}})",
      R"(["action","opened"])",
      R"("action")",
      R"(42)",
      R"(null)",
      R"()",
      R"({"action":"opened")",
      R"({"action":"opened"} trailing)",
      R"({"action":"opened"}{})",
      R"({"action":"opened",})",
      R"({'action':'opened'})",
      R"({"action":"opened" /* comment */})",
      "{\"action\":\"\xff\xfe\"}",
      std::string(70, '[') + std::string(70, ']'),
      "{\"a\":" + std::string(63, '[') + std::string(63, ']') + "}",
      "{\"a\":" + std::string(64, '[') + std::string(64, ']') + "}",
      "  {\"action\" : \"x\" , \"installation\" : { \"id\" : 7 } }  \n",
  };
  for (const std::string& body : bodies) ExpectSame(body, body.substr(0, 80));
}

TEST(WebhookPayloadTest, AKeySplitAcrossTheParsersBufferIsStillRead) {
  // A long key and a long value, longer than any internal buffer the parser may use.
  const std::string pad(100000, 'x');
  const std::string body = "{\"" + pad + "\":\"" + pad + "\",\"action\":\"" + pad +
                           "\",\"installation\":{\"" + pad + "\":1,\"id\":77}}";
  ExpectSame(body, "long keys and values");
  const auto p = ParseWebhookPayload(body);
  ASSERT_TRUE(p.has_value());
  EXPECT_EQ(p->action, pad);
  EXPECT_EQ(p->installation_id, 77);
}

}  // namespace
}  // namespace gatehouse
