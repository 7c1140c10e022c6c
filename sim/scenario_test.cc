#include "sim/scenario.h"

#include <gtest/gtest.h>

#include <memory>

namespace gatehouse::sim {
namespace {

class ScenarioTest : public ::testing::Test {
 protected:
  ScenarioTest()
      : clock_(std::make_shared<SimClock>(FromMicros(1'800'000'000'000'000))),
        model_(clock_, {}),
        handler_(model_, {.clock = clock_, .insecure_any_token = true}) {}

  Result<ScenarioVerdict> Run(const std::string& text) {
    // Simulated time: a timeline step "later" moves the model's clock, nothing sleeps.
    return RunScenario(text, handler_, model_, [this](Duration d) { clock_->Advance(d); });
  }

  std::shared_ptr<SimClock> clock_;
  Model model_;
  SimHandler handler_;
};

constexpr char kScenario[] = R"({
  "setup": [{"call": "POST /_sim/repos", "body": {"owner": "acme", "name": "app"}}],
  "timeline": [
    {"at_ms": 0, "call": "POST /_sim/repos/acme/app/pulls", "body": {"title": "x"}},
    {"at_ms": 5000, "call": "POST /_sim/repos/acme/app/check-runs", "body": {"pr": 1}},
    {"at_ms": 5000, "call": "POST /_sim/repos/acme/app/pulls/1/comments",
     "body": {"user": "bob", "body": "hi"}}
  ],
  "faults": {"server_errors": 1},
  "expect": [
    {"kind": "create_pull", "count": 1},
    {"kind": "check_run", "status": 201, "at_least": 1},
    {"kind": "comment", "number": 1, "who": "bob"}
  ],
  "timeout_ms": 100, "settle_ms": 0
})";

TEST_F(ScenarioTest, PlaysTheTimelineAndChecksExpectations) {
  auto verdict = Run(kScenario);
  ASSERT_TRUE(verdict.ok()) << verdict.status().ToString();
  EXPECT_TRUE(verdict->ok) << (verdict->failures.empty() ? "" : verdict->failures[0]);
  EXPECT_EQ(FormatVerdict(*verdict),
            "verdict: ok effects=3 expectations=3 steps=5 steps_failed=0 unmet=0");
  // The comment came 5 s (simulated) after the PR.
  auto effects = model_.Effects();
  ASSERT_EQ(effects.size(), 3u);
  EXPECT_EQ(effects[2].at - effects[0].at, std::chrono::seconds(5));
}

TEST_F(ScenarioTest, UnmetExpectationsAndRefusedStepsFail) {
  auto verdict = Run(R"({
    "timeline": [{"call": "POST /_sim/repos/no/such/pulls", "body": {}}],
    "expect": [{"kind": "merge", "status": 200, "count": 1}],
    "timeout_ms": 100, "settle_ms": 0})");
  ASSERT_TRUE(verdict.ok());
  EXPECT_FALSE(verdict->ok);
  EXPECT_EQ(verdict->failures.size(), 2u);
  EXPECT_EQ(FormatVerdict(*verdict).rfind("verdict: FAIL", 0), 0u);
  EXPECT_EQ(verdict->counts["unmet"], 1);
  EXPECT_EQ(verdict->counts["steps_failed"], 1);
}

TEST_F(ScenarioTest, MalformedScenariosAreErrors) {
  EXPECT_FALSE(Run("[]").ok());
  EXPECT_FALSE(Run(R"({"timeline": [{"call": "nospace"}]})").ok());
  EXPECT_FALSE(Run(R"({"expect": {}})").ok());
}

}  // namespace
}  // namespace gatehouse::sim
