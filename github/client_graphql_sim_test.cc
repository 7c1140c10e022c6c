// GitHubClient::ReadPullState against the real simulator: the GraphQL read (one POST, one
// point from the graphql window) says what the REST reads say; a list longer than a page is
// topped up over REST; an endpoint that is not there is a fallback to REST, taken once; a
// secondary limit on the query is a wait, not a fallback.
#include <gtest/gtest.h>

#include <memory>

#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "github/client.h"
#include "github/client_sim_test_util.h"
#include "github/github.h"
#include "github/transport.h"
#include "sim/in_process_github_test_util.h"
#include "sim/model.h"
#include "sim/rest.h"

namespace gatehouse {
namespace {

using client_testing::kFullName;
using client_testing::kInstallation;
using client_testing::kRepo;
using client_testing::kStart;

// Counts the GraphQL queries and the REST reads that cross the wire.
class CountingTransport final : public HttpTransport {
 public:
  explicit CountingTransport(HttpTransport& inner) : inner_(inner) {}
  Result<HttpReply> Send(const HttpCall& call) override {
    {
      MutexLock lock(&mu_);
      if (call.method == "POST" && call.target.ends_with("graphql")) ++posts_;
      if (call.method == "GET") ++gets_;
    }
    return inner_.Send(call);
  }
  int64_t graphql_posts() const {
    MutexLock lock(&mu_);
    return posts_;
  }
  int64_t gets() const {
    MutexLock lock(&mu_);
    return gets_;
  }

 private:
  HttpTransport& inner_;
  mutable Mutex mu_;
  int64_t posts_ GUARDED_BY(mu_) = 0;
  int64_t gets_ GUARDED_BY(mu_) = 0;
};

class ClientGraphqlSimTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(github_.Start(nullptr, [this](HttpTransport& curl) {
      auto counting = std::make_unique<CountingTransport>(curl);
      counting_ = counting.get();
      return std::unique_ptr<HttpTransport>(std::move(counting));
    }));
    model_ = &github_.model();
    ASSERT_TRUE(model_->CreateRepo("acme", "app", kInstallation, {}).ok());
    sim::NewPull spec;
    spec.title = "one";
    spec.author = "alice";
    auto pr = model_->CreatePull(kFullName, spec);
    ASSERT_TRUE(pr.ok());
    head_ = pr->head_sha;
  }

  // A second client on the same wire and tokens, with its own options.
  std::unique_ptr<GitHubClient> Client(GitHubClientOptions options) {
    return std::make_unique<GitHubClient>(github_.client_transport(), github_.tokens(), clock_,
                                          options);
  }

  void Populate() {
    ASSERT_TRUE(model_->AddLabels("alice", kFullName, 1, {"wip", "needs-review"}).ok());
    sim::Review review;
    ASSERT_TRUE(model_->SubmitReview("bob", kFullName, 1, "APPROVE", "", "lgtm", &review).ok());
    ASSERT_TRUE(model_->SubmitReview(who_, kFullName, 1, "COMMENT", "", "noted", &review).ok());
    sim::CheckRun run;
    run.name = "build";
    run.head_sha = head_;
    run.status = "completed";
    run.conclusion = "failure";
    run.external_id = "x-1";
    sim::CheckRun stored;
    ASSERT_TRUE(model_->UpsertCheckRun("ci", kFullName, run, &stored).ok());
    run = {};
    run.name = "gatehouse";
    run.head_sha = head_;
    ASSERT_TRUE(model_->UpsertCheckRun(who_, kFullName, run, &stored).ok());
    for (const auto& [context, state] : std::vector<std::pair<std::string, std::string>>{
             {"deploy", "pending"}, {"lint", "failure"}, {"deploy", "success"}}) {
      sim::CommitStatus status;
      status.sha = head_;
      status.context = context;
      status.state = state;
      sim::CommitStatus out;
      ASSERT_TRUE(model_->SetStatus("ci", kFullName, status, &out).ok());
    }
  }

  static void ExpectSame(const PullState& got, const PullState& want) {
    const PullRequest& a = got.pr;
    const PullRequest& b = want.pr;
    EXPECT_EQ(a.number, b.number);
    EXPECT_EQ(a.state, b.state);
    EXPECT_EQ(a.title, b.title);
    EXPECT_EQ(a.body, b.body);
    EXPECT_EQ(a.draft, b.draft);
    EXPECT_EQ(a.merged, b.merged);
    EXPECT_EQ(a.mergeable, b.mergeable);
    EXPECT_EQ(a.mergeable_state, b.mergeable_state);
    EXPECT_EQ(a.head_sha, b.head_sha);
    EXPECT_EQ(a.head_ref, b.head_ref);
    EXPECT_EQ(a.base_ref, b.base_ref);
    EXPECT_EQ(a.author, b.author);
    EXPECT_EQ(a.author_association, b.author_association);
    EXPECT_EQ(a.author_type, b.author_type);
    EXPECT_EQ(a.labels, b.labels);
    EXPECT_EQ(a.changed_files, b.changed_files);
    EXPECT_EQ(a.additions, b.additions);
    EXPECT_EQ(a.deletions, b.deletions);
    ASSERT_EQ(got.reviews.size(), want.reviews.size());
    for (size_t i = 0; i < got.reviews.size(); ++i) {
      EXPECT_EQ(got.reviews[i].id, want.reviews[i].id) << i;
      EXPECT_EQ(got.reviews[i].user, want.reviews[i].user) << i;
      EXPECT_EQ(got.reviews[i].state, want.reviews[i].state) << i;
      EXPECT_EQ(got.reviews[i].commit_id, want.reviews[i].commit_id) << i;
      EXPECT_EQ(got.reviews[i].body, want.reviews[i].body) << i;
    }
    ExpectSameChecks({got.check_runs, got.status}, {want.check_runs, want.status});
  }

  static void ExpectSameChecks(const CommitChecks& got, const CommitChecks& want) {
    ASSERT_EQ(got.check_runs.size(), want.check_runs.size());
    for (size_t i = 0; i < got.check_runs.size(); ++i) {
      EXPECT_EQ(got.check_runs[i].id, want.check_runs[i].id) << i;
      EXPECT_EQ(got.check_runs[i].name, want.check_runs[i].name) << i;
      EXPECT_EQ(got.check_runs[i].status, want.check_runs[i].status) << i;
      EXPECT_EQ(got.check_runs[i].conclusion, want.check_runs[i].conclusion) << i;
      EXPECT_EQ(got.check_runs[i].head_sha, want.check_runs[i].head_sha) << i;
      EXPECT_EQ(got.check_runs[i].app, want.check_runs[i].app) << i;
      EXPECT_EQ(got.check_runs[i].external_id, want.check_runs[i].external_id) << i;
    }
    EXPECT_EQ(got.status.state, want.status.state);
    ASSERT_EQ(got.status.statuses.size(), want.status.statuses.size());
    for (size_t i = 0; i < got.status.statuses.size(); ++i) {
      EXPECT_EQ(got.status.statuses[i].context, want.status.statuses[i].context) << i;
      EXPECT_EQ(got.status.statuses[i].state, want.status.statuses[i].state) << i;
    }
  }

  // Arms gatehouse-sim's aimed graphql_timeout for the next `count` queries.
  void TimeOutQueries(int count) {
    HttpRequest put;
    put.method = "PUT";
    put.target = "/_sim/faults";
    put.body = R"({"aimed": [{"path": "/graphql", "fault": "graphql_timeout", "count": )" +
               std::to_string(count) + "}]}";
    ASSERT_EQ(github_.handler().Serve(put).status, 200);
  }

  std::shared_ptr<SimClock> clock_ = std::make_shared<SimClock>(kStart);
  sim_testing::InProcessGitHub github_{clock_};
  sim::Model* model_ = nullptr;
  CountingTransport* counting_ = nullptr;
  std::string head_;
  const CallContext ctx_{kInstallation, false};
  const std::string who_ = "installation:" + std::to_string(kInstallation);
};

TEST_F(ClientGraphqlSimTest, OneQueryReadsWhatTheRestReadsRead) {
  ASSERT_NO_FATAL_FAILURE(Populate());
  auto rest = Client({.graphql_reads = false})->ReadPullState(ctx_, kRepo, 1);
  ASSERT_TRUE(rest.ok()) << rest.error().ToString();
  ASSERT_EQ(rest->reviews.size(), 2u);
  ASSERT_EQ(rest->check_runs.size(), 2u);
  ASSERT_EQ(rest->status.statuses.size(), 2u);
  EXPECT_EQ(counting_->graphql_posts(), 0);
  const int64_t rest_calls = counting_->gets();
  EXPECT_GE(rest_calls, 4);

  auto& client = github_.client();
  auto graphql = client.ReadPullState(ctx_, kRepo, 1);
  ASSERT_TRUE(graphql.ok()) << graphql.error().ToString();
  ExpectSame(*graphql, *rest);
  EXPECT_EQ(counting_->graphql_posts(), 1);
  EXPECT_EQ(counting_->gets(), rest_calls) << "no REST call beside the query";
  auto window = client.GraphqlRateLimitFor(kInstallation);
  ASSERT_TRUE(window.remaining.has_value());
  EXPECT_EQ(*window.remaining, 4999) << "one point";
}

TEST_F(ClientGraphqlSimTest, MoreThanAPageIsToppedUpOverRest) {
  std::vector<std::string> labels;
  for (int i = 0; i < 130; ++i) labels.push_back("label-" + std::to_string(i));
  ASSERT_TRUE(model_->AddLabels("alice", kFullName, 1, labels).ok());
  for (int i = 0; i < 105; ++i) {
    sim::CommitStatus status;
    status.sha = head_;
    status.context = "ctx-" + std::to_string(i);
    status.state = "success";
    sim::CommitStatus out;
    ASSERT_TRUE(model_->SetStatus("ci", kFullName, status, &out).ok());
  }
  auto rest = Client({.graphql_reads = false})->ReadPullState(ctx_, kRepo, 1);
  ASSERT_TRUE(rest.ok()) << rest.error().ToString();
  ASSERT_EQ(rest->pr.labels.size(), 130u);
  ASSERT_EQ(rest->status.statuses.size(), 105u);
  auto graphql = github_.client().ReadPullState(ctx_, kRepo, 1);
  ASSERT_TRUE(graphql.ok()) << graphql.error().ToString();
  ExpectSame(*graphql, *rest);
}

TEST_F(ClientGraphqlSimTest, TheCommentsPartReadsWhatTheListingReadsInTheSameQuery) {
  sim::Comment out;
  ASSERT_TRUE(model_->AddComment("alice", kFullName, 1, "first", &out).ok());
  ASSERT_TRUE(
      model_->AddComment(who_, kFullName, 1, "<!-- gatehouse:summary -->\nours", &out).ok());
  ASSERT_TRUE(model_->AddComment("bob", kFullName, 1, "third", &out).ok());
  auto& client = github_.client();
  auto listed = client.ListIssueComments(ctx_, kRepo, 1);
  ASSERT_TRUE(listed.ok()) << listed.error().ToString();
  ASSERT_EQ(listed->size(), 3u);
  const int64_t gets = counting_->gets();

  auto plain = client.ReadPullState(ctx_, kRepo, 1);
  ASSERT_TRUE(plain.ok()) << plain.error().ToString();
  EXPECT_FALSE(plain->comments.has_value()) << "not asked for";

  auto with = client.ReadPullState(ctx_, kRepo, 1, PullStateParts{.comments = true});
  ASSERT_TRUE(with.ok()) << with.error().ToString();
  ASSERT_TRUE(with->comments.has_value());
  ASSERT_EQ(with->comments->size(), listed->size());
  for (size_t i = 0; i < listed->size(); ++i) {
    EXPECT_EQ((*with->comments)[i].id, (*listed)[i].id) << i;
    EXPECT_EQ((*with->comments)[i].user, (*listed)[i].user) << i;
    EXPECT_EQ((*with->comments)[i].body, (*listed)[i].body) << i;
    EXPECT_EQ((*with->comments)[i].created_at, (*listed)[i].created_at) << i;
  }
  EXPECT_TRUE((*with->comments)[1].user.ends_with("[bot]")) << (*with->comments)[1].user;
  EXPECT_EQ(counting_->graphql_posts(), 2);
  EXPECT_EQ(counting_->gets(), gets) << "no REST call beside the queries";

  // More than one page: the query cannot tell which came first, so it says nothing and the
  // caller lists them.
  for (int i = 0; i < 100; ++i) {
    ASSERT_TRUE(model_->AddComment("carol", kFullName, 1, "more " + std::to_string(i), &out).ok());
  }
  auto many = client.ReadPullState(ctx_, kRepo, 1, PullStateParts{.comments = true});
  ASSERT_TRUE(many.ok()) << many.error().ToString();
  EXPECT_FALSE(many->comments.has_value());
}

TEST_F(ClientGraphqlSimTest, TheFilesPartReadsWhatTheListingReadsUpToAPage) {
  sim::NewPull spec;
  spec.title = "paths";
  spec.author = "alice";
  spec.files = {"src/a.cc", "docs/b.md", "deploy/prod.yml"};
  auto two = model_->CreatePull(kFullName, spec);
  ASSERT_TRUE(two.ok());
  auto& client = github_.client();
  auto listed = client.ListPullRequestFiles(ctx_, kRepo, two->number);
  ASSERT_TRUE(listed.ok()) << listed.error().ToString();
  ASSERT_EQ(listed->size(), 3u);
  const int64_t gets = counting_->gets();
  auto with = client.ReadPullState(ctx_, kRepo, two->number, PullStateParts{.files = true});
  ASSERT_TRUE(with.ok()) << with.error().ToString();
  EXPECT_FALSE(with->comments.has_value()) << "not asked for";
  ASSERT_TRUE(with->files.has_value());
  EXPECT_EQ(*with->files, *listed);
  EXPECT_EQ(counting_->gets(), gets) << "no REST call beside the query";

  spec.files.clear();
  for (int i = 0; i < 101; ++i) spec.files.push_back("gen/f" + std::to_string(i) + ".txt");
  auto three = model_->CreatePull(kFullName, spec);
  ASSERT_TRUE(three.ok());
  auto many = client.ReadPullState(ctx_, kRepo, three->number, PullStateParts{.files = true});
  ASSERT_TRUE(many.ok()) << many.error().ToString();
  EXPECT_FALSE(many->files.has_value()) << "more than a page is the listing's";
}

TEST_F(ClientGraphqlSimTest, AnEndpointThatIsNotThereIsRestFromThenOn) {
  ASSERT_NO_FATAL_FAILURE(Populate());
  auto rest = Client({.graphql_reads = false})->ReadPullState(ctx_, kRepo, 1);
  ASSERT_TRUE(rest.ok());
  // As a GitHub Enterprise Server's path would be on a server that does not serve it.
  auto client = Client({.graphql_target = "/api/graphql"});
  auto first = client->ReadPullState(ctx_, kRepo, 1);
  ASSERT_TRUE(first.ok()) << "a 404 from the endpoint is not the PR's: "
                          << first.error().ToString();
  ExpectSame(*first, *rest);
  EXPECT_EQ(counting_->graphql_posts(), 1);
  auto second = client->ReadPullState(ctx_, kRepo, 1);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(counting_->graphql_posts(), 1) << "refused once, not asked again";

  // A PR that is not there is still not found.
  auto missing = github_.client().ReadPullState(ctx_, kRepo, 99);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, GitHubErrorKind::kNotFound);
}

// A query whose execution failed (GitHub answers 200 with an error and no data) is read over
// REST this once; GraphQL stays on for the next read.
TEST_F(ClientGraphqlSimTest, AnExecutionErrorIsRestForThatReadOnly) {
  ASSERT_NO_FATAL_FAILURE(Populate());
  auto rest = Client({.graphql_reads = false})->ReadPullState(ctx_, kRepo, 1);
  ASSERT_TRUE(rest.ok());
  const int64_t rest_gets = counting_->gets();
  ASSERT_NO_FATAL_FAILURE(TimeOutQueries(1));

  auto& client = github_.client();
  auto first = client.ReadPullState(ctx_, kRepo, 1);
  ASSERT_TRUE(first.ok()) << first.error().ToString();
  ExpectSame(*first, *rest);
  EXPECT_EQ(counting_->graphql_posts(), 1);
  EXPECT_EQ(counting_->gets(), 2 * rest_gets) << "the REST reads, once";

  auto second = client.ReadPullState(ctx_, kRepo, 1);
  ASSERT_TRUE(second.ok()) << second.error().ToString();
  ExpectSame(*second, *rest);
  EXPECT_EQ(counting_->graphql_posts(), 2) << "GraphQL is still on";
  EXPECT_EQ(counting_->gets(), 2 * rest_gets) << "no REST read beside the query";
}

// Execution errors in a row pause the GraphQL reads for 10 minutes: an error that does not go
// away must not cost a query beside every REST read.
TEST_F(ClientGraphqlSimTest, FiveExecutionErrorsInARowPauseGraphqlForTenMinutes) {
  ASSERT_NO_FATAL_FAILURE(Populate());
  auto& client = github_.client();
  ASSERT_TRUE(client.ReadPullState(ctx_, kRepo, 1).ok());
  ASSERT_EQ(counting_->graphql_posts(), 1);
  ASSERT_NO_FATAL_FAILURE(TimeOutQueries(5));
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(client.ReadPullState(ctx_, kRepo, 1).ok()) << i;
  EXPECT_EQ(counting_->graphql_posts(), 6);
  ASSERT_TRUE(client.ReadPullState(ctx_, kRepo, 1).ok());
  EXPECT_EQ(counting_->graphql_posts(), 6) << "paused: REST only";
  EXPECT_TRUE(client.ListsOpenPullChecks()) << "paused, not refused";
  auto listing = client.ListOpenPullChecks(ctx_, kRepo, ".github/gatehouse.yml");
  ASSERT_FALSE(listing.ok());
  EXPECT_EQ(listing.error().kind, GitHubErrorKind::kTransient) << "the sweep skips, not passes";

  clock_->Advance(std::chrono::minutes(10));
  ASSERT_TRUE(client.ReadPullState(ctx_, kRepo, 1).ok());
  EXPECT_EQ(counting_->graphql_posts(), 7) << "the pause is over";

  // Errors with answers between them are not in a row: four, an answer, four more.
  ASSERT_NO_FATAL_FAILURE(TimeOutQueries(4));
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(client.ReadPullState(ctx_, kRepo, 1).ok()) << i;
  ASSERT_TRUE(client.ReadPullState(ctx_, kRepo, 1).ok());
  ASSERT_NO_FATAL_FAILURE(TimeOutQueries(4));
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(client.ReadPullState(ctx_, kRepo, 1).ok()) << i;
  ASSERT_TRUE(client.ReadPullState(ctx_, kRepo, 1).ok());
  EXPECT_EQ(counting_->graphql_posts(), 17) << "never paused";
}

// A commit's checks (the merge queue's read of a commit it tests) are one query that reads what
// the two REST lists read.
TEST_F(ClientGraphqlSimTest, ACommitsChecksAreOneQueryThatReadsWhatTheTwoRestListsRead) {
  ASSERT_NO_FATAL_FAILURE(Populate());
  auto rest = Client({.graphql_reads = false})->ReadCommitChecks(ctx_, kRepo, head_);
  ASSERT_TRUE(rest.ok()) << rest.error().ToString();
  EXPECT_EQ(counting_->graphql_posts(), 0);
  const int64_t rest_gets = counting_->gets();
  EXPECT_EQ(rest_gets, 2);
  EXPECT_EQ(rest->check_runs.size(), 2u);
  EXPECT_EQ(rest->status.statuses.size(), 2u);

  auto& client = github_.client();
  auto one = client.ReadCommitChecks(ctx_, kRepo, head_);
  ASSERT_TRUE(one.ok()) << one.error().ToString();
  EXPECT_EQ(counting_->graphql_posts(), 1);
  EXPECT_EQ(counting_->gets(), rest_gets) << "no REST call beside the query";
  ExpectSameChecks(*one, *rest);

  // A commit the repository does not have.
  auto missing = client.ReadCommitChecks(ctx_, kRepo, std::string(40, 'a'));
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, GitHubErrorKind::kNotFound);

  // An execution error: the two REST lists this once.
  ASSERT_NO_FATAL_FAILURE(TimeOutQueries(1));
  auto again = client.ReadCommitChecks(ctx_, kRepo, head_);
  ASSERT_TRUE(again.ok()) << again.error().ToString();
  ExpectSameChecks(*again, *rest);
  EXPECT_EQ(counting_->graphql_posts(), 3);
  EXPECT_EQ(counting_->gets(), 2 * rest_gets);
}

TEST_F(ClientGraphqlSimTest, ASecondaryLimitOnTheQueryIsAWaitNotAFallback) {
  HttpRequest put;
  put.method = "PUT";
  put.target = "/_sim/faults";
  put.body = R"({"aimed": [{"method": "POST", "path": "/graphql",
                 "fault": "secondary_rate_limit", "retry_after_seconds": 30}]})";
  ASSERT_EQ(github_.handler().Serve(put).status, 200);
  auto state = github_.client().ReadPullState(ctx_, kRepo, 1);
  ASSERT_FALSE(state.ok());
  EXPECT_EQ(state.error().kind, GitHubErrorKind::kRateLimited);
  EXPECT_EQ(state.error().until, kStart + std::chrono::seconds(30));
  EXPECT_EQ(counting_->gets(), 0) << "no REST read while the account is told to wait";
}

}  // namespace
}  // namespace gatehouse
