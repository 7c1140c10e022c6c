#include "decide/recheck.h"

#include <algorithm>

#include "decide/reasons.h"

namespace gatehouse::decide {
namespace {

bool Waits(const GateVerdict& v, std::string_view rule) {
  return std::any_of(v.waiting.begin(), v.waiting.end(),
                     [&](const Finding& f) { return f.rule == rule; });
}

}  // namespace

std::optional<Duration> MergeabilityRecheckAfter(const GateVerdict& verdict,
                                                 std::optional<bool> mergeable, Duration head_age) {
  const bool only_mergeability =
      verdict.verdict == Verdict::kPending && !verdict.waiting.empty() &&
      std::all_of(verdict.waiting.begin(), verdict.waiting.end(),
                  [](const Finding& f) { return f.rule == "mergeable"; });
  if (!only_mergeability || mergeable.has_value() || head_age >= kMergeableRecheckFor) {
    return std::nullopt;
  }
  return std::max(kMergeableRecheck, head_age / 4);
}

std::optional<Time> NextTimedDecision(const GateVerdict& verdict,
                                      std::optional<Time> pending_closure_since,
                                      Duration close_grace, Time head_first_seen,
                                      Duration missing_after, Time now) {
  std::optional<Time> at;
  auto consider = [&](Time t) {
    if (t > now && (!at || t < *at)) at = t;
  };
  if (verdict.verdict == Verdict::kFail && pending_closure_since) {
    consider(*pending_closure_since + close_grace);
  }
  if (Waits(verdict, "required_checks")) consider(head_first_seen + missing_after);
  return at;
}

std::optional<Recheck> PlanRecheck(const GateVerdict& verdict, const RecheckFacts& facts) {
  if (facts.superseded || !facts.open) return std::nullopt;
  if (auto after =
          MergeabilityRecheckAfter(verdict, facts.mergeable, facts.now - facts.head_first_seen)) {
    return Recheck{kReasonMergeableUnknown, *after};
  }
  if (!facts.policy_valid) return std::nullopt;
  auto at = NextTimedDecision(verdict, facts.pending_closure_since, facts.close_grace,
                              facts.head_first_seen, facts.missing_after, facts.now);
  std::optional<Duration> after;
  if (at) after = *at - facts.now + kTimerSlack;
  if (facts.retry_attempts >= 1 && facts.retry_attempts <= kRefusedRetries) {
    const Duration retry = kRefusedRetry * facts.retry_attempts;
    if (!after || retry < *after) after = retry;
  }
  if (!after) return std::nullopt;
  return Recheck{kReasonTimer, *after};
}

}  // namespace gatehouse::decide
