// The admin listener for real: an HttpServer on loopback (port 0) serving AdminHandler over a
// SQLite store that a real router filled from GitHub's fixture payloads. The token on every
// path, each endpoint's document against what the store says, the operator's actions (re-arm,
// replay, pause/resume), the dashboard's login and pages, and /metrics through Prometheus's
// own parser.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <boost/json.hpp>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>

#include "admin/admin_api.h"
#include "admin/admin_auth.h"
#include "admin/admin_handler.h"
#include "admin/dashboard.h"
#include "admin/store_metrics.h"
#include "base/process_metrics.h"
#include "base/subject.h"
#include "engine/inbox_router.h"
#include "http/query.h"
#include "http/server.h"
#include "http/test_client.h"
#include "store/store_test_util.h"

namespace gatehouse::admin {
namespace {

namespace json = boost::json;
using http_testing::ClientResponse;
using http_testing::TestConnection;
using std::chrono::seconds;
using ::testing::HasSubstr;
using ::testing::Not;

const Time kT0 = FromMicros(1'800'000'000'000'000);
constexpr char kToken[] = "s3cret token/with;odd=chars";

std::string Fixture(const std::string& event, const std::string& action) {
  std::ifstream in(std::string(GATEHOUSE_FIXTURES) + "/" + event + "/" + action + ".payload.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class AdminTest : public ::testing::Test {
 protected:
  void SetUp() override {
    store_ = gatehouse::testing::SqliteTestBackend().open_fresh(dir_);
    clock_ = std::make_shared<SimClock>(kT0);
    const std::vector<ReviewerConfig> reviewers = {{"alice-bot", {"security", "style"}, 3}};
    api_ = std::make_unique<AdminApi>(*store_, clock_, reviewers);
    dashboard_ = std::make_unique<Dashboard>(*store_, clock_, reviewers);
    RegisterStoreMetrics(registry_, *store_, clock_);
    metrics::AddProcessCollectors(registry_);
    handler_ = std::make_unique<AdminHandler>(*api_, registry_, dashboard_.get(),
                                              AdminHandlerOptions{.token = kToken});
    HttpServerOptions http;
    http.listen = "127.0.0.1:0";
    auto server = HttpServer::Start(http, *handler_);
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(*server);
    pr_ = Subject::PullRequest("Codertocat/Hello-World", 2)->key();
  }
  void TearDown() override {
    if (server_) server_->Stop(seconds(5));
  }

  // Accepts a fixture payload under `id` and routes it with the real router.
  void Deliver(const std::string& id, const std::string& event, const std::string& action) {
    Delivery d;
    d.delivery_id = id;
    d.event = event;
    d.action = action;
    d.body = Fixture(event, action);
    ASSERT_FALSE(d.body.empty());
    d.body_sha256 = "0";
    d.received_at = clock_->Now();
    d.headers = {{"X-GitHub-Delivery", id},
                 {"X-GitHub-Event", event},
                 {"User-Agent", "GitHub-Hookshot/044aadd"}};
    ASSERT_TRUE(store_->inbox().AcceptDeliveries({&d, 1}, {}, clock_->Now()).ok());
    Route();
  }
  void Route() {
    InboxRouter router(*store_, clock_, RouterOptions{});
    auto routed = router.RouteOnce(true);
    ASSERT_TRUE(routed.ok()) << routed.status().ToString();
  }
  // A work item that dies on its first failure.
  void MakeDead(const std::string& key) {
    Signal s{key, "pushed", {}};
    ASSERT_TRUE(store_->work().Enqueue({&s, 1}, clock_->Now(), Durability::kAcknowledged).ok());
    auto leases = store_->work().Claim("w", 100, seconds(30), clock_->Now());
    ASSERT_TRUE(leases.ok());
    for (const Lease& l : *leases) {
      PassFinish f;
      f.key = l.key;
      f.fence = l.fence;
      f.kind = l.key == key ? PassFinish::Kind::kDead : PassFinish::Kind::kCompleted;
      f.error = "GitHub said 403: Resource not accessible by integration";
      f.attempts = 1;
      ASSERT_TRUE(store_->work().Finish({&f, 1}, clock_->Now()).ok());
    }
  }

  ClientResponse Send(const std::string& method, const std::string& target,
                      const std::string& auth = std::string("Bearer ") + kToken,
                      const std::string& body = "", const std::string& extra = "") {
    auto c = TestConnection::Connect(server_->port());
    EXPECT_NE(c, nullptr);
    if (!c) return {};
    std::string req = method + " " + target +
                      " HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(server_->port()) + "\r\n";
    if (!auth.empty()) req += "Authorization: " + auth + "\r\n";
    req += extra;
    req +=
        "Content-Length: " + std::to_string(body.size()) + "\r\nConnection: close\r\n\r\n" + body;
    EXPECT_TRUE(c->Send(req));
    return c->Read();
  }
  json::object Json(const ClientResponse& r) {
    boost::system::error_code ec;
    json::value v = json::parse(r.body, ec);
    EXPECT_FALSE(ec) << r.body;
    return v.is_object() ? v.as_object() : json::object{};
  }
  json::object GetJson(const std::string& target) {
    ClientResponse r = Send("GET", target);
    EXPECT_EQ(r.status, 200) << target << ": " << r.body;
    return Json(r);
  }

  gatehouse::testing::TempDir dir_;
  StorePtr store_;
  std::shared_ptr<SimClock> clock_;
  metrics::Registry registry_;
  std::unique_ptr<AdminApi> api_;
  std::unique_ptr<Dashboard> dashboard_;
  std::unique_ptr<AdminHandler> handler_;
  std::unique_ptr<HttpServer> server_;
  std::string pr_;
};

TEST_F(AdminTest, EveryPathButTheLoginNeedsTheToken) {
  for (const char* target : {"/api/v1/status", "/api/v1/work", "/api/v1/dead", "/metrics",
                             "/api/v1/reviewers", "/api/v1/ledger/intents", "/api/v1/nothing"}) {
    ClientResponse none = Send("GET", target, "");
    EXPECT_EQ(none.status, 401) << target;
    EXPECT_THAT(none.Header("www-authenticate"), HasSubstr("Bearer")) << target;
    EXPECT_EQ(Send("GET", target, "Bearer wrong").status, 401) << target;
    EXPECT_EQ(Send("GET", target, std::string("Bearer ") + kToken + "x").status, 401) << target;
    EXPECT_EQ(Send("GET", target, "Basic Zm9vOmJhcg==").status, 401) << target;
  }
  EXPECT_EQ(Send("POST", "/api/v1/dead/rearm", "").status, 401);
  ClientResponse page = Send("GET", "/", "");
  EXPECT_EQ(page.status, 303);
  EXPECT_EQ(page.Header("location"), "/login");
  EXPECT_EQ(Send("GET", "/login", "").status, 200);
  EXPECT_EQ(Send("GET", "/api/v1/status", std::string("bearer  ") + kToken).status, 200)
      << "the scheme is case-insensitive";
}

TEST_F(AdminTest, StatusIsTheStoresFunnelAndWork) {
  Deliver("d-1", "pull_request", "opened");
  Deliver("d-2", "pull_request", "synchronize");
  MakeDead("acme/app#9");
  json::object s = GetJson("/api/v1/status");
  auto funnel = store_->inbox().GetFunnel();
  ASSERT_TRUE(funnel.ok());
  EXPECT_EQ(s.at("received").as_int64(), funnel->received);
  EXPECT_EQ(s.at("received").as_int64(), 2);
  EXPECT_EQ(s.at("routed").as_int64(), funnel->routed);
  EXPECT_TRUE(s.at("balanced").as_bool());
  const json::object& work = s.at("work").as_object();
  EXPECT_EQ(work.at("dead").as_int64(), 1);
  EXPECT_EQ(work.at("pending").as_int64(), 1) << pr_ << " waits for its pass";
  clock_->Advance(seconds(90));
  s = GetJson("/api/v1/status");
  EXPECT_GE(s.at("work").as_object().at("oldest_pending_age_seconds").to_number<double>(), 88.0);
}

TEST_F(AdminTest, WorkItemsComeInPagesThatCoverEachKeyOnce) {
  for (int i = 1; i <= 7; ++i) {
    Signal s{"acme/app#" + std::to_string(i), "swept", {}};
    ASSERT_TRUE(store_->work().Enqueue({&s, 1}, kT0, Durability::kAcknowledged).ok());
  }
  std::vector<std::string> seen;
  std::string after;
  for (int page = 0; page < 10; ++page) {
    json::object p = GetJson("/api/v1/work?state=pending&limit=3&after=" + PercentEncode(after));
    for (const json::value& v : p.at("items").as_array()) {
      seen.emplace_back(v.as_object().at("key").as_string());
    }
    if (p.at("next").is_null()) break;
    after = std::string(p.at("next").as_string());
  }
  EXPECT_EQ(seen.size(), 7u);
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end()));
  EXPECT_EQ(std::set<std::string>(seen.begin(), seen.end()).size(), 7u);
  EXPECT_EQ(Send("GET", "/api/v1/work?limit=0").status, 400);
  EXPECT_EQ(Send("GET", "/api/v1/work?limit=501").status, 400);
  EXPECT_EQ(Send("GET", "/api/v1/work?state=sleeping").status, 400);
  json::object one = GetJson("/api/v1/work/item?key=" + PercentEncode("acme/app#3"));
  EXPECT_EQ(one.at("state").as_string(), "pending");
  EXPECT_EQ(Send("GET", "/api/v1/work/item?key=" + PercentEncode("acme/app#99")).status, 404);
}

TEST_F(AdminTest, DeadItemsShowTheirReasonAndAreReArmedOneOrAllMatching) {
  MakeDead("acme/app#1");
  MakeDead("acme/app#2");
  MakeDead("other/repo#3");
  json::object dead = GetJson("/api/v1/dead");
  ASSERT_EQ(dead.at("items").as_array().size(), 3u);
  EXPECT_THAT(std::string(dead.at("items").as_array()[0].as_object().at("last_error").as_string()),
              HasSubstr("403"));
  ClientResponse one = Send("POST", "/api/v1/work/rearm?key=" + PercentEncode("other/repo#3"));
  EXPECT_EQ(one.status, 200) << one.body;
  EXPECT_EQ(Send("POST", "/api/v1/work/rearm?key=" + PercentEncode("other/repo#3")).status, 409)
      << "no longer dead";
  EXPECT_EQ(Send("POST", "/api/v1/work/rearm?key=" + PercentEncode("no/such#1")).status, 404);
  json::object all = Json(Send("POST", "/api/v1/dead/rearm?prefix=" + PercentEncode("acme/")));
  ASSERT_EQ(all.at("rearmed").as_array().size(), 2u);
  EXPECT_TRUE(GetJson("/api/v1/dead").at("items").as_array().empty());
  auto item = store_->work().GetWorkItem("acme/app#2");
  ASSERT_TRUE(item.ok() && item->has_value());
  EXPECT_EQ((*item)->state, WorkState::kPending);
  // Each re-arm is in the PR's timeline.
  json::object t = GetJson("/api/v1/prs/acme/app/2/timeline");
  bool audited = false;
  for (const json::value& e : t.at("audit").as_array()) {
    audited |= e.as_object().at("kind").as_string() == "operator";
  }
  EXPECT_TRUE(audited);
}

TEST_F(AdminTest, ADeliveryShowsItsRoutingAndIsReplayedAsANewDelivery) {
  Deliver("d-sync", "pull_request", "synchronize");
  json::object d = GetJson("/api/v1/deliveries/d-sync");
  EXPECT_EQ(d.at("state").as_string(), "routed");
  EXPECT_EQ(d.at("headers").as_object().at("X-GitHub-Event").as_string(), "pull_request");
  EXPECT_EQ(d.at("headers").as_object().at("User-Agent").as_string(), "GitHub-Hookshot/044aadd");
  EXPECT_FALSE(d.contains("body"));
  const json::object& routing = d.at("routing").as_object();
  EXPECT_EQ(routing.at("kind").as_string(), "route");
  ASSERT_EQ(routing.at("signals").as_array().size(), 1u);
  EXPECT_EQ(routing.at("signals").as_array()[0].as_object().at("key").as_string(), pr_);
  json::object with_body = GetJson("/api/v1/deliveries/d-sync?body=1");
  EXPECT_EQ(with_body.at("body").as_object().at("action").as_string(), "synchronize");
  EXPECT_EQ(Send("GET", "/api/v1/deliveries/nope").status, 404);

  ClientResponse replay = Send("POST", "/api/v1/deliveries/d-sync/replay");
  ASSERT_EQ(replay.status, 200) << replay.body;
  EXPECT_EQ(Json(replay).at("delivery_id").as_string(), "d-sync.replay-1");
  EXPECT_EQ(Json(Send("POST", "/api/v1/deliveries/d-sync/replay")).at("delivery_id").as_string(),
            "d-sync.replay-2");
  Route();
  EXPECT_EQ(GetJson("/api/v1/deliveries/d-sync.replay-1").at("state").as_string(), "routed");
  json::object s = GetJson("/api/v1/status");
  EXPECT_EQ(s.at("received").as_int64(), 3);
  EXPECT_EQ(s.at("routed").as_int64(), 3);
  EXPECT_TRUE(s.at("balanced").as_bool());
  EXPECT_EQ(GetJson("/api/v1/deliveries/d-sync").at("state").as_string(), "routed");
  EXPECT_EQ(Send("POST", "/api/v1/deliveries/nope/replay").status, 404);
}

TEST_F(AdminTest, APrsTimelineHasItsDeliveriesActionsAndState) {
  Deliver("d-open", "pull_request", "opened");
  Deliver("d-sync", "pull_request", "synchronize");
  auto leases = store_->work().Claim("w", 1, seconds(30), clock_->Now() + seconds(5));
  ASSERT_TRUE(leases.ok() && leases->size() == 1u);
  auto intent = store_->ledger().RecordIntent(ActionKey{pr_, "merge", "abc", ""},
                                              (*leases)[0].fence, clock_->Now());
  ASSERT_TRUE(intent.ok());
  json::object t = GetJson("/api/v1/prs/Codertocat/Hello-World/2/timeline");
  EXPECT_EQ(t.at("subject").as_string(), pr_);
  EXPECT_EQ(t.at("work").as_object().at("state").as_string(), "running");
  std::vector<std::string> summaries;
  for (const json::value& e : t.at("audit").as_array()) {
    if (e.as_object().at("kind").as_string() == "delivery") {
      summaries.emplace_back(e.as_object().at("summary").as_string());
    }
  }
  ASSERT_EQ(summaries.size(), 2u);
  EXPECT_THAT(summaries[0], HasSubstr("pull_request.opened d-open: opened"));
  EXPECT_THAT(summaries[1], HasSubstr("pull_request.synchronize d-sync: pushed"));
  ASSERT_EQ(t.at("actions").as_array().size(), 1u);
  EXPECT_EQ(t.at("actions").as_array()[0].as_object().at("state").as_string(), "intent");
  json::object intents = GetJson("/api/v1/ledger/intents");
  ASSERT_EQ(intents.at("intents").as_array().size(), 1u);
  EXPECT_EQ(intents.at("intents").as_array()[0].as_object().at("subject").as_string(), pr_);
  EXPECT_EQ(Send("GET", "/api/v1/prs/acme/app/x/timeline").status, 400);
}

TEST_F(AdminTest, ReviewersArePausedAndResumed) {
  std::vector<std::pair<std::string, bool>> initial{{"alice-bot", false}};
  ASSERT_TRUE(store_->reviews().EnsureReviewers(initial, kT0).ok());
  json::object r = GetJson("/api/v1/reviewers");
  ASSERT_EQ(r.at("reviewers").as_array().size(), 1u);
  EXPECT_FALSE(r.at("reviewers").as_array()[0].as_object().at("paused").as_bool());
  EXPECT_EQ(Send("POST", "/api/v1/reviewers/alice-bot/pause").status, 200);
  auto listed = store_->reviews().ListReviewers(kT0);
  ASSERT_TRUE(listed.ok() && listed->size() == 1u);
  EXPECT_TRUE((*listed)[0].paused);
  EXPECT_EQ(Send("POST", "/api/v1/reviewers/alice-bot/resume").status, 200);
  EXPECT_FALSE(GetJson("/api/v1/reviewers")
                   .at("reviewers")
                   .as_array()[0]
                   .as_object()
                   .at("paused")
                   .as_bool());
  EXPECT_EQ(Send("POST", "/api/v1/reviewers/nobody/pause").status, 404);
  EXPECT_EQ(Send("DELETE", "/api/v1/reviewers/alice-bot/pause").status, 405);

  // Its slots and roles (this process's reviewers file) and its queue: two security runs no
  // reviewer has taken yet (a role it does not serve would not count).
  Signal s{pr_, "opened", Duration(0)};
  ASSERT_TRUE(store_->work().Enqueue({&s, 1}, kT0, Durability::kAcknowledged).ok());
  auto leases = store_->work().Claim("t", 1, seconds(60), kT0);
  ASSERT_TRUE(leases.ok() && leases->size() == 1u);
  for (const char* head :
       {"1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"}) {
    ReviewRunKey key{pr_, "security", head, "auto"};
    ASSERT_TRUE(store_->reviews().RequestRun(key, pr_, (*leases)[0].fence, kT0).ok());
  }
  ReviewRunKey other{pr_, "docs", "1111111111111111111111111111111111111111", "auto"};
  ASSERT_TRUE(store_->reviews().RequestRun(other, pr_, (*leases)[0].fence, kT0).ok());
  const json::object alice = GetJson("/api/v1/reviewers").at("reviewers").as_array()[0].as_object();
  EXPECT_EQ(alice.at("slots").as_int64(), 3);
  EXPECT_EQ(json::serialize(alice.at("roles")), R"(["security","style"])");
  EXPECT_EQ(alice.at("queued").as_int64(), 2);
  EXPECT_EQ(alice.at("running").as_int64(), 0);
  const std::string page = Send("GET", "/reviewers").body;
  EXPECT_THAT(page, HasSubstr("security, style"));
  EXPECT_THAT(page, HasSubstr("0 / 3"));
}

TEST_F(AdminTest, MetricsParseWithPrometheusOwnParserAndMatchTheStore) {
  Deliver("d-1", "pull_request", "opened");
  MakeDead("acme/app#9");
  ClientResponse r = Send("GET", "/metrics");
  ASSERT_EQ(r.status, 200);
  EXPECT_THAT(r.Header("content-type"), HasSubstr("text/plain; version=0.0.4"));
  const std::string file = dir_.path() + "/scrape.txt";
  {
    std::ofstream out(file, std::ios::binary);
    out << r.body;
  }
  const std::string command =
      std::string("/usr/bin/python3 ") + GATEHOUSE_SOURCE_DIR "/scripts/prom-parse.py " + file;
  std::FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string parsed;
  char buf[4096];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) parsed.append(buf, n);
  const int status = ::pclose(pipe);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << parsed << "\n" << r.body;
  EXPECT_THAT(parsed,
              HasSubstr("counter gatehouse_inbox_deliveries_total{outcome=\"received\"} 1.0\n"));
  EXPECT_THAT(parsed,
              HasSubstr("counter gatehouse_inbox_deliveries_total{outcome=\"routed\"} 1.0\n"));
  EXPECT_THAT(parsed, HasSubstr("gauge gatehouse_work_items{state=\"dead\"} 1.0\n"));
  EXPECT_THAT(parsed, HasSubstr("gauge gatehouse_work_items{state=\"pending\"} 1.0\n"));
  EXPECT_THAT(parsed, HasSubstr("gauge gatehouse_inbox_in_flight{} 0.0\n"));
  EXPECT_THAT(parsed, HasSubstr("counter gatehouse_store_events_total{name=\"work.dead\"} 1.0\n"));
  EXPECT_THAT(parsed, HasSubstr("gauge process_resident_memory_bytes{}"));
  EXPECT_THAT(r.body, Not(HasSubstr(kToken)));
}

TEST_F(AdminTest, TheDashboardLogsInWithACookieAndRefusesCrossOriginPosts) {
  MakeDead("acme/app#1");
  ClientResponse wrong = Send("POST", "/login", "", "token=nope",
                              "Content-Type: application/x-www-form-urlencoded\r\n");
  EXPECT_EQ(wrong.status, 401);
  EXPECT_THAT(wrong.body, HasSubstr("Wrong token"));
  EXPECT_TRUE(wrong.Header("set-cookie").empty());
  ClientResponse ok = Send("POST", "/login", "", "token=" + PercentEncode(kToken),
                           "Content-Type: application/x-www-form-urlencoded\r\n");
  ASSERT_EQ(ok.status, 303) << ok.body;
  const std::string cookie = ok.Header("set-cookie");
  EXPECT_THAT(cookie, HasSubstr("HttpOnly"));
  EXPECT_THAT(cookie, HasSubstr("SameSite=Strict"));
  EXPECT_THAT(cookie, HasSubstr("Max-Age=43200")) << "a login lasts 12 hours";
  const std::string pair = cookie.substr(0, cookie.find(';'));
  const std::string with_cookie = "Cookie: theme=dark; " + pair + "\r\n";
  ClientResponse page = Send("GET", "/", "", "", with_cookie);
  ASSERT_EQ(page.status, 200);
  EXPECT_THAT(page.Header("content-type"), HasSubstr("text/html"));
  EXPECT_THAT(page.body, HasSubstr("id=\"funnel-received\">0<"));
  EXPECT_THAT(page.body, HasSubstr("data-key=\"acme/app#1\""));
  EXPECT_EQ(Send("GET", "/api/v1/status", "", "", with_cookie).status, 200);
  EXPECT_EQ(Send("POST", "/api/v1/work/rearm?key=" + PercentEncode("acme/app#1"), "", "",
                 with_cookie + "Origin: http://evil.example\r\n")
                .status,
            403);
  EXPECT_EQ(
      Send("POST", "/api/v1/work/rearm?key=" + PercentEncode("acme/app#1"), "", "",
           with_cookie + "Origin: http://127.0.0.1:" + std::to_string(server_->port()) + "\r\n")
          .status,
      200);
  for (const char* target : {"/work", "/dead", "/reviewers", "/pr?subject=acme%2Fapp%231"}) {
    EXPECT_EQ(Send("GET", target, "", "", with_cookie).status, 200) << target;
  }
  EXPECT_EQ(Send("GET", "/pr?subject=%3Cscript%3E", "", "", with_cookie).body.find("<script>alert"),
            std::string::npos);
}

// GET /api/v1/queues and the dashboard's Queues page: each queue's open entries in its order,
// with a position and an ETA at the pace of its recent landings, and its ended entries.
TEST_F(AdminTest, QueuesListTheirEntriesInOrderWithAnEtaAtTheRecentPace) {
  const std::string queue = "acme/app@main/queue";
  auto fence_of = [&](const std::string& key) {
    Signal s{key, "pushed", {}};
    EXPECT_TRUE(store_->work().Enqueue({&s, 1}, clock_->Now(), Durability::kAcknowledged).ok());
    auto leases = store_->work().Claim("w", 100, seconds(600), clock_->Now());
    EXPECT_TRUE(leases.ok());
    for (const Lease& l : *leases) {
      if (l.key == key) return l.fence;
    }
    ADD_FAILURE() << "no lease for " << key;
    return int64_t{0};
  };
  std::vector<int64_t> ids;
  for (int n = 1; n <= 4; ++n) {
    const std::string pr = "acme/app#" + std::to_string(n);
    auto e = store_->queues().Enter(queue, QueueEntryKey{pr, "sha" + std::to_string(n), 1}, 0,
                                    fence_of(pr), kT0 + seconds(n));
    ASSERT_TRUE(e.ok()) << e.status().ToString();
    ids.push_back(e->entry.id);
  }
  const int64_t fence = fence_of(queue);
  for (int i = 0; i < 2; ++i) {  // #1 lands at +60 s, #2 at +120 s
    for (auto [from, to] : {std::pair{EntryState::kQueued, EntryState::kMerging},
                            std::pair{EntryState::kMerging, EntryState::kMerged}}) {
      ASSERT_TRUE(store_->queues()
                      .Step(ids[i], {.from = from, .to = to, .reason = "merged"}, fence,
                            kT0 + seconds(60 * (i + 1)))
                      .ok());
    }
  }
  clock_->Advance(seconds(200));
  json::object v = GetJson("/api/v1/queues");
  ASSERT_EQ(v["queues"].as_array().size(), 1u) << json::serialize(v);
  json::object q = v["queues"].as_array()[0].as_object();
  EXPECT_EQ(q["queue"].as_string(), queue);
  EXPECT_EQ(q["base"].as_string(), "main");
  EXPECT_DOUBLE_EQ(q["landing_interval_seconds"].as_double(), 60.0);
  const json::array& open = q["open"].as_array();
  ASSERT_EQ(open.size(), 2u);
  EXPECT_EQ(open[0].at("subject").as_string(), "acme/app#3");
  EXPECT_EQ(open[0].at("position").as_int64(), 0);
  EXPECT_EQ(open[0].at("eta").as_string(), FormatTime(clock_->Now() + seconds(60)));
  EXPECT_EQ(open[1].at("eta").as_string(), FormatTime(clock_->Now() + seconds(120)));
  ASSERT_EQ(q["ended"].as_array().size(), 2u);
  EXPECT_EQ(q["ended"].as_array()[0].at("subject").as_string(), "acme/app#2") << "newest first";

  ClientResponse ok = Send("POST", "/login", "", "token=" + PercentEncode(kToken),
                           "Content-Type: application/x-www-form-urlencoded\r\n");
  ASSERT_EQ(ok.status, 303);
  const std::string cookie = "Cookie: " + ok.Header("set-cookie").substr(0, ok.Header("set-cookie").find(';')) + "\r\n";
  ClientResponse page = Send("GET", "/queues", "", "", cookie);
  ASSERT_EQ(page.status, 200);
  EXPECT_THAT(page.body, HasSubstr("data-queue=\"acme/app@main/queue\""));
  EXPECT_THAT(page.body, HasSubstr("data-subject=\"acme/app#3\""));
  EXPECT_THAT(page.body, HasSubstr("class=\"ended\""));
}

TEST(AdminAuthTest, TokensCompareWholeAndTheListenerRuleHolds) {
  EXPECT_TRUE(TokenEquals("abc", "abc"));
  EXPECT_FALSE(TokenEquals("abc", "abd"));
  EXPECT_FALSE(TokenEquals("abc", "ab"));
  EXPECT_FALSE(TokenEquals("", ""));
  auto t1 = GenerateToken();
  auto t2 = GenerateToken();
  ASSERT_TRUE(t1.ok() && t2.ok());
  EXPECT_EQ(t1->size(), 64u);
  EXPECT_NE(*t1, *t2);
  EXPECT_TRUE(CheckAdminListen("127.0.0.1:8081", false).ok());
  EXPECT_TRUE(CheckAdminListen("[::1]:8081", false).ok());
  EXPECT_EQ(CheckAdminListen("0.0.0.0:8081", false).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(CheckAdminListen("10.1.2.3:8081", false).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(CheckAdminListen("0.0.0.0:8081", true).ok());
  EXPECT_EQ(HtmlEscape("<a href=\"x\">'&'</a>"),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
}

}  // namespace
}  // namespace gatehouse::admin
