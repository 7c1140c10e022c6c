// LoopThread: the thread of a background loop (the sweeper's rounds, the delivery resolver's)
// and the one way such a loop waits: until the injected Clock reaches a deadline, or Stop(),
// whichever comes first. On a SimClock the wait ends when a test moves the time past the
// deadline, so a loop's schedule is tested without real time.
//
// Thread-safe: Start() once from the owner, Stop() from any thread (idempotent; joins the
// loop). The loop itself calls WaitUntil() and Stopping().
#pragma once

#include <functional>
#include <thread>

#include "base/clock.h"
#include "base/mutex.h"
#include "base/thread_annotations.h"

namespace gatehouse {

class LoopThread {
 public:
  explicit LoopThread(ClockPtr clock) : clock_(std::move(clock)) {}
  ~LoopThread() { Stop(); }
  LoopThread(const LoopThread&) = delete;
  LoopThread& operator=(const LoopThread&) = delete;

  // Runs `loop` on a new thread. `loop` should return soon after WaitUntil() returns false
  // or Stopping() turns true.
  void Start(std::function<void()> loop);
  // Asks the loop to stop, wakes its wait and joins it.
  void Stop();

  bool Stopping();
  // Waits until the clock reaches `deadline` or Stop(); false when stopping.
  bool WaitUntil(Time deadline);

 private:
  ClockPtr clock_;
  Mutex mu_;
  CondVar cv_;
  bool stopping_ GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace gatehouse
