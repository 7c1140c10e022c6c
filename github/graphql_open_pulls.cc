#include "github/graphql_open_pulls.h"

#include <utility>

#include "github/graphql_errors.h"
#include "github/json_read.h"

namespace gatehouse {
namespace json = boost::json;
using json_read::HasNextPage;
using json_read::Int;
using json_read::Lower;
using json_read::Nodes;
using json_read::Str;
using json_read::Sub;

namespace open_pulls {  // named: the unity build shares a translation unit with PullState's

constexpr std::string_view kOpenPullsQuery =
    R"(query OpenPulls($owner: String!, $name: String!, $watch: String!, $after: String) {
  repository(owner: $owner, name: $name) {
    watched: object(expression: $watch) { oid }
    pullRequests(states: [OPEN], first: 100, after: $after) {
      pageInfo { hasNextPage endCursor }
      nodes {
        number headRefOid baseRefOid updatedAt mergeable mergeStateStatus
        commits(last: 1) {
          nodes {
            commit {
              oid
              status { contexts { context state createdAt } }
              statusCheckRollup {
                contexts(first: 100) {
                  pageInfo { hasNextPage }
                  nodes { __typename ... on CheckRun { databaseId name status conclusion startedAt completedAt } }
                }
              }
            }
          }
        }
      }
    }
  }
})";

// One open PR's node: its row and, when the answer holds its head commit, that commit's checks.
OpenPullChecks ParsePull(const json::value& node) {
  OpenPullChecks out;
  out.pr.number = Int(node, "number");
  out.pr.state = "open";
  out.pr.head_sha = Str(node, "headRefOid");
  out.pr.base_sha = Str(node, "baseRefOid");
  out.pr.updated_at = Str(node, "updatedAt");
  out.pr.mergeable_state = Lower(Str(node, "mergeStateStatus"));
  const std::string mergeable = Str(node, "mergeable");
  if (mergeable == "MERGEABLE") out.pr.mergeable = true;
  if (mergeable == "CONFLICTING") out.pr.mergeable = false;
  const auto* commits = Nodes(Sub(node, "commits"));
  const json::value& commit =
      commits != nullptr && !commits->empty() ? Sub(commits->back(), "commit") : json::value();
  if (Str(commit, "oid") != out.pr.head_sha) {
    out.checks_complete = false;  // the head moved between the answer's parts
    return out;
  }
  if (const auto* contexts = Sub(Sub(commit, "status"), "contexts").if_array()) {
    for (const auto& c : *contexts) {
      out.statuses.push_back(
          OpenPullChecks::Status{Str(c, "context"), Lower(Str(c, "state")), Str(c, "createdAt")});
    }
  }
  const json::value& rollup = Sub(Sub(commit, "statusCheckRollup"), "contexts");
  if (HasNextPage(rollup)) out.checks_complete = false;
  if (const auto* nodes = Nodes(rollup)) {
    for (const auto& n : *nodes) {
      if (Str(n, "__typename") != "CheckRun") continue;
      OpenPullChecks::Run run;
      run.id = Int(n, "databaseId");
      run.name = Str(n, "name");
      run.status = Lower(Str(n, "status"));
      run.conclusion = Lower(Str(n, "conclusion"));
      run.started_at = Str(n, "startedAt");
      run.completed_at = Str(n, "completedAt");
      out.check_runs.push_back(std::move(run));
    }
  }
  return out;
}

}  // namespace open_pulls

const std::string& OpenPullsQuery() {
  static const std::string query(open_pulls::kOpenPullsQuery);
  return query;
}

json::object OpenPullsRequest(const RepoRef& repo, const std::string& watch_path,
                              const std::optional<std::string>& after) {
  json::object variables{
      {"owner", repo.owner}, {"name", repo.name}, {"watch", "HEAD:" + watch_path}};
  variables["after"] = after ? json::value(*after) : json::value(nullptr);
  return json::object{
      {"query", OpenPullsQuery()}, {"operationName", "OpenPulls"}, {"variables", variables}};
}

GitHubResult<OpenPullsPage> ParseOpenPullsAnswer(const json::value& body, Time reset) {
  if (auto error = GraphqlAnswerError(body, "OpenPulls", reset)) return *error;
  const json::value& pulls = Sub(Sub(Sub(body, "data"), "repository"), "pullRequests");
  const auto* nodes = Sub(pulls, "nodes").if_array();
  if (nodes == nullptr) {
    return GitHubError{GitHubErrorKind::kPermanent,
                       200,
                       {},
                       "POST /graphql (OpenPulls): the answer holds no pullRequests"};
  }
  OpenPullsPage page;
  page.watched_oid = Str(Sub(Sub(Sub(body, "data"), "repository"), "watched"), "oid");
  page.pulls.reserve(nodes->size());
  for (const auto& n : *nodes) page.pulls.push_back(open_pulls::ParsePull(n));
  if (HasNextPage(pulls)) {
    page.next = Str(Sub(pulls, "pageInfo"), "endCursor");
    if (page.next->empty()) {
      return GitHubError{GitHubErrorKind::kPermanent,
                         200,
                         {},
                         "POST /graphql (OpenPulls): a next page without a cursor"};
    }
  }
  return page;
}

}  // namespace gatehouse
