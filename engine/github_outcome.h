// How the engine treats a failed GitHub call (the table in github/errors.h): the bridge from
// github/'s typed errors to the retry policy's PassOutcome. It lives in engine/ because
// github/ sits below engine/ (DESIGN.md §5) and must not know about passes.
//
// Pure functions; safe for concurrent use.
#pragma once

#include "engine/retry_policy.h"
#include "github/errors.h"

namespace gatehouse {

// RateLimited → PassOutcome::RateLimited(until) (a wait that consumes no attempt),
// Transient → Transient, everything else → Permanent. Callers with an action ledger check
// IsSuperseded() first: a superseded mutation is not a failure of the pass.
PassOutcome ToPassOutcome(const GitHubError& error);

}  // namespace gatehouse
