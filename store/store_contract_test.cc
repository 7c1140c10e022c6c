// The Store contract: every backend must pass these tests. They are written against the
// Store interface only; every backend of testing::ContractBackends() (store/store_test_util.h)
// runs it.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <set>
#include <thread>

#include "store/sqlite/sqlite_store.h"
#include "store/store.h"
#include "store/store_test_util.h"

namespace gatehouse {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using testing::StoreBackend;
using testing::TempDir;

using testing::kT0;

class StoreContractTest : public ::testing::TestWithParam<StoreBackend> {
 protected:
  void SetUp() override { store_ = GetParam().open_fresh(dir_); }

  void Signal1(const std::string& key, const std::string& reason, Time now,
               Duration debounce = Duration(0)) {
    Signal s{key, reason, debounce};
    ASSERT_TRUE(store_->work().Enqueue({&s, 1}, now, Durability::kRecoverable).ok());
  }
  WorkItem Get(const std::string& key) {
    auto r = store_->work().GetWorkItem(key);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(r->has_value()) << key;
    return r->value_or(WorkItem{});
  }
  std::vector<Lease> Claim(size_t n, Time now, Duration lease = seconds(30),
                           const std::string& owner = "w1") {
    auto r = store_->work().Claim(owner, n, lease, now);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::vector<Lease>{};
  }
  Status FinishOne(const PassFinish& f, Time now) {
    auto r = store_->work().Finish({&f, 1}, now);
    if (!r.ok()) return r.status();
    return (*r)[0];
  }
  static PassFinish Completed(const Lease& l) {
    PassFinish f;
    f.key = l.key;
    f.fence = l.fence;
    f.kind = PassFinish::Kind::kCompleted;
    return f;
  }

  TempDir dir_;
  StorePtr store_;
};

TEST_P(StoreContractTest, EnqueueCreatesPendingItem) {
  Signal1("acme/app#1", "pushed", kT0, seconds(2));
  WorkItem w = Get("acme/app#1");
  EXPECT_EQ(w.state, WorkState::kPending);
  EXPECT_EQ(w.requested_gen, 1);
  EXPECT_EQ(w.claimed_gen, 0);
  EXPECT_EQ(w.done_gen, 0);
  EXPECT_EQ(w.reasons, std::vector<std::string>{"pushed"});
  EXPECT_EQ(w.due_at, kT0 + seconds(2));
  EXPECT_EQ(w.fence, 0);
  auto missing = store_->work().GetWorkItem("acme/app#2");
  ASSERT_TRUE(missing.ok());
  EXPECT_FALSE(missing->has_value());
}

TEST_P(StoreContractTest, SignalsFoldIntoOneItemAndDueAtTakesTheMinimum) {
  Signal1("acme/app#1", "pushed", kT0, seconds(10));
  Signal1("acme/app#1", "ci-completed", kT0 + seconds(1), seconds(2));
  Signal1("acme/app#1", "pushed", kT0 + seconds(2), seconds(10));
  WorkItem w = Get("acme/app#1");
  EXPECT_EQ(w.requested_gen, 3);
  EXPECT_EQ(w.reasons, (std::vector<std::string>{"ci-completed", "pushed"}));
  EXPECT_EQ(w.due_at, kT0 + seconds(3));  // min(t0+10, t0+1+2, t0+2+10)
}

TEST_P(StoreContractTest, BatchEnqueueIsAtomic) {
  std::vector<Signal> batch = {{"acme/app#1", "pushed", {}}, {"acme/app#2", "BAD REASON", {}}};
  Status s = store_->work().Enqueue(batch, kT0, Durability::kRecoverable);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  auto r = store_->work().GetWorkItem("acme/app#1");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value()) << "a rejected batch must write nothing";
  Signal empty_key{"", "pushed", {}};
  EXPECT_EQ(store_->work().Enqueue({&empty_key, 1}, kT0, Durability::kRecoverable).code(),
            StatusCode::kInvalidArgument);
}

TEST_P(StoreContractTest, ClaimRespectsDebounce) {
  Signal1("acme/app#1", "pushed", kT0, seconds(5));
  EXPECT_TRUE(Claim(10, kT0 + seconds(4)).empty());
  auto leases = Claim(10, kT0 + seconds(5));
  ASSERT_EQ(leases.size(), 1u);
  EXPECT_EQ(leases[0].key, "acme/app#1");
}

// A cycle that claims fewer than it may names when the next pending item comes due, so the
// worker pool can sleep until then instead of a whole poll.
TEST_P(StoreContractTest, ACycleWithRoomLeftNamesTheNextDue) {
  auto cycle = store_->work().FinishAndClaim({}, "w1", 4, seconds(30), kT0);
  ASSERT_TRUE(cycle.ok()) << cycle.status().ToString();
  EXPECT_FALSE(cycle->next_due.has_value()) << "nothing pending";

  Signal1("acme/app#1", "pushed", kT0, milliseconds(300));
  Signal1("acme/app#2", "pushed", kT0, seconds(5));
  Signal1("acme/app#3", "pushed", kT0);
  cycle = store_->work().FinishAndClaim({}, "w1", 4, seconds(30), kT0 + milliseconds(10));
  ASSERT_TRUE(cycle.ok()) << cycle.status().ToString();
  ASSERT_EQ(cycle->claimed.size(), 1u);
  EXPECT_EQ(cycle->claimed[0].key, "acme/app#3");
  EXPECT_EQ(cycle->next_due, kT0 + milliseconds(300));

  // Finishing #3 and claiming #1 at its due time: #2 is next.
  const PassFinish done = Completed(cycle->claimed[0]);
  cycle = store_->work().FinishAndClaim({&done, 1}, "w1", 4, seconds(30), kT0 + milliseconds(300));
  ASSERT_TRUE(cycle.ok()) << cycle.status().ToString();
  ASSERT_EQ(cycle->claimed.size(), 1u);
  EXPECT_EQ(cycle->claimed[0].key, "acme/app#1");
  EXPECT_EQ(cycle->next_due, kT0 + seconds(5));
}

TEST_P(StoreContractTest, ClaimTakesTheLeaseAndBumpsTheFence) {
  Signal1("acme/app#1", "pushed", kT0);
  Signal1("acme/app#1", "ci-completed", kT0);
  auto leases = Claim(10, kT0, seconds(30), "worker-a");
  ASSERT_EQ(leases.size(), 1u);
  const Lease& l = leases[0];
  EXPECT_EQ(l.fence, 1);
  EXPECT_EQ(l.claimed_gen, 2);
  EXPECT_EQ(l.reasons, (std::vector<std::string>{"ci-completed", "pushed"}));
  EXPECT_EQ(l.lease_until, kT0 + seconds(30));
  EXPECT_EQ(l.owner, "worker-a");
  EXPECT_FALSE(l.reclaimed);
  WorkItem w = Get("acme/app#1");
  EXPECT_EQ(w.state, WorkState::kRunning);
  EXPECT_EQ(w.lease_owner, "worker-a");
  EXPECT_EQ(w.claimed_gen, 2);
  EXPECT_TRUE(w.reasons.empty());
  // A live lease is exclusive, whoever asks.
  EXPECT_TRUE(Claim(10, kT0 + seconds(29), seconds(30), "worker-b").empty());
}

// Once registered, every write transaction is timed into the backend's series.
TEST_P(StoreContractTest, WriteTransactionsAreTimedOnceMetricsAreRegistered) {
  metrics::Registry registry;
  store_->RegisterMetrics(registry);
  Signal1("acme/app#1", "pushed", kT0);
  Signal1("acme/app#2", "pushed", kT0);
  const std::string text = registry.Render();
  // "..._count{backend=\"B\",kind=\"write\"} N"
  size_t at = 0;
  int64_t writes = -1;
  while ((at = text.find("gatehouse_store_transaction_duration_seconds_count{", at)) !=
         std::string::npos) {
    const size_t end = text.find('\n', at);
    const std::string line = text.substr(at, end - at);
    at = end;
    const size_t kind = line.find(",kind=\"write\"} ");
    if (kind != std::string::npos) writes = std::stoll(line.substr(kind + 15));
  }
  EXPECT_GE(writes, 2) << text;
}

// A claim hands over the earliest signal no pass claimed before (for the signal-to-pass-start
// latency), once: a signal that arrives while the pass runs is the next claim's, and a retry of
// signals already claimed has none.
TEST_P(StoreContractTest, AClaimCarriesItsEarliestUnclaimedSignal) {
  Signal1("acme/app#1", "pushed", kT0, seconds(1));
  Signal1("acme/app#1", "ci-completed", kT0 + seconds(2), seconds(1));  // the fast path
  auto first = Claim(10, kT0 + seconds(3));
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].signalled_at, std::optional<Time>(kT0));
  Signal1("acme/app#1", "labeled", kT0 + seconds(4));  // while the pass runs
  Signal1("acme/app#1", "labeled", kT0 + seconds(5));
  PassFinish retry;
  retry.key = first[0].key;
  retry.fence = first[0].fence;
  retry.kind = PassFinish::Kind::kRetry;
  retry.retry_at = kT0 + seconds(6);
  retry.attempts = 1;
  retry.error = "502";
  ASSERT_TRUE(FinishOne(retry, kT0 + seconds(5)).ok());
  auto second = Claim(10, kT0 + seconds(6));
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].signalled_at, std::optional<Time>(kT0 + seconds(4)));
  retry.fence = second[0].fence;
  retry.retry_at = kT0 + seconds(7);
  ASSERT_TRUE(FinishOne(retry, kT0 + seconds(6)).ok());
  auto third = Claim(10, kT0 + seconds(7));  // a retry: nothing new was signalled
  ASSERT_EQ(third.size(), 1u);
  EXPECT_EQ(third[0].signalled_at, std::nullopt);
}

TEST_P(StoreContractTest, ClaimTakesSeveralDueItemsInDueOrder) {
  for (int i = 0; i < 10; ++i) {
    Signal1("acme/app#" + std::to_string(i), "swept", kT0, seconds(10 - i));
  }
  auto leases = Claim(3, kT0 + seconds(10));
  ASSERT_EQ(leases.size(), 3u);
  EXPECT_EQ(leases[0].key, "acme/app#9");
  EXPECT_EQ(leases[1].key, "acme/app#8");
  EXPECT_EQ(leases[2].key, "acme/app#7");
  EXPECT_EQ(Claim(100, kT0 + seconds(10)).size(), 7u);
  EXPECT_TRUE(Claim(100, kT0 + seconds(10)).empty());
}

// Rule 3: signals during a pass make the item dirty; completion sends it back to pending,
// and the next pass covers all of them at once.
TEST_P(StoreContractTest, DirtyItemRunsExactlyOnceMore) {
  Signal1("acme/app#1", "pushed", kT0);
  auto first = Claim(1, kT0);
  ASSERT_EQ(first.size(), 1u);
  for (int i = 0; i < 5; ++i) Signal1("acme/app#1", "ci-completed", kT0 + seconds(1));
  WorkItem mid = Get("acme/app#1");
  EXPECT_EQ(mid.state, WorkState::kRunning);
  EXPECT_EQ(mid.requested_gen, 6);
  ASSERT_TRUE(FinishOne(Completed(first[0]), kT0 + seconds(2)).ok());
  WorkItem after = Get("acme/app#1");
  EXPECT_EQ(after.state, WorkState::kPending);
  EXPECT_EQ(after.done_gen, 1);
  EXPECT_EQ(after.reasons, std::vector<std::string>{"ci-completed"});
  auto second = Claim(10, kT0 + seconds(2));
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].claimed_gen, 6);
  EXPECT_EQ(second[0].fence, 2);
  ASSERT_TRUE(FinishOne(Completed(second[0]), kT0 + seconds(3)).ok());
  WorkItem idle = Get("acme/app#1");
  EXPECT_EQ(idle.state, WorkState::kIdle);
  EXPECT_EQ(idle.done_gen, 6);
  EXPECT_FALSE(idle.due_at.has_value());
  EXPECT_TRUE(Claim(10, kT0 + seconds(100)).empty()) << "an idle item is not claimable";
}

// Rule 5: a stalled holder loses its lease; every write it tries afterwards is rejected.
TEST_P(StoreContractTest, StaleFenceIsRejectedAfterReclaim) {
  Signal1("acme/app#1", "pushed", kT0);
  auto a = Claim(1, kT0, seconds(10), "a");
  ASSERT_EQ(a.size(), 1u);
  Signal1("acme/app#1", "ci-completed", kT0 + seconds(5));
  EXPECT_TRUE(Claim(1, kT0 + seconds(9), seconds(10), "b").empty());
  auto b = Claim(1, kT0 + seconds(10), seconds(10), "b");
  ASSERT_EQ(b.size(), 1u);
  EXPECT_TRUE(b[0].reclaimed);
  EXPECT_EQ(b[0].fence, a[0].fence + 1);
  EXPECT_EQ(b[0].attempts, 1) << "an expired lease is a failed attempt";
  EXPECT_NE(Get("acme/app#1").last_error.find("lease expired"), std::string::npos);
  EXPECT_EQ(b[0].claimed_gen, 2);
  // The reclaiming pass covers what the lost pass was covering, too.
  EXPECT_EQ(b[0].reasons, (std::vector<std::string>{"ci-completed", "pushed"}));

  LeaseRenewal stale_renew{a[0].key, a[0].fence, kT0 + seconds(30)};
  auto renewed = store_->work().Renew({&stale_renew, 1}, kT0 + seconds(11));
  ASSERT_TRUE(renewed.ok());
  EXPECT_EQ((*renewed)[0].code(), StatusCode::kFenceLost);
  EXPECT_EQ(FinishOne(Completed(a[0]), kT0 + seconds(11)).code(), StatusCode::kFenceLost);
  WorkItem w = Get("acme/app#1");
  EXPECT_EQ(w.state, WorkState::kRunning);
  EXPECT_EQ(w.lease_owner, "b");
  EXPECT_EQ(w.done_gen, 0) << "the stale completion must not have counted";

  ASSERT_TRUE(FinishOne(Completed(b[0]), kT0 + seconds(12)).ok());
  EXPECT_EQ(Get("acme/app#1").done_gen, 2);
  auto counters = store_->GetCounters();
  ASSERT_TRUE(counters.ok());
  EXPECT_EQ((*counters)["work.fence_rejections"], 1);
  EXPECT_EQ((*counters)["work.leases_expired"], 1);
}

TEST_P(StoreContractTest, RenewalKeepsTheLease) {
  Signal1("acme/app#1", "pushed", kT0);
  auto a = Claim(1, kT0, seconds(10), "a");
  ASSERT_EQ(a.size(), 1u);
  LeaseRenewal r{a[0].key, a[0].fence, kT0 + seconds(25)};
  auto renewed = store_->work().Renew({&r, 1}, kT0 + seconds(5));
  ASSERT_TRUE(renewed.ok());
  EXPECT_TRUE((*renewed)[0].ok());
  EXPECT_TRUE(Claim(1, kT0 + seconds(20), seconds(10), "b").empty());
  EXPECT_EQ(Claim(1, kT0 + seconds(25), seconds(10), "b").size(), 1u);
}

TEST_P(StoreContractTest, FinishBatchReportsEachPassSeparately) {
  Signal1("acme/app#1", "pushed", kT0);
  Signal1("acme/app#2", "pushed", kT0);
  auto leases = Claim(2, kT0);
  ASSERT_EQ(leases.size(), 2u);
  PassFinish good = Completed(leases[0]);
  PassFinish stale = Completed(leases[1]);
  stale.fence += 7;
  std::vector<PassFinish> batch = {good, stale};
  auto r = store_->work().Finish(batch, kT0 + seconds(1));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE((*r)[0].ok());
  EXPECT_EQ((*r)[1].code(), StatusCode::kFenceLost);
  EXPECT_EQ(Get(leases[0].key).state, WorkState::kIdle);
  EXPECT_EQ(Get(leases[1].key).state, WorkState::kRunning);
}

// Rule 6: a retry waits for its backoff even when new signals arrive; budgets carry over.
TEST_P(StoreContractTest, RetryHonoursBackoffAndKeepsBookkeeping) {
  Signal1("acme/app#1", "pushed", kT0);
  auto a = Claim(1, kT0);
  ASSERT_EQ(a.size(), 1u);
  PassFinish f;
  f.key = a[0].key;
  f.fence = a[0].fence;
  f.kind = PassFinish::Kind::kRetry;
  f.retry_at = kT0 + seconds(60);
  f.attempts = 3;
  f.availability_since = kT0 - seconds(5);
  f.error = "transient: 502";
  ASSERT_TRUE(FinishOne(f, kT0 + seconds(1)).ok());
  WorkItem w = Get("acme/app#1");
  EXPECT_EQ(w.state, WorkState::kPending);
  EXPECT_EQ(w.due_at, kT0 + seconds(60));
  EXPECT_EQ(w.attempts, 3);
  EXPECT_EQ(w.last_error, "transient: 502");
  EXPECT_EQ(w.claimed_reasons, std::vector<std::string>{"pushed"});

  Signal1("acme/app#1", "ci-completed", kT0 + seconds(2));  // debounce 0: would be due now
  EXPECT_EQ(Get("acme/app#1").due_at, kT0 + seconds(60));
  EXPECT_TRUE(Claim(1, kT0 + seconds(59)).empty());
  auto b = Claim(1, kT0 + seconds(60));
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].attempts, 3);
  EXPECT_EQ(b[0].availability_since, kT0 - seconds(5));
  EXPECT_EQ(b[0].claimed_gen, 2);
  EXPECT_EQ(b[0].reasons, (std::vector<std::string>{"ci-completed", "pushed"}));
  ASSERT_TRUE(FinishOne(Completed(b[0]), kT0 + seconds(61)).ok());
  WorkItem done = Get("acme/app#1");
  EXPECT_EQ(done.attempts, 0);
  EXPECT_FALSE(done.availability_since.has_value());
  EXPECT_EQ(done.last_error, "");
  EXPECT_FALSE(done.backoff_until.has_value());
}

TEST_P(StoreContractTest, DeadItemsKeepSignalsUntilRearmed) {
  Signal1("acme/app#1", "pushed", kT0);
  auto a = Claim(1, kT0);
  ASSERT_EQ(a.size(), 1u);
  PassFinish f;
  f.key = a[0].key;
  f.fence = a[0].fence;
  f.kind = PassFinish::Kind::kDead;
  f.attempts = 8;
  f.error = "transient, gave up after 8 attempts: 502";
  ASSERT_TRUE(FinishOne(f, kT0 + seconds(1)).ok());
  WorkItem dead = Get("acme/app#1");
  EXPECT_EQ(dead.state, WorkState::kDead);
  EXPECT_EQ(dead.last_error, "transient, gave up after 8 attempts: 502");

  Signal1("acme/app#1", "pushed", kT0 + seconds(2));
  WorkItem still = Get("acme/app#1");
  EXPECT_EQ(still.state, WorkState::kDead);
  EXPECT_EQ(still.requested_gen, 2) << "the signal is recorded, not dropped";
  EXPECT_TRUE(Claim(10, kT0 + seconds(1000)).empty());

  auto dead_list = store_->work().ListWorkItems(WorkFilter{WorkState::kDead, 100, ""});
  ASSERT_TRUE(dead_list.ok());
  ASSERT_EQ(dead_list->size(), 1u);

  EXPECT_EQ(store_->work().Rearm("acme/app#404", kT0).code(), StatusCode::kNotFound);
  ASSERT_TRUE(store_->work().Rearm("acme/app#1", kT0 + seconds(3)).ok());
  EXPECT_EQ(store_->work().Rearm("acme/app#1", kT0 + seconds(3)).code(),
            StatusCode::kFailedPrecondition);
  WorkItem armed = Get("acme/app#1");
  EXPECT_EQ(armed.state, WorkState::kPending);
  EXPECT_EQ(armed.attempts, 0);
  EXPECT_EQ(armed.requested_gen, 3);
  auto b = Claim(1, kT0 + seconds(3));
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].attempts, 0);
  EXPECT_EQ(b[0].claimed_gen, 3);
  EXPECT_TRUE(std::count(b[0].reasons.begin(), b[0].reasons.end(), "rearmed"));
  ASSERT_TRUE(FinishOne(Completed(b[0]), kT0 + seconds(4)).ok());
  EXPECT_EQ(Get("acme/app#1").state, WorkState::kIdle);
  EXPECT_EQ(Get("acme/app#1").done_gen, 3);
}

TEST_P(StoreContractTest, ListFiltersAndOrdersByKey) {
  Signal1("b/x#2", "swept", kT0);
  Signal1("a/x#1", "swept", kT0);
  Signal1("c/x#3", "swept", kT0 + seconds(100));
  auto leases = Claim(1, kT0);
  ASSERT_EQ(leases.size(), 1u);
  auto all = store_->work().ListWorkItems(WorkFilter{});
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 3u);
  EXPECT_EQ((*all)[0].key, "a/x#1");
  EXPECT_EQ((*all)[2].key, "c/x#3");
  auto running = store_->work().ListWorkItems(WorkFilter{WorkState::kRunning, 10, ""});
  ASSERT_TRUE(running.ok());
  ASSERT_EQ(running->size(), 1u);
  EXPECT_EQ((*running)[0].key, leases[0].key);
  auto limited = store_->work().ListWorkItems(WorkFilter{std::nullopt, 2, ""});
  ASSERT_TRUE(limited.ok());
  EXPECT_EQ(limited->size(), 2u);
  // The next page starts after the last key of this one, whatever the state filter.
  auto next = store_->work().ListWorkItems(WorkFilter{std::nullopt, 2, (*limited)[1].key});
  ASSERT_TRUE(next.ok());
  ASSERT_EQ(next->size(), 1u);
  EXPECT_EQ((*next)[0].key, "c/x#3");
  auto pending_after_a = store_->work().ListWorkItems(WorkFilter{WorkState::kPending, 10, "a/x#1"});
  ASSERT_TRUE(pending_after_a.ok());
  for (const WorkItem& w : *pending_after_a) {
    EXPECT_GT(w.key, "a/x#1");
    EXPECT_EQ(w.state, WorkState::kPending);
  }
}

TEST_P(StoreContractTest, SummaryCountsEachStateAndTheOldestDue) {
  auto empty = store_->work().SummarizeWork();
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ(empty->pending + empty->idle + empty->running + empty->dead, 0);
  EXPECT_FALSE(empty->oldest_due.has_value());
  Signal1("a/x#1", "swept", kT0 + seconds(50));
  Signal1("b/x#2", "swept", kT0 + seconds(10));
  Signal1("c/x#3", "swept", kT0 + seconds(30));
  Signal1("d/x#4", "swept", kT0);
  auto leases = Claim(1, kT0);  // d/x#4, the only one due
  ASSERT_EQ(leases.size(), 1u);
  auto summary = store_->work().SummarizeWork();
  ASSERT_TRUE(summary.ok());
  EXPECT_EQ(summary->pending, 3);
  EXPECT_EQ(summary->running, 1);
  EXPECT_EQ(summary->idle, 0);
  EXPECT_EQ(summary->dead, 0);
  ASSERT_TRUE(summary->oldest_due.has_value());
  EXPECT_EQ(*summary->oldest_due, kT0 + seconds(10));
  ASSERT_TRUE(FinishOne(Completed(leases[0]), kT0).ok());
  summary = store_->work().SummarizeWork();
  ASSERT_TRUE(summary.ok());
  EXPECT_EQ(summary->idle, 1);
  EXPECT_EQ(summary->running, 0);
}

TEST_P(StoreContractTest, CountersTrackTheFunnel) {
  std::vector<Signal> batch(5, Signal{"acme/app#1", "pushed", {}});
  ASSERT_TRUE(store_->work().Enqueue(batch, kT0, Durability::kAcknowledged).ok());
  auto a = Claim(1, kT0);
  ASSERT_EQ(a.size(), 1u);
  ASSERT_TRUE(FinishOne(Completed(a[0]), kT0).ok());
  auto c = store_->GetCounters();
  ASSERT_TRUE(c.ok());
  EXPECT_EQ((*c)["work.signals"], 5);
  EXPECT_EQ((*c)["work.passes_claimed"], 1);
  EXPECT_EQ((*c)["work.passes_completed"], 1);
}

TEST_P(StoreContractTest, StateSurvivesReopen) {
  Signal1("acme/app#1", "pushed", kT0);
  auto a = Claim(1, kT0);
  ASSERT_EQ(a.size(), 1u);
  store_.reset();
  store_ = GetParam().open_again(dir_);
  WorkItem w = Get("acme/app#1");
  EXPECT_EQ(w.state, WorkState::kRunning);
  EXPECT_EQ(w.fence, 1);
}

// Two stores on one database (two connections, as two processes would have): every due item
// is claimed by exactly one of them.
TEST_P(StoreContractTest, ConcurrentClaimersNeverShareAnItem) {
  constexpr int kKeys = 300;
  std::vector<Signal> batch;
  for (int i = 0; i < kKeys; ++i) batch.push_back({"acme/app#" + std::to_string(i), "swept", {}});
  ASSERT_TRUE(store_->work().Enqueue(batch, kT0, Durability::kRecoverable).ok());
  StorePtr other = GetParam().open_again(dir_);
  std::vector<std::string> got_a, got_b;
  auto drain = [&](Store* s, const std::string& owner, std::vector<std::string>* out) {
    while (true) {
      auto r = s->work().Claim(owner, 7, seconds(60), kT0);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      if (r->empty()) return;
      for (auto& l : *r) out->push_back(l.key);
    }
  };
  std::thread ta(drain, store_.get(), "a", &got_a);
  std::thread tb(drain, other.get(), "b", &got_b);
  ta.join();
  tb.join();
  std::set<std::string> all(got_a.begin(), got_a.end());
  all.insert(got_b.begin(), got_b.end());
  EXPECT_EQ(got_a.size() + got_b.size(), static_cast<size_t>(kKeys));
  EXPECT_EQ(all.size(), static_cast<size_t>(kKeys));
}

INSTANTIATE_TEST_SUITE_P(Backends, StoreContractTest,
                         ::testing::ValuesIn(testing::ContractBackends()), testing::BackendName);

}  // namespace
}  // namespace gatehouse
