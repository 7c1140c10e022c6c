// The policy file's `merge_queue:` section (decide/queue_policy.h): every key, the defaults,
// merging over the server defaults key by key, and each validation error with its line.
#include "decide/queue_policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "decide/policy.h"

namespace gatehouse::decide {
namespace {

using ::testing::HasSubstr;

// Every key but `method: integration_branch`, which this version refuses.
constexpr char kQueue[] = R"(version: 1
rules:
  required_checks:
    checks: [build]
merge_queue:
  enabled: false
  method: update_branch
  batch_size: 1
  required_checks:
    - build
    - name: e2e
      app: ci-bot
  priorities:
    Hotfix: 10
    dependencies: -5
  max_time_in_queue: 2h
  checks_timeout: 45m
)";

TEST(QueuePolicyTest, EveryKeyIsReadAndTheRestKeepTheirDefaults) {
  auto p = ParsePolicy(kQueue);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  const MergeQueuePolicy& q = p->merge_queue;
  EXPECT_FALSE(q.enabled);
  EXPECT_EQ(q.method, QueueMethod::kUpdateBranch);
  EXPECT_EQ(q.batch_size, 1);
  ASSERT_TRUE(q.required_checks.has_value());
  EXPECT_EQ(*q.required_checks, (std::vector<RequiredCheck>{{"build", ""}, {"e2e", "ci-bot"}}));
  EXPECT_EQ(q.priorities, (std::map<std::string, int>{{"dependencies", -5}, {"hotfix", 10}}));
  EXPECT_EQ(q.max_time_in_queue, std::chrono::hours(2));
  EXPECT_EQ(q.checks_timeout, std::chrono::minutes(45));

  const MergeQueuePolicy d = DefaultPolicy().merge_queue;
  EXPECT_FALSE(d.enabled);
  EXPECT_EQ(d.method, QueueMethod::kUpdateBranch);
  EXPECT_EQ(d.batch_size, 1);
  EXPECT_FALSE(d.required_checks.has_value()) << "the PR's own required checks";
  EXPECT_TRUE(d.priorities.empty());
  EXPECT_EQ(d.max_time_in_queue, std::chrono::hours(4));
  EXPECT_EQ(d.checks_timeout, std::chrono::minutes(30));
}

TEST(QueuePolicyTest, AFileChangesOnlyTheKeysItWritesAndPrioritiesReplaceTheDefaultMap) {
  Policy defaults = DefaultPolicy();
  defaults.merge_queue.priorities = {{"urgent", 50}};
  defaults.merge_queue.checks_timeout = std::chrono::minutes(10);
  auto p = ParsePolicy("merge_queue:\n  max_time_in_queue: 1h\n", defaults);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->merge_queue.max_time_in_queue, std::chrono::hours(1));
  EXPECT_EQ(p->merge_queue.checks_timeout, std::chrono::minutes(10)) << "kept";
  EXPECT_EQ(p->merge_queue.priorities, (std::map<std::string, int>{{"urgent", 50}})) << "kept";
  auto q = ParsePolicy("merge_queue:\n  priorities: {hotfix: 1}\n", defaults);
  ASSERT_TRUE(q.ok()) << q.status().ToString();
  EXPECT_EQ(q->merge_queue.priorities, (std::map<std::string, int>{{"hotfix", 1}}));
}

TEST(QueuePolicyTest, APrTakesTheHighestPriorityOfItsLabels) {
  MergeQueuePolicy q;
  q.priorities = {{"hotfix", 10}, {"dependencies", -5}, {"docs", -1}};
  EXPECT_EQ(QueuePriority(q, {}), 0);
  EXPECT_EQ(QueuePriority(q, {"bug"}), 0);
  EXPECT_EQ(QueuePriority(q, {"HotFix"}), 10) << "labels compare case-insensitively";
  EXPECT_EQ(QueuePriority(q, {"dependencies"}), -5);
  EXPECT_EQ(QueuePriority(q, {"dependencies", "docs"}), -1);
  EXPECT_EQ(QueuePriority(q, {"dependencies", "hotfix"}), 10);
}

TEST(QueuePolicyTest, EachProblemIsReportedWithItsLineAndKey) {
  const std::pair<const char*, const char*> bad[] = {
      {"merge_queue: true\n", "gatehouse.yml:1: merge_queue: expected a mapping"},
      {"merge_queue:\n  enabled: yes please\n",
       "gatehouse.yml:2: merge_queue.enabled: expected true or false"},
      {"merge_queue:\n  method: rebase\n",
       "gatehouse.yml:2: merge_queue.method: expected one of update_branch, integration_branch"},
      {"merge_queue:\n  batch_size: 0\n",
       "gatehouse.yml:2: merge_queue.batch_size: expected 1 to 20"},
      {"merge_queue:\n  batch_size: 21\n", "merge_queue.batch_size: expected 1 to 20, got \"21\""},
      {"merge_queue:\n  batch_size: 5\n",
       "gatehouse.yml:2: merge_queue.batch_size: a batch of 5 needs method: integration_branch"},
      {"merge_queue:\n  required_checks: []\n",
       "gatehouse.yml:2: merge_queue.required_checks: expected at least one check"},
      {"merge_queue:\n  required_checks: [{app: x}]\n",
       "merge_queue.required_checks[0].name: missing"},
      {"merge_queue:\n  priorities: [hotfix]\n",
       "gatehouse.yml:2: merge_queue.priorities: expected a mapping of label: priority"},
      {"merge_queue:\n  priorities:\n    hotfix: high\n",
       "gatehouse.yml:3: merge_queue.priorities.hotfix: expected an integer from -100 to 100"},
      {"merge_queue:\n  priorities:\n    hotfix: 101\n",
       "merge_queue.priorities.hotfix: expected an integer from -100 to 100, got \"101\""},
      {"merge_queue:\n  priorities:\n    hotfix: 1\n    HOTFIX: 2\n",
       "gatehouse.yml:4: merge_queue.priorities.HOTFIX: duplicate label"},
      {"merge_queue:\n  max_time_in_queue: 5s\n",
       "gatehouse.yml:2: merge_queue.max_time_in_queue: must be at least 10s"},
      {"merge_queue:\n  checks_timeout: soon\n",
       "gatehouse.yml:2: merge_queue.checks_timeout: expected a duration"},
      {"merge_queue:\n  batchsize: 2\n",
       "gatehouse.yml:2: merge_queue.batchsize: unknown key (expected one of: enabled, method, "
       "batch_size, required_checks, priorities, max_time_in_queue, checks_timeout)"},
      {"merge_queue:\n  enabled: false\n  enabled: false\n",
       "gatehouse.yml:3: merge_queue.enabled: duplicate key"},
  };
  for (const auto& [yaml, message] : bad) {
    auto p = ParsePolicy(yaml);
    ASSERT_FALSE(p.ok()) << yaml;
    EXPECT_THAT(p.status().message(), HasSubstr(message)) << yaml;
  }
}

TEST(QueuePolicyTest, BothMethodsRun) {
  auto enabled = ParsePolicy("merge_queue:\n  enabled: true\n");
  ASSERT_TRUE(enabled.ok()) << enabled.status().ToString();
  EXPECT_TRUE(enabled->merge_queue.enabled);
  EXPECT_EQ(enabled->merge_queue.method, QueueMethod::kUpdateBranch);
  EXPECT_EQ(enabled->merge_queue.batch_size, 1);
  auto integration =
      ParsePolicy("merge_queue:\n  enabled: true\n  method: integration_branch\n  batch_size: 4\n");
  ASSERT_TRUE(integration.ok()) << integration.status().ToString();
  EXPECT_EQ(integration->merge_queue.method, QueueMethod::kIntegrationBranch);
  EXPECT_EQ(integration->merge_queue.batch_size, 4);
}

}  // namespace
}  // namespace gatehouse::decide
