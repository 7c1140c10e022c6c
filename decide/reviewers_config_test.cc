#include "decide/reviewers_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace gatehouse::decide {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using ::testing::HasSubstr;

constexpr char kGoodFile[] = R"(availability_budget: 2h
reviewers:
  - name: lint-bot
    roles: [style]
    executor: {type: command, argv: [./review.sh, --fast]}
    concurrency: 2
    timeout: 5m
    paused: true
  - name: hook
    roles: [security]
    executor: {type: http, url: "https://review.example/hook", secret_env: REVIEW_SECRET}
  - name: gpt.mini
    roles: [security, style]
    executor:
      type: openai
      base_url: "http://127.0.0.1:9000/v1"
      model: gpt-4o-mini
      api_key_env: MY_KEY
  - name: secrets
    roles: [secrets]
    executor: {type: "builtin:secrets"}
)";

TEST(ReviewersConfigTest, ParsesTheGoodFile) {
  auto c = ParseReviewersConfig(kGoodFile);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->availability_budget, hours(2));
  ASSERT_EQ(c->reviewers.size(), 4u);

  const ReviewerSpec& lint = c->reviewers[0];
  EXPECT_EQ(lint.name, "lint-bot");
  EXPECT_EQ(lint.roles, std::vector<std::string>{"style"});
  EXPECT_EQ(lint.executor.type, ExecutorType::kCommand);
  EXPECT_EQ(lint.executor.argv, (std::vector<std::string>{"./review.sh", "--fast"}));
  EXPECT_EQ(lint.concurrency, 2);
  EXPECT_EQ(lint.timeout, minutes(5));
  EXPECT_TRUE(lint.paused);

  const ReviewerSpec& hook = c->reviewers[1];
  EXPECT_EQ(hook.executor.type, ExecutorType::kHttp);
  EXPECT_EQ(hook.executor.url, "https://review.example/hook");
  EXPECT_EQ(hook.executor.secret_env, "REVIEW_SECRET");
  EXPECT_EQ(hook.concurrency, 1);        // default
  EXPECT_EQ(hook.timeout, minutes(10));  // default
  EXPECT_FALSE(hook.paused);             // default

  const ReviewerSpec& gpt = c->reviewers[2];
  EXPECT_EQ(gpt.name, "gpt.mini");
  EXPECT_EQ(gpt.executor.type, ExecutorType::kOpenAi);
  EXPECT_EQ(gpt.executor.base_url, "http://127.0.0.1:9000/v1");
  EXPECT_EQ(gpt.executor.model, "gpt-4o-mini");
  EXPECT_EQ(gpt.executor.api_key_env, "MY_KEY");

  EXPECT_EQ(c->reviewers[3].executor.type, ExecutorType::kBuiltinSecrets);
}

TEST(ReviewersConfigTest, DefaultsWhenOmitted) {
  auto c = ParseReviewersConfig(
      "reviewers:\n  - name: g\n    roles: [a]\n    executor: {type: openai, base_url: "
      "\"https://api.openai.com/v1\", model: m}\n");
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->availability_budget, hours(6));
  EXPECT_EQ(c->reviewers[0].executor.api_key_env, "OPENAI_API_KEY");
  EXPECT_TRUE(ParseReviewersConfig("reviewers: []\n").ok());
}

TEST(ReviewersConfigTest, ForRoleAndFindFollowFileOrder) {
  auto c = ParseReviewersConfig(kGoodFile);
  ASSERT_TRUE(c.ok());
  auto style = c->ForRole("style");
  ASSERT_EQ(style.size(), 2u);
  EXPECT_EQ(style[0]->name, "lint-bot");
  EXPECT_EQ(style[1]->name, "gpt.mini");
  EXPECT_TRUE(c->ForRole("docs").empty());
  ASSERT_NE(c->Find("hook"), nullptr);
  EXPECT_EQ(c->Find("hook")->executor.url, "https://review.example/hook");
  EXPECT_EQ(c->Find("nobody"), nullptr);
}

TEST(ReviewersConfigTest, NamesAndTypeNames) {
  EXPECT_TRUE(IsValidRoleName("security"));
  EXPECT_TRUE(IsValidRoleName("sql_2-x"));
  EXPECT_FALSE(IsValidRoleName(""));
  EXPECT_FALSE(IsValidRoleName("Security"));
  EXPECT_FALSE(IsValidRoleName("a.b"));
  EXPECT_FALSE(IsValidRoleName("a b"));
  EXPECT_FALSE(IsValidRoleName(std::string(65, 'a')));
  EXPECT_TRUE(IsValidRoleName(std::string(64, 'a')));
  EXPECT_TRUE(IsValidReviewerName("gpt.mini-2_x"));
  EXPECT_FALSE(IsValidReviewerName("gpt/mini"));
  EXPECT_FALSE(IsValidReviewerName(""));
  EXPECT_EQ(ExecutorTypeName(ExecutorType::kCommand), "command");
  EXPECT_EQ(ExecutorTypeName(ExecutorType::kHttp), "http");
  EXPECT_EQ(ExecutorTypeName(ExecutorType::kOpenAi), "openai");
  EXPECT_EQ(ExecutorTypeName(ExecutorType::kBuiltinSecrets), "builtin:secrets");
}

struct BadCase {
  const char* yaml;
  const char* error;
};

void PrintTo(const BadCase& c, std::ostream* os) { *os << c.error; }

class ReviewersConfigErrorTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(ReviewersConfigErrorTest, ReportsLineAndKey) {
  auto c = ParseReviewersConfig(GetParam().yaml, "rev.yml");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(c.status().message(), GetParam().error);
}

// A valid reviewer's executor line, to keep the cases short.
#define CMD "    executor: {type: command, argv: [x]}\n"

INSTANTIATE_TEST_SUITE_P(
    AllErrors, ReviewersConfigErrorTest,
    ::testing::Values(
        BadCase{"",
                "rev.yml: (top level): the file is empty (expected a mapping with "
                "reviewers)"},
        BadCase{"- a\n", "rev.yml:1: (top level): expected a mapping, got a list"},
        BadCase{"availability_budget: 1h\n",
                "rev.yml:1: reviewers: missing (the file must list its reviewers)"},
        BadCase{"reviewer: []\n",
                "rev.yml:1: reviewer: unknown key (expected one of: availability_budget, "
                "reviewers)\nrev.yml:1: reviewers: missing (the file must list its reviewers)"},
        BadCase{"availability_budget: 0s\nreviewers: []\n",
                "rev.yml:1: availability_budget: expected a duration greater than zero, got "
                "\"0s\""},
        BadCase{"availability_budget: soon\nreviewers: []\n",
                "rev.yml:1: availability_budget: expected a duration such as 30m, 2h or 1h30m, "
                "got \"soon\""},
        BadCase{"reviewers: {a: b}\n",
                "rev.yml:1: reviewers: expected a list of reviewers, got a mapping"},
        BadCase{"reviewers:\n  - lint\n",
                "rev.yml:2: reviewers[0]: expected a mapping, got \"lint\""},
        BadCase{"reviewers:\n  - roles: [a]\n" CMD,
                "rev.yml:2: reviewers[0].name: missing (every reviewer needs a name)"},
        BadCase{"reviewers:\n  - name: Lint\n    roles: [a]\n" CMD,
                "rev.yml:2: reviewers[0].name: expected a name of [a-z0-9_.-] (at most 64 "
                "bytes), got \"Lint\""},
        BadCase{"reviewers:\n  - name: a\n    roles: [x]\n" CMD "  - name: b\n    roles: [x]\n" CMD
                "  - name: a\n    roles: [y]\n" CMD,
                "rev.yml:8: reviewers[2].name: duplicate reviewer \"a\" (first at line 2)"},
        BadCase{"reviewers:\n  - name: a\n" CMD,
                "rev.yml:2: reviewers[0].roles: missing (every reviewer serves at least one "
                "role)"},
        BadCase{"reviewers:\n  - name: a\n    roles: []\n" CMD,
                "rev.yml:3: reviewers[0].roles: expected at least one role"},
        BadCase{"reviewers:\n  - name: a\n    roles: security\n" CMD,
                "rev.yml:3: reviewers[0].roles: expected a list of strings, got \"security\""},
        BadCase{"reviewers:\n  - name: a\n    roles: [ok, Bad.Role]\n" CMD,
                "rev.yml:3: reviewers[0].roles[1]: expected a role name of [a-z0-9_-] (at most "
                "64 bytes), got \"Bad.Role\""},
        BadCase{"reviewers:\n  - name: a\n    roles: [x, x]\n" CMD,
                "rev.yml:3: reviewers[0].roles[1]: duplicate role \"x\""},
        BadCase{"reviewers:\n  - name: a\n    roles: [x]\n",
                "rev.yml:2: reviewers[0].executor: missing (every reviewer needs one)"},
        BadCase{"reviewers:\n  - name: a\n    roles: [x]\n    executor: command\n",
                "rev.yml:4: reviewers[0].executor: expected a mapping, got \"command\""},
        BadCase{"reviewers:\n  - name: a\n    roles: [x]\n    executor: {argv: [x]}\n",
                "rev.yml:4: reviewers[0].executor.type: missing (expected one of: command, "
                "http, openai, builtin:secrets)"},
        BadCase{"reviewers:\n  - name: a\n    roles: [x]\n    executor:\n      type: shell\n",
                "rev.yml:5: reviewers[0].executor.type: expected one of command, http, openai, "
                "builtin:secrets, got \"shell\""},
        BadCase{"reviewers:\n  - name: a\n    roles: [x]\n    executor: {type: command}\n",
                "rev.yml:4: reviewers[0].executor.argv: missing (a command executor needs the "
                "program to run)"},
        BadCase{"reviewers:\n  - name: a\n    roles: [x]\n    executor:\n      type: command\n"
                "      argv: []\n",
                "rev.yml:6: reviewers[0].executor.argv: expected a non-empty list (the program "
                "and its arguments)"},
        BadCase{"reviewers:\n  - name: a\n    roles: [x]\n    executor:\n      type: command\n"
                "      argv: [x]\n      url: http://a\n",
                "rev.yml:7: reviewers[0].executor.url: unknown key (expected one of: type, "
                "argv)"},
        BadCase{"reviewers:\n  - name: a\n    roles: [x]\n"
                "    executor: {type: http, secret_env: S}\n",
                "rev.yml:4: reviewers[0].executor.url: missing (an http executor needs a url)"},
        BadCase{"reviewers:\n  - name: a\n    roles: [x]\n    executor:\n      type: http\n"
                "      url: https://a/hook\n",
                "rev.yml:5: reviewers[0].executor.secret_env: required for an http executor "
                "(requests are HMAC-signed)"},
        BadCase{"reviewers:\n  - name: a\n    roles: [x]\n    executor:\n      type: http\n"
                "      url: ftp://a/b\n      secret_env: S\n",
                "rev.yml:6: reviewers[0].executor.url: expected an http:// or https:// URL, got "
                "\"ftp://a/b\""},
        BadCase{"reviewers:\n  - name: a\n    roles: [x]\n    executor:\n      type: http\n"
                "      url: https://a\n      secret_env: 1-bad\n",
                "rev.yml:7: reviewers[0].executor.secret_env: expected an environment variable "
                "name, got \"1-bad\""},
        BadCase{"reviewers:\n  - name: a\n    roles: [x]\n    executor:\n      type: openai\n"
                "      model: m\n",
                "rev.yml:5: reviewers[0].executor.base_url: missing (an openai executor needs a "
                "base_url)"},
        BadCase{"reviewers:\n  - name: a\n    roles: [x]\n    executor:\n      type: openai\n"
                "      base_url: http://h/v1\n",
                "rev.yml:5: reviewers[0].executor.model: missing (an openai executor needs a "
                "model)"},
        BadCase{"reviewers:\n  - name: a\n    roles: [x]\n    executor:\n      type: openai\n"
                "      base_url: localhost:9000\n      model: m\n",
                "rev.yml:6: reviewers[0].executor.base_url: expected an http:// or https:// "
                "URL, got \"localhost:9000\""},
        BadCase{"reviewers:\n  - name: a\n    roles: [x]\n    executor:\n"
                "      type: \"builtin:secrets\"\n      argv: [x]\n",
                "rev.yml:6: reviewers[0].executor.argv: unknown key (expected one of: type)"},
        BadCase{"reviewers:\n  - name: a\n    roles: [x]\n" CMD "    concurrency: 0\n",
                "rev.yml:5: reviewers[0].concurrency: expected an integer >= 1, got \"0\""},
        BadCase{"reviewers:\n  - name: a\n    roles: [x]\n" CMD "    concurrency: many\n",
                "rev.yml:5: reviewers[0].concurrency: expected an integer >= 1, got \"many\""},
        BadCase{"reviewers:\n  - name: a\n    roles: [x]\n" CMD "    timeout: 0m\n",
                "rev.yml:5: reviewers[0].timeout: expected a duration greater than zero, got "
                "\"0m\""},
        BadCase{"reviewers:\n  - name: a\n    roles: [x]\n" CMD "    paused: maybe\n",
                "rev.yml:5: reviewers[0].paused: expected true or false, got \"maybe\""},
        BadCase{"reviewers:\n  - name: a\n    roles: [x]\n" CMD "    weight: 3\n",
                "rev.yml:5: reviewers[0].weight: unknown key (expected one of: name, roles, "
                "executor, concurrency, timeout, paused)"}),
    [](const ::testing::TestParamInfo<BadCase>& p) { return "Case" + std::to_string(p.index); });

#undef CMD

// Found by reviewers_fuzz_test: yaml-cpp keeps both copies of a repeated key, and the second
// `reviewers:` added a reviewer named like one of the first's, past the uniqueness check.
TEST(ReviewersConfigTest, ARepeatedKeyIsAnErrorNotASecondReading) {
  auto c = ParseReviewersConfig(
      "reviewers:\n"
      "  - {name: a, roles: [style], executor: {type: command, argv: [x]}}\n"
      "reviewers:\n"
      "  - {name: a, roles: [style], executor: {type: command, argv: [x], argv: [y]}}\n",
      "rev.yml");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(), "rev.yml:3: reviewers: duplicate key");
  auto nested = ParseReviewersConfig(
      "reviewers:\n  - {name: a, roles: [style], executor: {type: command, argv: [x], argv: "
      "[y]}}\n",
      "rev.yml");
  ASSERT_FALSE(nested.ok());
  EXPECT_THAT(nested.status().message(), HasSubstr("argv: duplicate key"));
}

TEST(ReviewersConfigTest, ReportsEveryErrorOnePerLine) {
  auto c = ParseReviewersConfig(
      "reviewers:\n"
      "  - name: a\n"
      "    roles: [x]\n"
      "    executor: {type: http}\n"
      "    concurrency: 0\n"
      "  - name: b\n"
      "    roles: [y]\n"
      "    executor: {type: command, argv: [ok]}\n"
      "    timeout: never\n",
      "rev.yml");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(),
            "rev.yml:4: reviewers[0].executor.url: missing (an http executor needs a url)\n"
            "rev.yml:4: reviewers[0].executor.secret_env: required for an http executor "
            "(requests are HMAC-signed)\n"
            "rev.yml:5: reviewers[0].concurrency: expected an integer >= 1, got \"0\"\n"
            "rev.yml:9: reviewers[1].timeout: expected a duration such as 30m, 2h or 1h30m, got "
            "\"never\"");
}

TEST(ReviewersConfigTest, SyntaxErrorsAreStatusNotExceptions) {
  auto c = ParseReviewersConfig("reviewers: [a, b\n", "rev.yml");
  ASSERT_FALSE(c.ok());
  EXPECT_THAT(c.status().message(), HasSubstr("rev.yml:"));
  EXPECT_THAT(c.status().message(), HasSubstr("(syntax)"));
}

}  // namespace
}  // namespace gatehouse::decide
