// Review-run helpers shared by pg_reviews.cc (runs) and pg_reviewers.cc (assignment): private
// to the PostgreSQL backend. Each runs inside a transaction on `c`.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "store/postgres/pg_store.h"

namespace gatehouse::postgres {

// Run `id` as ReviewRuns reads it (dead derived from its work item); nullopt when there is
// none. With `lock`, the run's row is locked FOR UPDATE until the transaction ends.
Result<std::optional<ReviewRun>> GetRunInTx(PgConn& c, int64_t id, bool lock);

// Run `id`, for a write fenced by its work item: kNotFound without it, kFenceLost unless its
// work item runs under `fence` (share-locked from then on), kFailedPrecondition unless its
// state is one of `allowed`. The run's row is locked FOR UPDATE, after the work item, so the
// state checked is the state the caller's write replaces.
Result<ReviewRun> FencedRunInTx(PgStore& store, PgConn& c, int64_t id, int64_t fence,
                                std::span<const RunState> allowed);

}  // namespace gatehouse::postgres
