// The executor against a real SqliteStore on a temporary file and the real simulator (sim/),
// served in-process on our HttpServer and reached through GitHubClient over loopback with the
// App flow (JWT -> installation token). One SimClock drives the simulator, the client's rate
// limit windows and the ledger's timestamps. The simulator's effect log is the witness: every
// call the executor made, with the SHA it was bound to, and its HTTP status.
#include "act/executor.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "base/subject.h"
#include "github/client.h"
#include "github/transport.h"
#include "http/server.h"
#include "sim/in_process_github_test_util.h"
#include "sim/invariants.h"
#include "sim/model.h"
#include "sim/rest.h"
#include "store/store_test_util.h"

namespace gatehouse::act {
namespace {

using decide::ActionKind;
using decide::PlannedAction;
using R = ActionReport::Result;
using std::chrono::hours;
using std::chrono::seconds;

const Time kStart = Time(seconds(1796040000));  // 2026-11-30T12:00:00Z
constexpr int64_t kInstallation = 7;
const RepoRef kRepo{"acme", "app"};
constexpr char kFullName[] = "acme/app";
// How the simulator names the App: reviews and comments it makes carry this user.login.
// The App in the simulator's model and effect log, and how the simulator shows it (as GitHub
// shows an App: its slug plus [bot]).
const std::string kAppWho = "installation:" + std::to_string(kInstallation);
const std::string kAppLogin = "gatehouse[bot]";

std::string Subject(int number) { return std::string(kFullName) + "#" + std::to_string(number); }

class ExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(github_.Start());
    model_ = &github_.model();
    handler_ = &github_.handler();
    client_ = &github_.client();
    curl_ = &github_.transport();

    ASSERT_TRUE(model_->CreateRepo("acme", "app", kInstallation, {}).ok());
    auto store = OpenSqliteStore(dir_.File("gatehouse.db"));
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    store_ = std::move(store).value();
    options_.app_login = kAppLogin;
  }

  // A new open PR in the simulator.
  sim::PullRequest NewPull(const std::string& title) {
    sim::NewPull spec;
    spec.title = title;
    spec.head_ref = "feature-" + title;
    auto pr = model_->CreatePull(kFullName, spec);
    EXPECT_TRUE(pr.ok()) << pr.status().ToString();
    return pr.ok() ? *pr : sim::PullRequest{};
  }

  std::string HeadOf(int number) { return model_->GetPull(kFullName, number)->head_sha; }

  // Claims PR `number`'s work item (as a pass does) and returns the fence.
  int64_t Claim(int number) {
    Signal s{Subject(number), "pushed", {}};
    EXPECT_TRUE(store_->work().Enqueue({&s, 1}, clock_->Now(), Durability::kRecoverable).ok());
    auto leases = store_->work().Claim("w1", 1, hours(1), clock_->Now());
    EXPECT_TRUE(leases.ok() && leases->size() == 1u);
    return leases.ok() && !leases->empty() ? (*leases)[0].fence : 0;
  }

  Target TargetFor(int number) {
    return Target{Subject(number), kRepo, number, CallContext{kInstallation, false}};
  }

  ExecResult Run(int number, int64_t fence, const std::vector<PlannedAction>& actions) {
    decide::Plan plan;
    plan.actions = actions;
    return Execute(*store_, *client_, *clock_, TargetFor(number), fence, plan, options_);
  }

  // An action bound to PR `number`'s current head.
  PlannedAction Make(ActionKind kind, int number, std::string detail = "") {
    PlannedAction a;
    a.kind = kind;
    a.head_sha = HeadOf(number);
    a.detail = std::move(detail);
    a.why = "test";
    return a;
  }
  PlannedAction Label(ActionKind kind, int number, const std::string& label) {
    PlannedAction a = Make(kind, number, label);
    a.label = label;
    return a;
  }
  PlannedAction Comment(int number, const std::string& body) {
    PlannedAction a = Make(ActionKind::kComment, number, "summary:new");
    a.body = body;
    return a;
  }
  PlannedAction CheckRun(int number, const std::string& conclusion) {
    PlannedAction a = Make(ActionKind::kCheckRun, number, "gatehouse:completed:" + conclusion);
    a.check_status = "completed";
    a.check_conclusion = conclusion;
    a.check_title = "gatehouse: " + conclusion;
    a.check_summary = "summary of " + conclusion;
    return a;
  }

  // The app's calls of `kind` on PR `number` (0: any) in the simulator's effect log.
  std::vector<sim::Effect> AppEffects(const std::string& kind, int number = 0) {
    std::vector<sim::Effect> out;
    for (const sim::Effect& e : model_->Effects()) {
      if (e.who == kAppWho && e.kind == kind && (number == 0 || e.number == number)) {
        out.push_back(e);
      }
    }
    return out;
  }
  size_t AppEffectCount() {
    size_t n = 0;
    for (const sim::Effect& e : model_->Effects()) n += e.who == kAppWho;
    return n;
  }

  // The ledger row for `a` on PR `number`.
  std::optional<ActionRecord> Row(int number, const PlannedAction& a) {
    auto rows = store_->ledger().ListActions(Subject(number));
    EXPECT_TRUE(rows.ok());
    if (!rows.ok()) return std::nullopt;
    for (const ActionRecord& r : *rows) {
      if (r.key.kind == decide::ActionKindName(a.kind) && r.key.head_sha == a.head_sha &&
          r.key.detail == a.detail && r.key.head_occurrence == a.head_occurrence) {
        return r;
      }
    }
    return std::nullopt;
  }

  // Records an intent by hand, as a holder that crashed before its outcome would have.
  void OpenIntent(int number, int64_t fence, const PlannedAction& a) {
    ActionKey key{Subject(number), std::string(decide::ActionKindName(a.kind)), a.head_sha,
                  a.detail, a.head_occurrence};
    auto r = store_->ledger().RecordIntent(key, fence, clock_->Now());
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_EQ(r->kind, IntentResult::Kind::kRecorded);
  }

  void SetFaults(const std::string& json_body) {
    HttpRequest req;
    req.method = "PUT";
    req.target = "/_sim/faults";
    req.body = json_body;
    req.headers.emplace_back("Content-Type", "application/json");
    ASSERT_EQ(handler_->Serve(req).status, 200);
  }

  testing::TempDir dir_;
  std::shared_ptr<SimClock> clock_ = std::make_shared<SimClock>(kStart);
  sim_testing::InProcessGitHub github_{clock_};
  sim::Model* model_ = nullptr;
  sim::SimHandler* handler_ = nullptr;
  CurlTransport* curl_ = nullptr;
  GitHubClient* client_ = nullptr;
  StorePtr store_;
  ExecutorOptions options_;
};

std::vector<R> Results(const ExecResult& r) {
  std::vector<R> out;
  for (const ActionReport& a : r.actions) out.push_back(a.result);
  return out;
}

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
  EXPECT_NE(Row(1, approve)->result.find("dismissed"), std::string::npos) << Row(1, approve)->result;
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
  ASSERT_TRUE(store_->queues()
                  .Enter(queue, QueueEntryKey{Subject(1), enter.head_sha, 1, 0}, 0, fence,
                         clock_->Now())
                  .ok());
  options_.reconcile_only = true;
  ExecResult r = Run(1, fence, {enter, again});
  EXPECT_EQ(Results(r), (std::vector<R>{R::kReconciled, R::kFailed}))
      << "the command's entry was never made";
  EXPECT_EQ(Row(1, enter)->state, ActionState::kDone);
  EXPECT_EQ(Row(1, again)->state, ActionState::kFailed);
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
