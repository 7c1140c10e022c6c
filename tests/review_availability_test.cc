// Reviewer availability on the simulator's clock (docs/REVIEWERS.md, "Pause, capacity and the
// availability budget"): a paused reviewer makes a run wait — not fail, not spend an attempt —
// for hours if need be; only the availability budget ends the wait (dead, with the reason),
// and a re-arm revives it into exactly one run.
#include <gtest/gtest.h>

#include "act/review_pass.h"
#include "tests/review_world_test_util.h"

namespace gatehouse::review_testing {
namespace {

// argv: LOG [FAIL]: fails once when FAIL exists (removing it), else approves.
constexpr char kReviewer[] = R"(cat > /dev/null
echo "start" >> "$1"
if [ -n "$2" ] && [ -f "$2" ]; then rm -f "$2"; echo "reviewer down" >&2; exit 3; fi
printf '{"verdict":"approve","summary":"fine","findings":[]}'
)";

std::string Reviewers(const std::string& argv, bool paused) {
  return "reviewers:\n" + CommandReviewer("sec", "security", argv, 1, paused);
}

std::string WorkKey(int n) { return ReviewWorkKey("acme/app#" + std::to_string(n), "security"); }

std::optional<WorkItem> Item(ReviewWorld& w, int n) {
  auto item = w.store().work().GetWorkItem(WorkKey(n));
  return item.ok() ? *item : std::nullopt;
}

void Resume(ReviewWorld& w) {
  ASSERT_TRUE(w.store().reviews().SetPaused("sec", false, w.clock()->Now()).ok());
  act::WakeWaitingRuns(w.store(), w.clock()->Now());
}

bool Posted(ReviewWorld& w, int n) {
  auto runs = w.Runs(n);
  return runs.size() == 1 && runs[0].state == RunState::kDone && w.RunReviews(n).size() == 1;
}

class ReviewAvailabilityTest : public ::testing::Test {
 protected:
  testing::TempDir dir_;
};

// Paused before the request arrives: the run is recorded and waits; resumed an hour of
// simulated time later, it runs exactly once and nothing is dead.
TEST_F(ReviewAvailabilityTest, PausedBeforeTheRequestWaitsAndRunsOnceWhenResumed) {
  const std::string script = WriteScript(dir_.File("r.sh"), kReviewer), log = dir_.File("log");
  WorldOptions o;
  o.sim_time = true;
  o.policy_yaml = kSecurityRequired;
  o.reviewers_yaml = Reviewers(script + ", " + log, /*paused=*/true);
  ReviewWorld w(o);
  ASSERT_NO_FATAL_FAILURE(w.Start());
  const int n = w.OpenPull();
  ASSERT_TRUE(w.Settle([&] { return w.Runs(n).size() == 1; })) << "no run recorded";
  // An hour passes, paused.
  EXPECT_FALSE(w.Settle([&] { return !Item(w, n) || Item(w, n)->state == WorkState::kDead; },
                        std::chrono::seconds(30), std::chrono::hours(1)));
  auto waiting = Item(w, n);
  ASSERT_TRUE(waiting.has_value());
  EXPECT_NE(waiting->state, WorkState::kDead);
  EXPECT_EQ(waiting->attempts, 0) << "waiting for a paused reviewer spent an attempt";
  EXPECT_EQ(w.Runs(n)[0].state, RunState::kQueued);
  EXPECT_TRUE(Lines(log).empty()) << "a paused reviewer was run";
  ASSERT_NO_FATAL_FAILURE(Resume(w));
  ASSERT_TRUE(w.Settle([&] { return Posted(w, n); }));
  EXPECT_EQ(Lines(log).size(), 1u);
  auto funnel = w.store().reviews().GetReviewFunnel();
  ASSERT_TRUE(funnel.ok());
  EXPECT_EQ(funnel->requested, 1);
  EXPECT_EQ(funnel->done, 1);
  EXPECT_EQ(funnel->dead, 0);
}

// Paused between a failed attempt and its retry: the run is not retired; one eventual run.
TEST_F(ReviewAvailabilityTest, PausedBetweenAFailureAndItsRetryIsNotRetired) {
  const std::string script = WriteScript(dir_.File("r.sh"), kReviewer), log = dir_.File("log"),
                    fail = dir_.File("fail");
  std::ofstream(fail) << "x";
  WorldOptions o;
  o.sim_time = true;
  o.policy_yaml = kSecurityRequired;
  o.reviewers_yaml = Reviewers(script + ", " + log + ", " + fail, /*paused=*/false);
  ReviewWorld w(o);
  ASSERT_NO_FATAL_FAILURE(w.Start());
  const int n = w.OpenPull();
  ASSERT_TRUE(w.Settle([&] { return Item(w, n) && Item(w, n)->attempts == 1; }))
      << "the first attempt did not fail";
  ASSERT_TRUE(w.store().reviews().SetPaused("sec", true, w.clock()->Now()).ok());
  // Far past any transient backoff, paused all along.
  EXPECT_FALSE(w.Settle([&] { return Item(w, n)->state == WorkState::kDead; },
                        std::chrono::seconds(30), std::chrono::hours(2)));
  EXPECT_NE(Item(w, n)->state, WorkState::kDead);
  EXPECT_EQ(Lines(log).size(), 1u) << "the paused reviewer was run again";
  ASSERT_NO_FATAL_FAILURE(Resume(w));
  ASSERT_TRUE(w.Settle([&] { return Posted(w, n); }));
  EXPECT_EQ(Lines(log).size(), 2u);
}

// An outage longer than any transient retry ladder still waits; only the availability budget
// ends it, dead with the reason; a re-arm (after the resume) revives it into exactly one run.
TEST_F(ReviewAvailabilityTest, OnlyTheAvailabilityBudgetEndsAWaitAndRearmRevivesIt) {
  const std::string script = WriteScript(dir_.File("r.sh"), kReviewer), log = dir_.File("log");
  WorldOptions o;
  o.sim_time = true;
  o.policy_yaml = kSecurityRequired;
  o.reviewers_yaml = Reviewers(script + ", " + log, /*paused=*/true) + "availability_budget: 4h\n";
  ReviewWorld w(o);
  ASSERT_NO_FATAL_FAILURE(w.Start());
  const int n = w.OpenPull();
  ASSERT_TRUE(w.Settle([&] { return w.Runs(n).size() == 1; }));
  // Three hours: longer than 8 transient attempts could ever wait (their cap is 10 minutes).
  EXPECT_FALSE(w.Settle([&] { return Item(w, n)->state == WorkState::kDead; },
                        std::chrono::minutes(1), std::chrono::hours(3)));
  EXPECT_NE(Item(w, n)->state, WorkState::kDead);
  // Past the budget.
  ASSERT_TRUE(w.Settle([&] { return Item(w, n)->state == WorkState::kDead; },
                       std::chrono::minutes(1), std::chrono::hours(3)));
  EXPECT_NE(Item(w, n)->last_error.find("paused"), std::string::npos) << Item(w, n)->last_error;
  auto runs = w.Runs(n);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].state, RunState::kDead);
  EXPECT_NE(runs[0].reason.find("paused"), std::string::npos) << runs[0].reason;
  // The PR is told: its gate blocks on the required role's dead run (a failing check run).
  const std::string head = w.Pull(n).head_sha;
  EXPECT_TRUE(w.Settle([&] {
    for (const sim::CheckRun& c : w.model().CheckRunsFor(kRepo, head)) {
      if (c.name == "gatehouse" && c.conclusion == "failure") return true;
    }
    return false;
  })) << "the PR's gate did not learn that its required review died";
  auto funnel = w.store().reviews().GetReviewFunnel();
  ASSERT_TRUE(funnel.ok());
  EXPECT_EQ(funnel->dead, 1);
  EXPECT_EQ(funnel->requested, funnel->done + funnel->cancelled + funnel->superseded +
                                   funnel->dead + funnel->in_flight);
  ASSERT_NO_FATAL_FAILURE(Resume(w));
  ASSERT_TRUE(w.store().work().Rearm(WorkKey(n), w.clock()->Now()).ok());
  ASSERT_TRUE(w.Settle([&] { return Posted(w, n); }));
  EXPECT_EQ(Lines(log).size(), 1u);
}

}  // namespace
}  // namespace gatehouse::review_testing
