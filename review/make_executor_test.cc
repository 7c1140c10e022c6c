// MakeExecutor: each executor type a reviewers file can name is built, or refused with the
// reviewer's problem. (The openai executor is tested in its own file.)
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include "review/executor.h"

namespace gatehouse::review {
namespace {

using decide::ExecutorSpec;
using decide::ExecutorType;

std::string ErrorOf(const ExecutorSpec& spec) {
  auto r = MakeExecutor(spec);
  EXPECT_FALSE(r.ok());
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  return r.status().message();
}

TEST(MakeExecutorTest, Command) {
  ExecutorSpec spec;
  spec.type = ExecutorType::kCommand;
  EXPECT_EQ(ErrorOf(spec), "command executor: argv is empty");
  spec.argv = {"sh", "-c", R"(cat >/dev/null; echo '{"verdict":"approve","summary":"fine"}')"};
  auto executor = MakeExecutor(spec);
  ASSERT_TRUE(executor.ok()) << executor.status().ToString();
  auto out = (*executor)->Review({}, std::chrono::seconds(30), nullptr);
  ASSERT_EQ(out.kind, ExecOutcome::Kind::kResult) << out.reason;
  EXPECT_EQ(out.result.summary, "fine");
}

TEST(MakeExecutorTest, Http) {
  ExecutorSpec spec;
  spec.type = ExecutorType::kHttp;
  spec.url = "gopher://review.example/hook";
  EXPECT_EQ(ErrorOf(spec),
            "http executor: url must start with http:// or https://: gopher://review.example/hook");
  spec.url = "https://review.example/hook";
  EXPECT_TRUE(MakeExecutor(spec).ok());

  spec.secret_env = "GATEHOUSE_REVIEW_TEST_UNSET_SECRET";
  unsetenv(spec.secret_env.c_str());
  EXPECT_EQ(ErrorOf(spec),
            "http executor: secret_env GATEHOUSE_REVIEW_TEST_UNSET_SECRET is not set in the "
            "environment");
  spec.secret_env = "GATEHOUSE_REVIEW_TEST_SECRET";
  setenv(spec.secret_env.c_str(), "k", 1);
  EXPECT_TRUE(MakeExecutor(spec).ok());
}

TEST(MakeExecutorTest, BuiltinSecrets) {
  ExecutorSpec spec;
  spec.type = ExecutorType::kBuiltinSecrets;
  auto executor = MakeExecutor(spec);
  ASSERT_TRUE(executor.ok());
  decide::ReviewRequest request;
  request.files.push_back({"a", "added", 1, 0, "@@ -0,0 +1 @@\n+hello\n"});
  auto out = (*executor)->Review(request, std::chrono::seconds(5), nullptr);
  ASSERT_EQ(out.kind, ExecOutcome::Kind::kResult);
  EXPECT_EQ(out.result.summary, "no credentials found in 1 added line");
}

}  // namespace
}  // namespace gatehouse::review
