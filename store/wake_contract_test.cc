// The Wake part of the WorkQueue contract (store/work_queue.h): "retry now" makes a waiting
// item due at once, marks a running one so that its retry is due at once, and leaves idle,
// dead and unknown items alone.
#include <gtest/gtest.h>

#include "store/store.h"
#include "store/store_test_util.h"

namespace gatehouse {
namespace {

using std::chrono::hours;
using std::chrono::seconds;
using testing::StoreBackend;
using testing::TempDir;

using testing::kT0;
const std::string kKey = "acme/app#1/review/security";

class WakeContractTest : public ::testing::TestWithParam<StoreBackend> {
 protected:
  void SetUp() override { store_ = GetParam().open_fresh(dir_); }

  Lease SignalAndClaim(const std::string& key, Time now) {
    Signal s{key, "review-run", {}};
    EXPECT_TRUE(store_->work().Enqueue({&s, 1}, now, Durability::kRecoverable).ok());
    return ClaimOne(now);
  }
  std::vector<Lease> Claim(Time now) {
    auto r = store_->work().Claim("w1", 10, seconds(30), now);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::vector<Lease>{};
  }
  Lease ClaimOne(Time now) {
    auto r = store_->work().Claim("w1", 1, seconds(30), now);
    EXPECT_TRUE(r.ok() && r->size() == 1u) << "nothing claimable";
    return r.ok() && r->size() == 1u ? (*r)[0] : Lease{};
  }
  void Finish(const Lease& l, PassFinish::Kind kind, Time retry_at, Time now) {
    PassFinish f;
    f.key = l.key;
    f.fence = l.fence;
    f.kind = kind;
    f.retry_at = retry_at;
    f.attempts = 1;
    f.unavailable = kind == PassFinish::Kind::kRetry && !transient_;
    if (f.unavailable) f.availability_since = now;
    f.error = transient_ ? "reviewer gpt: 503" : "unavailable: reviewer alice at capacity";
    auto r = store_->work().Finish({&f, 1}, now);
    ASSERT_TRUE(r.ok() && (*r)[0].ok());
  }
  Status Wake(std::vector<std::string> keys, Time now) { return store_->work().Wake(keys, now); }
  WorkItem Get(const std::string& key) {
    auto r = store_->work().GetWorkItem(key);
    EXPECT_TRUE(r.ok() && r->has_value()) << key;
    return r.ok() && r->has_value() ? **r : WorkItem{};
  }

  TempDir dir_;
  StorePtr store_;
  bool transient_ = false;  // Finish records a transient failure instead of a wait
};

TEST_P(WakeContractTest, AWaitingItemIsDueNowWithoutItsBackoff) {
  Lease first = SignalAndClaim(kKey, kT0);
  Finish(first, PassFinish::Kind::kRetry, kT0 + hours(1), kT0 + seconds(1));
  ASSERT_EQ(Get(kKey).backoff_until, kT0 + hours(1));
  ASSERT_TRUE(Wake({kKey}, kT0 + seconds(10)).ok());
  WorkItem woken = Get(kKey);
  EXPECT_EQ(woken.state, WorkState::kPending);
  EXPECT_EQ(woken.due_at, kT0 + seconds(10));
  EXPECT_FALSE(woken.backoff_until.has_value());
  EXPECT_EQ(woken.requested_gen, 1) << "a wake is no new signal";
  EXPECT_EQ(woken.attempts, 1) << "budgets are the retry policy's, not the wake's";
  Lease again = ClaimOne(kT0 + seconds(10));
  EXPECT_EQ(again.key, kKey);
  EXPECT_EQ(again.fence, first.fence + 1);
}

TEST_P(WakeContractTest, AnOverdueItemKeepsItsEarlierDueTime) {
  Signal s{kKey, "review-run", {}};
  ASSERT_TRUE(store_->work().Enqueue({&s, 1}, kT0, Durability::kRecoverable).ok());
  ASSERT_TRUE(Wake({kKey}, kT0 + seconds(5)).ok());
  EXPECT_EQ(Get(kKey).due_at, kT0);
}

// The race a freed slot meets: the wake lands while the pass that found no slot still runs.
TEST_P(WakeContractTest, AWakeWhileRunningMakesItsRetryDueAtOnce) {
  Lease l = SignalAndClaim(kKey, kT0);
  ASSERT_TRUE(Wake({kKey}, kT0 + seconds(1)).ok());
  EXPECT_EQ(Get(kKey).state, WorkState::kRunning);
  Finish(l, PassFinish::Kind::kRetry, kT0 + hours(1), kT0 + seconds(2));
  WorkItem due = Get(kKey);
  EXPECT_EQ(due.state, WorkState::kPending);
  EXPECT_EQ(due.due_at, kT0 + seconds(2));
  EXPECT_FALSE(due.backoff_until.has_value());
  EXPECT_EQ(due.attempts, 1) << "the rest of the finish is kept";
  EXPECT_EQ(due.last_error, "unavailable: reviewer alice at capacity");

  // The finish cleared the mark: the next retry waits for its retry_at again.
  Lease next = ClaimOne(kT0 + seconds(2));
  Finish(next, PassFinish::Kind::kRetry, kT0 + hours(1), kT0 + seconds(3));
  EXPECT_EQ(Get(kKey).due_at, kT0 + hours(1));
  EXPECT_TRUE(Claim(kT0 + seconds(4)).empty());
}

TEST_P(WakeContractTest, ACompletedPassJustDropsTheMark) {
  Lease l = SignalAndClaim(kKey, kT0);
  ASSERT_TRUE(Wake({kKey}, kT0 + seconds(1)).ok());
  Finish(l, PassFinish::Kind::kCompleted, Time{}, kT0 + seconds(2));
  EXPECT_EQ(Get(kKey).state, WorkState::kIdle);
  Lease next = SignalAndClaim(kKey, kT0 + seconds(3));
  Finish(next, PassFinish::Kind::kRetry, kT0 + hours(1), kT0 + seconds(4));
  EXPECT_EQ(Get(kKey).due_at, kT0 + hours(1));
}

// A wake was for the pass that was running; a pass that claims after it starts afresh.
TEST_P(WakeContractTest, AReclaimDropsTheMark) {
  Lease l = SignalAndClaim(kKey, kT0);
  ASSERT_TRUE(Wake({kKey}, kT0 + seconds(1)).ok());
  Lease reclaimed = ClaimOne(kT0 + seconds(31));
  ASSERT_GT(reclaimed.fence, l.fence);
  Finish(reclaimed, PassFinish::Kind::kRetry, kT0 + hours(1), kT0 + seconds(32));
  EXPECT_EQ(Get(kKey).due_at, kT0 + hours(1));
}

// Waking never hurries a backoff from a transient failure: an outage must not become a storm.
TEST_P(WakeContractTest, ATransientBackoffIsNeverHurried) {
  transient_ = true;
  Lease first = SignalAndClaim(kKey, kT0);
  Finish(first, PassFinish::Kind::kRetry, kT0 + hours(1), kT0 + seconds(1));
  ASSERT_TRUE(Wake({kKey}, kT0 + seconds(10)).ok());
  EXPECT_EQ(Get(kKey).due_at, kT0 + hours(1));
  EXPECT_TRUE(Claim(kT0 + seconds(10)).empty());
  // Woken while running, then a transient failure: its own retry time holds.
  Lease second = ClaimOne(kT0 + hours(1));
  ASSERT_TRUE(Wake({kKey}, kT0 + hours(1) + seconds(1)).ok());
  Finish(second, PassFinish::Kind::kRetry, kT0 + hours(3), kT0 + hours(1) + seconds(2));
  EXPECT_EQ(Get(kKey).due_at, kT0 + hours(3));
}

TEST_P(WakeContractTest, IdleDeadAndUnknownItemsAreUntouched) {
  Lease idle = SignalAndClaim("acme/app#1", kT0);
  Finish(idle, PassFinish::Kind::kCompleted, Time{}, kT0);
  Lease dead = SignalAndClaim("acme/app#2", kT0);
  Finish(dead, PassFinish::Kind::kDead, Time{}, kT0);
  const WorkItem idle_before = Get("acme/app#1"), dead_before = Get("acme/app#2");
  ASSERT_TRUE(Wake({"acme/app#1", "acme/app#2", "acme/app#404"}, kT0 + seconds(9)).ok());
  const WorkItem idle_after = Get("acme/app#1"), dead_after = Get("acme/app#2");
  EXPECT_EQ(idle_after.state, WorkState::kIdle);
  EXPECT_FALSE(idle_after.due_at.has_value());
  EXPECT_EQ(idle_after.updated_at, idle_before.updated_at);
  EXPECT_EQ(dead_after.state, WorkState::kDead);
  EXPECT_EQ(dead_after.updated_at, dead_before.updated_at);
  auto unknown = store_->work().GetWorkItem("acme/app#404");
  ASSERT_TRUE(unknown.ok());
  EXPECT_FALSE(unknown->has_value());
  EXPECT_TRUE(Claim(kT0 + seconds(9)).empty());
}

TEST_P(WakeContractTest, ABadKeyWakesNothing) {
  Lease l = SignalAndClaim(kKey, kT0);
  Finish(l, PassFinish::Kind::kRetry, kT0 + hours(1), kT0);
  EXPECT_EQ(Wake({kKey, ""}, kT0 + seconds(1)).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Wake({std::string(513, 'k')}, kT0).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(Get(kKey).due_at, kT0 + hours(1));
  EXPECT_TRUE(Wake({}, kT0).ok());
}

INSTANTIATE_TEST_SUITE_P(Backends, WakeContractTest,
                         ::testing::ValuesIn(testing::ContractBackends()), testing::BackendName);

}  // namespace
}  // namespace gatehouse
