// The executor where the PR moved under the plan: the head check before approvals, closes and
// labels, an approval a push beat (dismissed), PRs closed or merged since the plan, and open
// intents reconciled against what GitHub shows instead of called again
// (act/executor_test_util.h has the fixture).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "act/executor.h"
#include "act/executor_test_util.h"

namespace gatehouse::act {
namespace {

using namespace executor_testing;  // NOLINT(google-build-using-namespace): the tests' fixture

TEST_F(ExecutorTest, ARefusalOnAnUnchangedHeadIsAFailureAndThePlanGoesOn) {
  NewPull("one");
  // A conflicted PR: GitHub refuses the merge with 405 although the head did not move.
  ASSERT_TRUE(model_->MoveBase(kFullName, 1, /*conflicted=*/true).ok());
  const std::vector<PlannedAction> plan = {Make(ActionKind::kMerge, 1),
                                           Label(ActionKind::kLabel, 1, "needs-human-review")};
  ExecResult r = Run(1, Claim(1), plan);
  EXPECT_EQ(Results(r), (std::vector<R>{R::kFailed, R::kDone}));
  EXPECT_FALSE(r.superseded) << "the head did not move: no fresh pass";
  EXPECT_FALSE(r.stop.has_value());
  ASSERT_EQ(AppEffects("merge", 1).size(), 1u);
  EXPECT_EQ(AppEffects("merge", 1)[0].status, 405);
  EXPECT_EQ(Row(1, plan[0])->state, ActionState::kFailed);
  EXPECT_NE(Row(1, plan[0])->result.find("the head did not move"), std::string::npos);
}

TEST_F(ExecutorTest, ApprovalsAndClosesLookAtTheHeadFirst) {
  NewPull("one");
  NewPull("two");
  const PlannedAction approve = Make(ActionKind::kApprove, 1);
  const PlannedAction close = Make(ActionKind::kClose, 2);
  ASSERT_TRUE(model_->Push("octocat", kFullName, 1, "").ok());
  ASSERT_TRUE(model_->Push("octocat", kFullName, 2, "").ok());
  ExecResult r1 = Run(1, Claim(1), {approve});
  ExecResult r2 = Run(2, Claim(2), {close});
  EXPECT_EQ(Results(r1), std::vector<R>{R::kSuperseded});
  EXPECT_EQ(Results(r2), std::vector<R>{R::kSuperseded});
  EXPECT_TRUE(r1.superseded);
  EXPECT_EQ(Row(1, approve)->state, ActionState::kFailed) << "not called: retryable, not final";
  EXPECT_TRUE(AppEffects("review").empty()) << "GitHub would have accepted a stale approval";
  EXPECT_TRUE(AppEffects("close").empty());
  EXPECT_EQ(model_->GetPull(kFullName, 2)->state, "open");

  // A PR someone else closed meanwhile is not closed "by gatehouse".
  NewPull("three");
  const PlannedAction close3 = Make(ActionKind::kClose, 3);
  ASSERT_TRUE(model_->SetState("octocat", kFullName, 3, "closed").ok());
  ExecResult r3 = Run(3, Claim(3), {close3});
  EXPECT_EQ(Results(r3), std::vector<R>{R::kFailed});
  EXPECT_EQ(Row(3, close3)->state, ActionState::kFailed);
}

// The push that lands between the head check and the call (the simulator's push_on_review):
// GitHub takes the approval on the old commit, so the executor reads the head again after the
// call and dismisses it. The action ends superseded and the rest of the plan is not run; no
// stale approval stands. A request for changes is dismissed the same way.
TEST_F(ExecutorTest, AnApprovalThatAPushBeatIsDismissed) {
  NewPull("one");
  NewPull("two");
  const PlannedAction approve = Make(ActionKind::kApprove, 1);
  PlannedAction block = Make(ActionKind::kRequestChanges, 2);
  block.body = "no";
  SetFaults(R"({"push_on_review":2})");
  ExecResult r1 = Run(1, Claim(1), {approve, Make(ActionKind::kMerge, 1)});
  ExecResult r2 = Run(2, Claim(2), {block});
  EXPECT_EQ(Results(r1), (std::vector<R>{R::kSuperseded, R::kNotRun}));
  EXPECT_EQ(Results(r2), std::vector<R>{R::kSuperseded});
  for (int n : {1, 2}) {
    std::vector<sim::Effect> reviews = AppEffects("review", n);
    ASSERT_EQ(reviews.size(), 1u);
    EXPECT_NE(reviews[0].sha, reviews[0].head) << "the push beat the call";
    std::vector<sim::Effect> dismissals = AppEffects("dismiss_review", n);
    ASSERT_EQ(dismissals.size(), 1u);
    EXPECT_EQ(dismissals[0].status, 200);
    EXPECT_EQ(dismissals[0].review_id, reviews[0].review_id);
    EXPECT_EQ(model_->GetPull(kFullName, n)->reviews.back().state, "DISMISSED");
  }
  EXPECT_EQ(Row(1, approve)->state, ActionState::kSuperseded);
  EXPECT_NE(Row(1, approve)->result.find("dismissed"), std::string::npos)
      << Row(1, approve)->result;
  EXPECT_TRUE(sim::StaleEffects(model_->Effects()).empty());
  EXPECT_TRUE(AppEffects("merge").empty());

  // Without the fault the approval of an unchanged head stands, and nothing is dismissed.
  NewPull("three");
  const PlannedAction approve3 = Make(ActionKind::kApprove, 3);
  EXPECT_EQ(Results(Run(3, Claim(3), {approve3})), std::vector<R>{R::kDone});
  EXPECT_TRUE(AppEffects("dismiss_review", 3).empty());
  EXPECT_EQ(model_->GetPull(kFullName, 3)->reviews.back().state, "APPROVED");
}

// Issue 9: an approval (a call GitHub would accept on a closed PR's old commit too) is not made
// on a PR closed or merged since the plan was made; it stays retryable for a reopen.
TEST_F(ExecutorTest, NoApprovalOnAPullRequestClosedOrMergedSinceThePlan) {
  NewPull("one");
  const PlannedAction approve = Make(ActionKind::kApprove, 1);
  const PlannedAction label = Label(ActionKind::kLabel, 1, "ready-to-merge");
  ASSERT_TRUE(model_->SetState("octocat", kFullName, 1, "closed").ok());
  const int64_t fence = Claim(1);
  ExecResult r = Run(1, fence, {approve, label});
  EXPECT_EQ(Results(r), (std::vector<R>{R::kSuperseded, R::kNotRun}));
  EXPECT_TRUE(r.superseded) << "a fresh pass looks at what the PR is now";
  EXPECT_TRUE(AppEffects("review").empty());
  EXPECT_EQ(Row(1, approve)->state, ActionState::kFailed);
  EXPECT_NE(Row(1, approve)->result.find("closed"), std::string::npos) << Row(1, approve)->result;

  // Reopened on the same head: the same key is tried again, and given once.
  ASSERT_TRUE(model_->SetState("octocat", kFullName, 1, "open").ok());
  ExecResult again = Run(1, fence, {approve});
  EXPECT_EQ(Results(again), std::vector<R>{R::kDone});
  EXPECT_EQ(AppEffects("review").size(), 1u);
}

// Labels are decided for an open PR on the plan's head: none is written on a PR closed since the
// plan, nor after its head moved (it would describe a state the PR is no longer in), and it stays
// retryable. The summary comment is written without that look: it names the head it judged, and
// the pass the push starts rewrites it next (one pass of a PR at a time).
TEST_F(ExecutorTest, NoLabelOnAPullRequestThatChangedSinceThePlanButTheSummaryNamesItsHead) {
  NewPull("one");
  NewPull("two");
  const PlannedAction label = Label(ActionKind::kLabel, 1, "ready-to-merge");
  const PlannedAction comment = Comment(2, "summary");
  ASSERT_TRUE(model_->SetState("octocat", kFullName, 1, "closed").ok());
  ASSERT_TRUE(model_->Push("octocat", kFullName, 2, "").ok());
  ExecResult r1 = Run(1, Claim(1), {label});
  ExecResult r2 = Run(2, Claim(2), {comment});
  EXPECT_EQ(Results(r1), std::vector<R>{R::kSuperseded});
  EXPECT_TRUE(r1.superseded);
  EXPECT_EQ(Row(1, label)->state, ActionState::kFailed);
  EXPECT_TRUE(AppEffects("label_add").empty());
  EXPECT_EQ(Results(r2), std::vector<R>{R::kDone});
  EXPECT_EQ(Row(2, comment)->state, ActionState::kDone);
  EXPECT_EQ(AppEffects("comment").size(), 1u);
}

// A merge refused because the PR was closed on the same head is `failed`, not the final
// `superseded`: a PR reopened on that head is merged.
TEST_F(ExecutorTest, AMergeRefusedOnAClosedPullRequestIsRetriedAfterItsReopen) {
  NewPull("one");
  const PlannedAction merge = Make(ActionKind::kMerge, 1);
  ASSERT_TRUE(model_->SetState("octocat", kFullName, 1, "closed").ok());
  const int64_t fence = Claim(1);
  ExecResult r = Run(1, fence, {merge});
  EXPECT_EQ(Results(r), std::vector<R>{R::kSuperseded});
  EXPECT_TRUE(r.superseded);
  EXPECT_EQ(Row(1, merge)->state, ActionState::kFailed);
  ASSERT_TRUE(model_->SetState("octocat", kFullName, 1, "open").ok());
  ExecResult again = Run(1, fence, {merge});
  EXPECT_EQ(Results(again), std::vector<R>{R::kDone});
  EXPECT_TRUE(model_->GetPull(kFullName, 1)->merged);
}

// A re-read that shows another head records it as the PR's latest head occurrence, so that the
// plan's head, if it comes back, is a new occurrence (act/head_occurrence.h).
TEST_F(ExecutorTest, AMovedHeadSeenByARereadIsRecorded) {
  NewPull("one");
  const PlannedAction merge = Make(ActionKind::kMerge, 1);
  ASSERT_TRUE(model_->Push("octocat", kFullName, 1, "").ok());
  const int64_t fence = Claim(1);
  ExecResult r = Run(1, fence, {merge});
  EXPECT_EQ(Results(r), std::vector<R>{R::kSuperseded});
  EXPECT_EQ(Row(1, merge)->state, ActionState::kSuperseded);
  auto latest = store_->ledger().LatestHeadOccurrence(Subject(1));
  ASSERT_TRUE(latest.ok());
  ASSERT_TRUE(latest->has_value());
  EXPECT_EQ((*latest)->head_sha, HeadOf(1));
  EXPECT_NE((*latest)->head_sha, merge.head_sha);
  EXPECT_EQ((*latest)->occurrence, 1);
}

// An approval intent of a head's second occurrence, left open by a crash: the first
// occurrence's approval of the same commit (done, then dismissed) is not mistaken for it.
TEST_F(ExecutorTest, ASecondOccurrencesOpenApprovalIsNotTakenForTheFirstOnesReview) {
  NewPull("one");
  const int64_t fence = Claim(1);
  const PlannedAction first = Make(ActionKind::kApprove, 1);
  ASSERT_EQ(Results(Run(1, fence, {first})), std::vector<R>{R::kDone});
  ASSERT_TRUE(
      model_
          ->DismissReview("maintainer", kFullName, 1, sim::ReviewChoice{0, kAppLogin, ""}, nullptr)
          .ok());
  PlannedAction second = first;
  second.head_occurrence = 2;
  OpenIntent(1, fence, second);  // a crash before the call
  ExecResult r = Run(1, fence, {second});
  EXPECT_EQ(Results(r), std::vector<R>{R::kDone}) << "no trace of this occurrence's review: call";
  EXPECT_EQ(AppEffects("review", 1).size(), 2u);

  // And a crash after the call: the third review is this intent's, reconciled without a call.
  ASSERT_TRUE(
      model_
          ->DismissReview("maintainer", kFullName, 1, sim::ReviewChoice{0, kAppLogin, ""}, nullptr)
          .ok());
  PlannedAction third = first;
  third.head_occurrence = 3;
  OpenIntent(1, fence, third);
  ASSERT_TRUE(
      model_->SubmitReview(kAppWho, kFullName, 1, "APPROVE", third.head_sha, "", nullptr).ok());
  ExecResult r3 = Run(1, fence, {third});
  EXPECT_EQ(Results(r3), std::vector<R>{R::kReconciled});
  EXPECT_EQ(AppEffects("review", 1).size(), 3u);
}

TEST_F(ExecutorTest, ACloseUndoneByAReopenIsReconciledNotRepeated) {
  NewPull("one");
  const int64_t fence = Claim(1);
  const PlannedAction close = Make(ActionKind::kClose, 1);
  OpenIntent(1, fence, close);  // the close was called; the process died before the outcome
  ASSERT_TRUE(model_->SetState(kAppWho, kFullName, 1, "closed").ok());
  clock_->Advance(seconds(5));
  ASSERT_TRUE(model_->SetState("alice", kFullName, 1, "open").ok());
  // No reopen webhook has arrived (none is recorded): GitHub's issue events tell.
  const size_t closes = AppEffects("close", 1).size();
  ExecResult r = Run(1, fence, {close});
  EXPECT_EQ(Results(r), std::vector<R>{R::kReconciled});
  EXPECT_EQ(AppEffects("close", 1).size(), closes) << "no second close";
  EXPECT_EQ(Row(1, close)->state, ActionState::kDone);
}

TEST_F(ExecutorTest, ACloseIntentWithoutAnyCloseIsCalledOnce) {
  NewPull("one");
  const int64_t fence = Claim(1);
  const PlannedAction close = Make(ActionKind::kClose, 1);
  OpenIntent(1, fence, close);  // the process died before the call reached GitHub
  // Someone else closed and reopened it meanwhile: not gatehouse's close.
  ASSERT_TRUE(model_->SetState("bob", kFullName, 1, "closed").ok());
  ASSERT_TRUE(model_->SetState("bob", kFullName, 1, "open").ok());
  ExecResult r = Run(1, fence, {close});
  EXPECT_EQ(Results(r), std::vector<R>{R::kDone});
  EXPECT_EQ(AppEffects("close", 1).size(), 1u);
  EXPECT_EQ(model_->GetPull(kFullName, 1)->state, "closed");
}

TEST_F(ExecutorTest, ReconcileOnlyNeverCalls) {
  NewPull("one");
  const int64_t fence = Claim(1);
  const PlannedAction merge = Make(ActionKind::kMerge, 1);
  OpenIntent(1, fence, merge);  // an intent whose call never reached GitHub
  options_.reconcile_only = true;
  ExecResult r = Run(1, fence, {merge});
  EXPECT_EQ(Results(r), std::vector<R>{R::kFailed});
  EXPECT_TRUE(AppEffects("merge").empty());
  EXPECT_EQ(Row(1, merge)->state, ActionState::kFailed);
  EXPECT_NE(Row(1, merge)->result.find("abandoned"), std::string::npos);
}

// An open queue_enter whose entry the store holds (a kill between the store's write and the
// ledger's outcome) is reconciled done from the store, even by a pass that only settles
// intents; one admitted by a command is found by its comment id too.
TEST_F(ExecutorTest, AnOpenQueueEnterIsReconciledFromTheStoresEntry) {
  NewPull("one");
  const int64_t fence = Claim(1);
  const std::string queue = QueueKey::Of(kFullName, "main")->key();
  PlannedAction enter = Make(ActionKind::kQueueEnter, 1, queue);
  enter.queue = queue;
  PlannedAction again = Make(ActionKind::kQueueEnter, 1, queue + "+comment:77");
  again.queue = queue;
  again.queue_admitted_by = 77;
  OpenIntent(1, fence, enter);
  OpenIntent(1, fence, again);
  ASSERT_TRUE(
      store_->queues()
          .Enter(queue, QueueEntryKey{Subject(1), enter.head_sha, 1, 0}, 0, fence, clock_->Now())
          .ok());
  options_.reconcile_only = true;
  ExecResult r = Run(1, fence, {enter, again});
  EXPECT_EQ(Results(r), (std::vector<R>{R::kReconciled, R::kFailed}))
      << "the command's entry was never made";
  EXPECT_EQ(Row(1, enter)->state, ActionState::kDone);
  EXPECT_EQ(Row(1, again)->state, ActionState::kFailed);
}

}  // namespace
}  // namespace gatehouse::act
