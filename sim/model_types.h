// The simulator's world as records (sim::Model holds them, sim/model.h): pull requests and
// what hangs off them (reviews, check runs, statuses, comments, reactions, changed files),
// repositories with their branch protection and CI, the effect log's entries, the
// notifications worth a webhook, and the arguments of the calls that create or choose them.
// Plain values: the model's reads return copies of them.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"

namespace gatehouse::sim {

// The HTTP status and message GitHub would answer a call with.
struct Outcome {
  int status = 200;
  std::string message;
  bool ok() const { return status >= 200 && status < 300; }
};

struct Review {
  int64_t id = 0;
  std::string user;
  std::string state;  // APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED (PENDING: a draft)
  std::string commit_id;
  std::string body;
  Time submitted_at;
};

struct CheckRun {
  int64_t id = 0;
  std::string name;
  std::string head_sha;
  std::string status = "queued";  // queued, in_progress, completed
  std::string conclusion;         // "" until completed
  std::string external_id;
  std::string title;
  std::string summary;
  std::string app;  // who created it (an actor)
  Time started_at;
  std::optional<Time> completed_at;
};

struct CommitStatus {
  int64_t id = 0;
  std::string sha;
  std::string context;
  std::string state;  // error, failure, pending, success
  std::string description;
  std::string target_url;
  Time created_at;
};

struct Comment {
  int64_t id = 0;
  int number = 0;  // the PR (issue) it belongs to
  std::string user;
  std::string author_association = "NONE";  // the author's relation to the repository
  std::string body;
  Time created_at;
  Time updated_at;
};

// A reaction on an issue comment; one per (user, content), as on GitHub.
struct Reaction {
  int64_t id = 0;
  int64_t comment_id = 0;
  std::string user;
  std::string content;  // +1, -1, laugh, confused, heart, hooray, rocket, eyes
  Time created_at;
};

// A changed file described in full (by a scenario or the control API): GET /pulls/{n}/files
// shows it as given. A PR's files without one are synthesized (sim/render.h).
struct FileChange {
  std::string status = "modified";  // added, modified, removed, renamed, ...
  int additions = 0;
  int deletions = 0;
  std::string patch;  // unified-diff hunks as GitHub's `patch`; "" = none (a binary file)
};

// The '+' and '-' lines of `patch` (hunk headers "@@ ... @@" excluded).
void CountPatchLines(const std::string& patch, int* additions, int* deletions);

struct PullRequest {
  int number = 0;
  int64_t id = 0;
  std::string title;
  std::string body;
  std::string author;
  std::string author_association = "CONTRIBUTOR";  // GitHub's values: OWNER, MEMBER, NONE, ...
  std::string author_type = "User";                // user.type: User, Bot
  std::string head_ref;
  std::string head_sha;
  std::string base_ref;
  std::string base_sha;
  std::string state = "open";  // open, closed
  bool merged = false;
  bool draft = false;
  std::string merge_commit_sha;
  std::string merged_by;
  std::vector<std::string> labels;
  std::vector<std::string> requested_reviewers;
  std::vector<std::string> commits;  // every head SHA, oldest first
  std::vector<Review> reviews;
  std::vector<std::string> files = {"README.md"};  // the paths it changes
  // The files of `files` described in full, by path. The PR's additions and deletions are
  // theirs plus, when some files are not described, the lines spread over those.
  std::map<std::string, FileChange> file_changes;
  int changed_files = 1;
  int additions = 1;
  int deletions = 0;
  bool conflicted = false;  // mergeable=false once known
  bool behind = false;      // the head lacks the base's latest commit; update-branch has work
  // Heads (SHAs) known to contain the base's latest commit: an update-branch's result, and new
  // commits pushed on top of one. A force-push back to an earlier head is behind unless that
  // head is here; the list empties when the base moves.
  std::vector<std::string> up_to_date;
  Time created_at;
  Time updated_at;
  Time head_pushed_at;
  std::optional<Time> closed_at;
  std::optional<Time> merged_at;
  // Computed when a copy is read: null during the window after a push.
  std::optional<bool> mergeable;
  std::string mergeable_state = "unknown";
};

// Branch protection of the default branch, as far as merging is concerned.
struct BranchProtection {
  // "Require branches to be up to date before merging": a PR behind its base does not merge.
  bool strict = false;
  // Check-run names and status contexts that must have succeeded on the PR's head: the latest
  // check run of that name (success, neutral or skipped) or the latest status of that context
  // (success).
  std::vector<std::string> required_checks;
  // Whether GitHub refuses a merge the rules above forbid (405, as GitHub answers). False keeps
  // the rules as an expectation only: such a merge succeeds, marked untested in the effect log
  // (Effect::untested), so the invariant `untested_merges` sees what the App merged untested
  // when nothing stopped it.
  bool enforce = true;
  bool configured() const { return strict || !required_checks.empty(); }
};

// The repository's CI as the simulator plays it (sim/ci_bot.h): every new head of an open PR
// gets each of `checks` as a check run of the app "ci", in progress at once and completed
// `duration` later, failed when the PR's number is in `failing`, else successful.
struct CiConfig {
  std::vector<std::string> checks;
  Duration duration = std::chrono::seconds(5);
  std::vector<int> failing{};
  // PRs whose first head passes but whose later heads (a push, or an update-branch bringing in
  // the base) fail: a combination with the base that breaks. And PRs whose later heads' checks
  // start and never complete: CI that lost the run.
  std::vector<int> failing_later{};
  std::vector<int> hanging_later{};
  // A commit POST /merges makes on a branch other than the default one (an integration
  // branch) is tested too, once it has stayed the branch's tip this long: CI cancels the run of
  // a push that another push superseded, so five PRs merged into a branch in quick succession
  // cost one run. It fails when a PR merged into it is in `failing` or `failing_later`, and
  // never completes with one in `hanging_later` (sim/ci_bot.h).
  Duration branch_settle = std::chrono::milliseconds(500);
  bool enabled() const { return !checks.empty(); }
};

struct Repository {
  int64_t id = 0;
  std::string owner;
  std::string name;
  int64_t installation_id = 0;
  std::string default_branch = "main";
  std::string default_sha;
  std::map<std::string, std::string> files;  // path -> content, for GET contents
  // Branch protection's "Dismiss stale pull request approvals when new commits are pushed".
  bool dismiss_stale_reviews = false;
  // Users with write access (author_association MEMBER on what they write; a PR's author has
  // the PR's association, anyone else NONE).
  std::vector<std::string> members;
  BranchProtection protection;
  CiConfig ci;
  std::string full_name() const { return owner + "/" + name; }
};

// One mutating call, successful or not.
struct Effect {
  int64_t seq = 0;
  Time at;
  std::string who;   // "installation:<id>" for the app, "control" for the control API
  std::string kind;  // merge, review, comment, label_add, close, check_run, update_branch, ...
  std::string repo;  // owner/name
  int number = 0;    // 0 when the call is not about one PR
  std::string sha;   // the SHA the call was bound to, when it was
  // The PR's head SHA when the call arrived, before the call's own change (a push's or an
  // update-branch's new head is not it); "" for calls not about one PR (check runs,
  // statuses) or about a PR that does not exist.
  std::string head;
  int status = 0;  // the HTTP status answered
  std::string detail;
  // The review a successful "review" call made or a "dismiss_review" dismissed; 0 otherwise.
  int64_t review_id = 0;
  // A merge in a repository with branch protection (BranchProtection::configured) that its
  // rules forbid: why ("behind the base", "required check \"ci\" is failing", ...); likewise an
  // update of the default branch they forbid (an update_ref, a merge_branch into it, and the
  // `merge` of each PR it merged). "" for a tested one and for every other call.
  std::string untested;
};

// A new commit for the CI bot: a PR's new head (opened, pushed, updated from its base), or the
// commit POST /merges made on a branch other than the default one (an integration branch).
struct HeadEvent {
  std::string repo;  // owner/name
  int number = 0;    // the PR; 0 for a branch's commit
  std::string sha;
  std::string branch{};         // a branch's commit: the branch
  std::vector<int> contains{};  // a branch's commit: the PRs merged into it
  Duration settle{};            // a branch's commit: test it once it stayed the tip this long
};

// A change worth a webhook; pointers are valid only during the listener call.
struct Notification {
  std::string event{};   // X-GitHub-Event
  std::string action{};  // "" for events without one (status)
  const Repository* repo = nullptr;
  const PullRequest* pr = nullptr;
  const CheckRun* check_run = nullptr;
  const CommitStatus* status = nullptr;
  const Review* review = nullptr;
  const Comment* comment = nullptr;
  std::string label{};
  std::string sender{};
  std::vector<const PullRequest*> prs{};  // open PRs whose head is the check's/status's SHA
  // check_run and check_suite events of a SHA no open PR has as its head: the branch whose
  // tip it is, or that POST /merges made it on ("" when none).
  std::string head_branch{};
  std::string before{};  // synchronize: the head before the push
  // check_suite events: the suite is every check run of check_run->app on its head SHA.
  std::string suite_conclusion{};
};

struct ModelOptions {
  Duration mergeable_delay = std::chrono::seconds(2);
  Duration token_ttl = std::chrono::hours(1);
};

// Repository settings chosen at creation.
struct RepoOptions {
  bool dismiss_stale_reviews = false;  // see Repository
  std::vector<std::string> members{};  // see Repository
  BranchProtection protection{};       // see Repository
  CiConfig ci{};                       // see Repository
};

// Which review DismissReview dismisses: `review_id`, or else the latest APPROVED or
// CHANGES_REQUESTED review by `reviewer` (on `commit_id` when not empty). `reviewer` is
// compared as GitHub shows logins: "installation:<id>" and AppLogin() are the same user.
struct ReviewChoice {
  int64_t review_id = 0;
  std::string reviewer{};
  std::string commit_id{};
};

// Fields a new PR may set; the rest get GitHub-like defaults.
struct NewPull {
  std::string title = "A change";
  std::string body;
  std::string author = "octocat";
  std::string author_association = "CONTRIBUTOR";
  std::string author_type = "User";
  std::string head_ref = "feature";
  std::string head_sha;  // generated when empty
  std::string base_ref;  // the default branch when empty
  bool draft = false;
  std::vector<std::string> labels;
  std::vector<std::string> files = {"README.md"};
  // Files of `files` described in full (see PullRequest::file_changes).
  std::map<std::string, FileChange> file_changes;
  int changed_files = -1;  // -1: the number of `files`
  int additions = 1;       // the lines of the files not in file_changes
  int deletions = 0;
};

}  // namespace gatehouse::sim
