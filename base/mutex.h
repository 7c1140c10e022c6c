// Mutex, MutexLock and CondVar: std::mutex and std::condition_variable with the annotations
// clang's -Wthread-safety checks (base/thread_annotations.h), after LevelDB's port::Mutex.
//
//   Mutex mu_;
//   CondVar cv_;
//   bool ready_ GUARDED_BY(mu_) = false;
//
//   void Open() {
//     MutexLock lock(&mu_);
//     ready_ = true;
//     cv_.SignalAll();
//   }
//   void AwaitOpen() {
//     MutexLock lock(&mu_);
//     while (!ready_) cv_.Wait(&mu_);
//   }
//
// Waits take the mutex explicitly and return with it held; the caller loops on its own
// condition (a wait may also return spuriously), so the analysis sees every read of guarded
// state under the lock. CondVar's timed wait is in real (monotonic) time, for waits on real
// I/O; a wait whose deadline is a policy (a poll interval, a backoff) goes through the
// injected Clock instead (Clock::WaitUntil in base/clock.h), so that tests can move it.
//
// Not recursive. Thread-safe, as the std types they wrap.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "base/thread_annotations.h"

namespace gatehouse {

class CondVar;

class CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }
  // Tells the analysis that the calling thread holds this mutex, where it cannot see the
  // acquisition itself (a callback that runs under the lock). Checks nothing at run time.
  void AssertHeld() const ASSERT_CAPABILITY(this) {}

 private:
  friend class CondVar;
  std::mutex mu_;
};

// Holds a Mutex for its scope.
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ACQUIRE(mu) : mu_(mu) { mu_->Lock(); }
  ~MutexLock() RELEASE() { mu_->Unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mu_;
};

class CondVar {
 public:
  using Steady = std::chrono::steady_clock;

  CondVar() = default;
  CondVar(const CondVar&) = delete;
  CondVar& operator=(const CondVar&) = delete;

  // Atomically releases `mu` and blocks until Signal/SignalAll (or a spurious wakeup), then
  // holds `mu` again.
  void Wait(Mutex* mu) REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    cv_.wait(lock);
    lock.release();  // `mu` stays locked; the caller's MutexLock owns it
  }
  // As Wait, but returns at `deadline` at the latest (real time). False when it returned
  // because the deadline passed.
  bool WaitUntil(Mutex* mu, Steady::time_point deadline) REQUIRES(mu) {
    std::unique_lock<std::mutex> lock(mu->mu_, std::adopt_lock);
    const bool signalled = cv_.wait_until(lock, deadline) == std::cv_status::no_timeout;
    lock.release();
    return signalled;
  }
  bool WaitFor(Mutex* mu, Steady::duration timeout) REQUIRES(mu) {
    return WaitUntil(mu, Steady::now() + timeout);
  }

  // Wakes one waiter / every waiter. Change the condition under the mutex first; the signal
  // itself may be sent with or without the mutex held.
  void Signal() { cv_.notify_one(); }
  void SignalAll() { cv_.notify_all(); }

 private:
  std::condition_variable cv_;
};

}  // namespace gatehouse
