// Test support for the engine: collects pass reports, counts events, and waits for conditions
// on them.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <vector>

#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "engine/worker_pool.h"

namespace gatehouse::testing {

// The deadlines below are safety nets against a hung engine, far above any expected latency;
// tests never rely on them for ordering. They are real time: they bound the test, not the
// code under test.
inline CondVar::Steady::time_point SafetyDeadline(std::chrono::seconds safety) {
  return CondVar::Steady::now() + safety;
}

class PassRecorder {
 public:
  PassObserver Observer() {
    return [this](const PassReport& r) {
      MutexLock lock(&mu_);
      reports_.push_back(r);
      cv_.SignalAll();
    };
  }

  // Blocks until `pred(reports)` holds.
  bool WaitFor(const std::function<bool(const std::vector<PassReport>&)>& pred,
               std::chrono::seconds safety = std::chrono::seconds(60)) {
    const auto deadline = SafetyDeadline(safety);
    MutexLock lock(&mu_);
    while (!pred(reports_)) {
      if (!cv_.WaitUntil(&mu_, deadline)) return pred(reports_);
    }
    return true;
  }
  bool WaitForCount(size_t n) {
    return WaitFor([n](const std::vector<PassReport>& r) { return r.size() >= n; });
  }
  std::vector<PassReport> Reports() {
    MutexLock lock(&mu_);
    return reports_;
  }

 private:
  Mutex mu_;
  CondVar cv_;
  std::vector<PassReport> reports_ GUARDED_BY(mu_);
};

// Counts events reported from other threads (a callback's calls) and lets a test wait for
// the count to reach a number.
class EventCount {
 public:
  void Add() {
    MutexLock lock(&mu_);
    ++count_;
    cv_.SignalAll();
  }
  int64_t count() {
    MutexLock lock(&mu_);
    return count_;
  }
  // Blocks until at least `n` events were counted.
  bool AwaitAtLeast(int64_t n, std::chrono::seconds safety = std::chrono::seconds(60)) {
    const auto deadline = SafetyDeadline(safety);
    MutexLock lock(&mu_);
    while (count_ < n) {
      if (!cv_.WaitUntil(&mu_, deadline)) return count_ >= n;
    }
    return true;
  }

 private:
  Mutex mu_;
  CondVar cv_;
  int64_t count_ GUARDED_BY(mu_) = 0;
};

// A gate a pass can wait at until the test opens it.
class Latch {
 public:
  void Open() {
    MutexLock lock(&mu_);
    open_ = true;
    cv_.SignalAll();
  }
  void Wait() {
    MutexLock lock(&mu_);
    while (!open_) cv_.Wait(&mu_);
  }

 private:
  Mutex mu_;
  CondVar cv_;
  bool open_ GUARDED_BY(mu_) = false;
};

}  // namespace gatehouse::testing
