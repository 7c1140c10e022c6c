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
#include "sim/model_types.h"

namespace gatehouse::sim {

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
  // A commit on the default branch that writes `content` to file `path` (the policy file, say),
  // as a push or a merged change would; the open PRs are not marked behind. 404 without the
  // repository.
  Outcome PutDefaultBranchFile(const std::string& repo, const std::string& path,
                               const std::string& content);
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
  // Whether `sha` is a commit of `repo` (its CommitGraph's: the default branch's history, every
  // head a PR had, the commits MergeIntoBranch made).
  bool KnowsCommit(const std::string& repo, const std::string& sha) const;
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
