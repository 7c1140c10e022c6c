// Waiting on the Clock: a SimClock's waiters wake when the test moves the time and only then;
// a RealClock's when real time passes. No test here waits for a duration to pass on a
// SimClock: each waits for the event (a waiter parked, a thread returned).
#include "base/clock.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "base/mutex.h"

namespace gatehouse {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

const Time kT0 = FromMicros(1'800'000'000'000'000);

TEST(SimClockTest, SleepUntilReturnsOnlyOnceTheTimeIsAdvancedToTheDeadline) {
  SimClock clock(kT0);
  std::atomic<bool> woke{false};
  std::thread sleeper([&] {
    clock.SleepUntil(kT0 + seconds(10));
    woke = true;
  });
  clock.AwaitWaiters(1);
  clock.Advance(seconds(9));  // not yet: the sleeper stays parked
  clock.AwaitWaiters(1);
  EXPECT_FALSE(woke.load());
  clock.Advance(seconds(1));
  sleeper.join();
  EXPECT_TRUE(woke.load());
  EXPECT_EQ(clock.waiters(), 0u);
}

TEST(SimClockTest, ADeadlineAlreadyReachedDoesNotWait) {
  SimClock clock(kT0);
  clock.SleepUntil(kT0);
  clock.SleepUntil(kT0 - seconds(1));
  Mutex mu;
  CondVar cv;
  MutexLock lock(&mu);
  EXPECT_FALSE(clock.WaitUntil(&mu, &cv, kT0));
  EXPECT_EQ(clock.waiters(), 0u);
}

TEST(SimClockTest, SetWakesWaitersWhoseDeadlineItReachesAndNoOthers) {
  SimClock clock(kT0);
  std::atomic<int> woke{0};
  std::thread early([&] {
    clock.SleepUntil(kT0 + seconds(5));
    woke.fetch_add(1);
  });
  std::thread late([&] {
    clock.SleepUntil(kT0 + seconds(50));
    woke.fetch_add(10);
  });
  clock.AwaitWaiters(2);
  clock.Set(kT0 + seconds(6));
  early.join();
  clock.AwaitWaiters(1);  // the late one is still parked
  EXPECT_EQ(woke.load(), 1);
  clock.Set(kT0 + seconds(50));
  late.join();
  EXPECT_EQ(woke.load(), 11);
}

// The condition a waiter waits for can end the wait before the deadline; the deadline ends it
// when nothing else does. Either way the waiter re-checks under its own mutex.
TEST(SimClockTest, WaitUntilEndsOnASignalOrOnTheDeadline) {
  SimClock clock(kT0);
  Mutex mu;
  CondVar cv;
  bool flag = false;  // guarded by mu (a local: the analysis does not track it)
  std::atomic<int> result{-1};
  auto waiter = [&] {
    MutexLock lock(&mu);
    bool in_time = true;
    while (!flag && in_time) in_time = clock.WaitUntil(&mu, &cv, kT0 + seconds(30));
    result = flag ? 1 : 0;
  };

  std::thread signalled(waiter);
  clock.AwaitWaiters(1);
  {
    MutexLock lock(&mu);
    flag = true;
  }
  cv.SignalAll();
  signalled.join();
  EXPECT_EQ(result.load(), 1) << "woken by the condition, not the clock";
  EXPECT_EQ(clock.Now(), kT0);

  flag = false;
  result = -1;
  std::thread timed_out(waiter);
  clock.AwaitWaiters(1);
  clock.Advance(seconds(30));
  timed_out.join();
  EXPECT_EQ(result.load(), 0) << "woken by the clock reaching the deadline";
}

// Many waiters on one mutex and condition variable, many time steps from another thread:
// every waiter wakes exactly when the time passes its own deadline, none is lost.
TEST(SimClockTest, ManyWaitersAndConcurrentAdvancesLoseNoWakeup) {
  SimClock clock(kT0);
  Mutex mu;
  CondVar cv;
  constexpr int kWaiters = 16;
  std::vector<std::thread> threads;
  std::atomic<int> done{0};
  std::atomic<int> early{0};
  for (int i = 0; i < kWaiters; ++i) {
    threads.emplace_back([&, i] {
      const Time deadline = kT0 + milliseconds(10 * (i + 1));
      MutexLock lock(&mu);
      while (clock.WaitUntil(&mu, &cv, deadline)) {
      }
      if (clock.Now() < deadline) early.fetch_add(1);
      done.fetch_add(1);
    });
  }
  clock.AwaitWaiters(kWaiters);
  std::thread stepper([&] {
    for (int i = 0; i < 10 * kWaiters; ++i) clock.Advance(milliseconds(1));
  });
  stepper.join();
  for (auto& t : threads) t.join();
  EXPECT_EQ(done.load(), kWaiters);
  EXPECT_EQ(early.load(), 0);
}

TEST(RealClockTest, WaitsEndWhenRealTimeReachesTheDeadline) {
  RealClock clock;
  const Time start = clock.Now();
  clock.SleepUntil(start + milliseconds(5));
  EXPECT_GE(clock.Now(), start + milliseconds(5));

  Mutex mu;
  CondVar cv;
  MutexLock lock(&mu);
  const Time deadline = clock.Now() + milliseconds(5);
  while (clock.WaitUntil(&mu, &cv, deadline)) {
  }
  EXPECT_GE(clock.Now(), deadline);
  EXPECT_FALSE(clock.WaitUntil(&mu, &cv, deadline));
}

}  // namespace
}  // namespace gatehouse
