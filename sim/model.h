// sim::Model: the simulator's in-memory world — installations, repositories, pull requests
// and everything hanging off them — plus GitHub's guards and an effect log.
//
// The model is pure logic: no I/O, time only through the injected Clock. Every mutation
// returns an Outcome carrying the HTTP status GitHub would answer with (409 for a merge whose
// `sha` is not the head, 405 for a PR that cannot be merged, 422 for a stale
// `expected_head_sha` or a review on a closed PR, ...), and is appended to the effect log
// whatever its result, so a test can ask "how many merges did the app attempt on this SHA".
//
// After a push, `mergeable` is unknown (null) for `mergeable_delay`, as on GitHub, where it
// is computed in the background.
//
// Listener: state changes worth a webhook are reported to the listener *while the model lock
// is held*, so notifications come out in the order the changes happened. The listener must
// not call back into the model; it should copy what it needs and return.
//
// Thread-safety: all methods are safe for concurrent use; reads return copies.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/mutex.h"
#include "base/status.h"
#include "base/thread_annotations.h"
#include "sim/commit_graph.h"

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
  std::string before{};                   // synchronize: the head before the push
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

class Model {
 public:
  Model(ClockPtr clock, ModelOptions options);

  void SetListener(std::function<void(const Notification&)> listener);
  // Told of every new head of an open PR, and of every commit MergeIntoBranch makes on a branch
  // other than the default one, in a repository whose CI is enabled, while the model lock is
  // held (the same rule as the listener: copy and return, never call back).
  void SetHeadObserver(std::function<void(const HeadEvent&)> observer);

  // ---- world setup (control API) ----
  Result<Repository> CreateRepo(const std::string& owner, const std::string& name,
                                int64_t installation_id, std::map<std::string, std::string> files,
                                RepoOptions options = {});
  Result<PullRequest> CreatePull(const std::string& repo, const NewPull& pull);
  // A new head commit (`sha` generated when empty; any other SHA, an earlier head included,
  // is a force-push to it): mergeable becomes unknown, check runs and statuses stay with
  // their SHAs, reviews stay unless the repository dismisses stale approvals. `files`, when
  // given, replaces the PR's changed files (and changed_files) and `changes` its described
  // files (the lines of the others stay what they were). 422 when `sha` already is the head,
  // or the PR is merged.
  Outcome Push(const std::string& who, const std::string& repo, int number, std::string sha,
               std::optional<std::vector<std::string>> files = std::nullopt,
               std::map<std::string, FileChange> changes = {});
  // The base branch moved: the PR is behind; `conflicted` makes it unmergeable.
  Outcome MoveBase(const std::string& repo, int number, bool conflicted);

  // ---- reads (copies; mergeable computed at the time of the call) ----
  std::optional<Repository> GetRepo(const std::string& repo) const;
  std::optional<PullRequest> GetPull(const std::string& repo, int number) const;
  std::vector<PullRequest> ListPulls(const std::string& repo, const std::string& state) const;
  // PRs whose head (or any earlier head) is `sha`.
  std::vector<PullRequest> PullsForCommit(const std::string& repo, const std::string& sha) const;
  std::vector<CheckRun> CheckRunsFor(const std::string& repo, const std::string& sha) const;
  std::vector<CommitStatus> StatusesFor(const std::string& repo, const std::string& sha) const;
  std::vector<Comment> CommentsFor(const std::string& repo, int number) const;
  // The reactions on comment `comment_id`, oldest first; nullopt when there is no such
  // comment in `repo`.
  std::optional<std::vector<Reaction>> ReactionsFor(const std::string& repo,
                                                    int64_t comment_id) const;
  // Resolves a branch name or SHA of `repo` to a SHA ("" when unknown).
  std::string ResolveRef(const std::string& repo, const std::string& ref) const;
  std::vector<Effect> Effects() const;
  std::vector<Repository> Repos() const;
  // The model's clock (effects are stamped with it).
  Time Now() const { return clock_->Now(); }

  // ---- mutations with GitHub's guards; `who` goes into the effect log ----
  Outcome Merge(const std::string& who, const std::string& repo, int number, const std::string& sha,
                const std::string& method);
  Outcome SubmitReview(const std::string& who, const std::string& repo, int number,
                       const std::string& event, const std::string& commit_id,
                       const std::string& body, Review* out);
  // Dismisses a review (effect kind dismiss_review, sha the review's commit_id, detail
  // "review=<id> user=<login as shown>"; webhook pull_request_review.dismissed). 404 when
  // the PR or the review does not exist, 422 when the review is not APPROVED or
  // CHANGES_REQUESTED.
  Outcome DismissReview(const std::string& who, const std::string& repo, int number,
                        const ReviewChoice& choice, Review* out);
  // A new head merging the base in (202); stale approvals are dismissed as for Push.
  Outcome UpdateBranch(const std::string& who, const std::string& repo, int number,
                       const std::string& expected_head_sha);
  Outcome SetState(const std::string& who, const std::string& repo, int number,
                   const std::string& state);
  // Converts an open PR to a draft or marks it ready for review (effect kinds
  // convert_to_draft / ready_for_review; webhooks pull_request.converted_to_draft /
  // ready_for_review). No change is a 200 without a webhook; a closed PR is 422.
  Outcome SetDraft(const std::string& who, const std::string& repo, int number, bool draft);
  Outcome AddLabels(const std::string& who, const std::string& repo, int number,
                    const std::vector<std::string>& labels);
  Outcome RemoveLabel(const std::string& who, const std::string& repo, int number,
                      const std::string& label);
  Outcome RequestReviewers(const std::string& who, const std::string& repo, int number,
                           const std::vector<std::string>& reviewers);
  Outcome AddComment(const std::string& who, const std::string& repo, int number,
                     const std::string& body, Comment* out);
  // Reacts to comment `comment_id` as `who` (effect kind reaction, detail
  // "comment=<id> content=<content>"; no webhook, as on GitHub). 201 with the new reaction;
  // 200 with the existing one when `who` already reacted with `content`; 404 for no such
  // comment; 422 for a content GitHub does not know.
  Outcome AddReaction(const std::string& who, const std::string& repo, int64_t comment_id,
                      const std::string& content, Reaction* out);
  Outcome EditComment(const std::string& who, const std::string& repo, int64_t comment_id,
                      const std::string& body, Comment* out);
  // ---- branches (the git data API, sim/model_git.cc) ----
  // A repository has its default branch (Repository::default_branch at default_sha) and the
  // branches CreateRef makes. The commits it knows and which contains which are its
  // CommitGraph's (sim/commit_graph.h): the default branch's history, every head any PR had,
  // and the commits MergeIntoBranch makes. Every call below is logged with `who` whatever its
  // result (kinds create_ref, update_ref, delete_ref, merge_branch; detail the branch, or
  // "<base> <- <head>"; `sha` the target, or the commit made).
  //
  // The SHA `branch` points at; nullopt when there is no such branch (or repository).
  std::optional<std::string> BranchSha(const std::string& repo, const std::string& branch) const;
  // The branches besides the default one: name -> SHA.
  std::map<std::string, std::string> Branches(const std::string& repo) const;
  // Creates the branch `ref` names ("refs/heads/<branch>") at `sha`: 201; 422 "Reference name
  // is not valid" (not refs/heads/...), "Reference already exists", or "Object does not
  // exist" (a commit the repository does not know); 404 for no such repository.
  Outcome CreateRef(const std::string& who, const std::string& repo, const std::string& ref,
                    const std::string& sha);
  // Points `branch` at `sha`: 200; 422 "Reference does not exist", "Object does not exist", or
  // "Update is not a fast forward" (without `force`, when `sha` does not contain the tip).
  // The default branch is guarded by its BranchProtection (when configured): an update that
  // is forced, or whose required checks have not all succeeded on exactly `sha`, is refused
  // (422 "Protected branch update failed for refs/heads/<b>. <why>") when it is enforced, and
  // otherwise lands marked untested (Effect::untested). Moving the default branch lands `sha`
  // (LandLocked): each open PR on it whose current head `sha` contains is merged as Merge
  // merges one (merged_by `who`, merge_commit_sha `sha`, pull_request.closed, and a `merge`
  // effect with detail "fast-forward <sha>"), every other open PR on it is behind. `sha`
  // equal to the tip is a 200 that changes nothing and is not judged.
  Outcome UpdateRef(const std::string& who, const std::string& repo, const std::string& branch,
                    const std::string& sha, bool force);
  // 204; 422 "Reference does not exist", or "Cannot delete the default branch".
  Outcome DeleteRef(const std::string& who, const std::string& repo, const std::string& branch);
  // A commit MergeIntoBranch made: its SHA and parents (the base's old tip, then the head).
  struct MergeCommitMade {
    std::string sha;
    std::vector<std::string> parents;
  };
  // Merges `head` (a branch's name, else a SHA) into branch `base`: 201 with the new commit in
  // `*made`, the base's new tip; 204 when `base` already contains `head` (nothing made); 409
  // "Merge conflict" when a PR the merge brings in is conflicted (PullRequest::conflicted); 404
  // "Base does not exist" / "Head does not exist"; 422 when either is empty. The effect's
  // `sha` is the new commit (201) or "". On the default branch the new commit lands as
  // UpdateRef lands a fast-forward, judged by branch protection the same way: a commit just
  // made has no checks, so required checks refuse it when enforced (422) and mark it untested
  // otherwise. On another branch, the CI bot is told of it (HeadEvent with the branch).
  Outcome MergeIntoBranch(const std::string& who, const std::string& repo, const std::string& base,
                          const std::string& head, MergeCommitMade* made);

  // Creates (id == 0) or updates a check run; completing one emits check_run.completed.
  Outcome UpsertCheckRun(const std::string& who, const std::string& repo, CheckRun run,
                         CheckRun* out);
  Outcome SetStatus(const std::string& who, const std::string& repo, CommitStatus status,
                    CommitStatus* out);

  // ---- installation tokens ----
  std::string IssueToken(int64_t installation_id, Time* expires_at);
  // The installation a live token belongs to; nullopt when unknown or expired.
  std::optional<int64_t> TokenInstallation(const std::string& token) const;

 private:
  struct RepoState {
    Repository repo;
    std::map<int, PullRequest> pulls;
    std::vector<CheckRun> check_runs;
    std::vector<CommitStatus> statuses;
    std::vector<Comment> comments;
    std::vector<Reaction> reactions;
    int next_number = 1;
    CommitGraph commits;                          // its tip is repo.default_sha
    std::map<std::string, std::string> branches;  // the other branches: name -> SHA
    std::map<std::string, std::string> made_on;   // a commit MergeIntoBranch made -> its branch
  };

  RepoState* FindLocked(const std::string& repo) REQUIRES(mu_);
  const RepoState* FindLocked(const std::string& repo) const REQUIRES(mu_);
  PullRequest ViewLocked(const RepoState& rs, const PullRequest& pr) const REQUIRES(mu_);
  // GitHub's author_association of `who` on `pr` (see Repository::members).
  std::string AssociationLocked(const RepoState& rs, const PullRequest& pr,
                                const std::string& who) const REQUIRES(mu_);
  std::string NewShaLocked() REQUIRES(mu_);
  Outcome RecordLocked(const std::string& who, const std::string& kind, const std::string& repo,
                       int number, const std::string& sha, Outcome outcome,
                       const std::string& detail = "") REQUIRES(mu_);
  void NotifyLocked(Notification n, const RepoState& rs) REQUIRES(mu_);
  // Tells the head observer of `pr`'s head when the repository's CI is enabled.
  void ObserveHeadLocked(const RepoState& rs, const PullRequest& pr) REQUIRES(mu_);
  // Why branch protection forbids merging `pr` now ("" when it allows it or is not set).
  std::string UntestedLocked(const RepoState& rs, const PullRequest& pr) const REQUIRES(mu_);
  // Why branch protection's required checks forbid `sha` ("" when they all succeeded on it).
  std::string UntestedShaLocked(const RepoState& rs, const std::string& sha) const REQUIRES(mu_);
  // Why branch protection forbids `sha` as the default branch's new tip ("" when it allows
  // it, or is not configured); `force`: a forced update.
  std::string ProtectedUpdateLocked(const RepoState& rs, const std::string& sha, bool force) const
      REQUIRES(mu_);
  // Moves the default branch to `sha` (the caller has judged and recorded its call; `untested`
  // is copied to the merges): its history, the PRs landed, each open PR on it whose head `sha`
  // contains merged (a `merge` effect with `detail`, pull_request.closed), the others behind.
  void LandLocked(const std::string& who, RepoState& rs, const std::string& sha,
                  const std::string& untested, const std::string& detail) REQUIRES(mu_);
  // The default branch moved: every open PR on `base_ref` is behind it (and its `base.sha`).
  void BaseMovedLocked(RepoState& rs, const std::string& base_ref) REQUIRES(mu_);
  // The SHA `branch` (the default one or another) points at; nullopt for no such branch.
  std::optional<std::string> BranchShaLocked(const RepoState& rs, const std::string& branch) const
      REQUIRES(mu_);
  // The branch a check on `sha` is reported for (Notification::head_branch): one whose tip it
  // is, else the branch MergeIntoBranch made it on; "" when none.
  std::string HeadBranchLocked(const RepoState& rs, const std::string& sha) const REQUIRES(mu_);
  // The PR (whatever its state) and its repository; nullptr when either does not exist.
  PullRequest* PullLocked(const std::string& repo, int number, RepoState** rs) REQUIRES(mu_);
  // The head moved to `pr.head_sha` from `before`: the synchronize webhook (sent by
  // `sender`), then, when the repository dismisses stale approvals, one dismissal per
  // APPROVED review of another commit (effect who "control", webhook sender `sender`).
  void HeadMovedLocked(RepoState& rs, PullRequest& pr, const std::string& before,
                       const std::string& sender) REQUIRES(mu_);
  // Marks `review` DISMISSED, records the dismiss_review effect as `who` and notifies.
  Outcome DismissLocked(const std::string& who, const std::string& sender, RepoState& rs,
                        PullRequest& pr, Review& review) REQUIRES(mu_);

  ClockPtr clock_;
  ModelOptions options_;
  mutable Mutex mu_;
  std::map<std::string, RepoState> repos_ GUARDED_BY(mu_);  // key: lower-case full name
  std::vector<Effect> effects_ GUARDED_BY(mu_);
  struct Token {
    int64_t installation_id;
    Time expires_at;
  };
  std::map<std::string, Token> tokens_ GUARDED_BY(mu_);
  std::function<void(const Notification&)> listener_ GUARDED_BY(mu_);
  std::function<void(const HeadEvent&)> head_observer_ GUARDED_BY(mu_);
  int64_t next_id_ GUARDED_BY(mu_) = 1000;
  uint64_t sha_counter_ GUARDED_BY(mu_) = 0;
};

}  // namespace gatehouse::sim
