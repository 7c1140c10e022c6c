#include "decide/queue_policy.h"

#include <algorithm>

#include "base/ascii.h"

namespace gatehouse::decide {

std::string_view QueueMethodName(QueueMethod method) {
  switch (method) {
    case QueueMethod::kUpdateBranch:
      return "update_branch";
    case QueueMethod::kIntegrationBranch:
      return "integration_branch";
  }
  return "unknown";
}

void ApplyQueueOverlay(MergeQueuePolicy& queue, const MergeQueueOverlay& overlay) {
  if (overlay.enabled) queue.enabled = *overlay.enabled;
  if (overlay.method) queue.method = *overlay.method;
  if (overlay.batch_size) queue.batch_size = *overlay.batch_size;
  if (overlay.required_checks) queue.required_checks = *overlay.required_checks;
  if (overlay.priorities) queue.priorities = *overlay.priorities;
  if (overlay.max_time_in_queue) queue.max_time_in_queue = *overlay.max_time_in_queue;
  if (overlay.checks_timeout) queue.checks_timeout = *overlay.checks_timeout;
}

int QueuePriority(const MergeQueuePolicy& queue, const std::vector<std::string>& labels) {
  bool any = false;
  int best = 0;
  for (const std::string& label : labels) {
    auto it = queue.priorities.find(AsciiLower(label));
    if (it == queue.priorities.end()) continue;
    best = any ? std::max(best, it->second) : it->second;
    any = true;
  }
  return best;
}

}  // namespace gatehouse::decide
