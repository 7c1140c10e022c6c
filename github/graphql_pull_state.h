// The pass's read of one PR as a single GitHub GraphQL query (issue 15, docs/GITHUB.md
// "One query per pass"): the PR, its labels, its reviews, its head commit's combined status
// and check runs, and when asked its latest conversation comments and its changed paths, in one
// request costing one point of the installation's GraphQL window instead of four REST requests of
// its core window.
//
// The answer is turned into the same structs the REST reads fill, with REST's spellings:
// enums lower-cased (mergeStateStatus CLEAN → mergeable_state "clean"), MERGED as state
// "closed" with merged set, a Bot's login with the "[bot]" REST shows, `mergeable` null while
// UNKNOWN. What one page cannot hold (more than 100 labels, reviews or check contexts) is
// flagged, so that the caller reads that part over REST, which pages.
//
// Pure functions.
#pragma once

#include <boost/json.hpp>
#include <optional>
#include <string>

#include "github/errors.h"
#include "github/github.h"

namespace gatehouse {

// The query document (one operation, `PullState`, with variables owner, name, number), with
// the PR's last 100 conversation comments and its first 100 changed paths when `parts` ask.
const std::string& PullStateQuery(PullStateParts parts);

// The POST /graphql body for `repo`'s PR `number`, with the `parts` asked for.
boost::json::object PullStateRequest(const RepoRef& repo, int64_t number, PullStateParts parts);

struct PullStateAnswer {
  PullState state;
  // The parts one page did not hold (or, for the checks, a head commit other than the PR's
  // head: the PR moved between the two parts of GitHub's answer).
  bool labels_truncated = false;
  bool reviews_truncated = false;
  bool checks_incomplete = false;
};

// The answer of a 200 to PullStateRequest. An "errors" entry is mapped as
// github/graphql_errors.h says: NOT_FOUND (the repository or the PR is not there, or not
// visible) kNotFound, RATE_LIMITED kRateLimited until `reset`, an error about the document
// kPermanent, an error of this execution kTransient.
GitHubResult<PullStateAnswer> ParsePullStateAnswer(const boost::json::value& body, Time reset);

}  // namespace gatehouse
