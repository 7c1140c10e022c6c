// Invariants over what the App did (docs/SIMULATOR.md, "invariants"): properties every
// history must have whatever the scenario, each checked by a scenario expectation of its own
// and by `gatehouse demo`. The App's effects are those whose `who` starts "installation:".
// Each function returns one line per offence, so that the number of lines counts them.
//
// Pure functions over a copy of the log, or reads of the model.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/model.h"

namespace gatehouse::sim {

// The first line of gatehouse's summary comment (decide/planner.h, kSummaryMarker).
inline constexpr std::string_view kSummaryMarker = "<!-- gatehouse:summary -->";

// A comment shown as the App's (sim/app_identity.h) whose body starts with kSummaryMarker.
bool IsSummaryComment(const Comment& comment);

// One effect as a failure line shows it: "#seq who kind repo#N sha= head= status= detail=".
std::string DescribeEffect(const Effect& e);

// 2xx App effects bound to a SHA that was no longer the PR's head when the call arrived
// (non-empty `sha` and `head` that differ), one line each. Two kinds of review are not stale
// effects (docs/SIMULATOR.md, "Invariants"): a COMMENT review, which neither approves nor
// blocks and is shown on its own commit; and an approval or request for changes that the App
// itself dismissed afterwards (a successful "dismiss_review" by the App of that review id), which
// no longer counts for any head. A dismissal itself names the dismissed review's commit and acts
// on no head, so it is never stale. GitHub takes a review for any commit_id, so a push arriving
// between the App's last read and its call can only be undone, not refused.
std::vector<std::string> StaleEffects(const std::vector<Effect>& effects);

// 2xx App merges that the repository's branch protection forbids (Effect::untested: the PR was
// behind its base on a strict branch, or a required check had not succeeded on the head), one
// line each. Likewise the App's 2xx updates of the default branch to a commit whose required
// checks had not all succeeded on exactly that commit, or forced (an `update_ref` of it, or a
// `merge_branch` into it), and the `merge` of each PR such an update merged. With protection
// enforced GitHub refuses them, so only a repository whose protection is not enforced
// (BranchProtection::enforce) can have one: what an App merges untested when nothing stops it.
std::vector<std::string> UntestedMerges(const std::vector<Effect>& effects);

// Pairs of 2xx App effects that did the same thing twice: same kind (merge, review, close,
// update_branch), repo, number, sha and detail, one line per pair. Undoing an action in
// between makes the next one new: a successful reopen of the PR (by anyone) before a second
// close; a successful dismissal of the App's review on that PR and SHA (by anyone) before a
// second APPROVE or REQUEST_CHANGES review. Branch updates (update_ref, merge_branch) are not
// counted: moving an integration branch to the same commit again is routine; a PR an update
// of the default branch merged has its own `merge` effect, which is.
std::vector<std::string> DuplicateEffects(const std::vector<Effect>& effects);

// The end of gatehouse's reply to a command comment (act/pass_reviews.h, ReplyMarker):
// "<!-- gatehouse:reply <comment id> -->".
inline constexpr std::string_view kReplyMarkerPrefix = "<!-- gatehouse:reply ";

// The command comment that `comment` answers: a comment shown as the App's whose body ends
// with "<!-- gatehouse:reply ID -->"; nullopt for any other comment.
std::optional<int64_t> RepliedCommand(const Comment& comment);

// Comments gatehouse writes once that were written twice, one line per extra comment:
//  - summary comments beyond the first on each pull request (gatehouse edits its one summary
//    in place): "owner/name#N: summary comment ID by LOGIN besides the first, ID";
//  - replies to one command comment beyond the first (gatehouse answers a command once):
//    "owner/name#N: reply comment ID to comment CMD besides the first, ID".
std::vector<std::string> ExtraSummaryComments(const Model& model);

}  // namespace gatehouse::sim
