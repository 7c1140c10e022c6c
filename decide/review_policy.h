// The repository's `reviews:` section of .github/gatehouse.yml (docs/REVIEWERS.md): which roles
// review which PRs, when, and whether the gate waits for them.
//
//   reviews:
//     commanders: [OWNER, MEMBER, COLLABORATOR]  # who may ask "@app review [role]"
//     roles:
//       - role: security
//         required: true                 # the gate waits for its verdict at the current head
//         on: [opened, synchronize, ready_for_review, command]
//         paths: ["src/**", "*.sql"]     # only PRs touching one of these (any, when absent)
//         labels: [needs-security]       # only PRs with one of these labels (any, when absent)
//         min_lines: 0                   # only PRs with at least this many changed lines
//         max_lines: 2000                # ... and at most this many
//       - role: style                    # advisory (required: false is the default)
//
// Pure plain types; parsed by decide/policy.cc as part of the policy file.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "decide/snapshot.h"

namespace gatehouse::decide {

// When a role reviews a PR automatically (kCommand: only when asked in a comment).
enum class ReviewTrigger { kOpened, kSynchronize, kReadyForReview, kCommand };
std::string_view ReviewTriggerName(ReviewTrigger t);  // opened, synchronize, ready_for_review,
                                                      // command
std::optional<ReviewTrigger> ParseReviewTrigger(std::string_view s);

struct ReviewRoleRule {
  std::string role;
  bool required = false;
  std::set<ReviewTrigger> on = {ReviewTrigger::kOpened, ReviewTrigger::kSynchronize,
                                ReviewTrigger::kReadyForReview, ReviewTrigger::kCommand};
  std::vector<std::string> paths;   // globs (decide/glob.h); empty = every PR
  std::vector<std::string> labels;  // case-insensitive; empty = every PR
  std::optional<int> min_lines;     // additions + deletions
  std::optional<int> max_lines;
  bool operator==(const ReviewRoleRule&) const = default;
};

struct ReviewsPolicy {
  std::vector<ReviewRoleRule> roles;  // empty: no reviews
  std::vector<AuthorRole> commanders = {AuthorRole::kOwner, AuthorRole::kMember,
                                        AuthorRole::kCollaborator};
  bool operator==(const ReviewsPolicy&) const = default;

  const ReviewRoleRule* Find(std::string_view role) const {
    for (const auto& r : roles) {
      if (r.role == role) return &r;
    }
    return nullptr;
  }
};

// Whether the role's filters (paths, labels, size) select this PR.
bool RoleApplies(const ReviewRoleRule& rule, const PrSnapshot& pr);

}  // namespace gatehouse::decide
