// GitHubClient's GraphQL reads: the pass's read as one query (github/graphql_pull_state.h), a
// commit's checks (github/graphql_commit_checks.h), and the sweep's listing of open PRs with
// their checks (github/graphql_open_pulls.h), and what each does when GraphQL errs.
#include <utility>

#include "base/log.h"
#include "github/client.h"
#include "github/graphql_commit_checks.h"
#include "github/graphql_open_pulls.h"
#include "github/graphql_pull_state.h"

namespace gatehouse {
namespace {

// Execution errors in a row that pause the GraphQL reads, and for how long.
constexpr int kGraphqlErrorsToPause = 5;
constexpr Duration kGraphqlPause = std::chrono::minutes(10);

}  // namespace

std::string GraphqlTargetFor(std::string_view api_url) {
  constexpr std::string_view kEnterpriseRest = "/api/v3";
  std::string_view base = api_url;
  while (base.ends_with('/')) base.remove_suffix(1);
  if (base.ends_with(kEnterpriseRest)) {
    base.remove_suffix(kEnterpriseRest.size());
    return std::string(base) + "/api/graphql";
  }
  return "/graphql";
}

void GitHubClient::MarkGraphqlSpent(int64_t installation_id, Time until) {
  MutexLock lock(&mutex_);
  RateLimitState& s = graphql_limits_[installation_id];
  s.blocked_until = std::max(s.blocked_until, until);
  s.remaining = 0;
}

void GitHubClient::RefuseGraphqlQuery(std::string_view query, const GitHubError& error) {
  if (!graphql_refused_.exchange(true)) {
    Log(LogLevel::kWarn, "github.graphql_refused")
        .Field("query", query)
        .Field("error", error.ToString())
        .Field("note",
               "GitHub refused a gatehouse GraphQL query; passes read over REST and the sweep's "
               "full rounds pass every open PR from now on");
  }
}

bool GitHubClient::GraphqlOn() {
  if (!ListsOpenPullChecks()) return false;  // off, or refused
  MutexLock lock(&mutex_);
  return clock_->Now() >= graphql_paused_until_;
}

void GitHubClient::GraphqlAnswered() {
  MutexLock lock(&mutex_);
  graphql_errors_in_a_row_ = 0;
}

bool GitHubClient::GraphqlFallsBack(const CallContext& ctx, std::string_view query,
                                    const GitHubError& error, bool answered) {
  if (!answered) {
    // GraphQL's primary window is not REST's: when it is spent, REST's may not be. A
    // secondary limit (Retry-After) is the account's, not the window's: the caller waits.
    if (error.kind == GitHubErrorKind::kRateLimited) {
      return GraphqlRateLimitFor(ctx.installation_id).remaining == 0;
    }
    // The endpoint itself said no (a GitHub Enterprise Server without it, a proxy that does
    // not pass it): a 404 here is not the PR's. Anything else (a 5xx, a reset, a bad token)
    // is what a REST read would have met too.
    if (error.kind == GitHubErrorKind::kNotFound || error.kind == GitHubErrorKind::kPermanent) {
      RefuseGraphqlQuery(query, error);
      return true;
    }
    return false;
  }
  switch (error.kind) {
    case GitHubErrorKind::kRateLimited:
      MarkGraphqlSpent(ctx.installation_id, error.until);
      return true;
    case GitHubErrorKind::kPermanent:  // the document: GitHub will not run it
      RefuseGraphqlQuery(query, error);
      return true;
    case GitHubErrorKind::kTransient: {  // this execution: REST this once
      bool paused = false;
      {
        MutexLock lock(&mutex_);
        if (++graphql_errors_in_a_row_ >= kGraphqlErrorsToPause) {
          graphql_errors_in_a_row_ = 0;
          graphql_paused_until_ = clock_->Now() + kGraphqlPause;
          paused = true;
        }
      }
      Log(paused ? LogLevel::kWarn : LogLevel::kInfo, "github.graphql_error")
          .Field("query", query)
          .Field("error", error.ToString())
          .Field("note", paused ? "GraphQL errors in a row: the reads use REST for 10 minutes"
                                : "an error of this execution: GraphQL stays on");
      return true;
    }
    default:  // NOT_FOUND: the PR or repository is not there, whichever way it is read
      return false;
  }
}

GitHubResult<PullState> GitHubClient::ReadPullState(const CallContext& ctx, const RepoRef& repo,
                                                    int64_t number, PullStateParts parts) {
  if (!GraphqlOn()) return GitHub::ReadPullState(ctx, repo, number);
  auto response = Request(ctx, "POST", options_.graphql_target,
                          PullStateRequest(repo, number, parts), Window::kGraphql);
  if (!response.ok()) {
    if (GraphqlFallsBack(ctx, "PullState", response.error(), false)) {
      return GitHub::ReadPullState(ctx, repo, number);
    }
    return response.error();
  }
  auto answer =
      ParsePullStateAnswer(response->body, GraphqlRateLimitFor(ctx.installation_id).reset);
  if (!answer.ok()) {
    if (GraphqlFallsBack(ctx, "PullState", answer.error(), true)) {
      return GitHub::ReadPullState(ctx, repo, number);
    }
    return answer.error();
  }
  GraphqlAnswered();
  PullState state = std::move(answer->state);
  if (answer->labels_truncated) {
    auto pr = GetPullRequest(ctx, repo, number);
    if (!pr.ok()) return pr.error();
    state.pr.labels = std::move(pr->labels);
  }
  if (answer->reviews_truncated) {
    auto reviews = ListReviews(ctx, repo, number);
    if (!reviews.ok()) return reviews.error();
    state.reviews = std::move(reviews).value();
  }
  if (answer->checks_incomplete) {
    auto checks = ReadHeadChecks(ctx, repo, state);
    if (!checks.ok()) return checks.error();
  }
  return state;
}

GitHubResult<CommitChecks> GitHubClient::ReadCommitChecks(const CallContext& ctx,
                                                          const RepoRef& repo,
                                                          const std::string& sha) {
  if (!GraphqlOn()) return GitHub::ReadCommitChecks(ctx, repo, sha);
  auto response = Request(ctx, "POST", options_.graphql_target, CommitChecksRequest(repo, sha),
                          Window::kGraphql);
  if (!response.ok()) {
    if (GraphqlFallsBack(ctx, "CommitChecks", response.error(), false)) {
      return GitHub::ReadCommitChecks(ctx, repo, sha);
    }
    return response.error();
  }
  auto answer =
      ParseCommitChecksAnswer(response->body, GraphqlRateLimitFor(ctx.installation_id).reset, sha);
  if (!answer.ok()) {
    if (GraphqlFallsBack(ctx, "CommitChecks", answer.error(), true)) {
      return GitHub::ReadCommitChecks(ctx, repo, sha);
    }
    return answer.error();
  }
  GraphqlAnswered();
  // More check contexts than a page holds: REST's lists page.
  if (!answer->complete) return GitHub::ReadCommitChecks(ctx, repo, sha);
  return std::move(answer->checks);
}

GitHubResult<OpenPullListing> GitHubClient::ListOpenPullChecks(const CallContext& ctx,
                                                               const RepoRef& repo,
                                                               const std::string& watch_path) {
  if (!ListsOpenPullChecks()) return GitHub::ListOpenPullChecks(ctx, repo, watch_path);
  if (!GraphqlOn()) {
    // Paused after execution errors: the repository waits for a later round rather than
    // passing every PR.
    return GitHubError{GitHubErrorKind::kTransient,
                       0,
                       {},
                       "POST /graphql (OpenPulls): GraphQL paused after errors in a row"};
  }
  OpenPullListing out;
  std::optional<std::string> after;
  for (int page = 0; page < options_.max_pages; ++page) {
    auto response = Request(ctx, "POST", options_.graphql_target,
                            OpenPullsRequest(repo, watch_path, after), Window::kGraphql);
    // No REST fallback here: the sweeper skips the repository on an error (or passes every
    // PR once the query is refused), so the errors are only noted.
    if (!response.ok()) {
      GraphqlFallsBack(ctx, "OpenPulls", response.error(), false);
      return response.error();
    }
    auto answer =
        ParseOpenPullsAnswer(response->body, GraphqlRateLimitFor(ctx.installation_id).reset);
    if (!answer.ok()) {
      GraphqlFallsBack(ctx, "OpenPulls", answer.error(), true);
      return answer.error();
    }
    GraphqlAnswered();
    for (OpenPullChecks& p : answer->pulls) out.pulls.push_back(std::move(p));
    if (page == 0) out.watched_oid = std::move(answer->watched_oid);
    if (!answer->next) return out;
    after = std::move(answer->next);
  }
  return GitHubError{GitHubErrorKind::kPermanent,
                     0,
                     {},
                     "POST /graphql (OpenPulls): " + repo.FullName() + " has more than " +
                         std::to_string(options_.max_pages) + " pages of open PRs"};
}

}  // namespace gatehouse
