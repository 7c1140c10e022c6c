// ParseOpenPullsAnswer on answers as GitHub shapes them: the rows and checks of one page, its
// cursor, a head the answer did not hold, and which errors turn the query off (a document
// GitHub refuses) and which only skip a repository (one execution's failure).
#include "github/graphql_open_pulls.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

namespace gatehouse {
namespace {

namespace json = boost::json;

GitHubResult<OpenPullsPage> Parse(const std::string& body) {
  return ParseOpenPullsAnswer(json::parse(body), Time{});
}

TEST(GraphqlOpenPullsTest, APageCarriesRowsChecksTheWatchedOidAndTheNextCursor) {
  auto page = Parse(R"({"data":{"repository":{"watched":{"oid":"abc"},"pullRequests":{
      "pageInfo":{"hasNextPage":true,"endCursor":"Y3Vy"},
      "nodes":[{"number":7,"headRefOid":"h7","baseRefOid":"b","updatedAt":"2026-12-07T10:00:00Z",
                "mergeable":"MERGEABLE","mergeStateStatus":"BEHIND",
                "commits":{"nodes":[{"commit":{"oid":"h7",
                  "status":{"contexts":[{"context":"ci","state":"SUCCESS",
                                          "createdAt":"2026-12-07T09:00:00Z"}]},
                  "statusCheckRollup":{"contexts":{"pageInfo":{"hasNextPage":false},"nodes":[
                    {"__typename":"CheckRun","databaseId":5,"name":"build","status":"COMPLETED",
                     "conclusion":"SUCCESS","startedAt":"s","completedAt":"c"},
                    {"__typename":"StatusContext"}]}}}}]}},
               {"number":8,"headRefOid":"h8","updatedAt":"u","mergeable":"UNKNOWN",
                "commits":{"nodes":[{"commit":{"oid":"old"}}]}}]}}}})");
  ASSERT_TRUE(page.ok()) << page.error().ToString();
  EXPECT_EQ(page->watched_oid, "abc");
  ASSERT_TRUE(page->next.has_value());
  EXPECT_EQ(*page->next, "Y3Vy");
  ASSERT_EQ(page->pulls.size(), 2u);
  const OpenPullChecks& p = page->pulls[0];
  EXPECT_EQ(p.pr.number, 7);
  EXPECT_EQ(p.pr.head_sha, "h7");
  EXPECT_EQ(p.pr.updated_at, "2026-12-07T10:00:00Z");
  EXPECT_EQ(p.pr.mergeable, std::optional<bool>(true));
  EXPECT_EQ(p.pr.mergeable_state, "behind");
  EXPECT_TRUE(p.checks_complete);
  ASSERT_EQ(p.check_runs.size(), 1u);  // the status context is read from `status`
  EXPECT_EQ(p.check_runs[0].id, 5);
  EXPECT_EQ(p.check_runs[0].status, "completed");
  EXPECT_EQ(p.check_runs[0].conclusion, "success");
  EXPECT_EQ(p.check_runs[0].completed_at, "c");
  ASSERT_EQ(p.statuses.size(), 1u);
  EXPECT_EQ(p.statuses[0].state, "success");
  EXPECT_EQ(p.statuses[0].created_at, "2026-12-07T09:00:00Z");
  // #8's head moved between the answer's parts: its checks are not to be compared.
  EXPECT_FALSE(page->pulls[1].checks_complete);
  EXPECT_FALSE(page->pulls[1].pr.mergeable.has_value());
}

TEST(GraphqlOpenPullsTest, OnlyADocumentGitHubRefusesIsPermanent) {
  auto refused = Parse(R"({"errors":[{"message":"Field 'x' doesn't exist on type 'Query'",
      "extensions":{"code":"undefinedField"}}]})");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, GitHubErrorKind::kPermanent);
  auto timeout = Parse(
      R"({"data":null,"errors":[{"message":"Something went wrong while executing your query."}]})");
  ASSERT_FALSE(timeout.ok());
  EXPECT_EQ(timeout.error().kind, GitHubErrorKind::kTransient);
  auto forbidden = Parse(R"({"errors":[{"type":"FORBIDDEN","message":"IP allow list"}]})");
  ASSERT_FALSE(forbidden.ok());
  EXPECT_EQ(forbidden.error().kind, GitHubErrorKind::kTransient);
  auto gone = Parse(R"({"errors":[{"type":"NOT_FOUND","message":"no repository"}]})");
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().kind, GitHubErrorKind::kNotFound);
  auto limited = Parse(R"({"errors":[{"type":"RATE_LIMITED","message":"spent"}]})");
  ASSERT_FALSE(limited.ok());
  EXPECT_EQ(limited.error().kind, GitHubErrorKind::kRateLimited);
  auto empty = Parse(R"({"data":{"repository":null}})");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().kind, GitHubErrorKind::kPermanent);
}

}  // namespace
}  // namespace gatehouse
