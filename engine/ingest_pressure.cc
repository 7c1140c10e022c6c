#include "engine/ingest_pressure.h"

namespace gatehouse {

void IngestPressure::RecordCommit(size_t deliveries, Time at) {
  MutexLock lock(&mu_);
  if (deliveries < kGroup) {
    run_ = 0;
    return;
  }
  if (run_ < kRun) ++run_;
  if (run_ == kRun) until_ = at + kHold;
}

Time IngestPressure::SaturatedUntil() const {
  MutexLock lock(&mu_);
  return until_;
}

}  // namespace gatehouse
