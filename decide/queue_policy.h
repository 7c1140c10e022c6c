// MergeQueuePolicy: the `merge_queue:` section of a repository's policy file (docs/POLICY.md,
// docs/MERGE_QUEUE.md): whether ready PRs merge through a queue per base branch, how the queue
// tests the state it merges, how many PRs it tests at once, who goes first, and how long an
// entry may wait. Plain values; parsed with the rest of the file (decide/policy.h) and merged
// over the server defaults key by key.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "decide/required_check.h"

namespace gatehouse::decide {

// How the queue brings an entry up to date with its base before testing it:
//  kUpdateBranch: GitHub's update-branch on the PR itself (expected_head_sha), its CI tests the
//    new head, and the PR merges bound to that head; one PR at a time.
//  kIntegrationBranch: a temporary branch holding base + the batch, tested as one SHA, the base
//    fast-forwarded to it.
enum class QueueMethod { kUpdateBranch, kIntegrationBranch };
std::string_view QueueMethodName(QueueMethod method);  // update_branch, integration_branch

inline constexpr int kMaxBatchSize = 20;
inline constexpr int kMaxQueuePriority = 100;  // priorities are -100..100

struct MergeQueuePolicy {
  bool enabled = false;
  QueueMethod method = QueueMethod::kUpdateBranch;
  int batch_size = 1;  // 1: serial; > 1 needs kIntegrationBranch
  // The checks that must pass on the tested SHA; nullopt: the PR's own required checks
  // (`rules.required_checks.checks`).
  std::optional<std::vector<RequiredCheck>> required_checks;
  // Label (lower-cased) -> priority; a PR takes the highest of its labels' (0 without one).
  // Higher priorities are tested first; equal ones in arrival order.
  std::map<std::string, int> priorities;
  // An entry still queued this long after it entered is dropped, with the reason on the PR.
  Duration max_time_in_queue = std::chrono::hours(4);
  // The tested state's required checks have this long to report, from when the queue asked
  // for them (its update or integration branch); then the entry (or batch) is dropped.
  Duration checks_timeout = std::chrono::minutes(30);
  bool operator==(const MergeQueuePolicy&) const = default;
};

// The keys of a `merge_queue:` section that a file wrote.
struct MergeQueueOverlay {
  std::optional<bool> enabled;
  std::optional<QueueMethod> method;
  std::optional<int> batch_size;
  std::optional<std::vector<RequiredCheck>> required_checks;
  std::optional<std::map<std::string, int>> priorities;  // replaces the default map wholesale
  std::optional<Duration> max_time_in_queue;
  std::optional<Duration> checks_timeout;
};

// `queue` with every key `overlay` wrote replaced.
void ApplyQueueOverlay(MergeQueuePolicy& queue, const MergeQueueOverlay& overlay);

// The priority of a PR with `labels` (any case) under `queue`.
int QueuePriority(const MergeQueuePolicy& queue, const std::vector<std::string>& labels);

}  // namespace gatehouse::decide
