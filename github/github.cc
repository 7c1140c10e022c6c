// GitHub's composite reads, made of its single calls (github/github.h).
#include "github/github.h"

#include <utility>

namespace gatehouse {

GitHubResult<PullState> GitHub::ReadPullState(const CallContext& ctx, const RepoRef& repo,
                                              int64_t number, PullStateParts /*parts*/) {
  PullState out;
  auto pr = GetPullRequest(ctx, repo, number);
  if (!pr.ok()) return pr.error();
  out.pr = std::move(pr).value();
  auto reviews = ListReviews(ctx, repo, number);
  if (!reviews.ok()) return reviews.error();
  out.reviews = std::move(reviews).value();
  auto checks = ReadHeadChecks(ctx, repo, out);
  if (!checks.ok()) return checks.error();
  return out;
}

GitHubResult<OpenPullListing> GitHub::ListOpenPullChecks(const CallContext& /*ctx*/,
                                                         const RepoRef& repo,
                                                         const std::string& /*watch_path*/) {
  return GitHubError{GitHubErrorKind::kPermanent,
                     0,
                     {},
                     "listing " + repo.FullName() + "'s open PRs with their checks needs GraphQL"};
}

GitHubResult<CommitChecks> GitHub::ReadCommitChecks(const CallContext& ctx, const RepoRef& repo,
                                                    const std::string& sha) {
  CommitChecks out;
  auto runs = ListCheckRuns(ctx, repo, sha);
  if (!runs.ok()) return runs.error();
  out.check_runs = std::move(runs).value();
  auto status = GetCombinedStatus(ctx, repo, sha);
  if (!status.ok()) return status.error();
  out.status = std::move(status).value();
  return out;
}

GitHubResult<GitHubOk> GitHub::ReadHeadChecks(const CallContext& ctx, const RepoRef& repo,
                                              PullState& state) {
  auto checks = GitHub::ReadCommitChecks(ctx, repo, state.pr.head_sha);  // REST's, always
  if (!checks.ok()) return checks.error();
  state.check_runs = std::move(checks->check_runs);
  state.status = std::move(checks->status);
  return GitHubOk{};
}

}  // namespace gatehouse
