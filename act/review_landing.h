// What gatehouse does after GitHub took one of its reviews (docs/REVIEWERS.md, step 7c).
//
// GitHub accepts a review for any commit_id of the PR, so no parameter of the call refuses a
// head that a push replaced between gatehouse's last read of the PR and the call; the read
// right before the call only narrows that window. An approval or a request for changes that
// landed on a replaced head would still count (or block) on GitHub, where a repository that
// dismisses stale approvals only does so on the push, which came first. So after such a review
// is made the PR is read once more, and when its head is no longer the reviewed SHA the review
// is dismissed, with a message naming both heads. A head that moved just after the review landed
// looks the same; dismissing that approval of the old head is what the push would have done.
// A COMMENT review is left alone: it neither approves nor blocks and GitHub shows it on its own
// commit.
//
// The check is the second half of the review's ledger action: callers record the action's
// outcome after it, so its intent is open until both halves are over. A holder killed between
// the call and the check leaves an intent whose reconciliation finds the review and records it
// done; that is the one way a review that landed late stays up.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "github/github.h"

namespace gatehouse::act {

struct ReviewLanding {
  bool stale = false;      // the re-read showed another head than the reviewed one
  bool dismissed = false;  // and the review was dismissed (or GitHub had dismissed it already)
  std::string head;        // the head the re-read showed ("" when the read failed)
  // For the ledger and the audit: "" when the review stands on the head it reviewed; else what
  // happened ("the head moved to 1a2b3c4 before review 9 landed; dismissed", or why not).
  std::string note;
};

// The check for review `review_id` of PR `number`, made on `sha` with `event` (APPROVE,
// REQUEST_CHANGES or COMMENT). Reads nothing for a COMMENT review. A failed read or dismissal
// is reported in `note` and leaves the review as it is: the call is not repeated.
ReviewLanding CheckReviewLanding(GitHub& github, const CallContext& ctx, const RepoRef& repo,
                                 int64_t number, int64_t review_id, const std::string& sha,
                                 std::string_view event);

}  // namespace gatehouse::act
