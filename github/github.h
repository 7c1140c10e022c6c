// GitHub: the REST calls gatehouse makes, as an interface (DESIGN.md §5: everything that
// touches the outside world has a real and a test implementation). GitHubClient
// (github/client.h) is the real one, over HTTP; the engine and the action executor depend
// only on this header.
//
// Every call returns GitHubResult<T>: the value, or a typed GitHubError (github/errors.h)
// that says whether to wait (RateLimited{until}), back off (Transient), record the action as
// superseded (HeadModified / NotMergeable / Unprocessable) or give up. Implementations never
// throw. Every mutating call takes the head SHA it was decided on where GitHub accepts one,
// so a moved head makes GitHub refuse it.
//
// Thread-safety: implementations must be safe for concurrent use.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "github/errors.h"

namespace gatehouse {

// Who a call is made for, and how urgent it is.
struct CallContext {
  CallContext() = default;
  CallContext(int64_t installation, bool is_background, std::string for_subject = {})
      : installation_id(installation), background(is_background), subject(std::move(for_subject)) {}

  // Rate limits are tracked per id. In personal-token mode all calls share one limit, so
  // use one id (0) for all of them.
  int64_t installation_id = 0;
  bool background = false;  // a sweep or other work that may wait for the next reset
  // The work item the call is made for ("owner/repo#N"), named in the client's log lines so
  // that one grep follows a PR; "" for calls made for no one item (sweeps, lookups).
  std::string subject;
};

struct RepoRef {
  std::string owner;
  std::string name;
  std::string FullName() const { return owner + "/" + name; }
};

// "owner/repo" split at its first '/'; false (and `out` untouched) when either part is empty.
inline bool ParseRepoFullName(std::string_view full, RepoRef* out) {
  const size_t slash = full.find('/');
  if (slash == std::string_view::npos || slash == 0 || slash + 1 >= full.size()) return false;
  out->owner = std::string(full.substr(0, slash));
  out->name = std::string(full.substr(slash + 1));
  return true;
}

struct PullRequest {
  int64_t number = 0;
  std::string state;  // "open" / "closed"
  std::string title;
  std::string body;
  bool draft = false;
  bool merged = false;
  std::optional<bool> mergeable;  // null while GitHub is still computing it
  std::string mergeable_state;    // "clean", "blocked", "behind", "dirty", ...
  std::string head_sha;
  std::string head_ref;
  std::string base_ref;
  std::string base_sha;
  std::string author;
  // OWNER, MEMBER, COLLABORATOR, CONTRIBUTOR, FIRST_TIME_CONTRIBUTOR, FIRST_TIMER, NONE or
  // MANNEQUIN: the author's relation to the repository, as GitHub reports it.
  std::string author_association;
  std::string author_type;  // "User", "Bot", "Organization" (user.type)
  std::vector<std::string> labels;
  // Size: 0 when absent, as in list responses (only GET /pulls/{n} carries them).
  int changed_files = 0;
  int additions = 0;
  int deletions = 0;
  std::string updated_at;
  std::string closed_at;  // "" while open (GitHub's null)
  std::string merged_at;  // "" unless merged
};

struct Review {
  int64_t id = 0;
  std::string user;
  std::string state;  // APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED, PENDING
  std::string commit_id;
  std::string body;
};

struct CheckRun {
  int64_t id = 0;
  std::string name;
  std::string status;      // queued, in_progress, completed
  std::string conclusion;  // "" until completed
  std::string head_sha;
  std::string app;          // the slug of the App that created it (app.slug)
  std::string external_id;  // as given on creation
};

struct CommitStatus {
  std::string context;
  std::string state;  // error, failure, pending, success
};

struct CombinedStatus {
  std::string state;  // failure, pending, success
  std::vector<CommitStatus> statuses;
};

// One commit's checks: its check runs (as ListCheckRuns lists them) and combined status.
struct CommitChecks {
  std::vector<CheckRun> check_runs;
  CombinedStatus status;
};

// A comment on a PR's conversation (an issue comment). Times are GitHub's ISO 8601 text.
struct IssueComment {
  int64_t id = 0;
  std::string user;  // the author's login
  std::string body;
  std::string created_at;
  std::string updated_at;
};

// One entry of an issue's (PR's) timeline of state changes: "closed", "reopened", "merged",
// "labeled", ... with who did it.
struct IssueEvent {
  std::string event;
  std::string actor;       // the login
  std::string created_at;  // GitHub's ISO 8601 text
};

// One changed file of a PR as GET /pulls/{n}/files lists it.
struct PullFile {
  std::string path;    // `filename`
  std::string status;  // added, modified, removed, renamed, copied, changed, unchanged
  int additions = 0;
  int deletions = 0;
  // The unified-diff hunks; "" when GitHub sends none (binary files, diffs too large to show).
  std::string patch;
};

// A reaction on an issue comment.
struct Reaction {
  int64_t id = 0;
  std::string user;     // the login
  std::string content;  // +1, -1, laugh, confused, heart, hooray, rocket, eyes
};

struct MergeResult {
  bool merged = false;
  std::string sha;
  std::string message;
};

// The fields of a check run we create or update ("" / empty = not sent).
struct CheckRunSpec {
  std::string name;
  std::string head_sha;    // required on create
  std::string status;      // queued, in_progress, completed
  std::string conclusion;  // with status=completed
  std::string title;       // output.title (sent with summary)
  std::string summary;     // output.summary
  std::string external_id;
};

// What GitHub::ReadPullState reads besides the PR, its reviews and its head's checks.
struct PullStateParts {
  // The PR's conversation comments (PullState::comments), when the same request can carry
  // them; a read that cannot leaves them unset, and the caller lists them if it must.
  bool comments = false;
  // The paths the PR changes (PullState::files), likewise.
  bool files = false;
};

// One PR as a pass reads it (GitHub::ReadPullState).
struct PullState {
  PullRequest pr;
  std::vector<Review> reviews;       // in submission order
  std::vector<CheckRun> check_runs;  // on pr.head_sha
  CombinedStatus status;             // of pr.head_sha
  // With PullStateParts::comments, and only when the read held every one: the PR's
  // conversation comments, oldest first (as ListIssueComments gives them).
  std::optional<std::vector<IssueComment>> comments;
  // With PullStateParts::files, and only when the read held every one: the paths the PR
  // changes (as ListPullRequestFiles gives them).
  std::optional<std::vector<std::string>> files;
};

// One open PR as GitHub::ListOpenPullChecks lists it: its listing row and its head's checks.
struct OpenPullChecks {
  // A commit status as the listing shows it: the latest per context, and when it was posted
  // (a status posted again with the same state is a new one).
  struct Status {
    std::string context;
    std::string state;  // error, failure, pending, success
    std::string created_at;
  };
  // A check run on the head: its id, and when it started and completed (a run patched back
  // and forth keeps its id, not its times).
  struct Run {
    int64_t id = 0;
    std::string name;
    std::string status;      // queued, in_progress, completed
    std::string conclusion;  // "" until completed
    std::string started_at;
    std::string completed_at;
  };
  // number, state, head_sha, base_sha, updated_at, mergeable, mergeable_state
  PullRequest pr;
  std::vector<Run> check_runs;   // on pr.head_sha
  std::vector<Status> statuses;  // on pr.head_sha
  // False when the answer did not hold every check of the head (more than one page of check
  // runs, or a head other than the PR's: it moved between the answer's parts).
  bool checks_complete = true;
};

// A repository's open PRs with their checks (GitHub::ListOpenPullChecks), and the object id of
// one file of its default branch ("" when there is none), to tell when it changed.
struct OpenPullListing {
  std::vector<OpenPullChecks> pulls;
  std::string watched_oid;
};

class GitHub {
 public:
  virtual ~GitHub() = default;

  // --- reads ---
  virtual GitHubResult<PullRequest> GetPullRequest(const CallContext& ctx, const RepoRef& repo,
                                                   int64_t number) = 0;
  virtual GitHubResult<std::vector<Review>> ListReviews(const CallContext& ctx, const RepoRef& repo,
                                                        int64_t number) = 0;
  virtual GitHubResult<std::vector<CheckRun>> ListCheckRuns(const CallContext& ctx,
                                                            const RepoRef& repo,
                                                            const std::string& ref) = 0;
  virtual GitHubResult<CombinedStatus> GetCombinedStatus(const CallContext& ctx,
                                                         const RepoRef& repo,
                                                         const std::string& ref) = 0;
  virtual GitHubResult<std::vector<PullRequest>> ListPullRequestsForCommit(
      const CallContext& ctx, const RepoRef& repo, const std::string& sha) = 0;
  virtual GitHubResult<std::vector<PullRequest>> ListOpenPullRequests(const CallContext& ctx,
                                                                      const RepoRef& repo) = 0;
  // The decoded contents of a file; NotFound when it (or `ref`) does not exist. An empty
  // `ref` means the default branch.
  virtual GitHubResult<std::string> GetFileContents(const CallContext& ctx, const RepoRef& repo,
                                                    const std::string& path,
                                                    const std::string& ref) = 0;
  virtual GitHubResult<std::vector<RepoRef>> ListInstallationRepositories(
      const CallContext& ctx) = 0;
  // Every comment on PR `number`'s conversation, oldest first (all pages).
  virtual GitHubResult<std::vector<IssueComment>> ListIssueComments(const CallContext& ctx,
                                                                    const RepoRef& repo,
                                                                    int64_t number) = 0;
  // PR `number`'s issue events (closed, reopened, merged, ...), oldest first (all pages).
  virtual GitHubResult<std::vector<IssueEvent>> ListIssueEvents(const CallContext& ctx,
                                                                const RepoRef& repo,
                                                                int64_t number) = 0;
  // The paths of every file PR `number` changes (all pages, GitHub's order). GitHub lists at
  // most 3000 files for one PR; a larger PR reads as its first 3000.
  virtual GitHubResult<std::vector<std::string>> ListPullRequestFiles(const CallContext& ctx,
                                                                      const RepoRef& repo,
                                                                      int64_t number) = 0;
  // Every file PR `number` changes with its status, line counts and patch (all pages, GitHub's
  // order, at most 3000 files as for ListPullRequestFiles).
  virtual GitHubResult<std::vector<PullFile>> ListPullRequestFileDetails(const CallContext& ctx,
                                                                         const RepoRef& repo,
                                                                         int64_t number) = 0;
  // Every reaction on issue comment `comment_id`, oldest first (all pages); NotFound when the
  // comment does not exist.
  virtual GitHubResult<std::vector<Reaction>> ListReactions(const CallContext& ctx,
                                                            const RepoRef& repo,
                                                            int64_t comment_id) = 0;

  // Everything a pass reads about PR `number` in one go: the PR, its reviews (submission
  // order), and its head's check runs and combined status. The default makes the four REST
  // reads (GetPullRequest, ListReviews, ListCheckRuns, GetCombinedStatus on the head it read);
  // GitHubClient answers it with one GraphQL query (github/graphql_pull_state.h), which also
  // carries the `parts` asked for; the REST reads leave them out. NotFound when the PR (or the
  // repository) is not there.
  virtual GitHubResult<PullState> ReadPullState(const CallContext& ctx, const RepoRef& repo,
                                                int64_t number, PullStateParts parts = {});

  // Commit `sha`'s check runs and combined status (the merge queue's read of a commit it tests).
  // The default makes the two REST reads (ListCheckRuns, GetCombinedStatus); GitHubClient
  // answers it with one GraphQL query (github/graphql_commit_checks.h). NotFound when the
  // repository, or over GraphQL the commit, is not there.
  virtual GitHubResult<CommitChecks> ReadCommitChecks(const CallContext& ctx, const RepoRef& repo,
                                                      const std::string& sha);

  // A repository's open PRs, each with its head's check runs and statuses, in as few requests
  // as GitHub allows (the sweep's full round, engine/sweeper.h). GitHubClient answers it with
  // one GraphQL query per 100 PRs (github/graphql_open_pulls.h). The default refuses
  // (kPermanent): a client without GraphQL has no request cheaper than reading each PR, and
  // the caller then passes every PR instead. ListsOpenPullChecks says whether it can answer:
  // false from the start without GraphQL, and from when GitHub refused the query.
  // `watch_path` is a file of the default branch (the policy file) whose object id the
  // listing carries too.
  virtual GitHubResult<OpenPullListing> ListOpenPullChecks(const CallContext& ctx,
                                                           const RepoRef& repo,
                                                           const std::string& watch_path);
  virtual bool ListsOpenPullChecks() const { return false; }

  // --- writes (each bound to a head SHA where GitHub allows it) ---
  // merge_method: "merge", "squash" or "rebase". HeadModified when the head is not `sha`,
  // NotMergeable when GitHub refuses the merge (conflicts, checks, closed).
  virtual GitHubResult<MergeResult> Merge(const CallContext& ctx, const RepoRef& repo,
                                          int64_t number, const std::string& sha,
                                          const std::string& merge_method) = 0;
  // event: APPROVE, REQUEST_CHANGES or COMMENT. Returns the review id.
  virtual GitHubResult<int64_t> CreateReview(const CallContext& ctx, const RepoRef& repo,
                                             int64_t number, const std::string& commit_id,
                                             const std::string& event, const std::string& body) = 0;
  // Dismisses review `review_id` (only an APPROVED or CHANGES_REQUESTED one can be) with
  // `message`, shown on the PR. Unprocessable when the review cannot be dismissed (a comment, or
  // one already dismissed), NotFound when there is no such review.
  virtual GitHubResult<GitHubOk> DismissReview(const CallContext& ctx, const RepoRef& repo,
                                               int64_t number, int64_t review_id,
                                               const std::string& message) = 0;
  // Returns the comment id.
  virtual GitHubResult<int64_t> CreateIssueComment(const CallContext& ctx, const RepoRef& repo,
                                                   int64_t number, const std::string& body) = 0;
  virtual GitHubResult<GitHubOk> UpdateIssueComment(const CallContext& ctx, const RepoRef& repo,
                                                    int64_t comment_id,
                                                    const std::string& body) = 0;
  // Reacts to issue comment `comment_id` with `content` ("+1", "eyes", ...) as the caller.
  // Idempotent like GitHub: when the caller already reacted so, GitHub answers 200 with that
  // reaction and no second one is made. Returns the reaction id (new or existing). NotFound
  // when the comment does not exist, Unprocessable for an unknown `content`.
  virtual GitHubResult<int64_t> CreateReaction(const CallContext& ctx, const RepoRef& repo,
                                               int64_t comment_id, const std::string& content) = 0;
  virtual GitHubResult<GitHubOk> AddLabels(const CallContext& ctx, const RepoRef& repo,
                                           int64_t number,
                                           const std::vector<std::string>& labels) = 0;
  // NotFound when the label is not on the issue.
  virtual GitHubResult<GitHubOk> RemoveLabel(const CallContext& ctx, const RepoRef& repo,
                                             int64_t number, const std::string& label) = 0;
  virtual GitHubResult<GitHubOk> ClosePullRequest(const CallContext& ctx, const RepoRef& repo,
                                                  int64_t number) = 0;
  // Returns the check run id.
  virtual GitHubResult<int64_t> CreateCheckRun(const CallContext& ctx, const RepoRef& repo,
                                               const CheckRunSpec& spec) = 0;
  virtual GitHubResult<GitHubOk> UpdateCheckRun(const CallContext& ctx, const RepoRef& repo,
                                                int64_t check_run_id, const CheckRunSpec& spec) = 0;
  // Unprocessable when the head is no longer `expected_head_sha`.
  virtual GitHubResult<GitHubOk> UpdateBranch(const CallContext& ctx, const RepoRef& repo,
                                              int64_t number,
                                              const std::string& expected_head_sha) = 0;
  virtual GitHubResult<GitHubOk> RequestReviewers(const CallContext& ctx, const RepoRef& repo,
                                                  int64_t number,
                                                  const std::vector<std::string>& users,
                                                  const std::vector<std::string>& teams) = 0;

  // --- branches, through the git data API (the merge queue's integration branches) ---
  // `branch` is a branch name ("main", "gatehouse/queue/main"), never "refs/heads/...".
  // The SHA branch `branch` points at; NotFound when there is no such branch.
  virtual GitHubResult<std::string> GetBranchSha(const CallContext& ctx, const RepoRef& repo,
                                                 const std::string& branch) = 0;
  // Creates `branch` at `sha`. Unprocessable when it exists already or `sha` is unknown.
  virtual GitHubResult<GitHubOk> CreateBranch(const CallContext& ctx, const RepoRef& repo,
                                              const std::string& branch,
                                              const std::string& sha) = 0;
  // Points `branch` at `sha`: without `force` only a fast-forward. Unprocessable when it is not
  // one, when the branch does not exist, or when its protection refuses the update (a required
  // check that has not passed on `sha`).
  virtual GitHubResult<GitHubOk> MoveBranch(const CallContext& ctx, const RepoRef& repo,
                                            const std::string& branch, const std::string& sha,
                                            bool force) = 0;
  // Unprocessable when the branch does not exist.
  virtual GitHubResult<GitHubOk> DeleteBranch(const CallContext& ctx, const RepoRef& repo,
                                              const std::string& branch) = 0;
  // Merges `head` (a SHA or a branch) into branch `base` (POST /merges): the new commit's SHA,
  // or "" when `base` already contains `head` (GitHub's 204). HeadModified (409) on a merge
  // conflict, NotFound when `base` or `head` does not exist.
  virtual GitHubResult<std::string> MergeIntoBranch(const CallContext& ctx, const RepoRef& repo,
                                                    const std::string& base,
                                                    const std::string& head,
                                                    const std::string& message) = 0;

 protected:
  // The REST half of ReadPullState for a head already known: its check runs and combined
  // status, into `state` (for a client whose single query could not carry them all).
  GitHubResult<GitHubOk> ReadHeadChecks(const CallContext& ctx, const RepoRef& repo,
                                        PullState& state);
};

using GitHubPtr = std::unique_ptr<GitHub>;

}  // namespace gatehouse
