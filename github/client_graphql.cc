// GitHubClient's GraphQL reads: the pass's read as one query (github/graphql_pull_state.h), and
// the sweep's listing of open PRs with their checks (github/graphql_open_pulls.h).
#include <utility>

#include "base/log.h"
#include "github/client.h"
#include "github/graphql_open_pulls.h"
#include "github/graphql_pull_state.h"

namespace gatehouse {

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

GitHubResult<PullState> GitHubClient::RefuseGraphql(const CallContext& ctx, const RepoRef& repo,
                                                    int64_t number, const GitHubError& error) {
  RefuseGraphqlQuery("PullState", error);
  return GitHub::ReadPullState(ctx, repo, number);
}

GitHubResult<PullState> GitHubClient::ReadPullState(const CallContext& ctx, const RepoRef& repo,
                                                    int64_t number, PullStateParts parts) {
  if (!options_.graphql_reads || graphql_refused_.load()) {
    return GitHub::ReadPullState(ctx, repo, number);
  }
  auto response = Request(ctx, "POST", options_.graphql_target,
                          PullStateRequest(repo, number, parts), Window::kGraphql);
  if (!response.ok()) {
    const GitHubError& error = response.error();
    if (error.kind == GitHubErrorKind::kRateLimited) {
      // GraphQL's primary window is not REST's: when it is spent, REST's may not be. A
      // secondary limit (Retry-After) is the account's, not the window's: the pass waits.
      if (GraphqlRateLimitFor(ctx.installation_id).remaining == 0) {
        return GitHub::ReadPullState(ctx, repo, number);
      }
      return error;
    }
    // The endpoint itself said no (a GitHub Enterprise Server without it, a proxy that does
    // not pass it): a 404 here is not the pull request's. Anything else (a 5xx, a reset, a
    // bad token) is what a REST read would have met too.
    if (error.kind == GitHubErrorKind::kNotFound || error.kind == GitHubErrorKind::kPermanent) {
      return RefuseGraphql(ctx, repo, number, error);
    }
    return error;
  }
  auto answer =
      ParsePullStateAnswer(response->body, GraphqlRateLimitFor(ctx.installation_id).reset);
  if (!answer.ok()) {
    const GitHubError& error = answer.error();
    if (error.kind == GitHubErrorKind::kRateLimited) {
      MarkGraphqlSpent(ctx.installation_id, error.until);
      return GitHub::ReadPullState(ctx, repo, number);
    }
    if (error.kind == GitHubErrorKind::kPermanent) return RefuseGraphql(ctx, repo, number, error);
    // An error of this one execution (a timeout, INTERNAL, an IP allow list): this read goes
    // over REST, and GraphQL stays on for the next.
    if (error.kind == GitHubErrorKind::kTransient) {
      Log(LogLevel::kInfo, "github.graphql_error")
          .Field("query", "PullState")
          .Field("error", error.ToString());
      return GitHub::ReadPullState(ctx, repo, number);
    }
    return error;
  }
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

GitHubResult<OpenPullListing> GitHubClient::ListOpenPullChecks(const CallContext& ctx,
                                                               const RepoRef& repo,
                                                               const std::string& watch_path) {
  if (!options_.graphql_reads || graphql_refused_.load()) {
    return GitHub::ListOpenPullChecks(ctx, repo, watch_path);
  }
  OpenPullListing out;
  std::optional<std::string> after;
  for (int page = 0; page < options_.max_pages; ++page) {
    auto response = Request(ctx, "POST", options_.graphql_target,
                            OpenPullsRequest(repo, watch_path, after), Window::kGraphql);
    if (!response.ok()) {
      const GitHubError& error = response.error();
      // The endpoint itself said no, as in ReadPullState: GraphQL is off from now on.
      if (error.kind == GitHubErrorKind::kNotFound || error.kind == GitHubErrorKind::kPermanent) {
        RefuseGraphqlQuery("OpenPulls", error);
      }
      return error;
    }
    auto answer =
        ParseOpenPullsAnswer(response->body, GraphqlRateLimitFor(ctx.installation_id).reset);
    if (!answer.ok()) {
      const GitHubError& error = answer.error();
      if (error.kind == GitHubErrorKind::kRateLimited) {
        MarkGraphqlSpent(ctx.installation_id, error.until);
      }
      if (error.kind == GitHubErrorKind::kPermanent) RefuseGraphqlQuery("OpenPulls", error);
      return error;
    }
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
