// How a failed GitHub call ends a pass (the table in github/errors.h): the bridge from github/'s
// typed errors to PassOutcome (act/pass_outcome.h). It lives in act/, the layer that makes the
// calls, because github/ sits below it (DESIGN.md §5) and must not know about passes.
//
// Pure functions; safe for concurrent use.
#pragma once

#include <string_view>

#include "act/pass_outcome.h"
#include "github/errors.h"

namespace gatehouse {

// RateLimited → PassOutcome::RateLimited(until) (a wait that consumes no attempt),
// Transient → Transient, everything else → Permanent. Callers with an action ledger check
// IsSuperseded() first: a superseded mutation is not a failure of the pass.
PassOutcome ToPassOutcome(const GitHubError& error);

// How a failed read inside a pass ends it: rate limited → ToPassOutcome (wait for the reset);
// anything else → Transient("<what>: <error>") whatever its status (retried with backoff, up
// to the attempt budget, then dead and visible): a 404 on a force-pushed head's checks or a 401
// while a token rotates is gone on the next try, and a PR must not die on one bad answer.
PassOutcome ReadFailureOutcome(std::string_view what, const GitHubError& error);

}  // namespace gatehouse
