// A background loop on a SimClock: its waits end when the test moves the time past their
// deadline, or at Stop(), and never on their own.
#include "base/loop_thread.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <memory>

namespace gatehouse {
namespace {

using std::chrono::seconds;

const Time kLoopT0 = FromMicros(1'800'000'000'000'000);

TEST(LoopThreadTest, EachRoundRunsWhenTheClockReachesItsDeadline) {
  auto clock = std::make_shared<SimClock>(kLoopT0);
  LoopThread loop(clock);
  std::atomic<int> rounds{0};
  std::promise<void> first_round;
  loop.Start([&] {
    while (loop.WaitUntil(clock->Now() + seconds(10))) {
      if (++rounds == 1) first_round.set_value();
    }
  });
  clock->AwaitWaiters(1);
  clock->Advance(seconds(9));  // not yet
  clock->AwaitWaiters(1);
  EXPECT_EQ(rounds.load(), 0);
  clock->Advance(seconds(1));  // the first round, then the loop waits again
  first_round.get_future().wait();
  loop.Stop();  // the second wait ends without a round
  EXPECT_EQ(rounds.load(), 1);
  EXPECT_TRUE(loop.Stopping());
}

TEST(LoopThreadTest, StopEndsAWaitTheClockWouldNeverEnd) {
  auto clock = std::make_shared<SimClock>(kLoopT0);
  LoopThread loop(clock);
  std::atomic<bool> returned_false{false};
  loop.Start([&] { returned_false = !loop.WaitUntil(kLoopT0 + seconds(3600)); });
  clock->AwaitWaiters(1);
  loop.Stop();  // joins: the wait ended without the time moving
  EXPECT_TRUE(returned_false.load());
  EXPECT_EQ(clock->waiters(), 0u);
  EXPECT_FALSE(loop.WaitUntil(kLoopT0 + seconds(1)));  // stopped: no more waiting
}

}  // namespace
}  // namespace gatehouse
