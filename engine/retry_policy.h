// How a pass ended, and what that means for the work item (DESIGN.md §2 rule 6).
//
// Pure functions, no I/O and no clock reads: the caller passes `now` and a random source.
//
//  transient     5xx, timeouts, resets: consumes one attempt; retried after a full-jitter
//                exponential backoff, U[0, min(cap, base * 2^(attempts-1))]; `dead` once
//                `max_attempts` attempts failed since the last completed pass (a lease that
//                expired mid-pass also counts as one, see WorkQueue::Claim).
//  rate-limited  waits until the given time (plus a little jitter so that every waiting item
//                does not stampede at the reset); consumes no attempt.
//  unavailable   "not now" (a paused reviewer, CI not reported yet): a separate wall-clock
//                budget, measured from the first unavailable outcome since the last completed
//                pass; backoff grows with the time already spent unavailable; `dead` once the
//                budget is spent. The budget is the outcome's own (PassOutcome::budget) when it
//                carries one, `unavailable_budget` otherwise.
//  permanent     `dead` at once.
// A completed pass resets both budgets.
//
// PassOutcome itself is act/'s (act/pass_outcome.h): the pass produces it, the engine reads it.
#pragma once

#include <random>
#include <string>

#include "act/pass_outcome.h"
#include "base/clock.h"
#include "store/store.h"

namespace gatehouse {

struct RetryPolicy {
  int max_attempts = 8;
  Duration transient_base = std::chrono::seconds(2);
  Duration transient_cap = std::chrono::minutes(10);
  Duration unavailable_base = std::chrono::seconds(30);
  Duration unavailable_cap = std::chrono::minutes(15);
  Duration unavailable_budget = std::chrono::hours(6);
  Duration rate_limit_jitter = std::chrono::seconds(1);
};

// Checks that the policy makes sense (positive durations, base <= cap, attempts >= 1).
Status ValidateRetryPolicy(const RetryPolicy& policy);

// U[0, min(cap, base * 2^(attempt-1))] for attempt >= 1.
Duration FullJitterBackoff(Duration base, Duration cap, int attempt, std::mt19937_64& rng);

// Turns the outcome of the pass that held `lease` into the store write that ends it.
PassFinish DecideFinish(const RetryPolicy& policy, const Lease& lease, const PassOutcome& outcome,
                        Time now, std::mt19937_64& rng);

}  // namespace gatehouse
