// The executor: every kind called once and bound to its head, the ledger's keys and intents,
// and what each kind of GitHub error does to the action and to the rest of the plan
// (act/executor_test_util.h has the fixture: a real store and the real simulator).
#include "act/executor.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "act/executor_test_util.h"

namespace gatehouse::act {
namespace {

using namespace executor_testing;  // NOLINT(google-build-using-namespace): the tests' fixture

TEST_F(ExecutorTest, EveryKindIsCalledOnceBoundToTheHeadSha) {
  NewPull("one");
  const std::string head = HeadOf(1);
  ASSERT_TRUE(model_->AddLabels("control", kFullName, 1, {"changes-requested"}).ok());
  sim::Comment summary;
  ASSERT_TRUE(model_->AddComment(kAppWho, kFullName, 1, "old summary", &summary).ok());
  const size_t before = AppEffectCount();

  PlannedAction edit = Make(ActionKind::kComment, 1, "summary:edit");
  edit.comment_id = summary.id;
  edit.body = "new summary";
  PlannedAction approve = Make(ActionKind::kApprove, 1);
  approve.body = "gatehouse approves";
  PlannedAction request = Make(ActionKind::kRequestChanges, 1);
  request.body = "gatehouse asks for changes";
  PlannedAction merge = Make(ActionKind::kMerge, 1);
  merge.merge_method = decide::MergeMethod::kSquash;
  const int64_t fence = Claim(1);
  ExecResult r =
      Run(1, fence,
          {CheckRun(1, "success"), Comment(1, "hello"), edit,
           Label(ActionKind::kLabel, 1, "ready-to-merge"),
           Label(ActionKind::kUnlabel, 1, "changes-requested"), request, approve, merge});
  EXPECT_FALSE(r.stop.has_value()) << r.stop->error;
  EXPECT_FALSE(r.superseded);
  for (const ActionReport& a : r.actions) {
    EXPECT_EQ(a.result, R::kDone) << decide::ActionKindName(a.action.kind) << ": " << a.detail;
    EXPECT_GT(a.ledger_id, 0);
    auto row = Row(1, a.action);
    ASSERT_TRUE(row.has_value());
    EXPECT_EQ(row->state, ActionState::kDone);
  }
  EXPECT_EQ(AppEffectCount() - before, 8u) << "one call per action";

  // The SHA binding, as the simulator saw it.
  auto runs = model_->CheckRunsFor(kFullName, head);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].name, decide::kCheckRunName);
  EXPECT_EQ(runs[0].conclusion, "success");
  EXPECT_EQ(runs[0].title, "gatehouse: success");
  EXPECT_EQ(runs[0].external_id, r.actions[0].action.Key());
  ASSERT_EQ(AppEffects("check_run").size(), 1u);
  EXPECT_EQ(AppEffects("check_run")[0].sha, head);
  auto reviews = AppEffects("review", 1);
  ASSERT_EQ(reviews.size(), 2u);
  EXPECT_EQ(reviews[0].detail, "REQUEST_CHANGES");
  EXPECT_EQ(reviews[1].detail, "APPROVE");
  for (const auto& e : reviews) EXPECT_EQ(e.sha, head);
  ASSERT_EQ(AppEffects("merge", 1).size(), 1u);
  EXPECT_EQ(AppEffects("merge", 1)[0].sha, head);
  EXPECT_EQ(AppEffects("merge", 1)[0].status, 200);

  auto pr = model_->GetPull(kFullName, 1);
  EXPECT_TRUE(pr->merged);
  EXPECT_EQ(pr->labels, std::vector<std::string>{"ready-to-merge"});
  auto comments = model_->CommentsFor(kFullName, 1);
  ASSERT_EQ(comments.size(), 2u);
  EXPECT_EQ(comments[0].body, "new summary");
  EXPECT_EQ(comments[1].body, "hello");
  ASSERT_EQ(pr->reviews.size(), 2u);
  EXPECT_EQ(pr->reviews[1].state, "APPROVED");
  EXPECT_EQ(pr->reviews[1].commit_id, head);
}

TEST_F(ExecutorTest, CloseKindsAndUpdateBranchAreCalledOnce) {
  for (const char* t : {"two", "three", "four", "five"}) NewPull(t);
  ASSERT_TRUE(model_->MoveBase(kFullName, 4, /*conflicted=*/false).ok());
  const std::string head4 = HeadOf(4);
  int number = 1;
  for (ActionKind kind :
       {ActionKind::kClose, ActionKind::kDraftDodgeClose, ActionKind::kReopenReclose}) {
    ExecResult r = Run(number, Claim(number), {Make(kind, number)});
    ASSERT_EQ(r.actions.size(), 1u);
    EXPECT_EQ(r.actions[0].result, R::kDone) << r.actions[0].detail;
    EXPECT_EQ(model_->GetPull(kFullName, number)->state, "closed");
    EXPECT_EQ(AppEffects("close", number).size(), 1u);
    ++number;
  }
  ExecResult r = Run(4, Claim(4), {Make(ActionKind::kUpdateBranch, 4)});
  EXPECT_EQ(r.actions[0].result, R::kDone) << r.actions[0].detail;
  auto updates = AppEffects("update_branch", 4);
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].sha, head4) << "bound by expected_head_sha";
  EXPECT_NE(HeadOf(4), head4);
}

TEST_F(ExecutorTest, DoneKeysAreSkippedOnASecondExecute) {
  NewPull("one");
  PlannedAction approve = Make(ActionKind::kApprove, 1);
  const std::vector<PlannedAction> plan = {CheckRun(1, "success"), Comment(1, "hello"),
                                           Label(ActionKind::kLabel, 1, "ready-to-merge"), approve,
                                           Make(ActionKind::kMerge, 1)};
  const int64_t fence = Claim(1);
  ExecResult first = Run(1, fence, plan);
  EXPECT_EQ(Results(first), std::vector<R>(5, R::kDone));
  const size_t effects = AppEffectCount();

  ExecResult second = Run(1, fence, plan);
  EXPECT_EQ(Results(second), std::vector<R>(5, R::kAlreadyDone));
  EXPECT_FALSE(second.stop.has_value());
  EXPECT_EQ(AppEffectCount(), effects) << "nothing is done twice";
  EXPECT_EQ(second.actions[4].ledger_id, first.actions[4].ledger_id);
  EXPECT_EQ(AppEffects("merge", 1).size(), 1u);
}

TEST_F(ExecutorTest, APushBeforeTheMergeSupersedesItAndStopsThePlan) {
  NewPull("one");
  // A check run belongs to its commit, so it is not superseded by the push; the merge is.
  const std::vector<PlannedAction> plan = {CheckRun(1, "success"), Make(ActionKind::kMerge, 1),
                                           Comment(1, "merged!")};
  ASSERT_TRUE(model_->Push("octocat", kFullName, 1, "").ok());  // after the plan
  const int64_t fence = Claim(1);
  ExecResult r = Run(1, fence, plan);
  EXPECT_EQ(Results(r), (std::vector<R>{R::kDone, R::kSuperseded, R::kNotRun}));
  EXPECT_TRUE(r.superseded);
  EXPECT_FALSE(r.stop.has_value()) << "a superseded plan ends the pass normally";
  auto merges = AppEffects("merge", 1);
  ASSERT_EQ(merges.size(), 1u);
  EXPECT_EQ(merges[0].status, 409);
  EXPECT_EQ(merges[0].sha, plan[1].head_sha);
  EXPECT_FALSE(model_->GetPull(kFullName, 1)->merged);
  EXPECT_EQ(Row(1, plan[1])->state, ActionState::kSuperseded);
  EXPECT_FALSE(Row(1, plan[2]).has_value()) << "not run: no ledger row";
  EXPECT_TRUE(AppEffects("comment", 1).empty());

  // The same stale plan again: nothing is called.
  const size_t effects = AppEffectCount();
  ExecResult again = Run(1, fence, plan);
  EXPECT_EQ(Results(again), (std::vector<R>{R::kAlreadyDone, R::kSuperseded, R::kNotRun}));
  EXPECT_EQ(AppEffectCount(), effects);
}

TEST_F(ExecutorTest, AnOpenIntentWhoseEffectExistsIsReconciledWithoutACall) {
  for (const char* t : {"one", "two", "three", "four"}) NewPull(t);
  ASSERT_TRUE(model_->AddLabels("control", kFullName, 1, {"stale"}).ok());
  ASSERT_TRUE(model_->MoveBase(kFullName, 4, /*conflicted=*/false).ok());
  const int64_t f1 = Claim(1), f2 = Claim(2), f3 = Claim(3), f4 = Claim(4);

  // PR 1: a crash after each call and before its outcome.
  PlannedAction run = CheckRun(1, "failure");
  PlannedAction comment = Comment(1, "summary body");
  PlannedAction label = Label(ActionKind::kLabel, 1, "ready-to-merge");
  PlannedAction unlabel = Label(ActionKind::kUnlabel, 1, "stale");
  PlannedAction approve = Make(ActionKind::kApprove, 1);
  const std::vector<PlannedAction> plan1 = {run, comment, label, unlabel, approve};
  for (const auto& a : plan1) OpenIntent(1, f1, a);
  sim::CheckRun spec;
  spec.name = std::string(decide::kCheckRunName);
  spec.head_sha = run.head_sha;
  spec.status = "completed";
  spec.conclusion = "failure";
  ASSERT_TRUE(model_->UpsertCheckRun(kAppWho, kFullName, spec, nullptr).ok());
  ASSERT_TRUE(model_->AddComment(kAppWho, kFullName, 1, "summary body", nullptr).ok());
  ASSERT_TRUE(model_->AddLabels(kAppWho, kFullName, 1, {"ready-to-merge"}).ok());
  ASSERT_TRUE(model_->RemoveLabel(kAppWho, kFullName, 1, "stale").ok());
  ASSERT_TRUE(
      model_->SubmitReview(kAppWho, kFullName, 1, "APPROVE", approve.head_sha, "", nullptr).ok());
  // PR 2 merged, PR 3 closed, PR 4's branch updated.
  PlannedAction merge = Make(ActionKind::kMerge, 2);
  OpenIntent(2, f2, merge);
  ASSERT_TRUE(model_->Merge(kAppWho, kFullName, 2, merge.head_sha, "squash").ok());
  PlannedAction close = Make(ActionKind::kClose, 3);
  OpenIntent(3, f3, close);
  ASSERT_TRUE(model_->SetState(kAppWho, kFullName, 3, "closed").ok());
  PlannedAction update = Make(ActionKind::kUpdateBranch, 4);
  OpenIntent(4, f4, update);
  ASSERT_TRUE(model_->UpdateBranch(kAppWho, kFullName, 4, update.head_sha).ok());
  const size_t effects = AppEffectCount();

  ExecResult r1 = Run(1, f1, plan1);
  EXPECT_EQ(Results(r1), std::vector<R>(5, R::kReconciled));
  for (const auto& a : r1.actions) {
    EXPECT_EQ(Row(1, a.action)->state, ActionState::kDone) << a.detail;
    EXPECT_NE(a.detail.find("reconciled"), std::string::npos) << a.detail;
  }
  EXPECT_EQ(Results(Run(2, f2, {merge})), std::vector<R>{R::kReconciled});
  EXPECT_EQ(Results(Run(3, f3, {close})), std::vector<R>{R::kReconciled});
  EXPECT_EQ(Results(Run(4, f4, {update})), std::vector<R>{R::kReconciled});
  EXPECT_EQ(AppEffectCount(), effects) << "reconciliation reads; it does not call again";
  EXPECT_EQ(AppEffects("check_run").size(), 1u);
  EXPECT_EQ(AppEffects("comment", 1).size(), 1u);
  EXPECT_EQ(AppEffects("review", 1).size(), 1u);
  EXPECT_EQ(AppEffects("merge", 2).size(), 1u);
}

TEST_F(ExecutorTest, AnOpenIntentWithoutItsEffectIsCalledOnce) {
  NewPull("one");
  NewPull("two");
  const int64_t f1 = Claim(1), f2 = Claim(2);
  PlannedAction approve = Make(ActionKind::kApprove, 1);
  PlannedAction comment = Comment(1, "summary body");
  // Someone else's comment with the same body is not ours.
  ASSERT_TRUE(model_->AddComment("alice", kFullName, 1, "summary body", nullptr).ok());
  OpenIntent(1, f1, approve);
  OpenIntent(1, f1, comment);
  ExecResult r = Run(1, f1, {approve, comment});
  EXPECT_EQ(Results(r), (std::vector<R>{R::kDone, R::kDone}));
  EXPECT_EQ(AppEffects("review", 1).size(), 1u);
  EXPECT_EQ(AppEffects("comment", 1).size(), 1u);
  EXPECT_EQ(Row(1, approve)->state, ActionState::kDone);

  // An open merge intent whose head has moved since: superseded without a call.
  PlannedAction merge = Make(ActionKind::kMerge, 2);
  OpenIntent(2, f2, merge);
  ASSERT_TRUE(model_->Push("octocat", kFullName, 2, "").ok());
  ExecResult moved = Run(2, f2, {merge, Comment(2, "after")});
  EXPECT_EQ(Results(moved), (std::vector<R>{R::kSuperseded, R::kNotRun}));
  EXPECT_TRUE(moved.superseded);
  EXPECT_TRUE(AppEffects("merge", 2).empty());
  EXPECT_EQ(Row(2, merge)->state, ActionState::kSuperseded);
}

TEST_F(ExecutorTest, ASecondaryRateLimitRecordsFailedAndStopsUntilTheReset) {
  NewPull("one");
  const int64_t fence = Claim(1);
  ASSERT_TRUE(client_->GetPullRequest({kInstallation, false}, kRepo, 1).ok());  // a token
  const std::vector<PlannedAction> plan = {Label(ActionKind::kLabel, 1, "ready-to-merge"),
                                           Comment(1, "hello")};
  SetFaults(R"({"secondary_rate_limits":1,"retry_after_seconds":30})");
  const Time now = clock_->Now();
  ExecResult r = Run(1, fence, plan);
  EXPECT_EQ(Results(r), (std::vector<R>{R::kRateLimited, R::kNotRun}));
  ASSERT_TRUE(r.stop.has_value());
  EXPECT_FALSE(r.stop->ok);
  EXPECT_EQ(r.stop->failure, FailureClass::kRateLimited);
  EXPECT_EQ(r.stop->until, now + seconds(30));
  EXPECT_EQ(Row(1, plan[0])->state, ActionState::kFailed);
  EXPECT_TRUE(AppEffects("label_add").empty()) << "the call did not happen";

  clock_->Advance(seconds(31));
  ExecResult later = Run(1, fence, plan);
  EXPECT_EQ(Results(later), (std::vector<R>{R::kDone, R::kDone}));
  EXPECT_EQ(AppEffects("label_add").size(), 1u);
  EXPECT_EQ(Row(1, plan[0])->attempts, 2);
}

TEST_F(ExecutorTest, ATransientErrorLeavesTheIntentOpenForReconciliation) {
  NewPull("one");
  const int64_t fence = Claim(1);
  ASSERT_TRUE(client_->GetPullRequest({kInstallation, false}, kRepo, 1).ok());
  PlannedAction label = Label(ActionKind::kLabel, 1, "ready-to-merge");
  PlannedAction comment = Comment(1, "hello");

  // The label's call fails (the PR read before it does not).
  SetFaults(
      R"({"aimed":[{"method":"POST","path":"*/labels","fault":"server_error","status":503}]})");
  ExecResult r = Run(1, fence, {label, comment});
  EXPECT_EQ(Results(r), (std::vector<R>{R::kUnknown, R::kNotRun}));
  ASSERT_TRUE(r.stop.has_value());
  EXPECT_EQ(r.stop->failure, FailureClass::kTransient);
  EXPECT_EQ(Row(1, label)->state, ActionState::kIntent) << "the outcome is unknown";

  // Suppose the label did land (GitHub applied it and the answer was lost): reconciled.
  ASSERT_TRUE(model_->AddLabels(kAppWho, kFullName, 1, {"ready-to-merge"}).ok());
  EXPECT_EQ(Results(Run(1, fence, {label})), std::vector<R>{R::kReconciled});
  EXPECT_EQ(Row(1, label)->state, ActionState::kDone);

  // A reset connection is transient too. Once is enough: mutations never go out on a reused
  // connection, which libcurl would silently retry (a possible second effect).
  SetFaults(R"({"aimed":[{"method":"POST","path":"*/comments","fault":"connection_reset"}]})");
  ExecResult next = Run(1, fence, {comment});
  EXPECT_EQ(Results(next), std::vector<R>{R::kUnknown});
  EXPECT_NE(next.actions[0].detail.find("Transient"), std::string::npos) << next.actions[0].detail;
  ASSERT_TRUE(next.stop.has_value());
  EXPECT_EQ(next.stop->failure, FailureClass::kTransient);
  EXPECT_EQ(Row(1, comment)->state, ActionState::kIntent);
  EXPECT_TRUE(AppEffects("comment", 1).empty()) << "a reset connection had no effect";

  // The reset comment did not land: reconciliation finds nothing and calls once.
  ExecResult last = Run(1, fence, {label, comment});
  EXPECT_EQ(Results(last), (std::vector<R>{R::kAlreadyDone, R::kDone}));
  EXPECT_FALSE(last.stop.has_value());
  EXPECT_EQ(AppEffects("comment", 1).size(), 1u);
  EXPECT_EQ(AppEffects("label_add", 1).size(), 1u);
}

TEST_F(ExecutorTest, ARateLimitWhileReconcilingKeepsTheIntentOpen) {
  NewPull("one");
  const int64_t fence = Claim(1);
  ASSERT_TRUE(client_->GetPullRequest({kInstallation, false}, kRepo, 1).ok());
  PlannedAction merge = Make(ActionKind::kMerge, 1);
  OpenIntent(1, fence, merge);
  SetFaults(R"({"secondary_rate_limits":1,"retry_after_seconds":30})");
  ExecResult r = Run(1, fence, {merge});
  EXPECT_EQ(Results(r), std::vector<R>{R::kRateLimited});
  ASSERT_TRUE(r.stop.has_value());
  EXPECT_EQ(r.stop->failure, FailureClass::kRateLimited);
  EXPECT_EQ(Row(1, merge)->state, ActionState::kIntent)
      << "not failed: a failed row would be retried without reconciling";
  EXPECT_TRUE(AppEffects("merge").empty());
}

TEST_F(ExecutorTest, ALostFenceStopsBeforeAnyCall) {
  NewPull("one");
  const int64_t stale = Claim(1);
  // The lease runs out and another worker claims the PR.
  auto leases = store_->work().Claim("w2", 1, hours(1), clock_->Now() + hours(2));
  ASSERT_TRUE(leases.ok() && leases->size() == 1u);
  ASSERT_GT((*leases)[0].fence, stale);
  const size_t effects = AppEffectCount();
  ExecResult r =
      Run(1, stale, {Label(ActionKind::kLabel, 1, "ready-to-merge"), Make(ActionKind::kMerge, 1)});
  EXPECT_EQ(Results(r), (std::vector<R>{R::kNotRun, R::kNotRun}));
  ASSERT_TRUE(r.stop.has_value());
  EXPECT_EQ(r.stop->failure, FailureClass::kTransient);
  EXPECT_NE(r.actions[0].detail.find("fence"), std::string::npos) << r.actions[0].detail;
  EXPECT_EQ(AppEffectCount(), effects);
  auto rows = store_->ledger().ListActions(Subject(1));
  ASSERT_TRUE(rows.ok());
  EXPECT_TRUE(rows->empty());
}

TEST_F(ExecutorTest, OtherErrorsAreRecordedFailedAndThePlanGoesOn) {
  NewPull("one");
  const int64_t fence = Claim(1);
  PlannedAction edit = Make(ActionKind::kComment, 1, "summary:999");
  edit.comment_id = 999;  // no such comment: 404
  edit.body = "new";
  // Removing a label that is not there is not an error: it is already gone.
  ExecResult r =
      Run(1, fence, {edit, Label(ActionKind::kUnlabel, 1, "absent"), CheckRun(1, "neutral")});
  EXPECT_EQ(Results(r), (std::vector<R>{R::kFailed, R::kDone, R::kDone}));
  EXPECT_FALSE(r.stop.has_value());
  EXPECT_EQ(Row(1, edit)->state, ActionState::kFailed);
  EXPECT_NE(r.actions[0].detail.find("404"), std::string::npos) << r.actions[0].detail;
}

TEST_F(ExecutorTest, TheAfterCallHookRunsBetweenTheCallAndItsOutcome) {
  NewPull("one");
  const int64_t fence = Claim(1);
  std::vector<std::string> seen;
  options_.after_call = [&](const PlannedAction& a) {
    seen.push_back(std::string(decide::ActionKindName(a.kind)));
    auto row = Row(1, a);
    ASSERT_TRUE(row.has_value());
    EXPECT_EQ(row->state, ActionState::kIntent) << "the outcome is recorded after the hook";
    EXPECT_EQ(model_->GetPull(kFullName, 1)->labels, std::vector<std::string>{"ready-to-merge"})
        << "the call has returned";
  };
  PlannedAction label = Label(ActionKind::kLabel, 1, "ready-to-merge");
  ExecResult r = Run(1, fence, {label});
  EXPECT_EQ(Results(r), std::vector<R>{R::kDone});
  EXPECT_EQ(seen, std::vector<std::string>{"label"});
  Run(1, fence, {label});  // already done: no call, no hook
  EXPECT_EQ(seen.size(), 1u);
}

TEST(ActionResultNameTest, NamesEveryResult) {
  EXPECT_EQ(ActionResultName(R::kDone), "done");
  EXPECT_EQ(ActionResultName(R::kAlreadyDone), "already_done");
  EXPECT_EQ(ActionResultName(R::kReconciled), "reconciled");
  EXPECT_EQ(ActionResultName(R::kSuperseded), "superseded");
  EXPECT_EQ(ActionResultName(R::kFailed), "failed");
  EXPECT_EQ(ActionResultName(R::kRateLimited), "rate_limited");
  EXPECT_EQ(ActionResultName(R::kUnknown), "unknown");
  EXPECT_EQ(ActionResultName(R::kNotRun), "not_run");
}

}  // namespace
}  // namespace gatehouse::act
