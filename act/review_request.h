// The review run's GitHub side (docs/REVIEWERS.md): what the reviewer is asked, and posting
// its answer on the PR exactly once through the action ledger.
//
// Free functions; safe to call concurrently for different runs.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "act/pass_outcome.h"
#include "act/target.h"
#include "base/clock.h"
#include "decide/review_types.h"
#include "github/github.h"
#include "store/store.h"

namespace gatehouse::act {

// The request for `run` on `pr` (its live read): the changed files with their patches (one
// paged read) and the findings of this role's latest finished run on another head of the PR
// (`runs`: the role's runs). A failed read is returned as the outcome that ends the pass.
std::optional<PassOutcome> BuildReviewRequest(GitHub& github, const Target& target,
                                              const PullRequest& pr, const ReviewRun& run,
                                              const std::vector<ReviewRun>& runs,
                                              decide::ReviewRequest* request);

// The findings of this role's latest finished run on another head of the PR (`runs`: the
// role's runs), and that head; left empty when there is none.
void PriorFindings(const ReviewRun& run, const std::vector<ReviewRun>& runs,
                   std::vector<decide::ReviewFinding>* findings, std::string* head);

struct PostResult {
  // kEnded: the run was ended meanwhile (cancelled by the PR's pass); nothing was posted.
  enum class Kind { kPosted, kAlreadyPosted, kSuperseded, kEnded, kStop };
  Kind kind = Kind::kPosted;
  int64_t review_id = 0;
  std::string detail;
  PassOutcome stop;  // kStop: how the pass ends (transient, rate limited, fence lost)
};

// The ledger key of posting `run`'s result: the run's work item, kind "review", the run's head,
// detail "run:<id>".
ActionKey ReviewPostKey(const std::string& work_key, const ReviewRun& run);

// Settles `intent`, the open post of `run`'s result that an earlier holder began, for a run
// that is over (`why`: how it ended): GitHub shows the review (gatehouse's login and the run's
// marker) -> done, "reconciled: review N found on the PR"; it does not -> superseded, "never
// posted: WHY". No call but the read. nullopt when settled; else how the pass ends (a failed
// read or write: the intent stays open for the next holder).
std::optional<PassOutcome> SettleEndedReviewPost(Store& store, GitHub& github, const Clock& clock,
                                                 const Target& target, int64_t fence,
                                                 const ActionRecord& intent, const ReviewRun& run,
                                                 const std::string& why,
                                                 const std::string& app_login);

// Posts `result` of `run` as a PR review bound to commit_id = the run's head, through the
// ledger (ReviewPostKey), fenced by `fence`. A run the PR's pass ended meanwhile is kEnded with
// no call (an open intent of an earlier holder settled first: SettleEndedReviewPost). An intent
// left open by an earlier holder is reconciled against the PR's reviews by gatehouse's login and
// the run's marker. Then the PR is re-read, right before the call: a head that moved, a closed
// PR or a draft makes it kSuperseded (the intent recorded superseded, "never posted: ...") with
// no call. After the call, an approval or request for changes is checked against the head once
// more (act/review_landing.h): one that a push beat is dismissed, and the result is kSuperseded
// with the intent recorded superseded ("the head moved to ... before review N ... landed;
// dismissed"); otherwise kPosted, done.
PostResult PostReview(Store& store, GitHub& github, const Clock& clock, const Target& target,
                      const std::string& work_key, int64_t fence, const ReviewRun& run,
                      const decide::ReviewResult& result,
                      const std::vector<decide::ReviewFinding>& prior_findings,
                      const std::string& prior_head, const std::string& app_login);

}  // namespace gatehouse::act
