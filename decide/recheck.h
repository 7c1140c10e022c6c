// When a pass asks for another pass of its own PR (docs/PASS.md, "Execute" and "The sweeper"):
// decisions that only time changes are taken on time, not at the next sweep.
//
//  - mergeable-unknown: GitHub computes mergeability lazily after a push; when it is the only
//    thing the gate waits for, look again after 3 s, then after a quarter of the head's age (a
//    handful of looks, not one every 3 s), for at most 10 minutes after the head was first
//    seen; then the sweep takes over (its daily deep round: docs/PASS.md, "The sweeper");
//  - timer: the earliest future instant at which a time-based decision changes — the close
//    after the pending-closure grace period (on a failing PR), and a required check that has
//    not reported becoming a "missing" blocker — plus 100 ms, so the pass runs after it.
//
// Pure functions; no I/O, no clock (the caller passes `now`). Safe from any thread.
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

#include "base/clock.h"
#include "decide/gate.h"

namespace gatehouse::decide {

inline constexpr Duration kMergeableRecheck = std::chrono::seconds(3);
inline constexpr Duration kMergeableRecheckFor = std::chrono::minutes(10);
inline constexpr Duration kTimerSlack = std::chrono::milliseconds(100);
// A read that lagged behind an earlier one is repeated this soon (act/head_occurrence.h).
inline constexpr Duration kLaggingReadRetry = std::chrono::seconds(2);
// A merge GitHub refused on an unmoved, open head (branch protection not yet counting the check
// run or approval gatehouse just wrote, "base branch was modified", ...), or a failed edit of
// the summary comment (a 404: someone deleted it, and the next pass posts a new one), is
// looked at again after kRefusedRetry × its attempts, for kRefusedRetries attempts; then the sweep
// takes over (its daily deep round). (Before gatehouse's own webhooks stopped starting passes, they
// brought that next look.)
inline constexpr Duration kRefusedRetry = std::chrono::seconds(10);
inline constexpr int kRefusedRetries = 3;

// How soon to look again while GitHub computes mergeability: when the verdict is pending, it
// waits only for the `mergeable` rule, `mergeable` is not computed yet (nullopt) and the head
// was first seen less than kMergeableRecheckFor ago: max(kMergeableRecheck, head_age / 4).
// nullopt otherwise.
std::optional<Duration> MergeabilityRecheckAfter(const GateVerdict& verdict,
                                                 std::optional<bool> mergeable, Duration head_age);

// The earliest instant after `now` at which a time-based decision on this head changes, if any:
// pending_closure_since + close_grace when the verdict fails and a grace period runs, and
// head_first_seen + missing_after when a required check is waited for. Instants not after
// `now` are not candidates (they are decided already).
std::optional<Time> NextTimedDecision(const GateVerdict& verdict,
                                      std::optional<Time> pending_closure_since,
                                      Duration close_grace, Time head_first_seen,
                                      Duration missing_after, Time now);

// What a pass knows when it considers looking again.
struct RecheckFacts {
  bool open = true;               // the PR is open (not closed, not merged)
  bool superseded = false;        // this pass already asked for a fresh one (the head moved)
  bool policy_valid = true;       // the policy file parsed
  std::optional<bool> mergeable;  // as GitHub reported it; nullopt while not computed
  Time head_first_seen{};         // when this occurrence of the head was first read
  std::optional<Time> pending_closure_since;
  Duration close_grace{};    // PlannerOptions::close_grace
  Duration missing_after{};  // RequiredChecksRule::missing_after
  // This pass's merge was refused on an unmoved, open head, or its summary-comment edit failed:
  // that ledger row's attempts (this one included); 0 when neither.
  int retry_attempts = 0;
  Time now{};
};

struct Recheck {
  std::string_view reason;  // kReasonMergeableUnknown or kReasonTimer (decide/reasons.h)
  Duration after{};         // the signal's delay from now
};

// The one signal the pass gives its own PR after executing, if any: none for a closed PR or
// after a supersession (the fresh pass decides); a mergeability recheck when
// MergeabilityRecheckAfter says so; else, with a valid policy, a timer at the earlier of
// NextTimedDecision + kTimerSlack and the retry of a refused merge or summary edit (kRefusedRetry).
std::optional<Recheck> PlanRecheck(const GateVerdict& verdict, const RecheckFacts& facts);

}  // namespace gatehouse::decide
