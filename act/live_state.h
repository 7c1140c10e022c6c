// LiveState: what a pass reads from GitHub inside its lease (DESIGN.md §2 rule 4: nothing
// decided before the claim is trusted), and how decide/ sees it.
//
// The reads, in order: the PR's policy (act/policy_source.h); the PR with its reviews and its
// head SHA's check runs and combined status (GitHub::ReadPullState: one GraphQL query with the
// real client, the four REST reads otherwise); and its changed files, only when a
// protected-paths rule or a review role needs them, carried by the same query where it can. Then,
// once the pass has its history, gatehouse's summary comment: known from the ledger, or found among
// the PR's comments by its hidden marker (ReadSummaryComment); a pass whose ledger knows no summary
// asks the first read to carry the comments, so that finding it costs no request of its own. The
// calls carry the target's CallContext, so a background pass makes background calls.
//
// Free functions; safe to call concurrently for different PRs (GitHub is thread-safe).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "act/executor.h"
#include "act/policy_source.h"
#include "base/clock.h"
#include "decide/prior_action.h"
#include "decide/snapshot.h"
#include "github/github.h"

namespace gatehouse::act {

// gatehouse's summary comment on the PR, as the pass knows it.
struct SummaryCommentState {
  std::optional<int64_t> id;  // nullopt: gatehouse has none on the PR
  std::string body;           // as read from GitHub ("" when known from the ledger)
  std::string digest;         // known from the ledger: decide::StableDigest of its body
};

struct LiveState {
  PullRequest pr;
  LoadedPolicy policy;
  std::vector<Review> reviews;             // in the order they were submitted
  std::vector<CheckRun> check_runs;        // on pr.head_sha; gatehouse's own included
  CombinedStatus status;                   // of pr.head_sha
  std::vector<std::string> changed_paths;  // empty unless a protected-paths rule or a
                                           // review role selects by path
  SummaryCommentState summary;             // filled by ReadSummaryComment
  // The PR's conversation comments, oldest first, when ReadLiveState was asked for them and
  // its read carried them all (PullState::comments).
  std::optional<std::vector<IssueComment>> comments;
};

// The read that failed, and GitHub's answer.
struct LiveReadFailure {
  std::string what;  // "reading the pull request", "listing reviews", ...
  GitHubError error;
  // GitHub no longer has the PR itself (a 404 on GET /pulls/{n}): no retry can help.
  bool pull_request_gone = false;
};

// Reads everything above but the summary comment for `target` into `*live`; `with_comments`,
// the PR's comments too where the PR's read can carry them (live->comments). nullopt on
// success; else the first read that failed (the reads after it are not made, and `*live` is
// partly filled).
std::optional<LiveReadFailure> ReadLiveState(GitHub& github, PolicySource& policies,
                                             const Target& target, bool with_comments,
                                             LiveState* live);

// GitHub's author_association as decide/'s role (OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR;
// anything else is kNone).
decide::AuthorRole RoleOf(std::string_view association);

// The PR as decide/ sees it at `now`, its head first seen at `head_first_seen` (the clock of
// "missing required check" and of the mergeability rechecks). GitHub lists reviews in
// submission order, and that order decides "latest review per user". gatehouse's own
// `gatehouse` check run reports the verdict and is not an input to it; runs on other SHAs are
// left out.
// Reviews by `app_login` carrying a review run's marker are left out (a reviewer's verdict, read
// by the `reviews` rule from the store, is not a person's approval); "" leaves out any marked one.
decide::PrSnapshot SnapshotOf(const LiveState& live, Time now, Time head_first_seen,
                              std::string_view app_login = "");

// What gatehouse's latest check run on the head says (its action detail without generation,
// decide::CheckRunDetailOf of its external_id), "" when it has none: the run with the highest
// id among the head's runs named `gatehouse` that carry an external_id.
std::string LatestCheckRunDetail(const LiveState& live);

// gatehouse's summary comment into `live->summary` (docs/ACTIONS.md, "The summary comment").
// When the ledger's latest summary row is a done edit (decide/summary_record.h), its id and
// body digest, with no request: only gatehouse writes that comment, and the ledger holds
// every write. Otherwise it is the last comment by `app_login` that starts with
// decide::kSummaryMarker (a quoted marker in someone else's comment is not it) among the PR's
// comments: live->comments when the live read carried them, else listed (one request). nullopt on
// success; else the failed read.
std::optional<LiveReadFailure> ReadSummaryComment(GitHub& github, const Target& target,
                                                  std::string_view app_login,
                                                  const std::vector<decide::PriorAction>& ledger,
                                                  LiveState* live);

}  // namespace gatehouse::act
