// Reviewer dispatch under load and change (docs/REVIEWERS.md, "Guarantees"): capacity across
// 100 concurrent runs, cancellation by a push, affinity, and commands in comments — real
// command reviewers, real HTTP, real SQLite (tests/review_world_test_util.h).
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "tests/review_world_test_util.h"

namespace gatehouse::review_testing {
namespace {

// argv: NAME LOG [GO]: logs start/end around its work, waits for GO when given.
constexpr char kGatedReviewer[] = R"(cat > /dev/null
echo "start $1" >> "$2"
if [ -n "$3" ]; then while [ ! -f "$3" ]; do sleep 0.02; done; fi
sleep 0.03
echo "end $1" >> "$2"
printf '{"verdict":"approve","summary":"reviewed by %s","findings":[]}' "$1"
)";

int MaxConcurrent(const std::vector<std::string>& log) {
  int now = 0, most = 0;
  for (const std::string& l : log) {
    if (l.rfind("start ", 0) == 0) most = std::max(most, ++now);
    if (l.rfind("end ", 0) == 0) --now;
  }
  return most;
}

class ReviewCapacityTest : public ::testing::Test {
 protected:
  std::string Script() { return WriteScript(dir_.File("reviewer.sh"), kGatedReviewer); }
  testing::TempDir dir_;
};

// 100 review requests for distinct PRs at once, `concurrency: 2`, 16 workers: every one
// completes, and the executors' own log never shows more than 2 at once.
TEST_F(ReviewCapacityTest, HundredConcurrentRequestsNeverExceedTheReviewersConcurrency) {
  const std::string script = Script(), log = dir_.File("log");
  WorldOptions o;
  o.workers = 16;
  o.policy_yaml = kSecurityRequired;
  o.reviewers_yaml =
      "reviewers:\n" + CommandReviewer("sec", "security", script + ", sec, " + log, 2);
  ReviewWorld w(o);
  ASSERT_NO_FATAL_FAILURE(w.Start());
  std::vector<int> prs;
  for (int i = 0; i < 100; ++i) prs.push_back(w.OpenPull());
  ASSERT_TRUE(w.Settle([&] {
    auto f = w.store().reviews().GetReviewFunnel();
    return f.ok() && f->requested == 100 && f->done == 100;
  })) << "not every run completed";
  EXPECT_LE(MaxConcurrent(Lines(log)), 2);
  EXPECT_EQ(Lines(log).size(), 200u);  // one start and one end per run: nothing ran twice
  for (int n : prs) EXPECT_EQ(w.RunReviews(n).size(), 1u) << "PR " << n;
}

// A push while the review runs: the old run is cancelled (its command killed), nothing is
// posted on the old head, and the new head gets exactly one review.
TEST_F(ReviewCapacityTest, APushDuringARunningReviewCancelsItAndReviewsTheNewHead) {
  const std::string script = Script(), log = dir_.File("log"), go = dir_.File("go");
  WorldOptions o;
  o.policy_yaml = kSecurityRequired;
  o.reviewers_yaml =
      "reviewers:\n" + CommandReviewer("sec", "security", script + ", sec, " + log + ", " + go, 1);
  ReviewWorld w(o);
  ASSERT_NO_FATAL_FAILURE(w.Start());
  const int n = w.OpenPull();
  const std::string old_head = w.Pull(n).head_sha;
  ASSERT_TRUE(w.Settle([&] { return Lines(log).size() == 1; })) << "the review never started";
  ASSERT_TRUE(w.model().Push("octocat", kRepo, n, "").ok());
  const std::string new_head = w.Pull(n).head_sha;
  ASSERT_TRUE(w.Settle([&] {
    auto runs = w.Runs(n);
    return !runs.empty() && runs[0].state == RunState::kCancelled;
  })) << "the old head's run was not cancelled";
  // The new head's run starts only once the old one's command is gone (one slot): then go.
  ASSERT_TRUE(w.Settle([&] { return Lines(log).size() == 2; }))
      << "the new head's run never started";
  std::ofstream(go) << "go";
  ASSERT_TRUE(w.Settle([&] {
    auto runs = w.Runs(n);
    return runs.size() == 2 && runs[1].state == RunState::kDone;
  }));
  const auto reviews = w.RunReviews(n);
  EXPECT_EQ(reviews[0].commit_id, new_head);
  for (const sim::Review& r : w.Pull(n).reviews) EXPECT_NE(r.commit_id, old_head);
  auto runs = w.Runs(n);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].key.head_sha, old_head);
  EXPECT_EQ(runs[1].key.head_sha, new_head);
  EXPECT_EQ(runs[1].state, RunState::kDone);
  // The killed command never reached its end.
  int ends = 0;
  for (const std::string& l : Lines(log)) ends += l.rfind("end ", 0) == 0 ? 1 : 0;
  EXPECT_EQ(ends, 1);
}

// Two reviewers serve the role: every run of one PR goes to the same reviewer, across pushes
// that request new runs while earlier ones are still being assigned.
TEST_F(ReviewCapacityTest, EveryRunOfAPullRequestGoesToTheSameReviewer) {
  const std::string script = Script(), log = dir_.File("log");
  WorldOptions o;
  o.workers = 8;
  o.policy_yaml = kSecurityRequired;
  o.reviewers_yaml = "reviewers:\n" +
                     CommandReviewer("alpha", "security", script + ", alpha, " + log, 4) +
                     CommandReviewer("beta", "security", script + ", beta, " + log, 4);
  ReviewWorld w(o);
  ASSERT_NO_FATAL_FAILURE(w.Start());
  std::vector<int> prs;
  for (int i = 0; i < 6; ++i) prs.push_back(w.OpenPull());
  for (int round = 0; round < 2; ++round) {
    for (int n : prs) ASSERT_TRUE(w.model().Push("octocat", kRepo, n, "").ok());
  }
  ASSERT_TRUE(w.Settle([&] {
    for (int n : prs) {
      auto runs = w.Runs(n);
      if (runs.empty()) return false;
      const ReviewRun& last = runs.back();
      if (last.key.head_sha != w.Pull(n).head_sha || last.state != RunState::kDone) return false;
      for (const ReviewRun& r : runs) {
        if (!IsTerminal(r.state)) return false;
      }
    }
    return true;
  })) << "the latest heads were not all reviewed";
  std::set<std::string> used;
  for (int n : prs) {
    std::set<std::string> reviewers;
    for (const ReviewRun& r : w.Runs(n)) {
      if (!r.reviewer.empty()) reviewers.insert(r.reviewer);
    }
    EXPECT_EQ(reviewers.size(), 1u) << "PR " << n << " went to several reviewers";
    used.insert(reviewers.begin(), reviewers.end());
  }
  EXPECT_FALSE(used.empty());
}

// "@gatehouse review security" by a maintainer asks for a fresh run at the current head,
// acknowledged with a reaction; the same comment (edited) never triggers twice; an unknown
// command gets a reply; a comment by someone without write access does nothing.
TEST_F(ReviewCapacityTest, CommandsInCommentsRequestOneFreshRunEach) {
  const std::string script = Script(), log = dir_.File("log");
  WorldOptions o;
  o.policy_yaml = kSecurityRequired;
  o.reviewers_yaml =
      "reviewers:\n" + CommandReviewer("sec", "security", script + ", sec, " + log, 2);
  ReviewWorld w(o);
  ASSERT_NO_FATAL_FAILURE(w.Start());
  const int n = w.OpenPull();
  ASSERT_TRUE(w.Settle([&] { return w.RunReviews(n).size() == 1; }));
  sim::Comment asked;
  ASSERT_TRUE(
      w.model().AddComment("maintainer", kRepo, n, "@gatehouse review security", &asked).ok());
  ASSERT_TRUE(w.Settle([&] { return w.RunReviews(n).size() == 2; })) << "the command made no run";
  ASSERT_TRUE(
      w.model()
          .EditComment("maintainer", kRepo, asked.id, "@gatehouse review security!", nullptr)
          .ok());
  sim::Comment unknown, outsider;
  ASSERT_TRUE(w.model().AddComment("maintainer", kRepo, n, "/gatehouse frobnicate", &unknown).ok());
  ASSERT_TRUE(
      w.model().AddComment("drive-by", kRepo, n, "@gatehouse review security", &outsider).ok());
  // gatehouse's reply (the simulator records the App as its installation).
  auto replied = [&] {
    for (const sim::Comment& c : w.model().CommentsFor(kRepo, n)) {
      if (c.user == "installation:" + std::to_string(kInstallation) &&
          c.body.find("`frobnicate`") != std::string::npos) {
        return true;
      }
    }
    return false;
  };
  ASSERT_TRUE(w.Settle(replied)) << "no reply to the unknown command";
  auto reactions = [&](int64_t comment) {
    std::vector<std::string> contents;
    for (const sim::Reaction& r :
         w.model().ReactionsFor(kRepo, comment).value_or(std::vector<sim::Reaction>{})) {
      contents.push_back(r.content);
    }
    return contents;
  };
  ASSERT_TRUE(w.Settle([&] { return !reactions(unknown.id).empty(); }));
  EXPECT_EQ(reactions(asked.id), std::vector<std::string>{"+1"});
  EXPECT_EQ(reactions(unknown.id), std::vector<std::string>{"confused"});
  EXPECT_TRUE(reactions(outsider.id).empty()) << "a comment without write access was answered";
  // Every signal for the PR covered by a pass (the outsider's comment included), then look.
  ASSERT_TRUE(w.Settle([&] {
    auto i = w.store().work().GetWorkItem(std::string(kRepo) + "#" + std::to_string(n));
    return i.ok() && *i && (*i)->done_gen == (*i)->requested_gen && (*i)->state == WorkState::kIdle;
  }));
  auto runs = w.Runs(n);
  ASSERT_EQ(runs.size(), 2u) << "the edit or the outsider's comment made a run";
  EXPECT_EQ(runs[1].key.trigger, "comment:" + std::to_string(asked.id));
  EXPECT_EQ(runs[1].state, RunState::kDone);
  EXPECT_EQ(w.RunReviews(n).size(), 2u);
}

}  // namespace
}  // namespace gatehouse::review_testing
