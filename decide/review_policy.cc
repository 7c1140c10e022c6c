// The repository's `reviews:` rules. See decide/review_policy.h.
#include "decide/review_policy.h"

#include <algorithm>

#include "decide/glob.h"
#include "decide/labels.h"

namespace gatehouse::decide {

std::string_view ReviewTriggerName(ReviewTrigger t) {
  switch (t) {
    case ReviewTrigger::kOpened:
      return "opened";
    case ReviewTrigger::kSynchronize:
      return "synchronize";
    case ReviewTrigger::kReadyForReview:
      return "ready_for_review";
    case ReviewTrigger::kCommand:
      return "command";
  }
  return "command";
}

std::optional<ReviewTrigger> ParseReviewTrigger(std::string_view s) {
  for (ReviewTrigger t : {ReviewTrigger::kOpened, ReviewTrigger::kSynchronize,
                          ReviewTrigger::kReadyForReview, ReviewTrigger::kCommand}) {
    if (ReviewTriggerName(t) == s) return t;
  }
  return std::nullopt;
}

bool RoleApplies(const ReviewRoleRule& rule, const PrSnapshot& pr) {
  if (!rule.paths.empty()) {
    const bool touched =
        std::any_of(pr.changed_paths.begin(), pr.changed_paths.end(), [&](const std::string& path) {
          return std::any_of(rule.paths.begin(), rule.paths.end(), [&](const std::string& glob) {
            return GlobMatch(glob, path, GlobMode::kPath);
          });
        });
    if (!touched) return false;
  }
  if (!rule.labels.empty()) {
    const bool labelled =
        std::any_of(rule.labels.begin(), rule.labels.end(),
                    [&](const std::string& label) { return HasLabel(pr.labels, label); });
    if (!labelled) return false;
  }
  const int lines = pr.additions + pr.deletions;
  if (rule.min_lines && lines < *rule.min_lines) return false;
  if (rule.max_lines && lines > *rule.max_lines) return false;
  return true;
}

}  // namespace gatehouse::decide
