// Clock: the only way gatehouse code reads the time, and waits for it.
//
// Time is injected so that tests move a simulated clock instead of sleeping. Timestamps are
// microseconds since the Unix epoch (wall-clock time, comparable across processes on one
// host, which is what leases shared through one database file need).
//
// The contract for waiting:
//
//  - Who waits on the Clock: every wait whose length is a policy of gatehouse's — a poll
//    interval, a backoff pause, a sweep or resolve interval. Those waits end when *this
//    clock* reaches the deadline, so a test on a SimClock decides when they end by moving it.
//    A wait for real I/O (a socket, another process, a network delay the simulator injects)
//    uses real time (CondVar::WaitUntil, std::this_thread) and says so where it is.
//  - SleepUntil(deadline) returns once Now() >= deadline; nothing else ends it.
//  - WaitUntil(mu, cv, deadline) is a condition-variable wait with a deadline on this clock:
//    it releases `mu` while blocked and returns, holding `mu` again, when `cv` is signalled,
//    when the clock reaches the deadline, or spuriously. It returns false only when
//    Now() >= deadline. Callers re-check their condition in a loop:
//
//        MutexLock lock(&mu_);
//        const Time deadline = clock_->Now() + options_.poll_interval;
//        while (!wake_ && !stopping_ && clock_->WaitUntil(&mu_, &cv_, deadline)) {}
//
//  - RealClock: the deadline passes with real time (measured on the monotonic clock, so a
//    wall-clock step does not stretch or cut a wait short by more than the step).
//  - SimClock: time stands still until Set or Advance moves it; they wake every waiter whose
//    deadline the new time reaches (a waiter whose deadline is still ahead keeps waiting). A
//    deadline already reached returns at once. Set and Advance lock each woken waiter's `mu`
//    to signal it, so they must not be called with such a mutex held.
//
// Thread-safety: every method of both implementations may be called from any thread,
// concurrently; any number of threads may wait at once.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "base/mutex.h"
#include "base/thread_annotations.h"

namespace gatehouse {

using Duration = std::chrono::microseconds;
using Time = std::chrono::time_point<std::chrono::system_clock, Duration>;

inline int64_t ToMicros(Time t) { return t.time_since_epoch().count(); }
inline Time FromMicros(int64_t us) { return Time(Duration(us)); }

// A duration in whole seconds as people write it: "45s", "30m", "1h30m", "2h5s" (zero parts left out).
std::string FormatDuration(Duration d);

// RFC 3339 in UTC with milliseconds, e.g. "2026-11-30T12:00:00.123Z".
std::string FormatTime(Time t);

// Parses RFC 3339 in UTC as GitHub writes it ("2026-11-30T12:00:00Z", optionally with
// fractional seconds, as FormatTime writes them); nullopt for anything else.
std::optional<Time> ParseTime(std::string_view text);

class Clock {
 public:
  virtual ~Clock() = default;
  virtual Time Now() const = 0;
  // Blocks until Now() >= deadline.
  virtual void SleepUntil(Time deadline) = 0;
  // Waits on `cv` (releasing `mu`) until it is signalled, Now() >= deadline, or spuriously;
  // returns holding `mu`. False exactly when the deadline was reached.
  virtual bool WaitUntil(Mutex* mu, CondVar* cv, Time deadline) REQUIRES(mu) = 0;
};

using ClockPtr = std::shared_ptr<Clock>;

// The system's wall clock.
class RealClock final : public Clock {
 public:
  Time Now() const override;
  void SleepUntil(Time deadline) override;
  bool WaitUntil(Mutex* mu, CondVar* cv, Time deadline) override REQUIRES(mu);
};

// A clock that only moves when told to. Starts at `start`.
class SimClock final : public Clock {
 public:
  explicit SimClock(Time start) : now_us_(ToMicros(start)) {}
  Time Now() const override { return FromMicros(now_us_.load(std::memory_order_acquire)); }
  void SleepUntil(Time deadline) override;
  bool WaitUntil(Mutex* mu, CondVar* cv, Time deadline) override REQUIRES(mu);

  // Move the clock and wake the waiters whose deadline it reached. Not with a mutex held
  // that a waiter waits with (see above).
  void Set(Time t);
  void Advance(Duration d);

  // Threads waiting on this clock right now (in SleepUntil or WaitUntil).
  size_t waiters() const;
  // Blocks (in real time) until at least `n` threads wait on this clock, so that a test moves
  // the time only once the thread it means to wake is parked on its deadline.
  void AwaitWaiters(size_t n) const;

 private:
  // One thread in WaitUntil; lives on that thread's stack.
  struct Waiter {
    Mutex* mu;
    CondVar* cv;
    Time deadline;
  };
  void WakeDue();

  std::atomic<int64_t> now_us_;
  mutable Mutex mu_;
  mutable CondVar changed_;  // waiters_ or waking_ changed
  std::set<const Waiter*> waiters_ GUARDED_BY(mu_);
  // Waiters a Set/Advance is signalling outside mu_ (once per call): each stays in WaitUntil
  // until it is no longer listed, so its Mutex and CondVar outlive the signal.
  std::multiset<const Waiter*> waking_ GUARDED_BY(mu_);
};

}  // namespace gatehouse
