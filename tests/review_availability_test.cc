// Reviewer availability on the simulator's clock (docs/REVIEWERS.md, "Pause, capacity and the
// availability budget"): a paused reviewer makes a run wait — not fail, not spend an attempt —
// for hours if need be; only the availability budget ends the wait (dead, with the reason),
// and a re-arm revives it into exactly one run.
#include <gtest/gtest.h>

#include "act/review_pass.h"
#include "sim/invariants.h"
#include "tests/review_world_test_util.h"

namespace gatehouse::review_testing {
namespace {

// argv: LOG [FAIL]: fails once when FAIL exists (removing it), else approves.
constexpr char kFlakyReviewer[] = R"(cat > /dev/null
echo "start" >> "$1"
if [ -n "$2" ] && [ -f "$2" ]; then rm -f "$2"; echo "reviewer down" >&2; exit 3; fi
printf '{"verdict":"approve","summary":"fine","findings":[]}'
)";

std::string Reviewers(const std::string& argv, bool paused) {
  return "reviewers:\n" + CommandReviewer("sec", "security", argv, 1, paused);
}

// A world on the simulator's clock whose policy requires the security role, with `reviewers`.
WorldOptions SimTimeWorld(std::string reviewers) {
  WorldOptions o;
  o.sim_time = true;
  o.policy_yaml = kSecurityRequired;
  o.reviewers_yaml = std::move(reviewers);
  return o;
}

void Resume(ReviewWorld& w) {
  ASSERT_TRUE(w.store().reviews().SetPaused("sec", false, w.clock()->Now()).ok());
  act::WakeWaitingRuns(w.store(), w.clock()->Now());
}

class ReviewAvailabilityTest : public ::testing::Test {
 protected:
  testing::TempDir dir_;
};

// Paused before the request arrives: the run is recorded and waits; resumed an hour of
// simulated time later, it runs exactly once and nothing is dead.
TEST_F(ReviewAvailabilityTest, PausedBeforeTheRequestWaitsAndRunsOnceWhenResumed) {
  const std::string script = WriteScript(dir_.File("r.sh"), kFlakyReviewer), log = dir_.File("log");
  ReviewWorld w(SimTimeWorld(Reviewers(script + ", " + log, /*paused=*/true)));
  ASSERT_NO_FATAL_FAILURE(w.Start());
  const int n = w.OpenPull();
  ASSERT_TRUE(w.Settle([&] { return w.Runs(n).size() == 1; })) << "no run recorded";
  // An hour passes, paused.
  EXPECT_FALSE(w.Settle([&] { return !SecurityItem(w, n) || SecurityItem(w, n)->state == WorkState::kDead; },
                        std::chrono::seconds(30), std::chrono::hours(1)));
  auto waiting = SecurityItem(w, n);
  ASSERT_TRUE(waiting.has_value());
  EXPECT_NE(waiting->state, WorkState::kDead);
  EXPECT_EQ(waiting->attempts, 0) << "waiting for a paused reviewer spent an attempt";
  EXPECT_EQ(w.Runs(n)[0].state, RunState::kQueued);
  EXPECT_TRUE(Lines(log).empty()) << "a paused reviewer was run";
  ASSERT_NO_FATAL_FAILURE(Resume(w));
  ASSERT_TRUE(w.Settle([&] { return PostedOnce(w, n); }));
  EXPECT_EQ(Lines(log).size(), 1u);
  auto funnel = w.store().reviews().GetReviewFunnel();
  ASSERT_TRUE(funnel.ok());
  EXPECT_EQ(funnel->requested, 1);
  EXPECT_EQ(funnel->done, 1);
  EXPECT_EQ(funnel->dead, 0);
}

// Paused between a failed attempt and its retry: the run is not retired; one eventual run.
TEST_F(ReviewAvailabilityTest, PausedBetweenAFailureAndItsRetryIsNotRetired) {
  const std::string script = WriteScript(dir_.File("r.sh"), kFlakyReviewer), log = dir_.File("log"),
                    fail = dir_.File("fail");
  std::ofstream(fail) << "x";
  ReviewWorld w(SimTimeWorld(Reviewers(script + ", " + log + ", " + fail, /*paused=*/false)));
  ASSERT_NO_FATAL_FAILURE(w.Start());
  const int n = w.OpenPull();
  ASSERT_TRUE(w.Settle([&] { return SecurityItem(w, n) && SecurityItem(w, n)->attempts == 1; }))
      << "the first attempt did not fail";
  ASSERT_TRUE(w.store().reviews().SetPaused("sec", true, w.clock()->Now()).ok());
  // Far past any transient backoff, paused all along.
  EXPECT_FALSE(w.Settle([&] { return SecurityItem(w, n)->state == WorkState::kDead; },
                        std::chrono::seconds(30), std::chrono::hours(2)));
  EXPECT_NE(SecurityItem(w, n)->state, WorkState::kDead);
  EXPECT_EQ(Lines(log).size(), 1u) << "the paused reviewer was run again";
  ASSERT_NO_FATAL_FAILURE(Resume(w));
  ASSERT_TRUE(w.Settle([&] { return PostedOnce(w, n); }));
  EXPECT_EQ(Lines(log).size(), 2u);
}

// An outage longer than any transient retry ladder still waits; only the availability budget
// ends it, dead with the reason; a re-arm (after the resume) revives it into exactly one run.
TEST_F(ReviewAvailabilityTest, OnlyTheAvailabilityBudgetEndsAWaitAndRearmRevivesIt) {
  const std::string script = WriteScript(dir_.File("r.sh"), kFlakyReviewer), log = dir_.File("log");
  ReviewWorld w(
      SimTimeWorld(Reviewers(script + ", " + log, /*paused=*/true) + "availability_budget: 4h\n"));
  ASSERT_NO_FATAL_FAILURE(w.Start());
  const int n = w.OpenPull();
  ASSERT_TRUE(w.Settle([&] { return w.Runs(n).size() == 1; }));
  // Three hours: longer than 8 transient attempts could ever wait (their cap is 10 minutes).
  EXPECT_FALSE(w.Settle([&] { return SecurityItem(w, n)->state == WorkState::kDead; },
                        std::chrono::minutes(1), std::chrono::hours(3)));
  EXPECT_NE(SecurityItem(w, n)->state, WorkState::kDead);
  // Past the budget.
  ASSERT_TRUE(w.Settle([&] { return SecurityItem(w, n)->state == WorkState::kDead; },
                       std::chrono::minutes(1), std::chrono::hours(3)));
  EXPECT_NE(SecurityItem(w, n)->last_error.find("paused"), std::string::npos) << SecurityItem(w, n)->last_error;
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
  ASSERT_TRUE(w.store().work().Rearm(SecurityWorkKey(n), w.clock()->Now()).ok());
  ASSERT_TRUE(w.Settle([&] { return PostedOnce(w, n); }));
  EXPECT_EQ(Lines(log).size(), 1u);
}

// A post an earlier holder began and could not finish (the call failed, or its answer was
// lost after it took effect: the intent is open), for a run that then ended because the PR was
// closed (ended by whichever pass looks first): the review pass settles the intent against the
// PR's reviews — the review is there: done; it is not: superseded, "never posted" — and posts
// nothing more. Nothing is left open (the chaos harness found such an intent, open forever,
// after a merge).
void SetFaults(ReviewWorld& w, const std::string& body) {
  HttpRequest faults{
      .method = "PUT", .target = "/_sim/faults", .headers = {}, .body = body, .peer = "test"};
  ASSERT_EQ(w.sim().Serve(faults).status, 200) << body;
}

class EndedRunPostTest : public ::testing::TestWithParam<std::string> {
 protected:
  testing::TempDir dir_;
};

std::vector<ActionRecord> Posts(ReviewWorld& w, int n) {
  auto rows = w.store().ledger().ListActions(SecurityWorkKey(n));
  EXPECT_TRUE(rows.ok());
  return rows.ok() ? *rows : std::vector<ActionRecord>{};
}

TEST_P(EndedRunPostTest, AnOpenPostOfARunTheCloseEndedIsSettled) {
  const bool took_effect = GetParam() != "server_error";
  const std::string script = WriteScript(dir_.File("r.sh"), kFlakyReviewer), log = dir_.File("log");
  ReviewWorld w(SimTimeWorld(Reviewers(script + ", " + log, /*paused=*/false)));
  ASSERT_NO_FATAL_FAILURE(w.Start());
  ASSERT_NO_FATAL_FAILURE(
      SetFaults(w, R"({"aimed":[{"method":"POST","path":"/repos/*/pulls/*/reviews",)"
                   R"("fault":")" +
                       GetParam() + R"("}]})"));
  const int n = w.OpenPull();
  // The post failed: its intent is open, the item backs off (the clock moves in small steps,
  // so the retry is not reached before the close below).
  ASSERT_TRUE(w.Settle(
      [&] {
        auto rows = Posts(w, n);
        return rows.size() == 1 && rows[0].state == ActionState::kIntent && SecurityItem(w, n) &&
               SecurityItem(w, n)->attempts >= 1;
      },
      std::chrono::milliseconds(1)))
      << "the post never failed";
  EXPECT_EQ(w.RunReviews(n).size(), took_effect ? 1u : 0u);
  ASSERT_TRUE(w.model().SetState("control", kRepo, n, "closed").ok());
  ASSERT_TRUE(w.Settle([&] {
    auto runs = w.Runs(n);
    auto rows = Posts(w, n);
    // Ended by the PR's pass (cancelled) or by the review pass's own read (superseded).
    return runs.size() == 1 && IsTerminal(runs[0].state) && rows.size() == 1 &&
           rows[0].state != ActionState::kIntent;
  })) << "the open post was never settled: run "
      << (w.Runs(n).empty() ? "none" : RunStateName(w.Runs(n)[0].state)) << ", post "
      << (Posts(w, n).empty() ? "none" : Posts(w, n)[0].result) << ", item "
      << (SecurityItem(w, n) ? SecurityItem(w, n)->last_error : "none");
  const ActionRecord post = Posts(w, n).at(0);
  if (took_effect) {
    EXPECT_EQ(post.state, ActionState::kDone) << post.result;
    EXPECT_NE(post.result.find("reconciled"), std::string::npos) << post.result;
  } else {
    EXPECT_EQ(post.state, ActionState::kSuperseded) << post.result;
    EXPECT_NE(post.result.find("never posted"), std::string::npos) << post.result;
  }
  EXPECT_EQ(w.RunReviews(n).size(), took_effect ? 1u : 0u) << "posted again";
  EXPECT_NE(SecurityItem(w, n)->state, WorkState::kDead) << SecurityItem(w, n)->last_error;
}

INSTANTIATE_TEST_SUITE_P(Faults, EndedRunPostTest,
                         ::testing::Values("server_error", "lost_answer_reset"));

// Each run of PR `n` as "state (reason)", and each post intent, for a failure message.
std::string DescribeRuns(ReviewWorld& w, int n) {
  std::string out = "runs:";
  for (const ReviewRun& run : w.Runs(n)) {
    out += " [" + run.key.head_sha.substr(0, 7) + " " + std::string(RunStateName(run.state)) +
           " (" + run.reason + ")]";
  }
  out += "; posts:";
  for (const ActionRecord& post : Posts(w, n)) {
    out += " [" + post.key.head_sha.substr(0, 7) + " " + std::string(ActionStateName(post.state)) +
           " " + post.result + "]";
  }
  if (auto item = SecurityItem(w, n)) out += "; item: " + item->last_error;
  return out;
}

// A push that lands between the post's last read of the PR and the call (the simulator's
// push_on_review): GitHub takes the approval on the replaced head, so the review pass reads the
// head again after posting and dismisses it (docs/REVIEWERS.md, step 7c). The run ends
// superseded, the post's intent superseded with the reason; the new head gets a run of its own,
// whose approval stands; no stale approval is left standing.
TEST_F(ReviewAvailabilityTest, AnApprovalAPushBeatIsDismissedAndTheNewHeadReviewed) {
  const std::string script = WriteScript(dir_.File("r.sh"), kFlakyReviewer), log = dir_.File("log");
  ReviewWorld w(SimTimeWorld(Reviewers(script + ", " + log, /*paused=*/false)));
  ASSERT_NO_FATAL_FAILURE(w.Start());
  ASSERT_NO_FATAL_FAILURE(SetFaults(w, R"({"push_on_review":1})"));
  const int n = w.OpenPull();
  const std::string first = w.Pull(n).head_sha;
  // The old head's run ends superseded by the review pass's own read after the post, or
  // cancelled by the push's PR pass when that pass got there first, mid-post (docs/REVIEWERS.md,
  // "Known limits": the run is recorded as the pass that ended it said); either way its post
  // is dismissed below.
  ASSERT_TRUE(w.Settle([&] {
    auto runs = w.Runs(n);
    return runs.size() == 2 &&
           (runs[0].state == RunState::kSuperseded || runs[0].state == RunState::kCancelled) &&
           runs[1].state == RunState::kDone;
  })) << DescribeRuns(w, n);
  EXPECT_NE(w.Runs(n)[0].reason.find("head moved"), std::string::npos) << DescribeRuns(w, n);
  const std::string second = w.Pull(n).head_sha;
  ASSERT_NE(first, second);
  const std::vector<sim::Review> reviews = w.RunReviews(n);
  ASSERT_EQ(reviews.size(), 2u);
  EXPECT_EQ(reviews[0].commit_id, first);
  EXPECT_EQ(reviews[0].state, "DISMISSED");
  EXPECT_EQ(reviews[1].commit_id, second);
  EXPECT_EQ(reviews[1].state, "APPROVED");
  const std::vector<ActionRecord> posts = Posts(w, n);
  ASSERT_EQ(posts.size(), 2u);
  for (const ActionRecord& post : posts) {
    if (post.key.head_sha == first) {
      EXPECT_EQ(post.state, ActionState::kSuperseded) << post.result;
      EXPECT_NE(post.result.find("dismissed"), std::string::npos) << post.result;
    } else {
      EXPECT_EQ(post.state, ActionState::kDone) << post.result;
    }
  }
  EXPECT_TRUE(sim::StaleEffects(w.model().Effects()).empty());
  EXPECT_TRUE(sim::DuplicateEffects(w.model().Effects()).empty());
}

}  // namespace
}  // namespace gatehouse::review_testing
