#include "github/graphql_pull_state.h"

#include <cstdint>
#include <utility>

#include "github/graphql_commit_checks.h"
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

namespace {

// Page sizes are GitHub's maximum (100); the cost stays 1 point (at most 6 connection requests /
// 100, rounded, at least 1). `@comments@` is where PullStateParts::comments goes.
constexpr std::string_view kPullStateTemplate =
    R"(query PullState($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      number title body state isDraft merged mergeable mergeStateStatus
      headRefOid headRefName baseRefOid baseRefName
      author { __typename login }
      authorAssociation changedFiles additions deletions updatedAt closedAt mergedAt
      labels(first: 100) { pageInfo { hasNextPage } nodes { name } }
      reviews(first: 100) {
        pageInfo { hasNextPage }
        nodes { fullDatabaseId state body author { __typename login } commit { oid } }
      }@comments@@files@
      commits(last: 1) { nodes { commit { @commit@ } } }
    }
  }
})";

// The PR's latest conversation comments; one that is not among them (hasPreviousPage) is read
// over REST.
constexpr std::string_view kCommentsPart = R"(
      comments(last: 100) {
        pageInfo { hasPreviousPage }
        nodes { fullDatabaseId body author { __typename login } createdAt updatedAt }
      })";

// The paths the PR changes; more than a page is read over REST, which pages.
constexpr std::string_view kFilesPart = R"(
      files(first: 100) { pageInfo { hasNextPage } nodes { path } })";

void Fill(std::string* doc, std::string_view mark, std::string_view part) {
  doc->replace(doc->find(mark), mark.size(), part);
}

std::string PullStateDocument(PullStateParts parts) {
  std::string doc(kPullStateTemplate);
  Fill(&doc, "@comments@", parts.comments ? kCommentsPart : "");
  Fill(&doc, "@files@", parts.files ? kFilesPart : "");
  Fill(&doc, "@commit@", kCommitChecksFields);
  return doc;
}

}  // namespace

const std::string& PullStateQuery(PullStateParts parts) {
  static const std::string documents[4] = {PullStateDocument({.comments = false, .files = false}),
                                           PullStateDocument({.comments = true, .files = false}),
                                           PullStateDocument({.comments = false, .files = true}),
                                           PullStateDocument({.comments = true, .files = true})};
  return documents[(parts.comments ? 1 : 0) + (parts.files ? 2 : 0)];
}

namespace {

// REST's login for a GraphQL actor: a Bot's login carries "[bot]" there; a deleted user (null
// author) is GitHub's "ghost".
std::string RestLogin(const json::value& actor, std::string* type = nullptr) {
  if (actor.is_null()) {
    if (type != nullptr) *type = "User";
    return "ghost";
  }
  std::string login = Str(actor, "login");
  const std::string kind = Str(actor, "__typename");
  if (type != nullptr) *type = kind.empty() ? "User" : kind;
  if (kind == "Bot" && !login.ends_with("[bot]")) login += "[bot]";
  return login;
}

int64_t BigInt(const json::value& v, std::string_view key) {
  const json::value& field = Sub(v, key);
  if (const auto* s = field.if_string()) {
    int64_t n = 0;
    for (char c : *s) {
      if (c < '0' || c > '9' || n > (INT64_MAX - 9) / 10) return 0;
      n = n * 10 + (c - '0');
    }
    return n;
  }
  return Int(v, key);
}

PullRequest ParseGraphqlPull(const json::value& v) {
  PullRequest pr;
  pr.number = Int(v, "number");
  const std::string state = Str(v, "state");
  pr.state = state == "OPEN" ? "open" : "closed";  // CLOSED and MERGED
  pr.title = Str(v, "title");
  pr.body = Str(v, "body");
  pr.draft = json_read::OptBool(v, "isDraft").value_or(false);
  pr.merged = json_read::OptBool(v, "merged").value_or(state == "MERGED");
  const std::string mergeable = Str(v, "mergeable");
  if (mergeable == "MERGEABLE") pr.mergeable = true;
  if (mergeable == "CONFLICTING") pr.mergeable = false;
  pr.mergeable_state = Lower(Str(v, "mergeStateStatus"));
  pr.head_sha = Str(v, "headRefOid");
  pr.head_ref = Str(v, "headRefName");
  pr.base_sha = Str(v, "baseRefOid");
  pr.base_ref = Str(v, "baseRefName");
  pr.author = RestLogin(Sub(v, "author"), &pr.author_type);
  pr.author_association = Str(v, "authorAssociation");
  pr.changed_files = static_cast<int>(Int(v, "changedFiles"));
  pr.additions = static_cast<int>(Int(v, "additions"));
  pr.deletions = static_cast<int>(Int(v, "deletions"));
  pr.updated_at = Str(v, "updatedAt");
  pr.closed_at = Str(v, "closedAt");
  pr.merged_at = Str(v, "mergedAt");
  if (const auto* labels = Nodes(Sub(v, "labels"))) {
    for (const auto& l : *labels) pr.labels.push_back(Str(l, "name"));
  }
  return pr;
}

void ParseReviews(const json::value& connection, std::vector<Review>* out) {
  const auto* nodes = Nodes(connection);
  if (nodes == nullptr) return;
  for (const auto& n : *nodes) {
    Review r;
    r.id = BigInt(n, "fullDatabaseId");
    r.user = RestLogin(Sub(n, "author"));
    r.state = Str(n, "state");
    r.commit_id = Str(Sub(n, "commit"), "oid");
    r.body = Str(n, "body");
    out->push_back(std::move(r));
  }
}

// The comments of a `comments` connection, unless it did not hold them all.
std::optional<std::vector<IssueComment>> ParseComments(const json::value& connection) {
  const auto* nodes = Nodes(connection);
  const auto* earlier = Sub(Sub(connection, "pageInfo"), "hasPreviousPage").if_bool();
  if (nodes == nullptr || earlier == nullptr || *earlier) return std::nullopt;
  std::vector<IssueComment> out;
  out.reserve(nodes->size());
  for (const auto& n : *nodes) {
    out.push_back(IssueComment{BigInt(n, "fullDatabaseId"), RestLogin(Sub(n, "author")),
                               Str(n, "body"), Str(n, "createdAt"), Str(n, "updatedAt")});
  }
  return out;
}

// The paths of a `files` connection, unless it did not hold them all.
std::optional<std::vector<std::string>> ParseFiles(const json::value& connection) {
  const auto* nodes = Nodes(connection);
  if (nodes == nullptr || HasNextPage(connection)) return std::nullopt;
  std::vector<std::string> out;
  out.reserve(nodes->size());
  for (const auto& n : *nodes) out.push_back(Str(n, "path"));
  return out;
}


}  // namespace

json::object PullStateRequest(const RepoRef& repo, int64_t number, PullStateParts parts) {
  return json::object{
      {"query", PullStateQuery(parts)},
      {"operationName", "PullState"},
      {"variables", json::object{{"owner", repo.owner}, {"name", repo.name}, {"number", number}}}};
}

GitHubResult<PullStateAnswer> ParsePullStateAnswer(const json::value& body, Time reset) {
  if (auto error = GraphqlAnswerError(body, "PullState", reset)) return *error;
  const json::value& pull = Sub(Sub(Sub(body, "data"), "repository"), "pullRequest");
  if (!pull.is_object()) {
    return GitHubError{GitHubErrorKind::kPermanent,
                       200,
                       {},
                       "POST /graphql (PullState): the answer holds no pullRequest"};
  }
  PullStateAnswer out;
  out.state.pr = ParseGraphqlPull(pull);
  out.labels_truncated = HasNextPage(Sub(pull, "labels"));
  out.reviews_truncated = HasNextPage(Sub(pull, "reviews"));
  ParseReviews(Sub(pull, "reviews"), &out.state.reviews);
  if (pull.as_object().contains("comments")) {
    out.state.comments = ParseComments(Sub(pull, "comments"));
  }
  if (pull.as_object().contains("files")) out.state.files = ParseFiles(Sub(pull, "files"));
  const json::array* commits = Nodes(Sub(pull, "commits"));
  CommitChecks head;
  bool complete = false;
  const bool head_read =
      commits != nullptr && !commits->empty() &&
      ParseCommitChecks(Sub(commits->back(), "commit"), out.state.pr.head_sha, &head, &complete);
  if (!head_read || !complete) out.checks_incomplete = true;
  if (head_read) {
    out.state.check_runs = std::move(head.check_runs);
    out.state.status = std::move(head.status);
  }
  return out;
}

}  // namespace gatehouse
