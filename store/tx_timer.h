// TxTimer: times one store transaction into a histogram (seconds, wall clock: a metric, never a
// decision), from construction to destruction, whatever path the transaction leaves by. A null
// histogram (metrics not registered) makes it do nothing. Shared by the backends.
#pragma once

#include <atomic>
#include <chrono>

#include "base/metrics.h"

namespace gatehouse {

class TxTimer {
 public:
  explicit TxTimer(const std::atomic<metrics::Histogram*>& histogram)
      : histogram_(histogram.load(std::memory_order_acquire)),
        start_(histogram_ != nullptr ? std::chrono::steady_clock::now()
                                     : std::chrono::steady_clock::time_point()) {}
  ~TxTimer() {
    if (histogram_ == nullptr) return;
    histogram_->Observe(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count());
  }
  TxTimer(const TxTimer&) = delete;
  TxTimer& operator=(const TxTimer&) = delete;

 private:
  metrics::Histogram* const histogram_;
  const std::chrono::steady_clock::time_point start_;
};

// The family both backends register their series in.
inline metrics::Family<metrics::Histogram>& TransactionFamily(metrics::Registry& registry) {
  return registry.AddHistogram(
      "gatehouse_store_transaction_duration_seconds",
      "How long this process's store transactions took, from BEGIN (or waiting for a pooled "
      "connection) to COMMIT, by backend and kind (write, read).",
      {"backend", "kind"}, metrics::LatencyBounds());
}

}  // namespace gatehouse
