// The review-run part of the Store contract (store/review_runs.h): a run is created exactly once
// per key, whoever asks and however concurrently; every write is fenced; cancellation by head;
// dead runs derived from their work item and revived by re-arming it; the funnel balances.
// Assignment, slots and pause: store/review_slots_contract_test.cc.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

#include "store/review_runs_test_util.h"

namespace gatehouse {
namespace {

using std::chrono::seconds;
using testing::kReviewT0;
using ReviewRunsContractTest = testing::ReviewRunsTest;

using testing::kT0;
const ReviewRunKey kSecurity{"acme/app#1", "security", "sha1", "auto"};
const std::vector<ReviewerSlotSpec> kOneReviewer{{"alice", 2}};

ReviewRunKey WithHead(ReviewRunKey key, const std::string& head) {
  key.head_sha = head;
  return key;
}
ReviewRunKey WithRole(ReviewRunKey key, const std::string& role) {
  key.role = role;
  return key;
}

TEST_P(ReviewRunsContractTest, WorkKeysRoundTrip) {
  EXPECT_EQ(ReviewWorkKey("acme/app#12", "security"), "acme/app#12/review/security");
  std::string subject, role;
  ASSERT_TRUE(ParseReviewWorkKey("acme/app#12/review/security", &subject, &role));
  EXPECT_EQ(subject, "acme/app#12");
  EXPECT_EQ(role, "security");
  EXPECT_FALSE(ParseReviewWorkKey("acme/app#12", &subject, &role));
  EXPECT_FALSE(ParseReviewWorkKey("acme/app#12/review/", &subject, &role));
  EXPECT_FALSE(ParseReviewWorkKey("acme/app/review/x", &subject, &role)) << "no PR number";
  EXPECT_FALSE(ParseReviewWorkKey("acme/app#1/review/a/b", &subject, &role));
  for (RunState s : {RunState::kQueued, RunState::kRunning, RunState::kFinished, RunState::kDone,
                     RunState::kCancelled, RunState::kSuperseded, RunState::kDead}) {
    RunState back = RunState::kQueued;
    ASSERT_TRUE(ParseRunState(RunStateName(s), &back));
    EXPECT_EQ(back, s);
    EXPECT_EQ(IsTerminal(s),
              s == RunState::kDone || s == RunState::kCancelled || s == RunState::kSuperseded);
  }
}

TEST_P(ReviewRunsContractTest, ARequestCreatesOneQueuedRunAndSignalsItsWorkItem) {
  ReviewRuns::Requested first = Request(kSecurity, kT0);
  ASSERT_TRUE(first.created);
  EXPECT_GT(first.run.id, 0);
  EXPECT_EQ(first.run.key, kSecurity);
  EXPECT_EQ(first.run.state, RunState::kQueued);
  EXPECT_EQ(first.run.reviewer, "");
  EXPECT_FALSE(first.run.assigned_at.has_value());
  EXPECT_EQ(first.run.starts, 0);
  EXPECT_EQ(first.run.created_at, kT0);
  auto item = work().GetWorkItem("acme/app#1/review/security");
  ASSERT_TRUE(item.ok() && item->has_value());
  EXPECT_EQ((*item)->state, WorkState::kPending);
  EXPECT_EQ((*item)->due_at, kT0) << "no debounce";
  EXPECT_EQ((*item)->reasons, std::vector<std::string>{"review-run"});
  EXPECT_EQ((*item)->requested_gen, 1);

  ReviewRuns::Requested again = Request(kSecurity, kT0 + seconds(5));
  EXPECT_FALSE(again.created);
  EXPECT_EQ(again.run.id, first.run.id);
  EXPECT_EQ(again.run.created_at, kT0);
  auto after = work().GetWorkItem("acme/app#1/review/security");
  ASSERT_TRUE(after.ok() && after->has_value());
  EXPECT_EQ((*after)->requested_gen, 1) << "a duplicate request writes nothing";

  // Another head, role or trigger is another run, on the same or another work item.
  EXPECT_TRUE(Request(WithHead(kSecurity, "sha2"), kT0).created);
  ReviewRunKey comment = kSecurity;
  comment.trigger = "comment:991";
  EXPECT_TRUE(Request(comment, kT0).created);
  EXPECT_TRUE(Request(WithRole(kSecurity, "style"), kT0).created);
  auto all = reviews().ListRuns("acme/app#1");
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 4u);
  EXPECT_EQ((*all)[0].id, first.run.id) << "oldest first";
  auto security = reviews().ListRuns("acme/app#1", "security");
  ASSERT_TRUE(security.ok());
  EXPECT_EQ(security->size(), 3u);
}

TEST_P(ReviewRunsContractTest, ARequestUnderAStaleFenceWritesNothing) {
  const int64_t fence = PrFence("acme/app#1", kT0);
  auto stale = reviews().RequestRun(kSecurity, "acme/app#1", fence - 1, kT0);
  EXPECT_EQ(stale.status().code(), StatusCode::kFenceLost);
  auto unknown = reviews().RequestRun(kSecurity, "acme/app#404", 1, kT0);
  EXPECT_EQ(unknown.status().code(), StatusCode::kFenceLost);
  auto runs = reviews().ListRuns("acme/app#1");
  ASSERT_TRUE(runs.ok());
  EXPECT_TRUE(runs->empty());
  auto item = work().GetWorkItem("acme/app#1/review/security");
  ASSERT_TRUE(item.ok());
  EXPECT_FALSE(item->has_value()) << "no signal either";
}

TEST_P(ReviewRunsContractTest, BadKeysAreRefused) {
  const int64_t fence = PrFence("acme/app#1", kT0);
  for (const ReviewRunKey& bad : {ReviewRunKey{"acme/app", "security", "sha1", "auto"},
                                  ReviewRunKey{"acme/app#1", "", "sha1", "auto"},
                                  ReviewRunKey{"acme/app#1", "a/b", "sha1", "auto"},
                                  ReviewRunKey{"acme/app#1", "security", "", "auto"},
                                  ReviewRunKey{"acme/app#1", "security", "sha1", ""}}) {
    EXPECT_EQ(reviews().RequestRun(bad, "acme/app#1", fence, kT0).status().code(),
              StatusCode::kInvalidArgument)
        << bad.subject << " " << bad.role << " " << bad.head_sha << " " << bad.trigger;
  }
}

// Eight passes of one PR asking at once (one store, eight threads): one run.
TEST_P(ReviewRunsContractTest, EightConcurrentRequestsMakeOneRun) {
  const int64_t fence = PrFence("acme/app#1", kT0);
  std::atomic<int> created{0}, failed{0};
  std::vector<int64_t> ids(8);
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&, i] {
      auto r = reviews().RequestRun(kSecurity, "acme/app#1", fence, kT0);
      if (!r.ok()) {
        failed.fetch_add(1);
        return;
      }
      ids[i] = r->run.id;
      if (r->created) created.fetch_add(1);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(created.load(), 1);
  EXPECT_EQ(std::set<int64_t>(ids.begin(), ids.end()).size(), 1u);
  auto runs = reviews().ListRuns("acme/app#1");
  ASSERT_TRUE(runs.ok());
  EXPECT_EQ(runs->size(), 1u);
  auto funnel = reviews().GetReviewFunnel();
  ASSERT_TRUE(funnel.ok());
  EXPECT_EQ(funnel->requested, 1);
}

// Two stores on one database, as two processes: each key is created by exactly one of them.
TEST_P(ReviewRunsContractTest, TwoStoresOnOneDatabaseCreateEachRunOnce) {
  const int64_t fence = PrFence("acme/app#1", kT0);
  StorePtr other = GetParam().open_again(dir_);
  constexpr int kHeads = 25;
  std::atomic<int> created{0}, failed{0};
  auto ask = [&](Store* s) {
    for (int h = 0; h < kHeads; ++h) {
      auto r = s->reviews().RequestRun(WithHead(kSecurity, "sha" + std::to_string(h)), "acme/app#1",
                                       fence, kT0);
      if (!r.ok()) failed.fetch_add(1);
      if (r.ok() && r->created) created.fetch_add(1);
    }
  };
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) threads.emplace_back(ask, i % 2 == 0 ? store_.get() : other.get());
  for (auto& t : threads) t.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(created.load(), kHeads);
  auto runs = other->reviews().ListRuns("acme/app#1");
  ASSERT_TRUE(runs.ok());
  EXPECT_EQ(runs->size(), static_cast<size_t>(kHeads));
}

// A run's writes need its own work item's current fence; a stale one writes nothing.
TEST_P(ReviewRunsContractTest, RunWritesUnderAStaleFenceWriteNothing) {
  auto [run, stale] = RequestAndClaim(kSecurity, kT0);
  // The lease runs out and another worker reclaims the run's item.
  const int64_t fresh = ClaimNext("acme/app#1/review/security", kT0 + seconds(31)).fence;
  ASSERT_GT(fresh, stale);
  const Time now = kT0 + seconds(32);
  auto assigned = reviews().AssignAndClaimSlot(run.id, kOneReviewer, stale, now);
  EXPECT_EQ(assigned.status().code(), StatusCode::kFenceLost);
  EXPECT_EQ(reviews().RecordResult(run.id, "{}", stale, now).code(), StatusCode::kFenceLost);
  EXPECT_EQ(reviews().EndRun(run.id, RunState::kCancelled, "x", 0, stale, now).code(),
            StatusCode::kFenceLost);
  EXPECT_EQ(reviews().ReleaseSlot("acme/app#1/review/security", stale, now).code(),
            StatusCode::kFenceLost);
  EXPECT_EQ(reviews().EndRun(run.id, RunState::kCancelled, "x", 0, run.id + 100, now).code(),
            StatusCode::kFenceLost);
  ReviewRun unchanged = Run(run.id);
  EXPECT_EQ(unchanged.state, RunState::kQueued);
  EXPECT_EQ(unchanged.reviewer, "");
  EXPECT_EQ(unchanged.updated_at, kT0);
  EXPECT_EQ(Busy(now)["alice"], 0);
  EXPECT_EQ(Assign(run.id, kOneReviewer, fresh, now).kind, Assignment::Kind::kAssigned);
}

TEST_P(ReviewRunsContractTest, ARunGoesQueuedRunningFinishedDone) {
  ASSERT_TRUE(reviews()
                  .EnsureReviewers(std::vector<std::pair<std::string, bool>>{{"alice", false}}, kT0)
                  .ok());
  auto [run, fence] = RequestAndClaim(kSecurity, kT0);
  EXPECT_EQ(reviews().RecordResult(run.id, "{}", fence, kT0).code(),
            StatusCode::kFailedPrecondition)
      << "no result before an executor started";
  Assignment a = Assign(run.id, kOneReviewer, fence, kT0 + seconds(1));
  ASSERT_EQ(a.kind, Assignment::Kind::kAssigned);
  ReviewRun running = Run(run.id);
  EXPECT_EQ(running.state, RunState::kRunning);
  EXPECT_EQ(running.reviewer, "alice");
  EXPECT_EQ(running.assigned_at, kT0 + seconds(1));
  EXPECT_EQ(running.assigned_fence, fence);
  EXPECT_EQ(running.starts, 1);
  EXPECT_EQ(Busy(kT0 + seconds(1))["alice"], 1);

  ASSERT_TRUE(
      reviews().RecordResult(run.id, R"({"verdict":"approve"})", fence, kT0 + seconds(2)).ok());
  ReviewRun finished = Run(run.id);
  EXPECT_EQ(finished.state, RunState::kFinished);
  EXPECT_EQ(finished.result_json, R"({"verdict":"approve"})");
  EXPECT_EQ(Busy(kT0 + seconds(2))["alice"], 0) << "the result releases the slot";

  EXPECT_EQ(reviews().EndRun(run.id, RunState::kQueued, "", 0, fence, kT0).code(),
            StatusCode::kInvalidArgument);
  ASSERT_TRUE(
      reviews().EndRun(run.id, RunState::kDone, "posted", 4242, fence, kT0 + seconds(3)).ok());
  ReviewRun done = Run(run.id);
  EXPECT_EQ(done.state, RunState::kDone);
  EXPECT_EQ(done.review_id, 4242);
  EXPECT_EQ(done.reason, "posted");
  EXPECT_EQ(done.updated_at, kT0 + seconds(3));
  EXPECT_TRUE(reviews().EndRun(run.id, RunState::kDone, "posted", 4242, fence, kT0).ok())
      << "ending it the same way again is a no-op";
  EXPECT_EQ(Run(run.id).updated_at, kT0 + seconds(3));
  EXPECT_EQ(reviews().EndRun(run.id, RunState::kCancelled, "late", 0, fence, kT0).code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(reviews().RecordResult(run.id, "{}", fence, kT0).code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(reviews().AssignAndClaimSlot(run.id, kOneReviewer, fence, kT0).status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(reviews().RecordResult(run.id + 99, "{}", fence, kT0).code(), StatusCode::kNotFound);
  auto missing = reviews().GetRun(run.id + 99);
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
}

TEST_P(ReviewRunsContractTest, CancellingByHeadKeepsTheNewHeadAndEndedRuns) {
  const int64_t pr = PrFence("acme/app#1", kT0);
  // An old-head run that already ended stays as it ended.
  auto [old_docs, docs_fence] = RequestAndClaim(WithRole(kSecurity, "docs"), kT0);
  ASSERT_TRUE(
      reviews().EndRun(old_docs.id, RunState::kSuperseded, "head moved", 0, docs_fence, kT0).ok());
  ReviewRun old_security = Request(kSecurity, kT0).run;
  ReviewRun old_style = Request(WithRole(kSecurity, "style"), kT0).run;
  ReviewRun new_security = Request(WithHead(kSecurity, "sha2"), kT0).run;

  auto stale = reviews().CancelRuns("acme/app#1", "sha2", "pushed", "acme/app#1", pr - 1, kT0);
  EXPECT_EQ(stale.status().code(), StatusCode::kFenceLost);
  EXPECT_EQ(Run(old_security.id).state, RunState::kQueued) << "a stale cancel writes nothing";

  auto keys = reviews().CancelRuns("acme/app#1", "sha2", "pushed: head is sha2", "acme/app#1", pr,
                                   kT0 + seconds(1));
  ASSERT_TRUE(keys.ok()) << keys.status().ToString();
  EXPECT_EQ(*keys,
            (std::vector<std::string>{"acme/app#1/review/security", "acme/app#1/review/style"}));
  EXPECT_EQ(Run(old_security.id).state, RunState::kCancelled);
  EXPECT_EQ(Run(old_security.id).reason, "pushed: head is sha2");
  EXPECT_EQ(Run(old_style.id).state, RunState::kCancelled);
  EXPECT_EQ(Run(new_security.id).state, RunState::kQueued);
  EXPECT_EQ(Run(old_docs.id).state, RunState::kSuperseded);

  auto all = reviews().CancelRuns("acme/app#1", "", "closed", "acme/app#1", pr, kT0 + seconds(2));
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, std::vector<std::string>{"acme/app#1/review/security"});
  EXPECT_EQ(Run(new_security.id).state, RunState::kCancelled);
  auto none = reviews().CancelRuns("acme/app#1", "", "closed", "acme/app#1", pr, kT0);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

// A run whose work item died reads as dead, with the item's error; re-arming revives it.
TEST_P(ReviewRunsContractTest, ADeadWorkItemMakesItsRunsDeadUntilRearmed) {
  auto [run, fence] = RequestAndClaim(kSecurity, kT0);
  PassFinish dead;
  dead.key = "acme/app#1/review/security";
  dead.fence = fence;
  dead.kind = PassFinish::Kind::kDead;
  dead.error = "unavailable for 360 min, budget spent: reviewer alice paused";
  auto f = work().Finish({&dead, 1}, kT0 + seconds(1));
  ASSERT_TRUE(f.ok() && (*f)[0].ok());
  ReviewRun got = Run(run.id);
  EXPECT_EQ(got.state, RunState::kDead);
  EXPECT_EQ(got.reason, dead.error);
  auto listed = reviews().ListRuns("acme/app#1");
  ASSERT_TRUE(listed.ok() && listed->size() == 1u);
  EXPECT_EQ((*listed)[0].state, RunState::kDead);
  auto funnel = reviews().GetReviewFunnel();
  ASSERT_TRUE(funnel.ok());
  EXPECT_EQ(funnel->dead, 1);
  EXPECT_EQ(funnel->in_flight, 0);
  auto counts = reviews().CountRuns();  // the metrics count it dead too, by role and reviewer
  ASSERT_TRUE(counts.ok()) << counts.status().ToString();
  ASSERT_EQ(counts->size(), 1u);
  EXPECT_EQ((*counts)[0].role, "security");
  EXPECT_EQ((*counts)[0].reviewer, got.reviewer);
  EXPECT_EQ((*counts)[0].state, RunState::kDead);
  EXPECT_EQ((*counts)[0].count, 1);
  auto waiting = reviews().WaitingWorkKeys();
  ASSERT_TRUE(waiting.ok());
  EXPECT_TRUE(waiting->empty()) << "a dead run waits for nothing but a re-arm";

  ASSERT_TRUE(work().Rearm("acme/app#1/review/security", kT0 + seconds(2)).ok());
  ReviewRun revived = Run(run.id);
  EXPECT_EQ(revived.state, RunState::kQueued);
  EXPECT_EQ(revived.reason, "");
  funnel = reviews().GetReviewFunnel();
  ASSERT_TRUE(funnel.ok());
  EXPECT_EQ(funnel->dead, 0);
  EXPECT_EQ(funnel->in_flight, 1);
  const int64_t again = ClaimNext("acme/app#1/review/security", kT0 + seconds(2)).fence;
  EXPECT_EQ(Assign(run.id, kOneReviewer, again, kT0 + seconds(2)).kind,
            Assignment::Kind::kAssigned);
}

// A new run in a dead mailbox (the role's earlier run used up its budget) is not dead at birth:
// the mailbox comes back with fresh budgets, and the run that died there ends cancelled.
TEST_P(ReviewRunsContractTest, ANewRunRevivesADeadMailbox) {
  auto [old_run, fence] = RequestAndClaim(kSecurity, kT0);
  PassFinish dead;
  dead.key = "acme/app#1/review/security";
  dead.fence = fence;
  dead.kind = PassFinish::Kind::kDead;
  dead.attempts = 8;
  dead.error = "reviewer gpt: findings[0].severity: expected one of info, warning, blocking";
  auto f = work().Finish({&dead, 1}, kT0 + seconds(1));
  ASSERT_TRUE(f.ok() && (*f)[0].ok());
  ASSERT_EQ(Run(old_run.id).state, RunState::kDead);

  ReviewRunKey next = kSecurity;
  next.head_sha = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
  ReviewRuns::Requested fresh = Request(next, kT0 + seconds(2));
  ASSERT_TRUE(fresh.created);
  EXPECT_EQ(Run(fresh.run.id).state, RunState::kQueued) << "dead at birth";
  ReviewRun ended = Run(old_run.id);
  EXPECT_EQ(ended.state, RunState::kCancelled);
  EXPECT_NE(ended.reason.find("findings[0].severity"), std::string::npos) << ended.reason;
  auto item = work().GetWorkItem("acme/app#1/review/security");
  ASSERT_TRUE(item.ok() && item->has_value());
  EXPECT_EQ((*item)->state, WorkState::kPending);
  EXPECT_EQ((*item)->attempts, 0);
  auto funnel = reviews().GetReviewFunnel();
  ASSERT_TRUE(funnel.ok());
  EXPECT_EQ(funnel->dead, 0);
  EXPECT_EQ(funnel->cancelled, 1);
  EXPECT_EQ(funnel->in_flight, 1);
}

TEST_P(ReviewRunsContractTest, TheFunnelBalancesAndWaitingKeysAreTheOpenRuns) {
  PrFence("acme/app#1", kT0);
  PrFence("acme/app#2", kT0);
  auto end_as = [&](const ReviewRunKey& key, RunState end) {
    auto [run, fence] = RequestAndClaim(key, kT0);
    if (end == RunState::kDone) {
      ASSERT_EQ(Assign(run.id, kOneReviewer, fence, kT0).kind, Assignment::Kind::kAssigned);
      ASSERT_TRUE(reviews().RecordResult(run.id, "{}", fence, kT0).ok());
    }
    ASSERT_TRUE(reviews().EndRun(run.id, end, "", end == RunState::kDone ? 7 : 0, fence, kT0).ok());
    PassFinish done;
    done.key = ReviewWorkKey(key.subject, key.role);
    done.fence = fence;
    ASSERT_TRUE(work().Finish({&done, 1}, kT0).ok());
  };
  end_as(WithRole(kSecurity, "a"), RunState::kDone);
  end_as(WithRole(kSecurity, "b"), RunState::kDone);
  end_as(WithRole(kSecurity, "c"), RunState::kCancelled);
  end_as(WithRole(kSecurity, "d"), RunState::kSuperseded);
  auto [dying, dying_fence] = RequestAndClaim(WithRole(kSecurity, "e"), kT0);
  PassFinish dead;
  dead.key = "acme/app#1/review/e";
  dead.fence = dying_fence;
  dead.kind = PassFinish::Kind::kDead;
  dead.error = "permanent: bad config";
  ASSERT_TRUE(work().Finish({&dead, 1}, kT0).ok());
  Request(WithRole(kSecurity, "f"), kT0);                             // queued
  Request(ReviewRunKey{"acme/app#2", "security", "x", "auto"}, kT0);  // queued
  Request(ReviewRunKey{"acme/app#2", "security", "y", "auto"}, kT0);  // same work item

  auto funnel = reviews().GetReviewFunnel();
  ASSERT_TRUE(funnel.ok());
  EXPECT_EQ(funnel->requested, 8);
  EXPECT_EQ(funnel->done, 2);
  EXPECT_EQ(funnel->cancelled, 1);
  EXPECT_EQ(funnel->superseded, 1);
  EXPECT_EQ(funnel->dead, 1);
  EXPECT_EQ(funnel->in_flight, 3);
  EXPECT_EQ(funnel->requested, funnel->done + funnel->cancelled + funnel->superseded +
                                   funnel->dead + funnel->in_flight);
  auto waiting = reviews().WaitingWorkKeys();
  ASSERT_TRUE(waiting.ok());
  EXPECT_EQ(*waiting,
            (std::vector<std::string>{"acme/app#1/review/f", "acme/app#2/review/security"}));
}

TEST_P(ReviewRunsContractTest, RunsSurviveReopen) {
  ReviewRun run = Request(kSecurity, kT0).run;
  store_.reset();
  store_ = GetParam().open_again(dir_);
  ReviewRun back = Run(run.id);
  EXPECT_EQ(back.key, kSecurity);
  EXPECT_EQ(back.state, RunState::kQueued);
  EXPECT_FALSE(Request(kSecurity, kT0).created);
}

INSTANTIATE_TEST_SUITE_P(Backends, ReviewRunsContractTest,
                         ::testing::ValuesIn(testing::ContractBackends()), testing::BackendName);

}  // namespace
}  // namespace gatehouse
