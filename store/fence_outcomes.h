// FenceOutcomes: what every backend's Renew and Finish report for each lease they were given,
// and the funnel counters a Finish batch moves (docs/ENGINE.md). A backend writes each lease's
// row conditionally (`... WHERE key = ? AND fence = ? AND state = 'running'`; PostgreSQL
// finishes the completed ones in one statement) and hands this whether that lease's row was
// written; the outcome is OK, or kFenceLost when another claim took the item since (or it is no
// longer running), with the same message in both backends.
//
// Not thread-safe: one per batch, inside the backend's transaction.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "base/status.h"
#include "store/counters.h"
#include "store/work_queue.h"

namespace gatehouse {

// OK, or kFenceLost "renewing <key> fence <fence>".
Status RenewOutcome(const LeaseRenewal& r, bool applied);

class FinishTally {
 public:
  // Appends `f`'s outcome to `out`: OK when `applied`, else kFenceLost "finishing <key> fence
  // <fence>"; and counts it.
  void Record(const PassFinish& f, bool applied, std::vector<Status>* out);

  // The batch's increments of work.passes_completed, work.passes_retried, work.dead and
  // work.fence_rejections, in that order.
  std::array<CounterDelta, 4> Counters() const;

 private:
  int64_t completed_ = 0;
  int64_t retried_ = 0;
  int64_t dead_ = 0;
  int64_t rejected_ = 0;
};

}  // namespace gatehouse
