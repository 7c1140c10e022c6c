// DelayLine: runs callbacks after a wall-clock delay on one background thread, so that the
// simulator can inject response latency without blocking an HTTP I/O thread.
//
// Latency is inherently about real time, so this uses the steady clock rather than the
// injected Clock. Destruction drops callbacks not yet run (a dropped Responder answers 500,
// per http/handler.h). Thread-safe.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <thread>

#include "base/mutex.h"
#include "base/thread_annotations.h"

namespace gatehouse::sim {

class DelayLine {
 public:
  DelayLine() : thread_([this] { Run(); }) {}
  ~DelayLine() {
    {
      MutexLock lock(&mu_);
      stopping_ = true;
    }
    cv_.SignalAll();
    thread_.join();
  }
  DelayLine(const DelayLine&) = delete;
  DelayLine& operator=(const DelayLine&) = delete;

  void After(std::chrono::milliseconds delay, std::function<void()> fn) {
    {
      MutexLock lock(&mu_);
      due_.emplace(std::chrono::steady_clock::now() + delay, std::move(fn));
    }
    cv_.SignalAll();
  }

 private:
  void Run() {
    MutexLock lock(&mu_);
    while (!stopping_) {
      if (due_.empty()) {
        cv_.Wait(&mu_);
        continue;
      }
      auto first = due_.begin();
      if (first->first > std::chrono::steady_clock::now()) {
        cv_.WaitUntil(&mu_, first->first);
        continue;
      }
      std::function<void()> fn = std::move(first->second);
      due_.erase(first);
      mu_.Unlock();
      fn();
      mu_.Lock();
    }
  }

  Mutex mu_;
  CondVar cv_;
  std::multimap<std::chrono::steady_clock::time_point, std::function<void()>> due_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;
  std::thread thread_;  // last: starts after the members it uses
};

}  // namespace gatehouse::sim
