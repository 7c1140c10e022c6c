#include "github/client.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <map>
#include <mutex>
#include <thread>

#include "act/github_outcome.h"
#include "github/client_sim_test_util.h"
#include "github/fake_github_test_util.h"

namespace gatehouse {
namespace {

namespace json = boost::json;
using github_testing::FakeGitHub;

using client_testing::kStart;
using client_testing::kRepo;

HttpResponse WithHeaders(HttpResponse r, std::vector<std::pair<std::string, std::string>> h) {
  for (auto& kv : h) r.headers.push_back(std::move(kv));
  return r;
}

std::string PullJson(int n, const std::string& sha) {
  return json::serialize(json::object{{"number", n},
                                      {"state", "open"},
                                      {"title", "PR " + std::to_string(n)},
                                      {"draft", false},
                                      {"merged", false},
                                      {"mergeable", nullptr},
                                      {"mergeable_state", "unknown"},
                                      {"head", json::object{{"sha", sha}, {"ref", "feature"}}},
                                      {"base", json::object{{"ref", "main"}}},
                                      {"user", json::object{{"login", "octocat"}}},
                                      {"labels", json::array{json::object{{"name", "bug"}}}}});
}

class GitHubClientTest : public ::testing::Test {
 protected:
  void SetUp() override { Build(GitHubClientOptions{}); }

  void Build(GitHubClientOptions options) {
    CurlTransportOptions transport_options;
    transport_options.base_url = fake_.base_url();
    auto transport = CurlTransport::Create(transport_options);
    ASSERT_TRUE(transport.ok());
    transport_ = std::move(transport).value();
    client_ = std::make_unique<GitHubClient>(*transport_, tokens_, clock_, options);
  }

  // Answers every request with `status` and `body`.
  void Always(int status, const std::string& body,
              const std::vector<std::pair<std::string, std::string>>& headers = {}) {
    fake_.SetRoute(
        [=](const HttpRequest&) { return WithHeaders(JsonResponse(status, body), headers); });
  }

  std::shared_ptr<SimClock> clock_ = std::make_shared<SimClock>(kStart);
  FakeGitHub fake_;
  PersonalTokenSource tokens_{"pat-secret"};
  std::unique_ptr<CurlTransport> transport_;
  std::unique_ptr<GitHubClient> client_;
  CallContext ctx_{1, false};
};

TEST_F(GitHubClientTest, GetPullRequestSendsStandardHeadersAndParses) {
  Always(200, PullJson(12, "abc123"));
  auto pr = client_->GetPullRequest(ctx_, kRepo, 12);
  ASSERT_TRUE(pr.ok()) << pr.error().ToString();
  EXPECT_EQ(pr->number, 12);
  EXPECT_EQ(pr->head_sha, "abc123");
  EXPECT_EQ(pr->head_ref, "feature");
  EXPECT_EQ(pr->base_ref, "main");
  EXPECT_EQ(pr->author, "octocat");
  EXPECT_FALSE(pr->mergeable.has_value());
  EXPECT_EQ(pr->labels, std::vector<std::string>{"bug"});
  auto req = fake_.last();
  EXPECT_EQ(req.method, "GET");
  EXPECT_EQ(req.target, "/repos/acme/app/pulls/12");
  EXPECT_EQ(req.Header("Authorization"), "Bearer pat-secret");
  EXPECT_EQ(req.Header("Accept"), "application/vnd.github+json");
  EXPECT_EQ(req.Header("X-GitHub-Api-Version"), "2022-11-28");
  EXPECT_EQ(req.Header("User-Agent"), "gatehouse/0.1");
}

TEST_F(GitHubClientTest, HttpStatusesBecomeTypedErrors) {
  struct Case {
    int status;
    GitHubErrorKind kind;
    FailureClass failure;
    bool superseded;
  };
  const Case cases[] = {
      {404, GitHubErrorKind::kNotFound, FailureClass::kPermanent, false},
      {401, GitHubErrorKind::kUnauthorized, FailureClass::kPermanent, false},
      {403, GitHubErrorKind::kUnauthorized, FailureClass::kPermanent, false},
      {409, GitHubErrorKind::kHeadModified, FailureClass::kPermanent, true},
      {405, GitHubErrorKind::kNotMergeable, FailureClass::kPermanent, true},
      {422, GitHubErrorKind::kUnprocessable, FailureClass::kPermanent, true},
      {500, GitHubErrorKind::kTransient, FailureClass::kTransient, false},
      {502, GitHubErrorKind::kTransient, FailureClass::kTransient, false},
      {503, GitHubErrorKind::kTransient, FailureClass::kTransient, false},
      {400, GitHubErrorKind::kPermanent, FailureClass::kPermanent, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.status);
    Always(c.status, R"({"message":"nope"})");
    auto r = client_->Merge(ctx_, kRepo, 3, "sha1", "squash");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, c.kind);
    EXPECT_EQ(r.error().http_status, c.status);
    EXPECT_NE(r.error().message.find("nope"), std::string::npos);
    EXPECT_EQ(IsSuperseded(r.error()), c.superseded);
    PassOutcome outcome = ToPassOutcome(r.error());
    EXPECT_FALSE(outcome.ok);
    EXPECT_EQ(outcome.failure, c.failure);
  }
}

TEST_F(GitHubClientTest, UnauthorizedIsRetriedOnceWithAFreshToken) {
  Always(401, R"({"message":"Bad credentials"})");
  auto r = client_->GetPullRequest(ctx_, kRepo, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, GitHubErrorKind::kUnauthorized);
  EXPECT_EQ(fake_.request_count(), 2u);
}

TEST_F(GitHubClientTest, ConnectionFailureIsTransient) {
  uint16_t dead_port;
  {
    FakeGitHub gone;
    dead_port = static_cast<uint16_t>(std::stoi(gone.base_url().substr(17)));
  }
  CurlTransportOptions options;
  options.base_url = "http://127.0.0.1:" + std::to_string(dead_port);
  auto transport = CurlTransport::Create(options);
  ASSERT_TRUE(transport.ok());
  GitHubClient client(**transport, tokens_, clock_);
  auto r = client.GetPullRequest(ctx_, kRepo, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, GitHubErrorKind::kTransient);
  EXPECT_EQ(ToPassOutcome(r.error()).failure, FailureClass::kTransient);
}

TEST_F(GitHubClientTest, ExhaustedPrimaryLimitIsRateLimitedUntilReset) {
  const int64_t reset = 1796040000 + 600;
  Always(403, R"({"message":"API rate limit exceeded"})",
         {{"X-RateLimit-Remaining", "0"}, {"X-RateLimit-Reset", std::to_string(reset)}});
  auto r = client_->GetPullRequest(ctx_, kRepo, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, GitHubErrorKind::kRateLimited);
  EXPECT_EQ(r.error().until, Time(std::chrono::seconds(reset)));
  PassOutcome outcome = ToPassOutcome(r.error());
  EXPECT_EQ(outcome.failure, FailureClass::kRateLimited);
  EXPECT_EQ(outcome.until, Time(std::chrono::seconds(reset)));

  // Until the reset, calls for that installation do not reach GitHub at all.
  Always(200, PullJson(1, "s"));
  r = client_->GetPullRequest(ctx_, kRepo, 1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, GitHubErrorKind::kRateLimited);
  EXPECT_EQ(fake_.request_count(), 1u);
  // Another installation has its own limit.
  EXPECT_TRUE(client_->GetPullRequest(CallContext{2, false}, kRepo, 1).ok());

  clock_->Set(Time(std::chrono::seconds(reset)));
  EXPECT_TRUE(client_->GetPullRequest(ctx_, kRepo, 1).ok());
}

TEST_F(GitHubClientTest, RetryAfterIsHonoured) {
  for (int status : {403, 429}) {
    SCOPED_TRACE(status);
    clock_->Advance(std::chrono::hours(1));
    Always(status, R"({"message":"secondary rate limit"})", {{"Retry-After", "30"}});
    auto r = client_->AddLabels(ctx_, kRepo, 1, {"x"});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.error().kind, GitHubErrorKind::kRateLimited);
    EXPECT_EQ(r.error().until, clock_->Now() + std::chrono::seconds(30));
  }
}

TEST_F(GitHubClientTest, BackgroundCallsStopAtTheReserve) {
  GitHubClientOptions options;
  options.background_reserve = 10;
  Build(options);
  const int64_t reset = 1796040000 + 3600;
  Always(200, PullJson(1, "s"),
         {{"X-RateLimit-Remaining", "10"}, {"X-RateLimit-Reset", std::to_string(reset)}});
  ASSERT_TRUE(client_->GetPullRequest(ctx_, kRepo, 1).ok());
  EXPECT_EQ(client_->RateLimitFor(1).remaining, 10);

  auto background = client_->ListOpenPullRequests(CallContext{1, true}, kRepo);
  ASSERT_FALSE(background.ok());
  EXPECT_EQ(background.error().kind, GitHubErrorKind::kRateLimited);
  EXPECT_EQ(background.error().until, Time(std::chrono::seconds(reset)));
  EXPECT_EQ(fake_.request_count(), 1u);

  // Webhook-driven calls still go through.
  EXPECT_TRUE(client_->GetPullRequest(ctx_, kRepo, 2).ok());
  EXPECT_EQ(fake_.request_count(), 2u);
  // The refusal is one wait of installation 1 (gatehouse_github_rate_limit_waits_total).
  EXPECT_EQ(client_->RateLimitRefusals(), (std::map<int64_t, int64_t>{{1, 1}}));
}

TEST_F(GitHubClientTest, EtagTurnsRepeatedReadsInto304s) {
  std::atomic<int> conditional{0};
  fake_.SetRoute([&](const HttpRequest& req) {
    if (req.Header("If-None-Match") == "\"v1\"") {
      ++conditional;
      HttpResponse r;
      r.status = 304;
      r.content_type.clear();
      return r;
    }
    return WithHeaders(JsonResponse(200, PullJson(5, "etagsha")), {{"ETag", "\"v1\""}});
  });
  for (int i = 0; i < 3; ++i) {
    auto pr = client_->GetPullRequest(ctx_, kRepo, 5);
    ASSERT_TRUE(pr.ok()) << pr.error().ToString();
    EXPECT_EQ(pr->head_sha, "etagsha");
  }
  EXPECT_EQ(fake_.request_count(), 3u);
  EXPECT_EQ(conditional.load(), 2);
  EXPECT_FALSE(fake_.requests()[0].HasHeader("If-None-Match"));
}

// The cache keeps what is read most recently: with room for two entries, PR 1 read again
// (a 304) outlives PR 2, which was read once, when PR 3 arrives.
TEST_F(GitHubClientTest, TheEtagCacheEvictsTheLeastRecentlyUsedEntry) {
  GitHubClientOptions options;
  options.etag_cache_entries = 2;
  Build(options);
  fake_.SetRoute([&](const HttpRequest& req) {
    const std::string n = std::string(req.Path().substr(req.Path().rfind('/') + 1));
    const std::string etag = "\"pr" + n + "\"";
    if (req.Header("If-None-Match") == etag) {
      HttpResponse r;
      r.status = 304;
      r.content_type.clear();
      return r;
    }
    return WithHeaders(JsonResponse(200, PullJson(std::stoi(n), "sha" + n)), {{"ETag", etag}});
  });
  auto read = [&](int n) {
    auto pr = client_->GetPullRequest(ctx_, kRepo, n);
    ASSERT_TRUE(pr.ok()) << pr.error().ToString();
    EXPECT_EQ(pr->head_sha, "sha" + std::to_string(n));
  };
  read(1);
  read(2);
  read(1);  // a 304: PR 1 is now the most recently used
  read(3);  // evicts PR 2, not PR 1
  read(1);
  read(2);
  const auto& sent = fake_.requests();
  ASSERT_EQ(sent.size(), 6u);
  EXPECT_TRUE(sent[4].HasHeader("If-None-Match")) << "PR 1 stayed in the cache";
  EXPECT_FALSE(sent[5].HasHeader("If-None-Match")) << "PR 2 was evicted";
}

TEST_F(GitHubClientTest, PaginationFollowsLinkNext) {
  const std::string base = fake_.base_url();
  fake_.SetRoute([base](const HttpRequest& req) {
    std::string target = req.target;
    int page = 1;
    if (size_t p = target.find("&page="); p != std::string::npos) {
      page = std::stoi(target.substr(p + 6));
    }
    json::array items;
    items.emplace_back(json::parse(PullJson(page * 10 + 1, "a")));
    items.emplace_back(json::parse(PullJson(page * 10 + 2, "b")));
    HttpResponse r = JsonResponse(200, json::serialize(items));
    std::string prefix = base + "/repos/acme/app/pulls?state=open&per_page=100&page=";
    if (page < 3) {
      r.headers.emplace_back("Link", "<" + prefix + std::to_string(page + 1) +
                                         ">; rel=\"next\", <" + prefix + "3>; rel=\"last\"");
    } else {
      r.headers.emplace_back("Link",
                             "<" + prefix + "1>; rel=\"first\", <" + prefix + "2>; rel=\"prev\"");
    }
    return r;
  });
  auto prs = client_->ListOpenPullRequests(ctx_, kRepo);
  ASSERT_TRUE(prs.ok()) << prs.error().ToString();
  std::vector<int64_t> numbers;
  for (const auto& pr : *prs) numbers.push_back(pr.number);
  EXPECT_EQ(numbers, (std::vector<int64_t>{11, 12, 21, 22, 31, 32}));
  auto reqs = fake_.requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_EQ(reqs[0].target, "/repos/acme/app/pulls?state=open&per_page=100");
  EXPECT_EQ(reqs[2].target, "/repos/acme/app/pulls?state=open&per_page=100&page=3");
}

TEST_F(GitHubClientTest, ListIssueCommentsFollowsPagesAndParses) {
  const std::string base = fake_.base_url();
  fake_.SetRoute([base](const HttpRequest& req) {
    const bool second = req.target.find("&page=2") != std::string::npos;
    auto comment = [](int id, const std::string& who) {
      return json::object{{"id", id},
                          {"user", json::object{{"login", who}}},
                          {"body", "comment " + std::to_string(id)},
                          {"created_at", "2026-11-30T10:00:00Z"},
                          {"updated_at", "2026-11-30T11:00:00Z"}};
    };
    json::array items;
    items.emplace_back(comment(second ? 3 : 1, second ? "gatehouse[bot]" : "alice"));
    if (!second) items.emplace_back(comment(2, "bob"));
    HttpResponse r = JsonResponse(200, json::serialize(items));
    if (!second) {
      r.headers.emplace_back(
          "Link",
          "<" + base + "/repos/acme/app/issues/7/comments?per_page=100&page=2>; rel=\"next\"");
    }
    return r;
  });
  auto comments = client_->ListIssueComments(ctx_, kRepo, 7);
  ASSERT_TRUE(comments.ok()) << comments.error().ToString();
  ASSERT_EQ(comments->size(), 3u);
  EXPECT_EQ((*comments)[0].id, 1);
  EXPECT_EQ((*comments)[0].user, "alice");
  EXPECT_EQ((*comments)[0].body, "comment 1");
  EXPECT_EQ((*comments)[0].created_at, "2026-11-30T10:00:00Z");
  EXPECT_EQ((*comments)[0].updated_at, "2026-11-30T11:00:00Z");
  EXPECT_EQ((*comments)[2].id, 3);
  EXPECT_EQ((*comments)[2].user, "gatehouse[bot]");
  auto reqs = fake_.requests();
  ASSERT_EQ(reqs.size(), 2u);
  EXPECT_EQ(reqs[0].method, "GET");
  EXPECT_EQ(reqs[0].target, "/repos/acme/app/issues/7/comments?per_page=100");
  EXPECT_EQ(reqs[1].target, "/repos/acme/app/issues/7/comments?per_page=100&page=2");

  fake_.SetRoute([](const HttpRequest&) { return JsonError(404, "Not Found"); });
  auto missing = client_->ListIssueComments(ctx_, kRepo, 8);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, GitHubErrorKind::kNotFound);
}

// The client is usable through the interface the engine sees.
TEST_F(GitHubClientTest, IsAGitHub) {
  Always(200, PullJson(5, "s5"));
  GitHub& github = *client_;
  auto pr = github.GetPullRequest(ctx_, kRepo, 5);
  ASSERT_TRUE(pr.ok()) << pr.error().ToString();
  EXPECT_EQ(pr->head_sha, "s5");
}

TEST_F(GitHubClientTest, PaginationNeverLeavesTheBaseUrl) {
  Always(200, "[]", {{"Link", "<https://evil.example/steal?page=2>; rel=\"next\""}});
  auto r = client_->ListOpenPullRequests(ctx_, kRepo);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, GitHubErrorKind::kPermanent);
  EXPECT_EQ(fake_.request_count(), 1u);
}

TEST_F(GitHubClientTest, ConcurrentCallsShareTheEtagCacheSafely) {
  fake_.SetRoute([](const HttpRequest& req) {
    if (req.HasHeader("If-None-Match")) {
      HttpResponse r;
      r.status = 304;
      r.content_type.clear();
      return r;
    }
    return WithHeaders(JsonResponse(200, PullJson(8, "conc")), {{"ETag", "W/\"c\""}});
  });
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&] {
      for (int j = 0; j < 10; ++j) {
        auto pr = client_->GetPullRequest(ctx_, kRepo, 8);
        if (!pr.ok() || pr->head_sha != "conc") ++wrong;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(fake_.request_count(), 40u);
}

// Every endpoint: method, path and body as GitHub documents them, and the parsed result.
TEST_F(GitHubClientTest, EndpointsSendTheRightRequests) {
  std::mutex mu;
  std::map<std::string, std::string> replies;  // "METHOD target" -> JSON body
  fake_.SetRoute([&](const HttpRequest& req) {
    std::lock_guard<std::mutex> lock(mu);
    auto it = replies.find(req.method + " " + req.target);
    return it == replies.end() ? JsonError(404, "no route " + req.target)
                               : JsonResponse(200, it->second);
  });
  auto reply = [&](const std::string& key, std::string body) {
    std::lock_guard<std::mutex> lock(mu);
    replies[key] = std::move(body);
  };
  auto expect_last = [&](const std::string& method, const std::string& target,
                         const std::string& body_json) {
    auto req = fake_.last();
    EXPECT_EQ(req.method, method);
    EXPECT_EQ(req.target, target);
    if (body_json.empty()) {
      EXPECT_EQ(req.body, "");
    } else {
      EXPECT_EQ(json::parse(req.body), json::parse(body_json)) << req.body;
      EXPECT_EQ(req.Header("Content-Type"), "application/json");
    }
  };

  reply("GET /repos/acme/app/pulls/7/reviews?per_page=100",
        R"([{"id":9,"user":{"login":"bob"},"state":"APPROVED","commit_id":"c1","body":"ok"}])");
  auto reviews = client_->ListReviews(ctx_, kRepo, 7);
  ASSERT_TRUE(reviews.ok()) << reviews.error().ToString();
  ASSERT_EQ(reviews->size(), 1u);
  EXPECT_EQ((*reviews)[0].id, 9);
  EXPECT_EQ((*reviews)[0].user, "bob");
  EXPECT_EQ((*reviews)[0].state, "APPROVED");
  EXPECT_EQ((*reviews)[0].commit_id, "c1");
  EXPECT_EQ((*reviews)[0].body, "ok");

  reply("GET /repos/acme/app/commits/c1/check-runs?per_page=100",
        R"({"total_count":1,"check_runs":[{"id":4,"name":"ci","status":"completed",)"
        R"("conclusion":"success","head_sha":"c1"}]})");
  auto runs = client_->ListCheckRuns(ctx_, kRepo, "c1");
  ASSERT_TRUE(runs.ok()) << runs.error().ToString();
  ASSERT_EQ(runs->size(), 1u);
  EXPECT_EQ((*runs)[0].name, "ci");
  EXPECT_EQ((*runs)[0].conclusion, "success");

  reply("GET /repos/acme/app/commits/c1/status?per_page=100",
        R"({"state":"pending","statuses":[{"context":"ci/legacy","state":"pending"}]})");
  auto combined = client_->GetCombinedStatus(ctx_, kRepo, "c1");
  ASSERT_TRUE(combined.ok());
  EXPECT_EQ(combined->state, "pending");
  ASSERT_EQ(combined->statuses.size(), 1u);
  EXPECT_EQ(combined->statuses[0].context, "ci/legacy");

  reply("GET /repos/acme/app/commits/c1/pulls?per_page=100", "[" + PullJson(7, "c1") + "]");
  auto for_commit = client_->ListPullRequestsForCommit(ctx_, kRepo, "c1");
  ASSERT_TRUE(for_commit.ok());
  ASSERT_EQ(for_commit->size(), 1u);
  EXPECT_EQ((*for_commit)[0].number, 7);

  // "# policy\nmerge: squash\n" base64-encoded and wrapped, as GitHub sends it.
  reply("GET /repos/acme/app/contents/.github/gatehouse.yml?ref=main",
        R"({"encoding":"base64","content":"IyBwb2xpY3kKbWVyZ2U6\nIHNxdWFzaAo=\n"})");
  auto file = client_->GetFileContents(ctx_, kRepo, ".github/gatehouse.yml", "main");
  ASSERT_TRUE(file.ok()) << file.error().ToString();
  EXPECT_EQ(*file, "# policy\nmerge: squash\n");
  auto missing = client_->GetFileContents(ctx_, kRepo, "nope.yml", "");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, GitHubErrorKind::kNotFound);
  expect_last("GET", "/repos/acme/app/contents/nope.yml", "");

  reply("GET /installation/repositories?per_page=100",
        R"({"total_count":1,"repositories":[{"name":"app","owner":{"login":"acme"}}]})");
  auto repos = client_->ListInstallationRepositories(ctx_);
  ASSERT_TRUE(repos.ok());
  ASSERT_EQ(repos->size(), 1u);
  EXPECT_EQ((*repos)[0].FullName(), "acme/app");

  reply("PUT /repos/acme/app/pulls/7/merge", R"({"merged":true,"sha":"m1","message":"ok"})");
  auto merged = client_->Merge(ctx_, kRepo, 7, "c1", "squash");
  ASSERT_TRUE(merged.ok());
  EXPECT_TRUE(merged->merged);
  EXPECT_EQ(merged->sha, "m1");
  expect_last("PUT", "/repos/acme/app/pulls/7/merge", R"({"sha":"c1","merge_method":"squash"})");

  reply("POST /repos/acme/app/pulls/7/reviews", R"({"id":77})");
  auto review = client_->CreateReview(ctx_, kRepo, 7, "c1", "APPROVE", "lgtm");
  ASSERT_TRUE(review.ok());
  EXPECT_EQ(*review, 77);
  expect_last("POST", "/repos/acme/app/pulls/7/reviews",
              R"({"commit_id":"c1","event":"APPROVE","body":"lgtm"})");

  reply("POST /repos/acme/app/issues/7/comments", R"({"id":555})");
  auto comment = client_->CreateIssueComment(ctx_, kRepo, 7, "<!-- gatehouse --> hi");
  ASSERT_TRUE(comment.ok());
  EXPECT_EQ(*comment, 555);
  expect_last("POST", "/repos/acme/app/issues/7/comments", R"({"body":"<!-- gatehouse --> hi"})");

  reply("PATCH /repos/acme/app/issues/comments/555", R"({"id":555})");
  ASSERT_TRUE(client_->UpdateIssueComment(ctx_, kRepo, 555, "edited").ok());
  expect_last("PATCH", "/repos/acme/app/issues/comments/555", R"({"body":"edited"})");

  reply("POST /repos/acme/app/issues/7/labels", "[]");
  ASSERT_TRUE(client_->AddLabels(ctx_, kRepo, 7, {"ready", "size/S"}).ok());
  expect_last("POST", "/repos/acme/app/issues/7/labels", R"({"labels":["ready","size/S"]})");

  reply("DELETE /repos/acme/app/issues/7/labels/size%2FS", "[]");
  ASSERT_TRUE(client_->RemoveLabel(ctx_, kRepo, 7, "size/S").ok());
  expect_last("DELETE", "/repos/acme/app/issues/7/labels/size%2FS", "");

  reply("PATCH /repos/acme/app/pulls/7", PullJson(7, "c1"));
  ASSERT_TRUE(client_->ClosePullRequest(ctx_, kRepo, 7).ok());
  expect_last("PATCH", "/repos/acme/app/pulls/7", R"({"state":"closed"})");

  reply("POST /repos/acme/app/check-runs", R"({"id":31})");
  CheckRunSpec spec;
  spec.name = "gatehouse";
  spec.head_sha = "c1";
  spec.status = "in_progress";
  auto check = client_->CreateCheckRun(ctx_, kRepo, spec);
  ASSERT_TRUE(check.ok());
  EXPECT_EQ(*check, 31);
  expect_last("POST", "/repos/acme/app/check-runs",
              R"({"name":"gatehouse","head_sha":"c1","status":"in_progress"})");

  reply("PATCH /repos/acme/app/check-runs/31", R"({"id":31})");
  CheckRunSpec done;
  done.status = "completed";
  done.conclusion = "success";
  done.title = "Ready";
  done.summary = "All gates pass";
  ASSERT_TRUE(client_->UpdateCheckRun(ctx_, kRepo, 31, done).ok());
  expect_last("PATCH", "/repos/acme/app/check-runs/31",
              R"({"status":"completed","conclusion":"success",)"
              R"("output":{"title":"Ready","summary":"All gates pass"}})");

  reply("PUT /repos/acme/app/pulls/7/update-branch", R"({"message":"Updating"})");
  ASSERT_TRUE(client_->UpdateBranch(ctx_, kRepo, 7, "c1").ok());
  expect_last("PUT", "/repos/acme/app/pulls/7/update-branch", R"({"expected_head_sha":"c1"})");

  reply("POST /repos/acme/app/pulls/7/requested_reviewers", PullJson(7, "c1"));
  ASSERT_TRUE(client_->RequestReviewers(ctx_, kRepo, 7, {"alice"}, {"core"}).ok());
  expect_last("POST", "/repos/acme/app/pulls/7/requested_reviewers",
              R"({"reviewers":["alice"],"team_reviewers":["core"]})");
}

// Personal-token mode: gatehouse's login is the token's user, from GET /user.
TEST_F(GitHubClientTest, AuthenticatedUserLoginIsReadFromGetUser) {
  Always(200, R"({"login":"octo-bot","id":42,"type":"User"})");
  auto login = client_->GetAuthenticatedUserLogin(CallContext{0, false});
  ASSERT_TRUE(login.ok()) << login.error().ToString();
  EXPECT_EQ(*login, "octo-bot");
  EXPECT_EQ(fake_.last().method, "GET");
  EXPECT_EQ(fake_.last().target, "/user");
  EXPECT_EQ(fake_.last().Header("Authorization"), "Bearer pat-secret");

  Always(200, R"({"id":42})");
  auto nameless = client_->GetAuthenticatedUserLogin(CallContext{0, false});
  ASSERT_FALSE(nameless.ok());
  EXPECT_EQ(nameless.error().kind, GitHubErrorKind::kPermanent);
  EXPECT_NE(nameless.error().message.find("GET /user: no login"), std::string::npos);

  // An installation token has no user: GitHub refuses, and the error says so.
  Always(403, R"({"message":"Resource not accessible by integration"})");
  auto refused = client_->GetAuthenticatedUserLogin(CallContext{0, false});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, GitHubErrorKind::kUnauthorized);
  Always(502, R"({"message":"Bad Gateway"})");
  auto down = client_->GetAuthenticatedUserLogin(CallContext{0, false});
  ASSERT_FALSE(down.ok());
  EXPECT_EQ(down.error().kind, GitHubErrorKind::kTransient);
}

TEST(NextLinkUrlTest, FindsNextAmongOthers) {
  EXPECT_EQ(NextLinkUrl(R"(<https://x/a?page=2>; rel="next", <https://x/a?page=5>; rel="last")"),
            "https://x/a?page=2");
  EXPECT_EQ(NextLinkUrl(R"(<https://x/a?page=1>; rel="prev", <https://x/a?page=3>; rel="next")"),
            "https://x/a?page=3");
  EXPECT_EQ(NextLinkUrl(R"(<https://x/a?page=1>; rel="prev")"), "");
  EXPECT_EQ(NextLinkUrl(""), "");
}

}  // namespace
}  // namespace gatehouse
