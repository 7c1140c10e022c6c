// One commit's checks as a single GitHub GraphQL query (issue 15): its check runs and combined
// status, which REST reads in two requests (`GET /commits/{sha}/check-runs` and
// `GET /commits/{sha}/status`). The merge queue reads the commits it tests this way
// (act/queue_batches.cc); the pass's own query (github/graphql_pull_state.h) selects the PR's
// head commit with the same fields and parses it with the same function.
//
// The answer is turned into REST's structs and spellings: enums lower-cased, a commit without
// statuses "pending" (REST's combined state) where GraphQL says null. More than 100 check
// contexts is flagged: the caller reads that commit over REST, which pages.
//
// Pure functions.
#pragma once

#include <boost/json.hpp>
#include <string>
#include <string_view>

#include "github/errors.h"
#include "github/github.h"

namespace gatehouse {

// The selection of a Commit that ParseCommitChecks reads: `oid`, `status` and the first 100
// contexts of `statusCheckRollup`.
extern const std::string_view kCommitChecksFields;

// Reads a Commit object selected with kCommitChecksFields into `out`. False when the commit is
// not `sha` (a PR's head that moved between the two parts of GitHub's answer); `complete`
// false when its check contexts did not fit one page.
bool ParseCommitChecks(const boost::json::value& commit, const std::string& sha, CommitChecks* out,
                       bool* complete);

// The query document: one operation, `CommitChecks`, with variables owner, name and oid.
const std::string& CommitChecksQuery();

// The POST /graphql body for commit `sha` of `repo`.
boost::json::object CommitChecksRequest(const RepoRef& repo, const std::string& sha);

struct CommitChecksAnswer {
  CommitChecks checks;
  bool complete = true;  // false: more than one page of check contexts
};

// The answer of a 200 to CommitChecksRequest for `sha`. An "errors" entry is mapped as
// github/graphql_errors.h says; no such commit (a null object, or one that is not a Commit) is
// kNotFound; an answer without the repository, or for another commit, kPermanent.
GitHubResult<CommitChecksAnswer> ParseCommitChecksAnswer(const boost::json::value& body, Time reset,
                                                         const std::string& sha);

}  // namespace gatehouse
