// The store's view of the whole deployment as Prometheus families (docs/METRICS.md,
// "Cluster-wide families"): the webhook funnel, work items by state and the oldest pending
// age, the review-run funnel, and every store counter. Every node sharing a PostgreSQL
// database reports the same values, so aggregate them with max, not sum.
//
// The values are read at scrape time, once per scrape however many families show them: one
// snapshot (four store reads) is taken when a scrape starts and reused for `max_age` (1 s).
// A snapshot that cannot be read leaves these families out of that scrape (logged); they are
// never reported as 0.
#pragma once

#include <memory>

#include "base/clock.h"
#include "base/metrics.h"
#include "store/store.h"

namespace gatehouse::admin {

// Registers the families on `registry`; `store` must outlive it. A null clock is the real one
// (used for the oldest pending age).
void RegisterStoreMetrics(metrics::Registry& registry, Store& store, ClockPtr clock);

}  // namespace gatehouse::admin
