// DelayLine: runs callbacks after a wall-clock delay on one background thread, so that the
// simulator can inject response latency without blocking an HTTP I/O thread.
//
// Latency is inherently about real time, so this uses the steady clock rather than the
// injected Clock. Destruction drops callbacks not yet run (a dropped Responder answers 500,
// per http/handler.h). Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

namespace gatehouse::sim {

class DelayLine {
 public:
  DelayLine() : thread_([this] { Run(); }) {}
  ~DelayLine() {
    {
      std::lock_guard<std::mutex> lock(mu_);
      stopping_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  DelayLine(const DelayLine&) = delete;
  DelayLine& operator=(const DelayLine&) = delete;

  void After(std::chrono::milliseconds delay, std::function<void()> fn) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      due_.emplace(std::chrono::steady_clock::now() + delay, std::move(fn));
    }
    cv_.notify_all();
  }

 private:
  void Run() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!stopping_) {
      if (due_.empty()) {
        cv_.wait(lock);
        continue;
      }
      auto first = due_.begin();
      if (first->first > std::chrono::steady_clock::now()) {
        cv_.wait_until(lock, first->first);
        continue;
      }
      std::function<void()> fn = std::move(first->second);
      due_.erase(first);
      lock.unlock();
      fn();
      lock.lock();
    }
  }

  std::mutex mu_;
  std::condition_variable cv_;
  std::multimap<std::chrono::steady_clock::time_point, std::function<void()>> due_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts after the members it uses
};

}  // namespace gatehouse::sim
