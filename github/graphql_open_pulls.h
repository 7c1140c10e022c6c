// The sweep's full round as GraphQL (issue 15, docs/PASS.md "The sweeper"): a repository's open
// PRs, 100 to a request, each with its listing row (number, head and base SHAs, updatedAt, and
// mergeStateStatus, which a moved base changes) and
// its head commit's check runs and commit statuses, which the REST listing does not carry and
// which do not move a PR's updatedAt. One request costs 2 points of the installation's GraphQL
// window (GitHub's formula: 1 + 100 + 100 connection requests, / 100) and 1 request of its
// rate limit, where reading the checks of each PR would cost one request per PR.
//
// Pure functions.
#pragma once

#include <boost/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "github/errors.h"
#include "github/github.h"

namespace gatehouse {

// The query document (one operation, `OpenPulls`, with variables owner, name, watch, after).
const std::string& OpenPullsQuery();

// The POST /graphql body for `repo`'s open PRs after cursor `after` (none: the first page),
// with the object id of file `watch_path` of its default branch.
boost::json::object OpenPullsRequest(const RepoRef& repo, const std::string& watch_path,
                                     const std::optional<std::string>& after);

struct OpenPullsPage {
  std::vector<OpenPullChecks> pulls;
  std::string watched_oid;          // "" when the default branch has no such file
  std::optional<std::string> next;  // the cursor of the next page, when there is one
};

// The answer of a 200 to OpenPullsRequest. An "errors" entry is mapped as
// github/graphql_errors.h says; an answer without the repository's connection is kPermanent.
GitHubResult<OpenPullsPage> ParseOpenPullsAnswer(const boost::json::value& body, Time reset);

}  // namespace gatehouse
