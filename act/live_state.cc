#include "act/live_state.h"

#include <utility>

#include "base/ascii.h"
#include "decide/generations.h"
#include "decide/planner.h"
#include "decide/review_body.h"
#include "decide/summary_record.h"

namespace gatehouse::act {
namespace {

std::optional<LiveReadFailure> Failed(std::string what, GitHubError error) {
  return LiveReadFailure{std::move(what), std::move(error), false};
}

}  // namespace

std::optional<LiveReadFailure> ReadLiveState(GitHub& github, PolicySource& policies,
                                             const Target& target, bool with_comments,
                                             LiveState* live) {
  const CallContext& call = target.call;
  // The policy first (a conditional read of the default branch's file, usually a 304): it says
  // whether the PR's changed paths are needed, and the PR's read can then carry them.
  auto policy = policies.Load(call, target.repo);
  if (!policy.ok()) return Failed("reading the policy", policy.error());
  live->policy = std::move(policy).value();
  const auto& pp = live->policy.policy.protected_paths;
  bool role_paths = false;  // a review role selects PRs by path
  for (const auto& rule : live->policy.policy.reviews.roles) role_paths |= !rule.paths.empty();
  PullStateParts parts;
  parts.comments = with_comments;
  parts.files = (pp.mode != decide::RuleMode::kOff && !pp.paths.empty()) || role_paths;

  auto state = github.ReadPullState(call, target.repo, target.number, parts);
  if (!state.ok()) {
    const bool gone = state.error().kind == GitHubErrorKind::kNotFound;
    return LiveReadFailure{"reading the pull request", state.error(), gone};
  }
  live->pr = std::move(state->pr);
  live->reviews = std::move(state->reviews);
  live->check_runs = std::move(state->check_runs);
  live->status = std::move(state->status);
  live->comments = std::move(state->comments);
  if (state->files) {
    live->changed_paths = std::move(*state->files);
  } else if (parts.files) {
    auto files = github.ListPullRequestFiles(call, target.repo, target.number);
    if (!files.ok()) return Failed("listing changed files", files.error());
    live->changed_paths = std::move(files).value();
  }
  return std::nullopt;
}

std::optional<LiveReadFailure> ReadSummaryComment(GitHub& github, const Target& target,
                                                  std::string_view app_login,
                                                  const std::vector<decide::PriorAction>& ledger,
                                                  LiveState* live) {
  SummaryCommentState& summary = live->summary;
  summary = {};
  if (const std::optional<decide::SummaryRecord> known = decide::LastSummaryEdit(ledger)) {
    summary.id = known->comment_id;
    summary.digest = known->digest;
    return std::nullopt;
  }
  if (!live->comments) {
    auto listed = github.ListIssueComments(target.call, target.repo, target.number);
    if (!listed.ok()) return Failed("listing comments", listed.error());
    live->comments = std::move(listed).value();
  }
  for (const IssueComment& c : *live->comments) {
    if (c.body.starts_with(decide::kSummaryMarker) && c.user == app_login) {
      summary.id = c.id;
      summary.body = c.body;
    }
  }
  return std::nullopt;
}

decide::AuthorRole RoleOf(std::string_view association) {
  if (association == "OWNER") return decide::AuthorRole::kOwner;
  if (association == "MEMBER") return decide::AuthorRole::kMember;
  if (association == "COLLABORATOR") return decide::AuthorRole::kCollaborator;
  if (association == "CONTRIBUTOR") return decide::AuthorRole::kContributor;
  return decide::AuthorRole::kNone;
}

decide::PrSnapshot SnapshotOf(const LiveState& live, Time now, Time head_first_seen,
                              std::string_view app_login) {
  const PullRequest& pr = live.pr;
  decide::PrSnapshot s;
  s.number = pr.number;
  s.author = pr.author;
  s.author_role = RoleOf(pr.author_association);
  s.author_is_bot = pr.author_type == "Bot" || pr.author.ends_with("[bot]");
  s.draft = pr.draft;
  s.state = pr.state;
  s.head_sha = pr.head_sha;
  s.base_sha = pr.base_sha;
  s.labels = pr.labels;
  s.mergeable = pr.mergeable;
  s.mergeable_state = pr.mergeable_state;
  s.changed_files = pr.changed_files;
  s.additions = pr.additions;
  s.deletions = pr.deletions;
  s.changed_paths = live.changed_paths;
  // The list position orders the reviews.
  int64_t order = 0;
  for (const Review& r : live.reviews) {
    // A review run's review is a reviewer's verdict, which the `reviews` rule reads from the
    // store; it is never an approval (or a change request) of a person.
    if (decide::ParseReviewMarker(r.body) &&
        (app_login.empty() || EqualsIgnoreCase(r.user, app_login))) {
      continue;
    }
    s.reviews.push_back(
        decide::Review{r.user, r.state, r.commit_id, Time(std::chrono::microseconds(++order))});
  }
  for (const CheckRun& r : live.check_runs) {
    // gatehouse's own runs (its verdict, the merge queue's) are not checks it waits for.
    if (r.name == decide::kCheckRunName || r.name == decide::kQueueCheckRunName) continue;
    if (!r.head_sha.empty() && r.head_sha != pr.head_sha) continue;
    s.check_runs.push_back(
        decide::CheckRun{r.id, r.name, r.app, r.status, r.conclusion, r.head_sha});
  }
  int64_t status_id = 0;
  for (const CommitStatus& st : live.status.statuses) {
    s.statuses.push_back(decide::CommitStatus{++status_id, st.context, st.state});
  }
  s.head_pushed_at = head_first_seen;
  s.now = now;
  return s;
}

std::string LatestCheckRunDetail(const LiveState& live) {
  const std::string& head = live.pr.head_sha;
  const CheckRun* latest = nullptr;
  for (const CheckRun& r : live.check_runs) {
    if (r.name != decide::kCheckRunName || r.head_sha != head || r.external_id.empty()) continue;
    if (latest == nullptr || r.id > latest->id) latest = &r;
  }
  return latest == nullptr ? "" : decide::CheckRunDetailOf(latest->external_id, head);
}

}  // namespace gatehouse::act
