#include "github/graphql_commit_checks.h"

#include <utility>

#include "github/graphql_errors.h"
#include "github/json_read.h"

namespace gatehouse {
namespace json = boost::json;

// Page sizes are GitHub's maximum (100); the query costs 1 point.
const std::string_view kCommitChecksFields = R"(oid
            status { state contexts { context state } }
            statusCheckRollup {
              contexts(first: 100) {
                pageInfo { hasNextPage }
                nodes {
                  __typename
                  ... on CheckRun {
                    databaseId name status conclusion externalId
                    checkSuite { app { slug } commit { oid } }
                  }
                }
              }
            })";

bool ParseCommitChecks(const json::value& commit, const std::string& sha, CommitChecks* out,
                       bool* complete) {
  using json_read::HasNextPage;
  using json_read::Int;
  using json_read::Lower;
  using json_read::Nodes;
  using json_read::Str;
  using json_read::Sub;
  if (Str(commit, "oid") != sha) return false;
  const json::value& status = Sub(commit, "status");
  // No statuses: GitHub's GraphQL says null where REST's combined status says "pending".
  out->status.state = status.is_null() ? "pending" : Lower(Str(status, "state"));
  if (const auto* contexts = Sub(status, "contexts").if_array()) {
    for (const auto& c : *contexts) {
      out->status.statuses.push_back(CommitStatus{Str(c, "context"), Lower(Str(c, "state"))});
    }
  }
  const json::value& rollup = Sub(Sub(commit, "statusCheckRollup"), "contexts");
  *complete = !HasNextPage(rollup);
  if (const auto* nodes = Nodes(rollup)) {
    for (const auto& n : *nodes) {
      if (Str(n, "__typename") != "CheckRun") continue;
      CheckRun run;
      run.id = Int(n, "databaseId");
      run.name = Str(n, "name");
      run.status = Lower(Str(n, "status"));
      run.conclusion = Lower(Str(n, "conclusion"));
      const json::value& suite = Sub(n, "checkSuite");
      run.head_sha = Str(Sub(suite, "commit"), "oid");
      run.app = Str(Sub(suite, "app"), "slug");
      run.external_id = Str(n, "externalId");
      out->check_runs.push_back(std::move(run));
    }
  }
  return true;
}

const std::string& CommitChecksQuery() {
  static const std::string query =
      "query CommitChecks($owner: String!, $name: String!, $oid: GitObjectID!) {\n"
      "  repository(owner: $owner, name: $name) {\n"
      "    object(oid: $oid) {\n"
      "      __typename\n"
      "      ... on Commit {\n"
      "            " +
      std::string(kCommitChecksFields) +
      "\n"
      "      }\n"
      "    }\n"
      "  }\n"
      "}";
  return query;
}

json::object CommitChecksRequest(const RepoRef& repo, const std::string& sha) {
  return json::object{
      {"query", CommitChecksQuery()},
      {"operationName", "CommitChecks"},
      {"variables", json::object{{"owner", repo.owner}, {"name", repo.name}, {"oid", sha}}}};
}

GitHubResult<CommitChecksAnswer> ParseCommitChecksAnswer(const json::value& body, Time reset,
                                                         const std::string& sha) {
  using json_read::Str;
  using json_read::Sub;
  if (auto error = GraphqlAnswerError(body, "CommitChecks", reset)) return *error;
  const json::value& repository = Sub(Sub(body, "data"), "repository");
  if (!repository.is_object()) {
    return GitHubError{GitHubErrorKind::kPermanent,
                       200,
                       {},
                       "POST /graphql (CommitChecks): the answer holds no repository"};
  }
  const json::value& object = Sub(repository, "object");
  if (Str(object, "__typename") != "Commit") {
    return GitHubError{
        GitHubErrorKind::kNotFound, 200, {}, "POST /graphql (CommitChecks): no commit " + sha};
  }
  CommitChecksAnswer out;
  if (!ParseCommitChecks(object, sha, &out.checks, &out.complete)) {
    return GitHubError{GitHubErrorKind::kPermanent,
                       200,
                       {},
                       "POST /graphql (CommitChecks): the answer is for commit " +
                           Str(object, "oid") + ", not " + sha};
  }
  return out;
}

}  // namespace gatehouse
