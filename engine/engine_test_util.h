// Test support for the engine: collects pass reports and waits for conditions on them.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <vector>

#include "engine/worker_pool.h"

namespace gatehouse::testing {

class PassRecorder {
 public:
  PassObserver Observer() {
    return [this](const PassReport& r) {
      std::lock_guard<std::mutex> lock(mu_);
      reports_.push_back(r);
      cv_.notify_all();
    };
  }

  // Blocks until `pred(reports)` holds. The deadline is a safety net against a hung engine,
  // far above any expected latency; tests never rely on it for ordering.
  bool WaitFor(const std::function<bool(const std::vector<PassReport>&)>& pred,
               std::chrono::seconds safety = std::chrono::seconds(60)) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, safety, [&] { return pred(reports_); });
  }
  bool WaitForCount(size_t n) {
    return WaitFor([n](const std::vector<PassReport>& r) { return r.size() >= n; });
  }
  std::vector<PassReport> Reports() {
    std::lock_guard<std::mutex> lock(mu_);
    return reports_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<PassReport> reports_;
};

// A gate a pass can wait at until the test opens it.
class Latch {
 public:
  void Open() {
    std::lock_guard<std::mutex> lock(mu_);
    open_ = true;
    cv_.notify_all();
  }
  void Wait() {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [&] { return open_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
};

}  // namespace gatehouse::testing
