// POST /graphql on the simulator: errors as GitHub shapes them, answers that tell the REST
// story, cost from its own window, cursors, NOT_FOUND, exhaustion and aimed faults.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <map>
#include <memory>
#include <string>

#include "sim/graphql_cursor.h"
#include "sim/handler_test_util.h"
#include "sim/model.h"
#include "sim/rest.h"

namespace gatehouse::sim {
namespace {

namespace json = boost::json;

constexpr int64_t kGraphqlStart = 1'800'000'000;

using sim_testing::HeaderOf;

class SimGraphqlTest : public ::testing::Test {
 protected:
  SimGraphqlTest()
      : clock_(std::make_shared<SimClock>(FromMicros(kGraphqlStart * 1'000'000))),
        model_(clock_, {}),
        handler_(model_, {.clock = clock_, .insecure_any_token = true, .rate_limit = 50}) {
    EXPECT_EQ(
        Call("POST", "/_sim/repos", R"({"owner":"acme","name":"app","installation_id":7})").status,
        201);
    EXPECT_EQ(Call("POST", "/_sim/repos/acme/app/pulls", R"({"author":"alice"})").status, 201);
  }

  HttpResponse Call(const std::string& method, const std::string& target,
                    const std::string& body = "") {
    return sim_testing::CallSim(handler_, method, target, body);
  }
  HttpResponse Query(const std::string& query, json::object variables = {}) {
    return Call("POST", "/graphql",
                json::serialize(json::object{{"query", query}, {"variables", variables}}));
  }
  static json::object Body(const HttpResponse& r) { return json::parse(r.body).as_object(); }
  std::string Head() const { return model_.GetPull("acme/app", 1)->head_sha; }

  std::shared_ptr<SimClock> clock_;
  Model model_;
  SimHandler handler_;
};

TEST_F(SimGraphqlTest, BadDocumentsAreErrorsOnlyAndCostNothing) {
  EXPECT_EQ(Call("POST", "/graphql", "{not json").status, 400);
  HttpResponse missing = Call("POST", "/graphql", R"({"variables":{}})");
  EXPECT_EQ(missing.status, 200);
  EXPECT_FALSE(Body(missing).contains("data"));

  HttpResponse parse = Query("query {\n  repository(owner: \"acme\", name: \"app\") {\n  }\n}");
  ASSERT_EQ(parse.status, 200);
  const std::string message(Body(parse).at("errors").as_array()[0].at("message").as_string());
  EXPECT_NE(message.find("Parse error on \"}\""), std::string::npos) << message;
  EXPECT_NE(message.find("[3, 3]"), std::string::npos) << message;

  HttpResponse unknown = Query(R"({ repository(owner: "acme", name: "app") { stars } })");
  ASSERT_EQ(unknown.status, 200);
  json::object unknown_body = Body(unknown);
  EXPECT_FALSE(unknown_body.contains("data"));
  EXPECT_NE(json::serialize(unknown_body).find("stars"), std::string::npos);
  // As GitHub's: a validation error names the rule the document broke, and has no `type`.
  const json::value& unknown_error = unknown_body.at("errors").as_array()[0];
  EXPECT_EQ(unknown_error.at("extensions").at("code"), "undefinedField");
  EXPECT_FALSE(unknown_error.as_object().contains("type"));

  HttpResponse unbounded = Query(
      R"({ repository(owner: "acme", name: "app") { pullRequest(number: 1) { labels { nodes { name } } } } })");
  EXPECT_NE(json::serialize(Body(unbounded)).find("first"), std::string::npos) << unbounded.body;
  EXPECT_EQ(Body(unbounded).at("errors").as_array()[0].at("type"), "MISSING_PAGINATION_BOUNDARIES");
  HttpResponse mutation = Query(R"(mutation { addStar(input: {}) { clientMutationId } })");
  EXPECT_FALSE(Body(mutation).contains("data"));

  // None of them spent the window: the first valid query finds it full.
  HttpResponse ok = Query("{ rateLimit { remaining } }");
  EXPECT_EQ(HeaderOf(ok, "X-RateLimit-Remaining"), "49");
}

TEST_F(SimGraphqlTest, APullRequestReadsAsRestTellsIt) {
  const std::string head = Head();
  ASSERT_EQ(Call("POST", "/_sim/repos/acme/app/pulls/1/labels",
                 R"({"user":"alice","labels":["wip","ready"]})")
                .status,
            200);
  ASSERT_EQ(Call("POST", "/_sim/repos/acme/app/pulls/1/reviews",
                 R"({"user":"bob","event":"APPROVE","body":"lgtm"})")
                .status,
            200);
  ASSERT_EQ(Call("POST", "/_sim/repos/acme/app/check-runs", R"({"pr":1,"name":"build"})").status,
            201);
  ASSERT_EQ(Call("POST", "/_sim/repos/acme/app/statuses/" + head,
                 R"({"state":"pending","context":"deploy"})")
                .status,
            201);

  HttpResponse r = Query(R"(
    query Pull($number: Int!, $owner: String = "acme") {
      repo: repository(owner: $owner, name: "app") {
        pr: pullRequest(number: $number) { ...Head
          labels(first: 10) { nodes { name } }
          reviews(first: 10) { nodes { state body author { __typename login } commit { oid } } }
          commits(last: 1) { nodes { commit { statusCheckRollup { contexts(first: 10) { nodes {
            __typename
            ... on CheckRun { name conclusion }
            ... on StatusContext { context state }
          } } } } } }
        }
      }
    }
    fragment Head on PullRequest { number state isDraft headRefOid author { login } })",
                         json::object{{"number", 1}});
  ASSERT_EQ(r.status, 200) << r.body;
  json::object body = Body(r);
  ASSERT_FALSE(body.contains("errors")) << r.body;
  const json::object& pr = body.at("data").at("repo").at("pr").as_object();
  EXPECT_EQ(pr.at("number"), 1);
  EXPECT_EQ(pr.at("state"), "OPEN");
  EXPECT_EQ(pr.at("isDraft"), false);
  EXPECT_EQ(pr.at("headRefOid"), json::string(head));
  EXPECT_EQ(pr.at("author").at("login"), "alice");
  EXPECT_EQ(json::serialize(pr.at("labels").at("nodes")), R"([{"name":"wip"},{"name":"ready"}])");
  const json::array& reviews = pr.at("reviews").at("nodes").as_array();
  ASSERT_EQ(reviews.size(), 1u);
  EXPECT_EQ(reviews[0].at("state"), "APPROVED");
  EXPECT_EQ(reviews[0].at("author").at("login"), "bob");
  EXPECT_EQ(reviews[0].at("commit").at("oid"), json::string(head));
  const json::array& contexts = pr.at("commits")
                                    .at("nodes")
                                    .as_array()[0]
                                    .at("commit")
                                    .at("statusCheckRollup")
                                    .at("contexts")
                                    .at("nodes")
                                    .as_array();
  EXPECT_EQ(json::serialize(contexts),
            R"([{"__typename":"CheckRun","name":"build","conclusion":"SUCCESS"},)"
            R"({"__typename":"StatusContext","context":"deploy","state":"PENDING"}])");
}

TEST_F(SimGraphqlTest, CostComesFromItsOwnWindowByGitHubsFormula) {
  ASSERT_EQ(HeaderOf(Call("GET", "/repos/acme/app/pulls/1"), "X-RateLimit-Remaining"), "49");
  HttpResponse one = Query(R"({ repository(owner: "acme", name: "app") {
      pullRequest(number: 1) { labels(first: 100) { nodes { name } } } } })");
  EXPECT_EQ(HeaderOf(one, "X-RateLimit-Resource"), "graphql");
  EXPECT_EQ(HeaderOf(one, "X-RateLimit-Remaining"), "49") << "GraphQL's window is its own";
  // 1 + 100 + 100 requests: two points.
  HttpResponse two = Query(R"({ repository(owner: "acme", name: "app") {
      pullRequest(number: 1) { commits(first: 100) { nodes { commit { statusCheckRollup {
        a: contexts(first: 100) { nodes { __typename } }
        b: contexts(first: 100) { nodes { __typename } } } } } } } }
      rateLimit { cost remaining } })");
  ASSERT_EQ(two.status, 200) << two.body;
  ASSERT_FALSE(Body(two).contains("errors")) << two.body;
  EXPECT_EQ(HeaderOf(two, "X-RateLimit-Remaining"), "47");
  EXPECT_EQ(Body(two).at("data").at("rateLimit").at("cost"), 2);
  EXPECT_EQ(Body(two).at("data").at("rateLimit").at("remaining"), 47);
  EXPECT_EQ(HeaderOf(Call("GET", "/repos/acme/app/pulls/1"), "X-RateLimit-Remaining"), "48");
}

TEST_F(SimGraphqlTest, CursorsPageThroughAConnection) {
  ASSERT_EQ(Call("POST", "/_sim/repos/acme/app/pulls/1/labels",
                 R"({"user":"alice","labels":["a","b","c"]})")
                .status,
            200);
  const std::string query = R"(query($after: String) { repository(owner: "acme", name: "app") {
      pullRequest(number: 1) { labels(first: 2, after: $after) {
        totalCount pageInfo { hasNextPage endCursor } nodes { name } } } } })";
  json::object first = Body(Query(query));
  const json::object& page1 =
      first.at("data").at("repository").at("pullRequest").at("labels").as_object();
  EXPECT_EQ(page1.at("totalCount"), 3);
  EXPECT_EQ(json::serialize(page1.at("nodes")), R"([{"name":"a"},{"name":"b"}])");
  ASSERT_EQ(page1.at("pageInfo").at("hasNextPage"), true);
  json::object second = Body(Query(query, {{"after", page1.at("pageInfo").at("endCursor")}}));
  const json::object& page2 =
      second.at("data").at("repository").at("pullRequest").at("labels").as_object();
  EXPECT_EQ(json::serialize(page2.at("nodes")), R"([{"name":"c"}])");
  EXPECT_EQ(page2.at("pageInfo").at("hasNextPage"), false);
}

TEST_F(SimGraphqlTest, ARepositorysPullRequestsPageByStateOldestFirst) {
  for (int i = 0; i < 2; ++i) {
    ASSERT_EQ(Call("POST", "/_sim/repos/acme/app/pulls", R"({"author":"alice"})").status, 201);
  }
  ASSERT_EQ(Call("PATCH", "/repos/acme/app/pulls/2", R"({"state":"closed"})").status, 200);
  const std::string query = R"(query($after: String) { repository(owner: "acme", name: "app") {
      pullRequests(states: [OPEN], first: 1, after: $after) {
        totalCount pageInfo { hasNextPage endCursor } nodes { number headRefOid state } } } })";
  json::object first = Body(Query(query));
  const json::object& page1 = first.at("data").at("repository").at("pullRequests").as_object();
  EXPECT_EQ(page1.at("totalCount"), 2);
  EXPECT_EQ(page1.at("nodes").as_array()[0].at("number"), 1);
  EXPECT_EQ(page1.at("nodes").as_array()[0].at("headRefOid").as_string(), Head());
  ASSERT_EQ(page1.at("pageInfo").at("hasNextPage"), true);
  json::object second = Body(Query(query, {{"after", page1.at("pageInfo").at("endCursor")}}));
  const json::object& page2 = second.at("data").at("repository").at("pullRequests").as_object();
  EXPECT_EQ(json::serialize(page2.at("nodes").as_array()[0].at("number")), "3");
  EXPECT_EQ(page2.at("pageInfo").at("hasNextPage"), false);

  // One enum literal stands for a list of one; CLOSED finds the closed one.
  json::object closed = Body(Query(R"({ repository(owner: "acme", name: "app") {
      pullRequests(states: CLOSED, first: 10) { nodes { number state } } } })"));
  EXPECT_EQ(json::serialize(closed.at("data").at("repository").at("pullRequests").at("nodes")),
            R"([{"number":2,"state":"CLOSED"}])");
  // A state that is not one fails the field, as GitHub refuses the document.
  json::object typo = Body(Query(R"({ repository(owner: "acme", name: "app") {
      pullRequests(states: [OPNE], first: 10) { totalCount } } })"));
  EXPECT_TRUE(typo.contains("errors")) << json::serialize(typo);
  EXPECT_TRUE(typo.at("data").at("repository").at("pullRequests").is_null());
  // Like every connection it needs first or last.
  HttpResponse unbounded = Query(
      R"({ repository(owner: "acme", name: "app") { pullRequests(states: OPEN) { totalCount } } })");
  EXPECT_FALSE(Body(unbounded).contains("data")) << unbounded.body;
}

TEST_F(SimGraphqlTest, AFileOfTheDefaultBranchIsABlobWhoseOidFollowsItsContent) {
  const std::string query = R"({ repository(owner: "acme", name: "app") {
      policy: object(expression: "HEAD:.github/gatehouse.yml") { oid ... on Blob { byteSize } }
      missing: object(expression: "HEAD:nothing.txt") { oid } } })";
  json::object none = Body(Query(query));
  EXPECT_TRUE(none.at("data").at("repository").at("policy").is_null()) << json::serialize(none);
  ASSERT_TRUE(model_.PutDefaultBranchFile("acme/app", ".github/gatehouse.yml", "a: 1\n").ok());
  json::object first = Body(Query(query));
  const json::value& blob = first.at("data").at("repository").at("policy");
  ASSERT_TRUE(blob.is_object()) << json::serialize(first);
  EXPECT_EQ(blob.at("byteSize"), 5);
  EXPECT_EQ(blob.at("oid").as_string().size(), 40u);
  EXPECT_TRUE(first.at("data").at("repository").at("missing").is_null());
  ASSERT_TRUE(model_.PutDefaultBranchFile("acme/app", ".github/gatehouse.yml", "a: 2\n").ok());
  json::object second = Body(Query(query));
  EXPECT_NE(second.at("data").at("repository").at("policy").at("oid"), blob.at("oid"));
}

TEST(SimGraphqlCursorTest, PagesSelectWhatFirstLastAfterAndBeforeSayAndForeignCursorsAreNamed) {
  using graphql::Cursor;
  using graphql::PageOf;
  using Args = std::map<std::string, json::value>;
  auto bounds = [](const graphql::PageBounds& b) {
    return std::to_string(b.begin) + ".." + std::to_string(b.end) + b.bad_cursor;
  };
  EXPECT_EQ(bounds(PageOf(5, Args{})), "0..5");
  EXPECT_EQ(bounds(PageOf(5, Args{{"first", 2}})), "0..2");
  EXPECT_EQ(bounds(PageOf(5, Args{{"last", 2}})), "3..5");
  EXPECT_EQ(bounds(PageOf(5, Args{{"after", Cursor(1)}, {"first", 2}})), "2..4");
  EXPECT_EQ(bounds(PageOf(5, Args{{"before", Cursor(3)}, {"last", 1}})), "2..3");
  EXPECT_EQ(bounds(PageOf(5, Args{{"after", Cursor(9)}})), "5..5");
  EXPECT_EQ(bounds(PageOf(5, Args{{"after", Cursor(3)}, {"before", Cursor(1)}})), "1..1");
  EXPECT_EQ(PageOf(5, Args{{"before", "Y3Vyc29yOnYyOng="}}).bad_cursor, "before");
  EXPECT_EQ(PageOf(5, Args{{"after", "not base64!"}}).bad_cursor, "after");
  EXPECT_EQ(PageOf(5, Args{{"after", nullptr}, {"first", 1}}).bad_cursor, "");
}

TEST_F(SimGraphqlTest, AMissingPullRequestIsNullWithNotFound) {
  HttpResponse r =
      Query(R"({ repository(owner: "acme", name: "app") { pullRequest(number: 9) { title } } })");
  ASSERT_EQ(r.status, 200);
  json::object body = Body(r);
  EXPECT_TRUE(body.at("data").at("repository").at("pullRequest").is_null());
  EXPECT_EQ(body.at("errors").as_array()[0].at("type"), "NOT_FOUND");
  HttpResponse repo = Query(R"({ repository(owner: "acme", name: "nope") { name } })");
  EXPECT_TRUE(Body(repo).at("data").at("repository").is_null());
}

TEST_F(SimGraphqlTest, AnExhaustedWindowAnswersRateLimited) {
  ASSERT_EQ(Call("PUT", "/_sim/faults", R"({"primary_exhausted": true})").status, 200);
  HttpResponse r = Query("{ rateLimit { remaining } }");
  ASSERT_EQ(r.status, 200);
  json::object body = Body(r);
  EXPECT_FALSE(body.contains("data"));
  EXPECT_EQ(body.at("errors").as_array()[0].at("type"), "RATE_LIMITED");
  EXPECT_EQ(HeaderOf(r, "X-RateLimit-Remaining"), "0");
}

TEST_F(SimGraphqlTest, AimedRulesOnAPullsRestReadFailItsGraphqlRead) {
  ASSERT_EQ(Call("POST", "/_sim/repos/acme/app/pulls", "{}").status, 201);
  ASSERT_EQ(Call("PUT", "/_sim/faults", R"({"aimed": [
      {"method": "GET", "path": "/repos/acme/app/pulls/2", "fault": "server_error",
       "status": 500, "count": 2}]})")
                .status,
            200);
  const std::string read = R"(query($n: Int!) { repository(owner: "acme", name: "app") {
      pullRequest(number: $n) { title } } })";
  EXPECT_EQ(Query(read, {{"n", 1}}).status, 200);
  EXPECT_EQ(Query(read, {{"n", 2}}).status, 500);
  EXPECT_EQ(Call("GET", "/repos/acme/app/pulls/2").status, 500);
  EXPECT_EQ(Query(read, {{"n", 2}}).status, 200) << "the rule's count is spent";
}

}  // namespace
}  // namespace gatehouse::sim
