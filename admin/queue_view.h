// QueuesView: the merge queues as the admin API serves them (GET /api/v1/queues,
// docs/ADMIN_API.md) and the dashboard's Queues page renders them (docs/MERGE_QUEUE.md,
// "Visibility"). Reads the store only (no GitHub call).
#pragma once

#include <boost/json.hpp>

#include "base/clock.h"
#include "base/status.h"
#include "store/store.h"

namespace gatehouse::admin {

// Every queue that has a work item: {"queues": [{"queue", "repo", "base", "work_state",
// "open": [entry...], "ended": [the latest 20 merged or dropped entries, newest first],
// "landing_interval_seconds": the mean time between the queue's recent landings (merges, or
// batches landing together), null with fewer than two, "per_landing": entries merged per
// landing}]}. An open entry: {"id", "subject", "head_sha", "state", "priority", "batch",
// "tested_sha", "reason", "deadline", "entered_at", "updated_at", "position" (0 for the first
// in the queue's order), "eta" (when it should merge at the recent pace: null when the pace is
// not known yet)}.
Result<boost::json::object> QueuesView(Store& store, Time now);

}  // namespace gatehouse::admin
