// IngestPressure: whether the webhook front door is saturated, as the inbox writer sees it, so
// that the router can let acceptance go first (docs/INGRESS.md, "Ingest first").
//
// The door is saturated while clients queue on the inbox's fsync: kRun consecutive group
// commits of at least kGroup deliveries each. It stays saturated for kHold after the last such
// commit (on the caller's Clock), so that the short gaps between commits do not read as idle.
// One webhook at a time, or the handful of events GitHub sends at once for one push, never
// saturates it: at 50 webhooks a second each commit carries one or two.
//
// Thread-safe: the inbox writer records, the router reads.
#pragma once

#include <chrono>
#include <cstddef>

#include "base/clock.h"
#include "base/mutex.h"
#include "base/thread_annotations.h"

namespace gatehouse {

class IngestPressure {
 public:
  static constexpr size_t kGroup = 8;
  static constexpr int kRun = 3;
  static constexpr Duration kHold = std::chrono::milliseconds(100);

  // One group commit of `deliveries` requests, committed at `at`.
  void RecordCommit(size_t deliveries, Time at);

  // Until when the door counts as saturated: at or before now, it is not. Time{} if it never
  // was.
  Time SaturatedUntil() const;

 private:
  mutable Mutex mu_;
  int run_ GUARDED_BY(mu_) = 0;  // consecutive commits of at least kGroup, up to kRun
  Time until_ GUARDED_BY(mu_){};
};

}  // namespace gatehouse
