// WorkerPool with real threads and a simulated clock: time only moves when a test moves it,
// and tests wait for pass reports (events), never for durations.
#include "engine/worker_pool.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>

#include "engine/engine_test_util.h"
#include "store/sqlite/sqlite_store.h"
#include "store/store_wrapper.h"
#include "store/store_test_util.h"

namespace gatehouse {
namespace {

using std::chrono::hours;
using std::chrono::milliseconds;
using std::chrono::minutes;
using std::chrono::seconds;
using testing::Latch;
using testing::PassRecorder;
using testing::TempDir;

const Time kPoolT0 = FromMicros(1'800'000'000'000'000);

class WorkerPoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto s = OpenSqliteStore(dir_.File("g.db"));
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(s).value();
    clock_ = std::make_shared<SimClock>(kPoolT0);
    options_.workers = 4;
    options_.lease = seconds(30);
    options_.poll_interval = milliseconds(2);
    options_.seed = 42;
  }

  void Signal(const std::string& key, const std::string& reason = "pushed") {
    gatehouse::Signal s{key, reason, Duration(0)};
    ASSERT_TRUE(store_->work().Enqueue({&s, 1}, clock_->Now(), Durability::kRecoverable).ok());
  }
  WorkItem Get(const std::string& key) {
    auto r = store_->work().GetWorkItem(key);
    return r.ok() && r->has_value() ? **r : WorkItem{};
  }

  TempDir dir_;
  StorePtr store_;
  std::shared_ptr<SimClock> clock_;
  EngineOptions options_;
  PassRecorder rec_;
};

TEST_F(WorkerPoolTest, RunsAPassForEachDueItem) {
  for (int i = 0; i < 20; ++i) Signal("acme/app#" + std::to_string(i));
  WorkerPool pool(
      *store_, clock_, [](PassContext&) { return PassOutcome::Done(); }, options_, rec_.Observer());
  ASSERT_TRUE(pool.Start().ok());
  ASSERT_TRUE(rec_.WaitForCount(20));
  pool.Stop();
  for (const auto& r : rec_.Reports()) EXPECT_TRUE(r.recorded.ok()) << r.lease.key;
  for (int i = 0; i < 20; ++i) {
    WorkItem w = Get("acme/app#" + std::to_string(i));
    EXPECT_EQ(w.state, WorkState::kIdle);
    EXPECT_EQ(w.done_gen, 1);
  }
  EXPECT_EQ(rec_.Reports().size(), 20u) << "no key ran twice";
}

// The poll is measured on the pool's clock: an item that comes due later, signalled where the
// pool does not hear it (as from another process), is found once the clock passes the poll's
// deadline, with no Wake().
TEST_F(WorkerPoolTest, ThePollIntervalIsMeasuredOnTheClock) {
  gatehouse::Signal later{"acme/app#1", "pushed", seconds(10)};
  ASSERT_TRUE(store_->work().Enqueue({&later, 1}, clock_->Now(), Durability::kRecoverable).ok());
  WorkerPool pool(
      *store_, clock_, [](PassContext&) { return PassOutcome::Done(); }, options_, rec_.Observer());
  ASSERT_TRUE(pool.Start().ok());
  clock_->AwaitWaiters(1);  // the dispatcher found nothing due and waits for its next poll
  EXPECT_TRUE(rec_.Reports().empty());
  clock_->Advance(seconds(10));
  ASSERT_TRUE(rec_.WaitForCount(1));
  pool.Stop();
  EXPECT_EQ(rec_.Reports()[0].started, kPoolT0 + seconds(10));
}

// A debounced item starts when it comes due, not at the next poll: the dispatcher sleeps
// until the earliest pending due time when that is sooner than its poll.
TEST_F(WorkerPoolTest, ADebouncedItemStartsWhenDueNotAtTheNextPoll) {
  options_.poll_interval = std::chrono::hours(1);
  gatehouse::Signal soon{"acme/app#1", "pushed", milliseconds(300)};
  ASSERT_TRUE(store_->work().Enqueue({&soon, 1}, clock_->Now(), Durability::kRecoverable).ok());
  WorkerPool pool(
      *store_, clock_, [](PassContext&) { return PassOutcome::Done(); }, options_, rec_.Observer());
  ASSERT_TRUE(pool.Start().ok());
  clock_->AwaitWaiters(1);  // nothing due yet: the dispatcher sleeps
  EXPECT_TRUE(rec_.Reports().empty());
  clock_->Advance(milliseconds(300));
  ASSERT_TRUE(rec_.WaitForCount(1));
  pool.Stop();
  EXPECT_EQ(rec_.Reports()[0].started, kPoolT0 + milliseconds(300));
}

// Rule 3: N signals while a pass runs cause exactly one further pass, covering all of them.
TEST_F(WorkerPoolTest, SignalsDuringAPassCauseExactlyOneMorePass) {
  Latch started, release;
  std::atomic<int> calls{0};
  Signal("acme/app#1");
  WorkerPool pool(
      *store_, clock_,
      [&](PassContext&) {
        if (calls.fetch_add(1) == 0) {
          started.Open();
          release.Wait();
        }
        return PassOutcome::Done();
      },
      options_, rec_.Observer());
  ASSERT_TRUE(pool.Start().ok());
  started.Wait();
  constexpr int kSignals = 25;
  for (int i = 0; i < kSignals; ++i) Signal("acme/app#1", i % 2 ? "ci-completed" : "reviewed");
  release.Open();
  ASSERT_TRUE(rec_.WaitForCount(2));
  pool.Stop();
  auto reports = rec_.Reports();
  ASSERT_EQ(reports.size(), 2u);
  EXPECT_EQ(reports[0].lease.claimed_gen, 1);
  EXPECT_EQ(reports[1].lease.claimed_gen, 1 + kSignals);
  EXPECT_EQ(reports[1].lease.reasons, (std::vector<std::string>{"ci-completed", "reviewed"}));
  WorkItem w = Get("acme/app#1");
  EXPECT_EQ(w.state, WorkState::kIdle);
  EXPECT_EQ(w.done_gen, 1 + kSignals);
}

// Transient failures are retried no earlier than scheduled, then the item dies with the
// reason; re-arm brings it back.
TEST_F(WorkerPoolTest, TransientFailuresRetryOnScheduleThenDieAndRearmRevives) {
  options_.retry.max_attempts = 4;
  options_.retry.transient_base = seconds(10);
  std::atomic<bool> healthy{false};
  Signal("acme/app#1");
  WorkerPool pool(
      *store_, clock_,
      [&](PassContext&) {
        return healthy ? PassOutcome::Done() : PassOutcome::Transient("502 from GitHub");
      },
      options_, rec_.Observer());
  ASSERT_TRUE(pool.Start().ok());
  for (size_t n = 1; n <= 4; ++n) {
    ASSERT_TRUE(rec_.WaitForCount(n));
    const PassReport last = rec_.Reports().back();
    if (last.finish.kind != PassFinish::Kind::kRetry) break;
    // Just before the retry time nothing may run; then time reaches it.
    clock_->Set(last.finish.retry_at - milliseconds(1));
    pool.Wake();
    clock_->Set(last.finish.retry_at);
    pool.Wake();
  }
  ASSERT_TRUE(rec_.WaitForCount(4));
  auto reports = rec_.Reports();
  ASSERT_EQ(reports.size(), 4u);
  for (size_t i = 1; i < reports.size(); ++i) {
    EXPECT_GE(reports[i].started, reports[i - 1].finish.retry_at) << "retried early";
    EXPECT_EQ(reports[i].lease.attempts, static_cast<int>(i));
  }
  EXPECT_EQ(reports[3].finish.kind, PassFinish::Kind::kDead);
  WorkItem dead = Get("acme/app#1");
  EXPECT_EQ(dead.state, WorkState::kDead);
  EXPECT_EQ(dead.last_error, "transient, gave up after 4 attempts: 502 from GitHub");

  healthy = true;
  ASSERT_TRUE(store_->work().Rearm("acme/app#1", clock_->Now()).ok());
  pool.Wake();
  ASSERT_TRUE(rec_.WaitForCount(5));
  pool.Stop();
  EXPECT_TRUE(rec_.Reports().back().outcome.ok);
  EXPECT_EQ(Get("acme/app#1").state, WorkState::kIdle);
  EXPECT_EQ(Get("acme/app#1").attempts, 0);
}

TEST_F(WorkerPoolTest, RateLimitWaitsWithoutSpendingAttempts) {
  options_.retry.max_attempts = 1;  // any consumed attempt would kill the item
  std::atomic<int> calls{0};
  Signal("acme/app#1");
  WorkerPool pool(
      *store_, clock_,
      [&](PassContext&) {
        if (calls.fetch_add(1) < 3) {
          return PassOutcome::RateLimited(clock_->Now() + minutes(30), "secondary rate limit");
        }
        return PassOutcome::Done();
      },
      options_, rec_.Observer());
  ASSERT_TRUE(pool.Start().ok());
  for (size_t n = 1; n <= 3; ++n) {
    ASSERT_TRUE(rec_.WaitForCount(n));
    const PassReport last = rec_.Reports().back();
    EXPECT_EQ(last.finish.kind, PassFinish::Kind::kRetry);
    EXPECT_EQ(last.finish.attempts, 0);
    EXPECT_GE(last.finish.retry_at, last.ended + minutes(30));
    clock_->Set(last.finish.retry_at);
    pool.Wake();
  }
  ASSERT_TRUE(rec_.WaitForCount(4));
  pool.Stop();
  EXPECT_EQ(Get("acme/app#1").state, WorkState::kIdle);
}

TEST_F(WorkerPoolTest, UnavailableDiesWhenTheWallClockBudgetIsSpent) {
  options_.retry.unavailable_budget = hours(2);
  Signal("acme/app#1");
  WorkerPool pool(
      *store_, clock_, [&](PassContext&) { return PassOutcome::Unavailable("reviewer paused"); },
      options_, rec_.Observer());
  ASSERT_TRUE(pool.Start().ok());
  for (size_t n = 1;; ++n) {
    ASSERT_TRUE(rec_.WaitForCount(n));
    const PassReport last = rec_.Reports().back();
    if (last.finish.kind == PassFinish::Kind::kDead) break;
    ASSERT_EQ(last.finish.kind, PassFinish::Kind::kRetry);
    ASSERT_LT(n, 1000u) << "the budget never ran out";
    clock_->Set(last.finish.retry_at);
    pool.Wake();
  }
  pool.Stop();
  auto reports = rec_.Reports();
  EXPECT_GE(reports.back().started - reports.front().started, hours(2));
  WorkItem w = Get("acme/app#1");
  EXPECT_EQ(w.state, WorkState::kDead);
  EXPECT_EQ(w.attempts, 0);
  EXPECT_NE(w.last_error.find("budget spent: reviewer paused"), std::string::npos);
}

TEST_F(WorkerPoolTest, PermanentFailureDiesAtOnce) {
  Signal("acme/app#1");
  WorkerPool pool(
      *store_, clock_, [](PassContext&) { return PassOutcome::Permanent("gone"); }, options_,
      rec_.Observer());
  ASSERT_TRUE(pool.Start().ok());
  ASSERT_TRUE(rec_.WaitForCount(1));
  pool.Stop();
  EXPECT_EQ(Get("acme/app#1").state, WorkState::kDead);
  EXPECT_EQ(Get("acme/app#1").last_error, "permanent: gone");
}

TEST_F(WorkerPoolTest, ExceptionsFromAPassAreTransientFailures) {
  Signal("acme/app#1");
  WorkerPool pool(
      *store_, clock_, [](PassContext&) -> PassOutcome { throw std::runtime_error("boom"); },
      options_, rec_.Observer());
  ASSERT_TRUE(pool.Start().ok());
  ASSERT_TRUE(rec_.WaitForCount(1));
  pool.Stop();
  EXPECT_EQ(Get("acme/app#1").last_error, "transient: pass threw: boom");
}

// The heartbeat renews a running pass's lease at half-life, so no one else can claim it.
TEST_F(WorkerPoolTest, HeartbeatRenewsTheLeaseWhileThePassRuns) {
  Latch started, release;
  Signal("acme/app#1");
  WorkerPool pool(
      *store_, clock_,
      [&](PassContext&) {
        started.Open();
        release.Wait();
        return PassOutcome::Done();
      },
      options_, rec_.Observer());
  ASSERT_TRUE(pool.Start().ok());
  started.Wait();
  const Time first_until = *Get("acme/app#1").lease_until;
  clock_->Advance(seconds(20));  // past half-life, before expiry
  // Wait for the dispatcher to have renewed (an event in the store, not a duration).
  Time renewed_until = first_until;
  for (int i = 0; i < 600000 && renewed_until == first_until; ++i) {
    pool.Wake();
    std::this_thread::yield();
    renewed_until = *Get("acme/app#1").lease_until;
  }
  EXPECT_EQ(renewed_until, kPoolT0 + seconds(20) + options_.lease);
  auto other = store_->work().Claim("intruder", 1, seconds(30), first_until + seconds(1));
  ASSERT_TRUE(other.ok());
  EXPECT_TRUE(other->empty()) << "a renewed lease must not be claimable";
  release.Open();
  ASSERT_TRUE(rec_.WaitForCount(1));
  pool.Stop();
  EXPECT_TRUE(rec_.Reports()[0].recorded.ok());
}

// Rule 5: a pass whose process stalls past its lease is superseded; its completion is
// rejected and the new holder's counts. (Across connections and processes: the storms.)
TEST_F(WorkerPoolTest, StalledPassLosesItsLeaseAndItsFinishIsRejected) {
  Latch stalled_started, release_stalled;
  options_.skip_renewal = [](const Lease& l) { return l.fence == 1; };
  Signal("acme/app#1");
  WorkerPool pool(
      *store_, clock_,
      [&](PassContext& ctx) {
        if (ctx.lease().fence == 1) {
          stalled_started.Open();
          release_stalled.Wait();
        }
        return PassOutcome::Done();
      },
      options_, rec_.Observer());
  ASSERT_TRUE(pool.Start().ok());
  stalled_started.Wait();
  Signal("acme/app#1", "ci-completed");
  clock_->Advance(options_.lease);  // the stalled pass's lease runs out
  pool.Wake();
  const bool taken_over = rec_.WaitFor([](const std::vector<PassReport>& r) {
    return std::any_of(r.begin(), r.end(), [](const PassReport& x) { return x.lease.fence == 2; });
  });
  release_stalled.Open();
  ASSERT_TRUE(taken_over);
  ASSERT_TRUE(rec_.WaitForCount(2));
  pool.Stop();
  auto reports = rec_.Reports();
  ASSERT_EQ(reports.size(), 2u);
  const PassReport& takeover = reports[0];
  const PassReport& stale = reports[1];
  EXPECT_EQ(takeover.lease.fence, 2);
  EXPECT_TRUE(takeover.lease.reclaimed);
  EXPECT_EQ(takeover.lease.claimed_gen, 2);
  EXPECT_TRUE(takeover.recorded.ok());
  EXPECT_EQ(stale.lease.fence, 1);
  EXPECT_EQ(stale.recorded.code(), StatusCode::kFenceLost);
  WorkItem w = Get("acme/app#1");
  EXPECT_EQ(w.state, WorkState::kIdle);
  EXPECT_EQ(w.done_gen, 2);
}

// A pass that always hangs (or crashes its process) keeps losing its lease. Each reclaim is
// a failed attempt, so the item ends dead instead of being reclaimed forever.
TEST_F(WorkerPoolTest, PassesThatKeepLosingTheirLeaseSpendTheBudget) {
  options_.retry.max_attempts = 2;
  options_.skip_renewal = [](const Lease&) { return true; };  // every pass "hangs"
  Latch release;
  std::atomic<int> started{0};
  Signal("acme/app#1");
  WorkerPool pool(
      *store_, clock_,
      [&](PassContext&) {
        started.fetch_add(1);
        release.Wait();
        return PassOutcome::Done();
      },
      options_, rec_.Observer());
  ASSERT_TRUE(pool.Start().ok());
  // Let each hung pass's lease run out — only once that pass has started, so that no lease
  // expires before its pass runs, however the threads are scheduled — until the item is dead.
  bool dead = false;
  int64_t expired_fence = 0;
  for (int i = 0; i < 20000000 && !dead; ++i) {
    const WorkItem w = Get("acme/app#1");
    dead = w.state == WorkState::kDead;
    if (!dead && w.fence > expired_fence && started.load() == w.fence) {
      expired_fence = w.fence;
      clock_->Advance(options_.lease);
      pool.Wake();
    }
    std::this_thread::yield();
  }
  release.Open();
  ASSERT_TRUE(dead);
  ASSERT_TRUE(rec_.WaitForCount(3));
  pool.Stop();
  EXPECT_EQ(started.load(), 2) << "the third claim must not run the pass again";
  WorkItem w = Get("acme/app#1");
  EXPECT_EQ(w.attempts, 2);
  EXPECT_NE(w.last_error.find("gave up after 2 attempts: the lease expired"), std::string::npos)
      << w.last_error;
  for (const auto& r : rec_.Reports()) {
    if (r.lease.fence < 3) {
      EXPECT_EQ(r.recorded.code(), StatusCode::kFenceLost) << "fence " << r.lease.fence;
    } else {
      EXPECT_FALSE(r.ran);
      EXPECT_TRUE(r.recorded.ok());
    }
  }
}

TEST_F(WorkerPoolTest, LeaseLostIsVisibleToThePassOnceTheLeaseRunsOut) {
  options_.skip_renewal = [](const Lease&) { return true; };
  Latch started, checked;
  std::atomic<bool> before{true}, after{false};
  Signal("acme/app#1");
  WorkerPool pool(
      *store_, clock_,
      [&](PassContext& ctx) {
        // Only the first claim's pass is observed: moving the clock past its lease wakes the
        // dispatcher, which may reclaim the item, and that pass holds a fresh lease.
        if (ctx.lease().fence != 1) return PassOutcome::Done();
        before = ctx.lease_lost();
        started.Open();
        checked.Wait();
        after = ctx.lease_lost();
        return PassOutcome::Done();
      },
      options_, rec_.Observer());
  ASSERT_TRUE(pool.Start().ok());
  started.Wait();
  clock_->Advance(options_.lease);
  checked.Open();
  ASSERT_TRUE(rec_.WaitForCount(1));
  pool.Stop();
  EXPECT_FALSE(before.load());
  EXPECT_TRUE(after.load());
}

TEST_F(WorkerPoolTest, StopFinishesAndRecordsRunningPasses) {
  Latch started, release;
  Signal("acme/app#1");
  WorkerPool pool(
      *store_, clock_,
      [&](PassContext&) {
        started.Open();
        release.Wait();
        return PassOutcome::Done();
      },
      options_, rec_.Observer());
  ASSERT_TRUE(pool.Start().ok());
  started.Wait();
  std::thread stopper([&] { pool.Stop(); });
  release.Open();
  stopper.join();
  ASSERT_EQ(rec_.Reports().size(), 1u);
  EXPECT_EQ(Get("acme/app#1").state, WorkState::kIdle);
}

// A store step that fails with no finished pass to record (PostgreSQL's pool exhausted, a
// lost connection) pauses the dispatcher, which then claims again. (It once skipped every
// later claim: the record-only step it waited for never came, so the pool ran nothing more.)
TEST_F(WorkerPoolTest, AFailedClaimWithNothingToRecordIsTriedAgain) {
  class FailFirstCycle final : public WorkQueueWrapper {
   public:
    using WorkQueueWrapper::WorkQueueWrapper;
    Result<Cycle> FinishAndClaim(std::span<const PassFinish> finishes, std::string_view owner,
                                 size_t max_items, Duration lease, Time now) override {
      if (calls.fetch_add(1) == 0) return Unavailable("postgres pool exhausted (injected)");
      return WorkQueueWrapper::FinishAndClaim(finishes, owner, max_items, lease, now);
    }
    std::atomic<int> calls{0};
  };
  class FailingStore final : public StoreWrapper {
   public:
    explicit FailingStore(Store& target) : StoreWrapper(target), queue(target.work()) {}
    WorkQueue& work() override { return queue; }
    FailFirstCycle queue;
  };
  Signal("acme/app#1");
  FailingStore store(*store_);
  WorkerPool pool(
      store, clock_, [](PassContext&) { return PassOutcome::Done(); }, options_, rec_.Observer());
  ASSERT_TRUE(pool.Start().ok());
  // Moves the clock past the backoff until the pass has run (a few rounds at most).
  bool ran = false;
  for (int round = 0; round < 10 && !ran; ++round) {
    clock_->Advance(seconds(1));
    ran = rec_.WaitFor([](const std::vector<PassReport>& r) { return !r.empty(); },
                       std::chrono::seconds(1));
  }
  pool.Stop();
  ASSERT_TRUE(ran) << "the pool never claimed again after one failed step";
  EXPECT_GE(store.queue.calls.load(), 2);
  EXPECT_EQ(Get("acme/app#1").state, WorkState::kIdle);
}

TEST_F(WorkerPoolTest, InvalidOptionsAreRejected) {
  options_.workers = 0;
  WorkerPool pool(
      *store_, clock_, [](PassContext&) { return PassOutcome::Done(); }, options_);
  EXPECT_EQ(pool.Start().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace gatehouse
