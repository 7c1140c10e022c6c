// GitHubClient against the real simulator (sim/), served in-process on our HttpServer at
// 127.0.0.1:0, with the App flow for real: a fresh RSA key, RS256 JWTs verified by the
// simulator, installation tokens that expire. One SimClock drives the simulator's model, its
// token and rate-limit windows, the JWT signer, the token cache and the client, so expiry and
// rate-limit resets are reached by advancing it, never by sleeping.
#include <gtest/gtest.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <boost/json.hpp>
#include <set>

#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "github/app_auth.h"
#include "github/client.h"
#include "github/client_sim_test_util.h"
#include "github/fake_github_test_util.h"
#include "github/github.h"
#include "github/transport.h"
#include "http/server.h"
#include "sim/in_process_github_test_util.h"
#include "sim/model.h"
#include "sim/render.h"
#include "sim/rest.h"

namespace gatehouse {
namespace {

namespace json = boost::json;
using github_testing::GetTestRsaKey;

using client_testing::kStart;
using sim_testing::kAppId;
using client_testing::kInstallation;
using client_testing::kRepo;
using client_testing::kFullName;
constexpr char kPolicy[] = "gates:\n  - approvals: 1\n";

// Counts what crosses the wire and remembers the last status, so a test can tell a 304 from
// a 200 and a locally refused call from one that reached the simulator.
class ObservingTransport final : public HttpTransport {
 public:
  explicit ObservingTransport(HttpTransport& inner) : inner_(inner) {}

  Result<HttpReply> Send(const HttpCall& call) override {
    auto reply = inner_.Send(call);
    MutexLock lock(&mu_);
    ++sends_;
    last_status_ = reply.ok() ? reply->status : 0;
    return reply;
  }
  int64_t sends() const {
    MutexLock lock(&mu_);
    return sends_;
  }
  int last_status() const {
    MutexLock lock(&mu_);
    return last_status_;
  }

 private:
  HttpTransport& inner_;
  mutable Mutex mu_;
  int64_t sends_ GUARDED_BY(mu_) = 0;
  int last_status_ GUARDED_BY(mu_) = 0;
};

class ClientSimTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NO_FATAL_FAILURE(github_.Start(nullptr, [this](HttpTransport& curl) {
      auto observing = std::make_unique<ObservingTransport>(curl);
      transport_ = observing.get();
      return std::unique_ptr<HttpTransport>(std::move(observing));
    }));
    model_ = &github_.model();
    handler_ = &github_.handler();
    tokens_ = &github_.tokens();
    client_ = &github_.client();

    auto repo = model_->CreateRepo("acme", "app", kInstallation, {{".gatehouse.yml", kPolicy}});
    ASSERT_TRUE(repo.ok()) << repo.status().ToString();
  }

  sim::PullRequest NewPull(const std::string& title) {
    sim::NewPull spec;
    spec.title = title;
    spec.head_ref = "feature-" + title;
    auto pr = model_->CreatePull(kFullName, spec);
    EXPECT_TRUE(pr.ok()) << pr.status().ToString();
    return pr.ok() ? *pr : sim::PullRequest{};
  }

  // A request straight to the simulator, bypassing the client (control API, raw tokens).
  HttpResponse Raw(const std::string& method, const std::string& target, const std::string& body,
                   const std::string& token = "") {
    HttpRequest req;
    req.method = method;
    req.target = target;
    req.body = body;
    if (!body.empty()) req.headers.emplace_back("Content-Type", "application/json");
    if (!token.empty()) req.headers.emplace_back("Authorization", "Bearer " + token);
    return handler_->Serve(req);
  }

  void SetFaults(const std::string& json_body) {
    ASSERT_EQ(Raw("PUT", "/_sim/faults", json_body).status, 200);
  }

  // The last effect the app's calls left in the simulator's log.
  sim::Effect LastEffect() {
    auto effects = model_->Effects();
    EXPECT_FALSE(effects.empty());
    return effects.empty() ? sim::Effect{} : effects.back();
  }

  static std::string HeaderOf(const HttpResponse& r, std::string_view name) {
    for (const auto& [k, v] : r.headers)
      if (k == name) return v;
    return "";
  }

  std::shared_ptr<SimClock> clock_ = std::make_shared<SimClock>(kStart);
  sim_testing::InProcessGitHub github_{clock_};
  sim::Model* model_ = nullptr;
  sim::SimHandler* handler_ = nullptr;
  ObservingTransport* transport_ = nullptr;
  InstallationTokenCache* tokens_ = nullptr;
  GitHubClient* client_ = nullptr;
  const CallContext ctx_{kInstallation, false};
  const std::string who_ = "installation:" + std::to_string(kInstallation);
};

TEST_F(ClientSimTest, TheAppLoginIsItsSlugWithBotFromGetApp) {
  auto signer = AppJwtSigner::Create(kAppId, GetTestRsaKey().private_pem);
  ASSERT_TRUE(signer.ok());
  auto login = FetchAppLogin(*transport_, **signer, clock_->Now());
  ASSERT_TRUE(login.ok()) << login.error().ToString();
  EXPECT_EQ(*login, "gatehouse[bot]");
  // A JWT from another App is refused.
  auto other = AppJwtSigner::Create(kAppId + 1, GetTestRsaKey().private_pem);
  ASSERT_TRUE(other.ok());
  auto refused = FetchAppLogin(*transport_, **other, clock_->Now());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, GitHubErrorKind::kUnauthorized);
}

// GET /user names the token's user. An installation token has none (403, as on GitHub); with
// --insecure-any-token every token acts as the App's installations, so its user is the
// login the App's writes show.
TEST_F(ClientSimTest, TheTokensUserFromGetUser) {
  auto installation = client_->GetAuthenticatedUserLogin(ctx_);
  ASSERT_FALSE(installation.ok());
  EXPECT_EQ(installation.error().kind, GitHubErrorKind::kUnauthorized);
  EXPECT_EQ(installation.error().http_status, 403);

  sim::SimHandler any_token(*model_, {.clock = clock_, .insecure_any_token = true});
  HttpServerOptions server_options;
  server_options.listen = "127.0.0.1:0";
  server_options.threads = 1;
  auto server = HttpServer::Start(server_options, any_token);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  CurlTransportOptions curl;
  curl.base_url = "http://127.0.0.1:" + std::to_string((*server)->port());
  auto transport = CurlTransport::Create(curl);
  ASSERT_TRUE(transport.ok());
  PersonalTokenSource pat("any-personal-token");
  GitHubClient client(**transport, pat, clock_);
  auto login = client.GetAuthenticatedUserLogin(CallContext{0, false});
  ASSERT_TRUE(login.ok()) << login.error().ToString();
  EXPECT_EQ(*login, "gatehouse[bot]");
  // The login the summary comment shows, so gatehouse finds its own comment.
  NewPull("one");
  ASSERT_TRUE(client.CreateIssueComment(CallContext{0, false}, kRepo, 1, "hello").ok());
  auto comments = client.ListIssueComments(CallContext{0, false}, kRepo, 1);
  ASSERT_TRUE(comments.ok());
  ASSERT_EQ(comments->size(), 1u);
  EXPECT_EQ((*comments)[0].user, *login);
  (*server)->Stop(std::chrono::seconds(1));
}

TEST_F(ClientSimTest, IssueEventsSayWhoClosedReopenedAndMerged) {
  NewPull("one");
  ASSERT_TRUE(client_->ClosePullRequest(ctx_, kRepo, 1).ok());
  ASSERT_TRUE(model_->SetState("alice", kFullName, 1, "open").ok());
  auto events = client_->ListIssueEvents(ctx_, kRepo, 1);
  ASSERT_TRUE(events.ok()) << events.error().ToString();
  ASSERT_EQ(events->size(), 2u);
  EXPECT_EQ((*events)[0].event, "closed");
  EXPECT_EQ((*events)[0].actor, "gatehouse[bot]");
  EXPECT_EQ((*events)[1].event, "reopened");
  EXPECT_EQ((*events)[1].actor, "alice");
  EXPECT_FALSE((*events)[1].created_at.empty());
}

TEST_F(ClientSimTest, AppJwtIsExchangedForATokenThatIsRefreshedBeforeItExpires) {
  NewPull("one");
  auto pr = client_->GetPullRequest(ctx_, kRepo, 1);
  ASSERT_TRUE(pr.ok()) << pr.error().ToString();
  EXPECT_EQ(tokens_->exchanges(), 1);
  auto first = tokens_->Token(kInstallation);
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE(client_->GetPullRequest(ctx_, kRepo, 1).ok());
  EXPECT_EQ(tokens_->exchanges(), 1) << "the cached token is reused";

  // Inside the refresh margin (5 min before the simulator's expires_at): the cache trades a
  // new JWT for a new token although the old one still works.
  clock_->Advance(std::chrono::minutes(56));
  EXPECT_EQ(Raw("GET", "/repos/acme/app/pulls/1", "", *first).status, 200);
  ASSERT_TRUE(client_->GetPullRequest(ctx_, kRepo, 1).ok());
  EXPECT_EQ(tokens_->exchanges(), 2);
  auto second = tokens_->Token(kInstallation);
  ASSERT_TRUE(second.ok());
  EXPECT_NE(*second, *first);

  // Past the first token's TTL the simulator refuses it; the client never sends it again.
  clock_->Advance(std::chrono::minutes(5));
  EXPECT_EQ(Raw("GET", "/repos/acme/app/pulls/1", "", *first).status, 401);
  ASSERT_TRUE(client_->GetPullRequest(ctx_, kRepo, 1).ok());
  EXPECT_EQ(tokens_->exchanges(), 2);

  // Past the second token's TTL too: refreshed again.
  clock_->Advance(std::chrono::hours(1));
  EXPECT_EQ(Raw("GET", "/repos/acme/app/pulls/1", "", *second).status, 401);
  ASSERT_TRUE(client_->GetPullRequest(ctx_, kRepo, 1).ok());
  EXPECT_EQ(tokens_->exchanges(), 3);
}

TEST_F(ClientSimTest, TheSimulatorRefusesAJwtFromAnotherApp) {
  NewPull("one");
  auto other = AppJwtSigner::Create(kAppId + 1, GetTestRsaKey().private_pem);
  ASSERT_TRUE(other.ok());
  InstallationTokenCache tokens(*transport_, **other, clock_);
  GitHubClient client(*transport_, tokens, clock_);
  auto pr = client.GetPullRequest(ctx_, kRepo, 1);
  ASSERT_FALSE(pr.ok());
  EXPECT_EQ(pr.error().kind, GitHubErrorKind::kUnauthorized);
  EXPECT_EQ(pr.error().http_status, 401);
}

TEST_F(ClientSimTest, EveryEndpointReadsAndChangesTheSimulatedWorld) {
  sim::PullRequest one = NewPull("one");
  sim::PullRequest two = NewPull("two");
  ASSERT_TRUE(model_->AddLabels("control", kFullName, 1, {"bug"}).ok());
  GitHub& github = *client_;  // what the engine sees

  // --- reads ---
  auto pr = github.GetPullRequest(ctx_, kRepo, 1);
  ASSERT_TRUE(pr.ok()) << pr.error().ToString();
  EXPECT_EQ(pr->number, 1);
  EXPECT_EQ(pr->state, "open");
  EXPECT_EQ(pr->title, "one");
  EXPECT_EQ(pr->head_sha, one.head_sha);
  EXPECT_EQ(pr->head_ref, "feature-one");
  EXPECT_EQ(pr->base_ref, "main");
  EXPECT_EQ(pr->author, "octocat");
  EXPECT_EQ(pr->labels, std::vector<std::string>{"bug"});
  EXPECT_EQ(pr->mergeable, std::optional<bool>(true));

  auto repos = github.ListInstallationRepositories(ctx_);
  ASSERT_TRUE(repos.ok()) << repos.error().ToString();
  ASSERT_EQ(repos->size(), 1u);
  EXPECT_EQ((*repos)[0].FullName(), kFullName);

  auto open = github.ListOpenPullRequests(ctx_, kRepo);
  ASSERT_TRUE(open.ok()) << open.error().ToString();
  ASSERT_EQ(open->size(), 2u);

  auto for_commit = github.ListPullRequestsForCommit(ctx_, kRepo, two.head_sha);
  ASSERT_TRUE(for_commit.ok()) << for_commit.error().ToString();
  ASSERT_EQ(for_commit->size(), 1u);
  EXPECT_EQ((*for_commit)[0].number, 2);

  auto policy = github.GetFileContents(ctx_, kRepo, ".gatehouse.yml", "");
  ASSERT_TRUE(policy.ok()) << policy.error().ToString();
  EXPECT_EQ(*policy, kPolicy);
  auto missing = github.GetFileContents(ctx_, kRepo, "nope.yml", "");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, GitHubErrorKind::kNotFound);

  sim::CommitStatus status;
  status.sha = one.head_sha;
  status.context = "ci/build";
  status.state = "success";
  ASSERT_TRUE(model_->SetStatus("ci", kFullName, status, nullptr).ok());
  auto combined = github.GetCombinedStatus(ctx_, kRepo, one.head_sha);
  ASSERT_TRUE(combined.ok()) << combined.error().ToString();
  EXPECT_EQ(combined->state, "success");
  ASSERT_EQ(combined->statuses.size(), 1u);
  EXPECT_EQ(combined->statuses[0].context, "ci/build");
  EXPECT_EQ(combined->statuses[0].state, "success");

  // --- check runs ---
  CheckRunSpec spec;
  spec.name = "gatehouse";
  spec.head_sha = one.head_sha;
  spec.status = "in_progress";
  spec.external_id = "acme/app#1";
  auto run_id = github.CreateCheckRun(ctx_, kRepo, spec);
  ASSERT_TRUE(run_id.ok()) << run_id.error().ToString();
  EXPECT_GT(*run_id, 0);
  sim::Effect e = LastEffect();
  EXPECT_EQ(e.kind, "check_run");
  EXPECT_EQ(e.who, who_);
  EXPECT_EQ(e.status / 100, 2);
  auto runs = model_->CheckRunsFor(kFullName, one.head_sha);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].id, *run_id);
  EXPECT_EQ(runs[0].status, "in_progress");
  EXPECT_EQ(runs[0].external_id, "acme/app#1");

  CheckRunSpec done;
  done.status = "completed";
  done.conclusion = "success";
  done.title = "Ready";
  done.summary = "All gates pass";
  ASSERT_TRUE(github.UpdateCheckRun(ctx_, kRepo, *run_id, done).ok());
  EXPECT_EQ(LastEffect().kind, "check_run");
  runs = model_->CheckRunsFor(kFullName, one.head_sha);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].status, "completed");
  EXPECT_EQ(runs[0].conclusion, "success");
  EXPECT_EQ(runs[0].title, "Ready");
  EXPECT_EQ(runs[0].summary, "All gates pass");

  auto listed_runs = github.ListCheckRuns(ctx_, kRepo, one.head_sha);
  ASSERT_TRUE(listed_runs.ok()) << listed_runs.error().ToString();
  ASSERT_EQ(listed_runs->size(), 1u);
  EXPECT_EQ((*listed_runs)[0].id, *run_id);
  EXPECT_EQ((*listed_runs)[0].name, "gatehouse");
  EXPECT_EQ((*listed_runs)[0].conclusion, "success");
  EXPECT_EQ((*listed_runs)[0].head_sha, one.head_sha);

  // --- reviews ---
  auto review_id = github.CreateReview(ctx_, kRepo, 1, one.head_sha, "COMMENT", "looks fine");
  ASSERT_TRUE(review_id.ok()) << review_id.error().ToString();
  e = LastEffect();
  EXPECT_EQ(e.kind, "review");
  EXPECT_EQ(e.sha, one.head_sha);
  EXPECT_EQ(e.status / 100, 2);
  auto after = model_->GetPull(kFullName, 1);
  ASSERT_TRUE(after.has_value());
  ASSERT_EQ(after->reviews.size(), 1u);
  EXPECT_EQ(after->reviews[0].id, *review_id);
  EXPECT_EQ(after->reviews[0].state, "COMMENTED");
  EXPECT_EQ(after->reviews[0].commit_id, one.head_sha);
  EXPECT_EQ(after->reviews[0].body, "looks fine");
  auto reviews = github.ListReviews(ctx_, kRepo, 1);
  ASSERT_TRUE(reviews.ok()) << reviews.error().ToString();
  ASSERT_EQ(reviews->size(), 1u);
  EXPECT_EQ((*reviews)[0].id, *review_id);
  EXPECT_EQ((*reviews)[0].state, "COMMENTED");
  EXPECT_EQ((*reviews)[0].commit_id, one.head_sha);
  EXPECT_EQ((*reviews)[0].body, "looks fine");

  // --- comments ---
  auto comment_id = github.CreateIssueComment(ctx_, kRepo, 1, "gatehouse: waiting for review");
  ASSERT_TRUE(comment_id.ok()) << comment_id.error().ToString();
  e = LastEffect();
  EXPECT_EQ(e.kind, "comment");
  EXPECT_EQ(e.number, 1);
  EXPECT_EQ(e.status, 201);
  clock_->Advance(std::chrono::seconds(30));
  ASSERT_TRUE(github.UpdateIssueComment(ctx_, kRepo, *comment_id, "gatehouse: ready").ok());
  EXPECT_EQ(LastEffect().kind, "comment_edit");
  EXPECT_EQ(LastEffect().status / 100, 2);
  auto stored = model_->CommentsFor(kFullName, 1);
  ASSERT_EQ(stored.size(), 1u);
  EXPECT_EQ(stored[0].body, "gatehouse: ready");
  auto comments = github.ListIssueComments(ctx_, kRepo, 1);
  ASSERT_TRUE(comments.ok()) << comments.error().ToString();
  ASSERT_EQ(comments->size(), 1u);
  EXPECT_EQ((*comments)[0].id, *comment_id);
  EXPECT_EQ((*comments)[0].body, "gatehouse: ready");
  EXPECT_EQ(stored[0].user, who_);                   // the model keeps the installation
  EXPECT_EQ((*comments)[0].user, "gatehouse[bot]");  // GitHub shows the App as slug[bot]
  EXPECT_EQ((*comments)[0].created_at, sim::GitHubTime(stored[0].created_at));
  EXPECT_EQ((*comments)[0].updated_at, sim::GitHubTime(stored[0].updated_at));
  EXPECT_NE((*comments)[0].created_at, (*comments)[0].updated_at);

  // --- labels ---
  ASSERT_TRUE(github.AddLabels(ctx_, kRepo, 1, {"ready", "size/S"}).ok());
  EXPECT_EQ(LastEffect().kind, "label_add");
  EXPECT_EQ(model_->GetPull(kFullName, 1)->labels,
            (std::vector<std::string>{"bug", "ready", "size/S"}));
  ASSERT_TRUE(github.RemoveLabel(ctx_, kRepo, 1, "size/S").ok());
  EXPECT_EQ(LastEffect().kind, "label_remove");
  EXPECT_EQ(LastEffect().status, 200);
  EXPECT_EQ(model_->GetPull(kFullName, 1)->labels, (std::vector<std::string>{"bug", "ready"}));
  auto not_there = github.RemoveLabel(ctx_, kRepo, 1, "size/S");
  ASSERT_FALSE(not_there.ok());
  EXPECT_EQ(not_there.error().kind, GitHubErrorKind::kNotFound);

  // --- reviewers ---
  ASSERT_TRUE(github.RequestReviewers(ctx_, kRepo, 1, {"alice"}, {}).ok());
  EXPECT_EQ(LastEffect().kind, "request_reviewers");
  EXPECT_EQ(model_->GetPull(kFullName, 1)->requested_reviewers, std::vector<std::string>{"alice"});

  // --- update branch: the base moved, the head is rebuilt on it ---
  ASSERT_TRUE(model_->MoveBase(kFullName, 1, /*conflicted=*/false).ok());
  ASSERT_TRUE(github.UpdateBranch(ctx_, kRepo, 1, one.head_sha).ok());
  e = LastEffect();
  EXPECT_EQ(e.kind, "update_branch");
  EXPECT_EQ(e.sha, one.head_sha);
  EXPECT_EQ(e.status, 202);
  const std::string new_head = model_->GetPull(kFullName, 1)->head_sha;
  EXPECT_NE(new_head, one.head_sha);

  // --- merge, at the head we read ---
  auto fresh = github.GetPullRequest(ctx_, kRepo, 1);
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ(fresh->head_sha, new_head);
  auto merged = github.Merge(ctx_, kRepo, 1, fresh->head_sha, "squash");
  ASSERT_TRUE(merged.ok()) << merged.error().ToString();
  EXPECT_TRUE(merged->merged);
  EXPECT_FALSE(merged->sha.empty());
  e = LastEffect();
  EXPECT_EQ(e.kind, "merge");
  EXPECT_EQ(e.sha, new_head);
  EXPECT_EQ(e.status, 200);
  after = model_->GetPull(kFullName, 1);
  EXPECT_TRUE(after->merged);
  EXPECT_EQ(after->state, "closed");
  EXPECT_EQ(after->merge_commit_sha, merged->sha);

  // --- close ---
  ASSERT_TRUE(github.ClosePullRequest(ctx_, kRepo, 2).ok());
  EXPECT_EQ(LastEffect().number, 2);
  EXPECT_EQ(LastEffect().status / 100, 2);
  EXPECT_EQ(model_->GetPull(kFullName, 2)->state, "closed");
  EXPECT_FALSE(model_->GetPull(kFullName, 2)->merged);
  open = github.ListOpenPullRequests(ctx_, kRepo);
  ASSERT_TRUE(open.ok());
  EXPECT_TRUE(open->empty());

  // Every effect the app caused is attributed to its installation.
  for (const auto& effect : model_->Effects()) {
    if (effect.who != "control" && effect.who != "ci") {
      EXPECT_EQ(effect.who, who_) << effect.kind;
    }
  }
}

// The git data API a merge queue's integration branch uses: a branch made at the base, PR heads
// merged into it (201 a new commit, "" when already in, HeadModified on a conflict), the base
// fast-forwarded to the tip (only a fast-forward), the branch deleted; names with '/' included.
TEST_F(ClientSimTest, BranchesAreMadeMergedIntoFastForwardedAndDeleted) {
  const sim::PullRequest one = NewPull("one");
  const sim::PullRequest two = NewPull("two");
  const std::string branch = "gatehouse/queue/main";
  auto base = client_->GetBranchSha(ctx_, kRepo, "main");
  ASSERT_TRUE(base.ok()) << base.error().ToString();
  EXPECT_EQ(*base, *model_->BranchSha(kFullName, "main"));
  EXPECT_EQ(client_->GetBranchSha(ctx_, kRepo, branch).error().kind, GitHubErrorKind::kNotFound);

  ASSERT_TRUE(client_->CreateBranch(ctx_, kRepo, branch, *base).ok());
  EXPECT_EQ(LastEffect().kind, "create_ref");
  EXPECT_EQ(client_->CreateBranch(ctx_, kRepo, branch, *base).error().kind,
            GitHubErrorKind::kUnprocessable)
      << "exists";
  auto first = client_->MergeIntoBranch(ctx_, kRepo, branch, one.head_sha, "queue: #1");
  ASSERT_TRUE(first.ok()) << first.error().ToString();
  EXPECT_FALSE(first->empty());
  auto again = client_->MergeIntoBranch(ctx_, kRepo, branch, one.head_sha, "");
  ASSERT_TRUE(again.ok()) << again.error().ToString();
  EXPECT_EQ(*again, "") << "already merged: 204";
  auto tip = client_->MergeIntoBranch(ctx_, kRepo, branch, two.head_sha, "queue: #2");
  ASSERT_TRUE(tip.ok());
  EXPECT_EQ(*client_->GetBranchSha(ctx_, kRepo, branch), *tip);

  ASSERT_TRUE(client_->MoveBranch(ctx_, kRepo, "main", *tip, false).ok());
  EXPECT_TRUE(model_->GetPull(kFullName, one.number)->merged);
  EXPECT_TRUE(model_->GetPull(kFullName, two.number)->merged);
  EXPECT_EQ(client_->MoveBranch(ctx_, kRepo, "main", *base, false).error().kind,
            GitHubErrorKind::kUnprocessable)
      << "backwards is not a fast-forward";

  const sim::PullRequest three = NewPull("three");
  ASSERT_TRUE(model_->MoveBase(kFullName, three.number, /*conflicted=*/true).ok());
  ASSERT_TRUE(client_->MoveBranch(ctx_, kRepo, branch, *model_->BranchSha(kFullName, "main"), true)
                  .ok());
  EXPECT_EQ(client_->MergeIntoBranch(ctx_, kRepo, branch, three.head_sha, "").error().kind,
            GitHubErrorKind::kHeadModified)
      << "409 Merge conflict";
  ASSERT_TRUE(client_->DeleteBranch(ctx_, kRepo, branch).ok());
  EXPECT_EQ(client_->DeleteBranch(ctx_, kRepo, branch).error().kind,
            GitHubErrorKind::kUnprocessable);
}

TEST_F(ClientSimTest, ListsFollowEveryPage) {
  constexpr int kPulls = 130;  // more than the 100 per page the client asks for
  for (int i = 1; i <= kPulls; ++i) NewPull("pr" + std::to_string(i));
  const int64_t before = transport_->sends();
  auto open = client_->ListOpenPullRequests(ctx_, kRepo);
  ASSERT_TRUE(open.ok()) << open.error().ToString();
  ASSERT_EQ(open->size(), static_cast<size_t>(kPulls));
  std::set<int64_t> numbers;
  for (const auto& pr : *open) numbers.insert(pr.number);
  EXPECT_EQ(numbers.size(), static_cast<size_t>(kPulls));
  EXPECT_EQ(*numbers.begin(), 1);
  EXPECT_EQ(*numbers.rbegin(), kPulls);
  // One token exchange and two pages.
  EXPECT_EQ(transport_->sends() - before, 3);

  for (int i = 0; i < 105; ++i) {
    ASSERT_TRUE(model_->AddComment("alice", kFullName, 1, "c" + std::to_string(i), nullptr).ok());
  }
  auto comments = client_->ListIssueComments(ctx_, kRepo, 1);
  ASSERT_TRUE(comments.ok()) << comments.error().ToString();
  ASSERT_EQ(comments->size(), 105u);
  EXPECT_EQ(comments->front().body, "c0");
  EXPECT_EQ(comments->back().body, "c104");
}

TEST_F(ClientSimTest, PullRequestAuthorSizeAndFiles) {
  sim::NewPull spec;
  spec.author = "dependabot[bot]";
  spec.author_type = "Bot";
  spec.author_association = "NONE";
  spec.additions = 12;
  spec.deletions = 3;
  spec.files.clear();  // not the default README.md
  for (int i = 1; i <= 149; ++i) spec.files.push_back("src/f" + std::to_string(i) + ".cc");
  auto created = model_->CreatePull(kFullName, spec);
  ASSERT_TRUE(created.ok());
  NewPull("plain");

  auto pr = client_->GetPullRequest(ctx_, kRepo, 1);
  ASSERT_TRUE(pr.ok()) << pr.error().ToString();
  EXPECT_EQ(pr->author, "dependabot[bot]");
  EXPECT_EQ(pr->author_type, "Bot");
  EXPECT_EQ(pr->author_association, "NONE");
  EXPECT_EQ(pr->changed_files, 149);
  EXPECT_EQ(pr->additions, 12);
  EXPECT_EQ(pr->deletions, 3);
  EXPECT_EQ(pr->base_sha, created->base_sha);
  EXPECT_FALSE(pr->base_sha.empty());
  EXPECT_EQ(pr->closed_at, "");
  EXPECT_EQ(pr->merged_at, "");
  auto plain = client_->GetPullRequest(ctx_, kRepo, 2);
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->author_type, "User");
  EXPECT_EQ(plain->author_association, "CONTRIBUTOR");
  EXPECT_EQ(plain->changed_files, 1);

  // Lists carry no size: it reads as 0.
  auto open = client_->ListOpenPullRequests(ctx_, kRepo);
  ASSERT_TRUE(open.ok());
  ASSERT_EQ(open->size(), 2u);
  EXPECT_EQ(open->back().number, 1);
  EXPECT_EQ(open->back().author_association, "NONE");
  EXPECT_EQ(open->back().changed_files, 0);

  const int64_t before = transport_->sends();
  auto files = client_->ListPullRequestFiles(ctx_, kRepo, 1);
  ASSERT_TRUE(files.ok()) << files.error().ToString();
  EXPECT_EQ(transport_->sends() - before, 2) << "two pages of 100";
  ASSERT_EQ(files->size(), 149u);
  EXPECT_EQ(files->front(), "src/f1.cc");
  EXPECT_EQ(files->back(), "src/f149.cc");
  auto one_file = client_->ListPullRequestFiles(ctx_, kRepo, 2);
  ASSERT_TRUE(one_file.ok());
  EXPECT_EQ(*one_file, std::vector<std::string>{"README.md"});
  auto missing = client_->ListPullRequestFiles(ctx_, kRepo, 99);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().kind, GitHubErrorKind::kNotFound);

  // Closed and merged times appear once they happen.
  clock_->Advance(std::chrono::seconds(5));
  ASSERT_TRUE(client_->Merge(ctx_, kRepo, 2, plain->head_sha, "merge").ok());
  auto merged = client_->GetPullRequest(ctx_, kRepo, 2);
  ASSERT_TRUE(merged.ok());
  EXPECT_EQ(merged->merged_at, sim::GitHubTime(kStart + std::chrono::seconds(5)));
  EXPECT_EQ(merged->closed_at, merged->merged_at);
}

TEST_F(ClientSimTest, RepeatedReadsAre304sThatCostNothing) {
  NewPull("one");
  auto first = client_->GetPullRequest(ctx_, kRepo, 1);
  ASSERT_TRUE(first.ok()) << first.error().ToString();
  EXPECT_EQ(transport_->last_status(), 200);
  auto remaining = client_->RateLimitFor(kInstallation).remaining;
  ASSERT_TRUE(remaining.has_value());

  auto second = client_->GetPullRequest(ctx_, kRepo, 1);
  ASSERT_TRUE(second.ok()) << second.error().ToString();
  EXPECT_EQ(transport_->last_status(), 304);
  EXPECT_EQ(second->head_sha, first->head_sha);
  EXPECT_EQ(second->title, "one");
  EXPECT_EQ(client_->RateLimitFor(kInstallation).remaining, remaining)
      << "a 304 does not count against the limit";

  // A change makes the next read a full 200 again, which does count.
  ASSERT_TRUE(model_->AddLabels("control", kFullName, 1, {"bug"}).ok());
  auto third = client_->GetPullRequest(ctx_, kRepo, 1);
  ASSERT_TRUE(third.ok());
  EXPECT_EQ(transport_->last_status(), 200);
  EXPECT_EQ(third->labels, std::vector<std::string>{"bug"});
  EXPECT_EQ(client_->RateLimitFor(kInstallation).remaining, *remaining - 1);
}

TEST_F(ClientSimTest, GuardsAndFailuresBecomeTypedErrors) {
  sim::PullRequest one = NewPull("one");
  NewPull("two");

  auto unknown = client_->GetPullRequest(ctx_, kRepo, 999);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().kind, GitHubErrorKind::kNotFound);
  EXPECT_EQ(unknown.error().http_status, 404);

  PersonalTokenSource bogus("ghs_not-a-token");
  GitHubClient stranger(*transport_, bogus, clock_);
  auto refused = stranger.GetPullRequest(ctx_, kRepo, 1);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, GitHubErrorKind::kUnauthorized);
  EXPECT_EQ(refused.error().http_status, 401);

  auto stale_merge = client_->Merge(ctx_, kRepo, 1, "0000000000stale", "merge");
  ASSERT_FALSE(stale_merge.ok());
  EXPECT_EQ(stale_merge.error().kind, GitHubErrorKind::kHeadModified);
  EXPECT_EQ(stale_merge.error().http_status, 409);
  EXPECT_TRUE(IsSuperseded(stale_merge.error()));
  EXPECT_EQ(LastEffect().kind, "merge");
  EXPECT_EQ(LastEffect().status, 409);
  EXPECT_FALSE(model_->GetPull(kFullName, 1)->merged);

  ASSERT_TRUE(model_->MoveBase(kFullName, 1, /*conflicted=*/true).ok());
  auto conflicted = client_->Merge(ctx_, kRepo, 1, one.head_sha, "merge");
  ASSERT_FALSE(conflicted.ok());
  EXPECT_EQ(conflicted.error().kind, GitHubErrorKind::kNotMergeable);
  EXPECT_EQ(conflicted.error().http_status, 405);

  auto stale_update = client_->UpdateBranch(ctx_, kRepo, 1, "0000000000stale");
  ASSERT_FALSE(stale_update.ok());
  EXPECT_EQ(stale_update.error().kind, GitHubErrorKind::kUnprocessable);
  EXPECT_EQ(stale_update.error().http_status, 422);
  EXPECT_EQ(LastEffect().kind, "update_branch");
  EXPECT_EQ(LastEffect().status, 422);

  ASSERT_TRUE(client_->ClosePullRequest(ctx_, kRepo, 2).ok());
  auto closed = client_->Merge(ctx_, kRepo, 2, model_->GetPull(kFullName, 2)->head_sha, "merge");
  ASSERT_FALSE(closed.ok());
  EXPECT_EQ(closed.error().kind, GitHubErrorKind::kNotMergeable);
  EXPECT_EQ(closed.error().http_status, 405);

  // A 5xx from GitHub is transient; the next call goes through.
  SetFaults(R"({"server_errors":1,"server_error_status":503})");
  auto flaky = client_->GetPullRequest(ctx_, kRepo, 1);
  ASSERT_FALSE(flaky.ok());
  EXPECT_EQ(flaky.error().kind, GitHubErrorKind::kTransient);
  EXPECT_EQ(flaky.error().http_status, 503);
  EXPECT_TRUE(client_->GetPullRequest(ctx_, kRepo, 1).ok());
}

TEST_F(ClientSimTest, AnExhaustedLimitIsAWaitUntilTheSimulatorsReset) {
  NewPull("one");
  ASSERT_TRUE(client_->GetPullRequest(ctx_, kRepo, 1).ok());
  auto token = tokens_->Token(kInstallation);
  ASSERT_TRUE(token.ok());

  SetFaults(R"({"primary_exhausted":true})");
  auto limited = client_->GetPullRequest(ctx_, kRepo, 1);
  ASSERT_FALSE(limited.ok());
  EXPECT_EQ(limited.error().kind, GitHubErrorKind::kRateLimited);
  // The same answer, read raw: `until` is the simulator's X-RateLimit-Reset.
  HttpResponse raw = Raw("GET", "/repos/acme/app/pulls/1", "", *token);
  EXPECT_EQ(raw.status, 403);
  EXPECT_EQ(HeaderOf(raw, "X-RateLimit-Remaining"), "0");
  const std::string reset = HeaderOf(raw, "X-RateLimit-Reset");
  ASSERT_FALSE(reset.empty());
  const Time until = Time(std::chrono::seconds(std::stoll(reset)));
  EXPECT_EQ(limited.error().until, until);
  EXPECT_GT(until, clock_->Now());

  // Until then calls are refused locally: nothing reaches the simulator, even after the
  // limit is lifted there.
  SetFaults("{}");
  const int64_t sends = transport_->sends();
  auto again = client_->GetPullRequest(ctx_, kRepo, 1);
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.error().kind, GitHubErrorKind::kRateLimited);
  EXPECT_EQ(again.error().until, until);
  EXPECT_EQ(again.error().http_status, 0);
  auto merge = client_->Merge(ctx_, kRepo, 1, "x", "merge");
  ASSERT_FALSE(merge.ok());
  EXPECT_EQ(merge.error().kind, GitHubErrorKind::kRateLimited);
  EXPECT_EQ(transport_->sends(), sends);

  clock_->Set(until - std::chrono::seconds(1));
  EXPECT_FALSE(client_->GetPullRequest(ctx_, kRepo, 1).ok());
  EXPECT_EQ(transport_->sends(), sends);

  clock_->Set(until + std::chrono::seconds(1));
  auto after = client_->GetPullRequest(ctx_, kRepo, 1);
  ASSERT_TRUE(after.ok()) << after.error().ToString();
  EXPECT_GT(transport_->sends(), sends);
  EXPECT_GT(client_->RateLimitFor(kInstallation).remaining.value_or(0), 0);
}

TEST_F(ClientSimTest, RetryAfterFromTheSimulatorIsHonoured) {
  NewPull("one");
  ASSERT_TRUE(client_->GetPullRequest(ctx_, kRepo, 1).ok());
  SetFaults(R"({"secondary_rate_limits":1,"retry_after_seconds":30})");
  const Time now = clock_->Now();
  auto limited = client_->ListReviews(ctx_, kRepo, 1);
  ASSERT_FALSE(limited.ok());
  EXPECT_EQ(limited.error().kind, GitHubErrorKind::kRateLimited);
  EXPECT_EQ(limited.error().until, now + std::chrono::seconds(30));
  const int64_t sends = transport_->sends();
  clock_->Advance(std::chrono::seconds(29));
  EXPECT_FALSE(client_->ListReviews(ctx_, kRepo, 1).ok());
  EXPECT_EQ(transport_->sends(), sends);
  clock_->Advance(std::chrono::seconds(2));
  EXPECT_TRUE(client_->ListReviews(ctx_, kRepo, 1).ok());
}

}  // namespace
}  // namespace gatehouse
