// Issue 9: a head that comes back is decided afresh. The pass (act/pr_pass) against a real
// SqliteStore and the in-process simulator on one SimClock: a merge superseded on the first
// occurrence of a head does not block its second; an approval is given again only if GitHub
// dismissed the old one; a label removed on the intermediate head is put back; the summary
// comment shows the returned head's verdict; pushes GitHub reported by webhooks start an
// occurrence even when no pass saw the intermediate head, and a late webhook about an older push
// starts none. Every test checks the simulator's invariants: nothing done twice, nothing
// succeeded on a head that had moved.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "act/pr_pass_test_util.h"
#include "decide/planner.h"
#include "engine/router.h"
#include "sim/invariants.h"
#include "sim/render.h"

namespace gatehouse::act {
namespace {

using pass_testing::kAppWho;
using pass_testing::kAutoPolicy;
using pass_testing::kFullName;
using pass_testing::kNoMergePolicy;
using pass_testing::kSubject;
using std::chrono::milliseconds;
using std::chrono::seconds;

// Ready PRs are approved and labelled but never merged: the returning head can be seen.

const std::string kX(40, 'e');
const std::string kB(40, 'b');

class ReturningHeadTest : public pass_testing::PassFixture {
 protected:
  // Pushes `sha` (any SHA, an earlier head included) as the author would; time moves on first,
  // as it does between pushes.
  void Push(const std::string& sha) {
    clock_->Advance(seconds(2));
    ASSERT_TRUE(github_.model().Push("alice", kFullName, 1, sha).ok());
  }
  // The next merge call finds that the author pushed a new commit just before it (the
  // simulator's push_on_merge fault): GitHub answers 409.
  void PushOnNextMerge() {
    HttpRequest faults{.method = "PUT",
                       .target = "/_sim/faults",
                       .headers = {},
                       .body = R"({"push_on_merge": 1})",
                       .peer = "test"};
    ASSERT_EQ(github_.handler().Serve(faults).status, 200);
  }
  void Pass() {
    clock_->Advance(milliseconds(100));
    PassOutcome outcome = RunPass(PassConfig{});
    ASSERT_TRUE(outcome.ok) << outcome.error;
  }
  std::string Head() { return github_.model().GetPull(kFullName, 1)->head_sha; }

  // Routes every webhook the simulator sends from now on through the real router and keeps the
  // facts it learns; Deliver() records them as the inbox router does (stamped with the
  // delivery's arrival, which a fact without GitHub's time takes).
  void CaptureWebhooks() {
    github_.model().SetListener([this](const sim::Notification& n) {
      const boost::json::value payload = sim::RenderWebhook(n);
      for (PrFact& f : RouteWebhook(n.event, payload, RouteStamp{clock_->Now()}).facts) {
        captured_.push_back(std::move(f));
      }
    });
  }
  void Deliver() { ASSERT_NO_FATAL_FAILURE(Deliver(Take())); }
  void Deliver(const std::vector<PrFact>& facts) {
    ASSERT_TRUE(store_->repos().RecordLearned({}, facts, clock_->Now()).ok());
  }
  // The facts captured so far, not delivered: a test delivers them late, or never.
  std::vector<PrFact> Take() { return std::exchange(captured_, {}); }

  // 2xx App effects of `kind` on `sha`.
  int Successes(const std::string& kind, const std::string& sha) {
    int n = 0;
    for (const auto& e : AppEffects(kind)) n += e.sha == sha && e.status >= 200 && e.status < 300;
    return n;
  }
  std::vector<ActionRecord> Rows(const std::string& kind) {
    auto rows = store_->ledger().ListActions(kSubject);
    EXPECT_TRUE(rows.ok());
    std::vector<ActionRecord> out;
    for (const auto& r : *rows) {
      if (r.key.kind == kind) out.push_back(r);
    }
    return out;
  }
  int64_t LastVerdictOccurrence() {
    auto verdicts = Audit("verdict");
    EXPECT_FALSE(verdicts.empty());
    if (verdicts.empty()) return 0;
    return boost::json::parse(verdicts.back().detail).at("head_occurrence").to_number<int64_t>();
  }
  std::string SummaryBody() {
    std::string body;
    for (const auto& c : github_.model().CommentsFor(kFullName, 1)) {
      if (c.user == kAppWho && c.body.starts_with(decide::kSummaryMarker)) body = c.body;
    }
    return body;
  }
  bool HasLabel(const std::string& label) {
    const auto labels = github_.model().GetPull(kFullName, 1)->labels;
    return std::find(labels.begin(), labels.end(), label) != labels.end();
  }
  // The simulator's invariants (sim/invariants.h): no 2xx App effect bound to a SHA other than
  // the head it found, and no merge, review or close of one SHA twice (a dismissal of the App's
  // review between two approvals makes the second a new one).
  void ExpectNoStaleOrDuplicateEffects() {
    const auto effects = github_.model().Effects();
    EXPECT_EQ(sim::StaleEffects(effects), std::vector<std::string>{});
    EXPECT_EQ(sim::DuplicateEffects(effects), std::vector<std::string>{});
  }

  std::vector<PrFact> captured_;
};

// The author pushes X while gatehouse merges A (409: the merge of A is superseded), then B, then
// force-pushes back to A: A is merged, once, on its second occurrence.
TEST_F(ReturningHeadTest, AHeadThatComesBackAfterASupersededMergeIsMergedOnce) {
  ReadyPull({{".github/gatehouse.yml", kAutoPolicy}});
  const std::string a = head_;
  ASSERT_NO_FATAL_FAILURE(PushOnNextMerge());
  Pass();  // merge of A: 409, the author pushed X just before
  const std::string x = Head();
  ASSERT_NE(x, a);
  ASSERT_EQ(Rows("merge").size(), 1u);
  EXPECT_EQ(Rows("merge")[0].state, ActionState::kSuperseded);
  Pass();  // on X: CI has not reported
  Push(kB);
  Pass();
  Push(a);  // back to A: still green, still approved
  Pass();

  EXPECT_TRUE(github_.model().GetPull(kFullName, 1)->merged);
  EXPECT_EQ(Successes("merge", a), 1);
  EXPECT_EQ(LastVerdictOccurrence(), 2);
  const auto merges = Rows("merge");
  ASSERT_EQ(merges.size(), 2u);
  EXPECT_EQ(merges[0].key.head_occurrence, 1);
  EXPECT_EQ(merges[0].state, ActionState::kSuperseded);
  EXPECT_EQ(merges[1].key.head_sha, a);
  EXPECT_EQ(merges[1].key.head_occurrence, 2);
  EXPECT_EQ(merges[1].state, ActionState::kDone);
  // The summary speaks of A's pass, not of B's wait.
  const std::string summary = SummaryBody();
  EXPECT_NE(summary.find("gatehouse: pass"), std::string::npos) << summary;
  EXPECT_NE(summary.find(a), std::string::npos) << summary;
  EXPECT_EQ(Successes("review", a), 1) << "A's approval of the first occurrence still stands";
  EXPECT_TRUE(HasLabel("ready-to-merge")) << "removed while X and B waited, back on A";
  ExpectNoStaleOrDuplicateEffects();
}

// The same race with no pass in between: the 409's re-read saw X, and the author force-pushed
// back to A before any pass ran. The head the refusal revealed ended A's first occurrence, so
// the next pass is on A's second and merges.
TEST_F(ReturningHeadTest, TheHeadARefusalRevealedEndsTheOccurrence) {
  ReadyPull({{".github/gatehouse.yml", kAutoPolicy}});
  const std::string a = head_;
  ASSERT_NO_FATAL_FAILURE(PushOnNextMerge());
  Pass();
  ASSERT_NE(Head(), a);
  Push(a);
  Pass();
  EXPECT_TRUE(github_.model().GetPull(kFullName, 1)->merged);
  EXPECT_EQ(Successes("merge", a), 1);
  EXPECT_EQ(LastVerdictOccurrence(), 2);
  ExpectNoStaleOrDuplicateEffects();
}

// update-branch is bound to (head, base), not to the occurrence: gatehouse brings A up to date,
// a bot resets the branch to A, and gatehouse does not update A onto the same base again (it
// would ping-pong with the bot forever).
TEST_F(ReturningHeadTest, AnUpdateOfTheSameHeadOntoTheSameBaseIsNotRepeated) {
  ReadyPull({{".github/gatehouse.yml", std::string(kAutoPolicy) + "  update_branch: true\n"}});
  const std::string a = head_;
  ASSERT_TRUE(github_.model().MoveBase(kFullName, 1, /*conflicted=*/false).ok());
  Pass();
  ASSERT_EQ(AppEffects("update_branch").size(), 1u);
  ASSERT_NE(Head(), a);
  Pass();   // the updated head waits for CI
  Push(a);  // the bot resets the branch: A is behind again
  ASSERT_EQ(github_.model().GetPull(kFullName, 1)->mergeable_state, "behind");
  Pass();
  Pass();
  EXPECT_EQ(LastVerdictOccurrence(), 2);
  EXPECT_EQ(AppEffects("update_branch").size(), 1u);
  // The policy allows merging a branch that is behind (`allow_behind` by default): A is merged.
  EXPECT_EQ(Successes("merge", a), 1);
  ExpectNoStaleOrDuplicateEffects();
}

// A label removed on the intermediate head is put back when the head returns, and the summary
// comment, edited to the intermediate head's text, is edited back.
TEST_F(ReturningHeadTest, ALabelRemovedOnTheIntermediateHeadIsPutBack) {
  ReadyPull({{".github/gatehouse.yml", kNoMergePolicy}});
  const std::string a = head_;
  Pass();
  ASSERT_TRUE(HasLabel("ready-to-merge"));
  const std::string first_summary = SummaryBody();
  Push(kX);
  Pass();  // X waits for CI: the label goes, the summary says pending
  ASSERT_FALSE(HasLabel("ready-to-merge"));
  EXPECT_NE(SummaryBody().find(kX), std::string::npos);
  Push(a);
  Pass();

  EXPECT_TRUE(HasLabel("ready-to-merge"));
  EXPECT_EQ(SummaryBody(), first_summary);
  EXPECT_EQ(LastVerdictOccurrence(), 2);
  int added = 0;
  for (const auto& e : AppEffects("label_add")) added += e.status == 200;
  EXPECT_EQ(added, 2);
  // gatehouse's check run on A from its first occurrence already says "success": not repeated.
  int a_runs = 0;
  for (const auto& r : github_.model().CheckRunsFor(kFullName, a)) a_runs += r.name == "gatehouse";
  EXPECT_EQ(a_runs, 1);
  EXPECT_EQ(Successes("review", a), 1) << "the approval of A was not dismissed";
  EXPECT_FALSE(github_.model().GetPull(kFullName, 1)->merged);
  ExpectNoStaleOrDuplicateEffects();
}

// GitHub dismissed gatehouse's approval of A when X was pushed (branch protection's "dismiss
// stale approvals"): back on A, gatehouse approves A again — a new action, not a duplicate.
TEST_F(ReturningHeadTest, ADismissedApprovalIsGivenAgainWhenTheHeadReturns) {
  ReadyPull({{".github/gatehouse.yml", kNoMergePolicy}}, true,
            sim::RepoOptions{.dismiss_stale_reviews = true, .members = {}});
  const std::string a = head_;
  Pass();
  ASSERT_EQ(Successes("review", a), 1);
  Push(kX);
  Pass();
  // Bob's approval was dismissed too; he approves A again when it comes back.
  Push(a);
  ASSERT_TRUE(github_.model().SubmitReview("bob", kFullName, 1, "APPROVE", a, "", nullptr).ok());
  Pass();

  EXPECT_EQ(Successes("review", a), 2);
  EXPECT_EQ(LastVerdictOccurrence(), 2);
  const auto approvals = Rows("approve");
  ASSERT_EQ(approvals.size(), 2u);
  EXPECT_EQ(approvals[1].key.head_occurrence, 2);
  EXPECT_EQ(approvals[1].state, ActionState::kDone);
  EXPECT_TRUE(HasLabel("ready-to-merge"));
  ExpectNoStaleOrDuplicateEffects();
}

// No pass ever saw X: the author pushed X and force-pushed back to A between two passes. The
// synchronize webhooks tell gatehouse that GitHub pushed after the occurrence it decided on, so
// the next pass on A is a new occurrence: it approves again, since GitHub dismissed the
// approval, and nothing else is repeated.
TEST_F(ReturningHeadTest, PushesReportedByWebhooksStartAnOccurrenceNoPassSaw) {
  ReadyPull({{".github/gatehouse.yml", kNoMergePolicy}}, true,
            sim::RepoOptions{.dismiss_stale_reviews = true, .members = {}});
  const std::string a = head_;
  CaptureWebhooks();
  Pass();
  const size_t effects = AppEffects().size();
  Push(kX);
  Push(a);
  ASSERT_TRUE(github_.model().SubmitReview("bob", kFullName, 1, "APPROVE", a, "", nullptr).ok());
  Deliver();
  Pass();

  EXPECT_EQ(LastVerdictOccurrence(), 2);
  EXPECT_EQ(Successes("review", a), 2);
  EXPECT_EQ(AppEffects().size(), effects + 1) << "only the approval: label, check run and "
                                                 "summary already say what they should";
  ExpectNoStaleOrDuplicateEffects();
}

// A late webhook about a push older than the occurrence gatehouse decided on starts nothing: X is
// pushed (its webhook is late), then B (its webhook is lost); a pass decides on B; X's webhook
// arrives. Nor does a pass that reads the same head again.
TEST_F(ReturningHeadTest, ALateWebhookAboutAnOlderPushStartsNoOccurrence) {
  ReadyPull({{".github/gatehouse.yml", kNoMergePolicy}});
  CaptureWebhooks();
  Pass();
  Push(kX);
  const std::vector<PrFact> late = Take();
  ASSERT_EQ(late.size(), 1u);
  Push(kB);
  Take();  // lost
  Pass();
  auto latest = store_->ledger().LatestHeadOccurrence(kSubject);
  ASSERT_TRUE(latest.ok() && latest->has_value());
  ASSERT_EQ((*latest)->head_sha, kB);
  const size_t effects = AppEffects().size();
  clock_->Advance(seconds(5));
  Deliver(late);
  Pass();
  Pass();
  EXPECT_EQ(LastVerdictOccurrence(), 1);
  EXPECT_EQ(AppEffects().size(), effects) << "nothing changed, nothing done";
  latest = store_->ledger().LatestHeadOccurrence(kSubject);
  ASSERT_TRUE(latest.ok() && latest->has_value());
  EXPECT_EQ((*latest)->head_sha, kB);
  EXPECT_EQ((*latest)->occurrence, 1);
}

// A push routed while the pass was reading (the pass read A; X was pushed and its webhook
// routed before the pass looked at the facts) is not mistaken for A coming back: the read does
// not reflect that push, so A keeps its occurrence, and the next pass sees X.
TEST_F(ReturningHeadTest, APushTheReadDoesNotReflectStartsNoOccurrence) {
  ReadyPull({{".github/gatehouse.yml", kNoMergePolicy}});
  CaptureWebhooks();
  Pass();
  ASSERT_EQ(LastVerdictOccurrence(), 1);
  // The fact of a push GitHub made after the pass's read, as if routed mid-pass.
  Deliver({PrFact{kSubject, "pushed", kX, clock_->Now() + seconds(10)}});
  Pass();
  EXPECT_EQ(LastVerdictOccurrence(), 1);
  EXPECT_EQ(Successes("review", head_), 1);
}

}  // namespace
}  // namespace gatehouse::act
