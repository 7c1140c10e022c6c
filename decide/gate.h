// The gate: a pure function from a policy and a PR snapshot to a verdict.
//
// Each enabled rule yields pass, pending (not decided yet: a check still running, approvals
// still missing, mergeability still computing) or fail. In `block` mode a failure becomes a
// blocker and a pending condition a waiting item; in `advisory` mode both become warnings and
// never change the verdict; `off` rules are skipped. The verdict is then
//   neutral  the PR is closed, or a draft under a `block` draft rule with verdict neutral
//   pending  a draft under a `block` draft rule with verdict pending, or
//            no blockers and at least one waiting item
//   fail     at least one blocker
//   pass     nothing blocks and nothing waits
// The readiness score (0-100) is the weighted credit of the enabled rules; the weights and the
// partial credit are documented in docs/POLICY.md and kRuleWeights below.
//
// No I/O and no clock: `snapshot.now` is the only notion of time. Safe from any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "decide/policy.h"
#include "decide/snapshot.h"

namespace gatehouse::decide {

enum class Verdict { kPass, kFail, kPending, kNeutral };
std::string_view VerdictName(Verdict v);

// One reason the PR is not ready, attributed to the rule (its key under `rules:`).
struct Finding {
  std::string rule;
  std::string reason;
  bool operator==(const Finding&) const = default;
};

struct GateVerdict {
  Verdict verdict = Verdict::kPass;
  int score = 100;
  std::vector<Finding> blockers;  // block-mode failures
  std::vector<Finding> waiting;   // block-mode conditions not decided yet
  std::vector<Finding> warnings;  // advisory-mode failures and pending conditions
  // Whether the author rule exempts this PR from being closed by gatehouse, and why.
  bool close_exempt = false;
  std::string close_exempt_reason;
};

// Score weights per rule; rules that are `off` drop out and the rest are renormalized. The
// `reviews` rule (the policy's `reviews:` section, read from PrSnapshot::role_reviews) counts
// only when some required role applies to the PR; advisory roles only ever warn.
struct RuleWeight {
  std::string_view rule;
  int weight;
};
inline constexpr RuleWeight kRuleWeights[] = {
    {"required_checks", 35}, {"approvals", 25}, {"mergeable", 15}, {"labels", 10},
    {"protected_paths", 5},  {"size", 5},       {"draft", 5},      {"reviews", 15},
};

GateVerdict Evaluate(const Policy& policy, const PrSnapshot& pr);

}  // namespace gatehouse::decide
