// PassOutcome: how a pass over one subject ended — done, or which kind of failure. act/ (the
// pass, the executor) produces it; engine/ (engine/retry_policy.h) turns it into the work
// item's next state (DESIGN.md §2 rule 6), so the type lives here, below the engine, and the
// engine includes it (docs/PASS.md, "Layering").
//
//  transient     5xx, timeouts, resets, a lost lease: retried with backoff, one attempt used
//  rate-limited  wait until `until`; no attempt used
//  unavailable   "not now" (a paused reviewer, CI not reported yet): a wall-clock budget
//  permanent     retrying cannot help: dead at once
//
// Plain value type and pure functions; safe from any thread.
#pragma once

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

  static PassOutcome Done() { return {}; }
  static PassOutcome Transient(std::string why) {
    return {false, FailureClass::kTransient, {}, std::move(why)};
  }
  static PassOutcome RateLimited(Time until, std::string why) {
    return {false, FailureClass::kRateLimited, until, std::move(why)};
  }
  static PassOutcome Unavailable(std::string why) {
    return {false, FailureClass::kUnavailable, {}, std::move(why)};
  }
  static PassOutcome Permanent(std::string why) {
    return {false, FailureClass::kPermanent, {}, std::move(why)};
  }
};

}  // namespace gatehouse
