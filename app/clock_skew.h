// The start-up check of a node's clock against the database server's (docs/STORE.md, "Whose
// clock"; docs/POSTGRES.md). Fences keep nodes with skewed clocks correct, but a node whose
// clock is off by a large part of a lease steals live leases (ahead) or leaves expired ones
// waiting (behind), so `gatehouse serve` refuses to start when the skew exceeds a quarter of
// the lease.
#pragma once

#include "base/clock.h"
#include "base/status.h"
#include "store/store.h"

namespace gatehouse::app {

// OK when the store has no clock of its own (SQLite) or when |local_now - database time| is
// at most lease / 4; kFailedPrecondition naming both clocks and the skew otherwise.
Status CheckClockSkew(Store& store, Time local_now, Duration lease);

}  // namespace gatehouse::app
