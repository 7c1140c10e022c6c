// PassOutcome: how a pass over one subject ended — done, or which kind of failure. act/ (the
// pass, the executor) produces it; engine/ (engine/retry_policy.h) turns it into the work
// item's next state (DESIGN.md §2 rule 6), so the type lives here, below the engine, and the
// engine includes it (docs/PASS.md, "Layering").
//
//  transient     5xx, timeouts, resets, a lost lease: retried with backoff, one attempt used
//  rate-limited  wait until `until`; no attempt used
//  unavailable   "not now" (a paused reviewer, CI not reported yet): a wall-clock budget,
//                the retry policy's unless the outcome carries its own (`budget`)
//  permanent     retrying cannot help: dead at once
//
// Plain value type and pure functions; safe from any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "base/clock.h"

namespace gatehouse {

enum class FailureClass { kTransient, kRateLimited, kUnavailable, kPermanent };

inline std::string_view FailureClassName(FailureClass c) {
  switch (c) {
    case FailureClass::kTransient:
      return "transient";
    case FailureClass::kRateLimited:
      return "rate_limited";
    case FailureClass::kUnavailable:
      return "unavailable";
    case FailureClass::kPermanent:
      return "permanent";
  }
  return "transient";
}

struct PassOutcome {
  bool ok = true;
  FailureClass failure = FailureClass::kTransient;
  Time until;  // kRateLimited only
  std::string error;
  // kUnavailable only: how long this kind of "not now" may last, measured like the policy's
  // unavailable_budget (from the first unavailable outcome since the last completed pass), in
  // place of it. E.g. a reviewer's own availability budget.
  std::optional<Duration> budget;

  static PassOutcome Done() { return {}; }
  static PassOutcome Transient(std::string why) {
    return {false, FailureClass::kTransient, {}, std::move(why), std::nullopt};
  }
  static PassOutcome RateLimited(Time until, std::string why) {
    return {false, FailureClass::kRateLimited, until, std::move(why), std::nullopt};
  }
  static PassOutcome Unavailable(std::string why, std::optional<Duration> budget = std::nullopt) {
    return {false, FailureClass::kUnavailable, {}, std::move(why), budget};
  }
  static PassOutcome Permanent(std::string why) {
    return {false, FailureClass::kPermanent, {}, std::move(why), std::nullopt};
  }
};

}  // namespace gatehouse
