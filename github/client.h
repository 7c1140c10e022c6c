// GitHubClient: the real GitHub (github/github.h): the REST calls gatehouse makes, with the
// machinery every call needs (DESIGN.md §5, github/; issue 4):
//
//   auth         a TokenSource supplies the bearer token per installation; a 401 drops the
//                token and retries the call once with a fresh one.
//   rate limits  X-RateLimit-Remaining/Reset are tracked per installation. While a limit is
//                known to be exhausted (or after a 403/429 with Retry-After) calls are refused
//                locally as RateLimited{until} without touching the network. Calls marked
//                `background` (sweeps) are also refused once `remaining` drops to
//                `background_reserve`, so webhook-driven passes keep the last requests.
//   conditional  GETs remember ETag + body (per installation and URL) and send If-None-Match;
//   reads        a 304 returns the remembered body (304s do not count against the limit).
//   pagination   list calls follow `Link: <...>; rel="next"` up to `max_pages`.
//   typed errors every failure is a GitHubError (github/errors.h).
//
// Every mutating call takes the head SHA it was decided on where GitHub accepts one, so a
// moved head makes GitHub refuse it (HeadModified / Unprocessable → "superseded").
//
// Thread-safety: safe for concurrent use; no lock is held while a request is in flight.
#pragma once

#include <atomic>
#include <boost/json/array.hpp>
#include <boost/json/value.hpp>
#include <cstdint>
#include <list>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "github/app_auth.h"
#include "github/errors.h"
#include "github/github.h"
#include "github/transport.h"

namespace gatehouse {

struct GitHubClientOptions {
  int64_t background_reserve = 200;  // of the 5000/h an installation gets
  size_t etag_cache_entries = 2048;  // the least recently used entries are evicted first
  int max_pages = 50;                // list calls stop (with an error) beyond this
  // ReadPullState as one GraphQL query (github/graphql_pull_state.h); false: the REST reads.
  bool graphql_reads = true;
  // Where GraphQL is: relative to the base URL (GitHub's "/graphql") or absolute (GitHub
  // Enterprise Server's https://HOST/api/graphql beside its /api/v3); see GraphqlTargetFor.
  std::string graphql_target = "/graphql";
};

// The GraphQL endpoint for REST base URL `api_url`: "/graphql" for GitHub and the simulator,
// the absolute https://HOST/api/graphql for a GitHub Enterprise Server base ending in /api/v3.
std::string GraphqlTargetFor(std::string_view api_url);

class GitHubClient final : public GitHub {
 public:
  // `transport` and `tokens` must outlive the client.
  GitHubClient(HttpTransport& transport, TokenSource& tokens, ClockPtr clock,
               GitHubClientOptions options = {});

  // --- reads ---
  GitHubResult<PullRequest> GetPullRequest(const CallContext& ctx, const RepoRef& repo,
                                           int64_t number) override;
  GitHubResult<std::vector<Review>> ListReviews(const CallContext& ctx, const RepoRef& repo,
                                                int64_t number) override;
  GitHubResult<std::vector<CheckRun>> ListCheckRuns(const CallContext& ctx, const RepoRef& repo,
                                                    const std::string& ref) override;
  GitHubResult<CombinedStatus> GetCombinedStatus(const CallContext& ctx, const RepoRef& repo,
                                                 const std::string& ref) override;
  GitHubResult<std::vector<PullRequest>> ListPullRequestsForCommit(const CallContext& ctx,
                                                                   const RepoRef& repo,
                                                                   const std::string& sha) override;
  GitHubResult<std::vector<PullRequest>> ListOpenPullRequests(const CallContext& ctx,
                                                              const RepoRef& repo) override;
  // The decoded contents of a file; NotFound when it (or `ref`) does not exist. An empty
  // `ref` means the default branch.
  GitHubResult<std::string> GetFileContents(const CallContext& ctx, const RepoRef& repo,
                                            const std::string& path,
                                            const std::string& ref) override;
  GitHubResult<std::vector<RepoRef>> ListInstallationRepositories(const CallContext& ctx) override;
  GitHubResult<std::vector<IssueComment>> ListIssueComments(const CallContext& ctx,
                                                            const RepoRef& repo,
                                                            int64_t number) override;
  GitHubResult<std::vector<IssueEvent>> ListIssueEvents(const CallContext& ctx, const RepoRef& repo,
                                                        int64_t number) override;
  GitHubResult<std::vector<std::string>> ListPullRequestFiles(const CallContext& ctx,
                                                              const RepoRef& repo,
                                                              int64_t number) override;
  GitHubResult<std::vector<PullFile>> ListPullRequestFileDetails(const CallContext& ctx,
                                                                 const RepoRef& repo,
                                                                 int64_t number) override;
  GitHubResult<std::vector<Reaction>> ListReactions(const CallContext& ctx, const RepoRef& repo,
                                                    int64_t comment_id) override;
  // One GraphQL query (github/client_graphql.cc), with the REST reads for what one page cannot
  // hold. GraphQL has its own rate window: when it is exhausted, or GitHub refuses the query
  // itself (then for the rest of the process, with a warning), the REST reads answer instead.
  GitHubResult<PullState> ReadPullState(const CallContext& ctx, const RepoRef& repo, int64_t number,
                                        PullStateParts parts = {}) override;
  // One GraphQL query (github/graphql_commit_checks.h) instead of two REST reads, with the same
  // fallbacks to REST as ReadPullState.
  GitHubResult<CommitChecks> ReadCommitChecks(const CallContext& ctx, const RepoRef& repo,
                                              const std::string& sha) override;
  // One GraphQL query per 100 open PRs (github/graphql_open_pulls.h); refused as the default
  // when GraphQL reads are off or GitHub refused a query; kTransient while GraphQL is paused
  // (GraphqlOn).
  GitHubResult<OpenPullListing> ListOpenPullChecks(const CallContext& ctx, const RepoRef& repo,
                                                   const std::string& watch_path) override;
  bool ListsOpenPullChecks() const override {
    return options_.graphql_reads && !graphql_refused_.load();
  }

  // --- writes (each bound to a head SHA where GitHub allows it) ---
  // merge_method: "merge", "squash" or "rebase".
  GitHubResult<MergeResult> Merge(const CallContext& ctx, const RepoRef& repo, int64_t number,
                                  const std::string& sha, const std::string& merge_method) override;
  // event: APPROVE, REQUEST_CHANGES or COMMENT. Returns the review id.
  GitHubResult<int64_t> CreateReview(const CallContext& ctx, const RepoRef& repo, int64_t number,
                                     const std::string& commit_id, const std::string& event,
                                     const std::string& body) override;
  GitHubResult<GitHubOk> DismissReview(const CallContext& ctx, const RepoRef& repo, int64_t number,
                                       int64_t review_id, const std::string& message) override;
  // Returns the comment id.
  GitHubResult<int64_t> CreateIssueComment(const CallContext& ctx, const RepoRef& repo,
                                           int64_t number, const std::string& body) override;
  GitHubResult<GitHubOk> UpdateIssueComment(const CallContext& ctx, const RepoRef& repo,
                                            int64_t comment_id, const std::string& body) override;
  // 200 (the reaction exists) and 201 (created) both return its id.
  GitHubResult<int64_t> CreateReaction(const CallContext& ctx, const RepoRef& repo,
                                       int64_t comment_id, const std::string& content) override;
  GitHubResult<GitHubOk> AddLabels(const CallContext& ctx, const RepoRef& repo, int64_t number,
                                   const std::vector<std::string>& labels) override;
  // NotFound when the label is not on the issue.
  GitHubResult<GitHubOk> RemoveLabel(const CallContext& ctx, const RepoRef& repo, int64_t number,
                                     const std::string& label) override;
  GitHubResult<GitHubOk> ClosePullRequest(const CallContext& ctx, const RepoRef& repo,
                                          int64_t number) override;
  // Returns the check run id.
  GitHubResult<int64_t> CreateCheckRun(const CallContext& ctx, const RepoRef& repo,
                                       const CheckRunSpec& spec) override;
  GitHubResult<GitHubOk> UpdateCheckRun(const CallContext& ctx, const RepoRef& repo,
                                        int64_t check_run_id, const CheckRunSpec& spec) override;
  // Unprocessable when the head is no longer `expected_head_sha`.
  GitHubResult<GitHubOk> UpdateBranch(const CallContext& ctx, const RepoRef& repo, int64_t number,
                                      const std::string& expected_head_sha) override;
  GitHubResult<GitHubOk> RequestReviewers(const CallContext& ctx, const RepoRef& repo,
                                          int64_t number, const std::vector<std::string>& users,
                                          const std::vector<std::string>& teams) override;

  // --- branches (git data API) ---
  GitHubResult<std::string> GetBranchSha(const CallContext& ctx, const RepoRef& repo,
                                         const std::string& branch) override;
  GitHubResult<GitHubOk> CreateBranch(const CallContext& ctx, const RepoRef& repo,
                                      const std::string& branch, const std::string& sha) override;
  GitHubResult<GitHubOk> MoveBranch(const CallContext& ctx, const RepoRef& repo,
                                    const std::string& branch, const std::string& sha,
                                    bool force) override;
  GitHubResult<GitHubOk> DeleteBranch(const CallContext& ctx, const RepoRef& repo,
                                      const std::string& branch) override;
  GitHubResult<std::string> MergeIntoBranch(const CallContext& ctx, const RepoRef& repo,
                                            const std::string& base, const std::string& head,
                                            const std::string& message) override;

  // --- who gatehouse is ---
  // The login of the user the token belongs to (GET /user), in personal-token mode:
  // gatehouse's login on its reviews and comments. An installation token has no user (GitHub
  // answers 403: Unauthorized); an App's login comes from FetchAppLogin (github/app_auth.h).
  // Permanent when the answer carries no login.
  GitHubResult<std::string> GetAuthenticatedUserLogin(const CallContext& ctx);

  // --- the machinery, public for calls not wrapped above ---
  struct Response {
    int status = 0;
    boost::json::value body;  // null for an empty body
    std::string next_url;     // from Link rel="next", "" when there is none
  };
  // One request. `target` is relative to the base URL (or a pagination URL); `body` is sent
  // as JSON unless null. Non-2xx replies become GitHubErrors.
  GitHubResult<Response> Call(const CallContext& ctx, const std::string& method,
                              const std::string& target, const boost::json::value& body = {});
  // GETs `target` and follows rel="next", concatenating the arrays. `items_key` names the
  // array inside an object response ("check_runs", "repositories"), "" for a bare array.
  GitHubResult<boost::json::array> GetAllPages(const CallContext& ctx, const std::string& target,
                                               const std::string& items_key);

  // What is known about an installation's primary limit (tests, metrics, the admin API).
  struct RateLimitState {
    std::optional<int64_t> remaining;
    Time reset;
    Time blocked_until;  // from Retry-After or an exhausted limit
  };
  RateLimitState RateLimitFor(int64_t installation_id) const;
  // The same for the installation's GraphQL window (X-RateLimit-Resource: graphql).
  RateLimitState GraphqlRateLimitFor(int64_t installation_id) const;
  // Every installation's state seen so far (the metrics' rate-limit gauges).
  std::map<int64_t, RateLimitState> RateLimits() const;
  // Calls refused locally because a limit was exhausted, a Retry-After still ran, or only the
  // reserve was left for a background call: the waits for rate limits since the start, by
  // installation.
  std::map<int64_t, int64_t> RateLimitRefusals() const;

 private:
  struct CachedGet {
    std::string etag;
    std::string body;
    std::string link;
    std::list<std::string>::iterator use;  // its place in etag_use_
  };
  // GitHub's rate windows: REST's `core` and GraphQL's `graphql` (points, not requests).
  enum class Window { kCore, kGraphql };
  std::map<int64_t, RateLimitState>& LimitsLocked(Window window) REQUIRES(mutex_) {
    return window == Window::kGraphql ? graphql_limits_ : rate_limits_;
  }
  std::optional<GitHubError> RefuseForRateLimit(const CallContext& ctx, const std::string& what,
                                                Window window);
  // Into the window the reply's X-RateLimit-Resource names.
  void RecordRateLimit(int64_t installation_id, const HttpReply& reply);
  // Call, spending `window`.
  GitHubResult<Response> Request(const CallContext& ctx, const std::string& method,
                                 const std::string& target, const boost::json::value& body,
                                 Window window);
  GitHubResult<HttpReply> SendAuthorized(const CallContext& ctx, HttpCall& call,
                                         const std::string& what);

  HttpTransport& transport_;
  TokenSource& tokens_;
  const ClockPtr clock_;
  const GitHubClientOptions options_;

  mutable Mutex mutex_;
  std::map<int64_t, int64_t> refusals_ GUARDED_BY(mutex_);
  std::map<int64_t, RateLimitState> rate_limits_ GUARDED_BY(mutex_);
  std::map<int64_t, RateLimitState> graphql_limits_ GUARDED_BY(mutex_);
  // A RATE_LIMITED answer: the installation's GraphQL window is spent until `until`.
  void MarkGraphqlSpent(int64_t installation_id, Time until);
  // Logs (once) that GitHub refused GraphQL query `query`, and sets graphql_refused_.
  void RefuseGraphqlQuery(std::string_view query, const GitHubError& error);
  // Whether the GraphQL reads are to be tried now: on in the options, not refused, not paused.
  bool GraphqlOn();
  // What a GraphQL read does after `error` of query `query` (client_graphql.cc): true to read
  // over REST instead, false to return the error. `answered`: the error is an `errors` entry of
  // a 200 (github/graphql_errors.h), not the HTTP exchange's. Marks the GraphQL window spent,
  // refuses the query, or counts an execution error, as the error says.
  bool GraphqlFallsBack(const CallContext& ctx, std::string_view query, const GitHubError& error,
                        bool answered);
  // A query answered without error: the run of execution errors is over.
  void GraphqlAnswered();
  // Set when GitHub refused a GraphQL query itself: the reads use REST from then on.
  std::atomic<bool> graphql_refused_{false};
  // Execution errors in a row (a timeout, FORBIDDEN, INTERNAL: kTransient answers); at
  // kGraphqlErrorsToPause GraphQL is paused until `graphql_paused_until_`, so that an error
  // that will not go away (an IP allow list, a server that cannot run the query) does not cost
  // a query beside every REST read.
  int graphql_errors_in_a_row_ GUARDED_BY(mutex_) = 0;
  Time graphql_paused_until_ GUARDED_BY(mutex_);
  std::map<std::string, CachedGet> etags_ GUARDED_BY(mutex_);
  // Least recently used first: a 304 or a new 200 moves its key to the back, and the front is
  // evicted, so what every pass reads (a repository's policy file, its PR listing) stays.
  std::list<std::string> etag_use_ GUARDED_BY(mutex_);
};

// The URL of rel="next" in a Link header, "" when there is none.
std::string NextLinkUrl(std::string_view link_header);

// Percent-encodes one path segment or query value (RFC 3986 unreserved kept).
std::string UrlEncode(std::string_view text);

}  // namespace gatehouse
