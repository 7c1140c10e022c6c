// The front door end to end, in one process: a real HTTP server on loopback, the real
// webhook handler with signatures, the inbox writer on a real SQLite file, and the router.
// Every payload in ../shared/fixtures/github-webhooks is posted, signed, and followed to its
// terminal state.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/engine_test_util.h"
#include "engine/inbox_router.h"
#include "engine/inbox_writer.h"
#include "github/signature.h"
#include "http/server.h"
#include "http/test_client.h"
#include "http/webhook_handler.h"
#include "store/sqlite/sqlite_store.h"
#include "store/store_test_util.h"

namespace gatehouse {
namespace {

namespace fs = std::filesystem;
using http_testing::BuildRequest;
using http_testing::ClientResponse;
using http_testing::RoundTrip;

constexpr char kSecret[] = "ingress-test-secret";

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class Ingress {
 public:
  Ingress() {
    auto s = OpenSqliteStore(dir_.File("g.db"));
    if (!s.ok()) std::abort();
    store_ = std::move(s).value();
    RouterOptions ro;
    ro.debounce = Duration(0);
    ro.poll_interval = std::chrono::milliseconds(5);
    ro.on_batch = [this] { batches_.Add(); };
    router_ = std::make_unique<InboxRouter>(*store_, clock_, ro);
    writer_ = std::make_unique<InboxWriter>(*store_, clock_, [this] { router_->Wake(); });
    WebhookOptions wo;
    wo.secrets = {kSecret};
    handler_ = std::make_unique<WebhookHandler>(wo, *writer_, *clock_);
    HttpServerOptions ho;
    ho.listen = "127.0.0.1:0";
    ho.on_body_too_large = [this] { handler_->OnBodyTooLarge(); };
    router_->Start();
    writer_->Start();
    auto server = HttpServer::Start(ho, *handler_);
    if (!server.ok()) std::abort();
    server_ = std::move(server).value();
  }
  ~Ingress() {
    server_->Stop(std::chrono::seconds(5));
    writer_->Stop();
    router_->Stop();
  }

  ClientResponse Post(const std::string& event, const std::string& id, const std::string& body,
                      const std::string& secret = kSecret) {
    return RoundTrip(server_->port(),
                     BuildRequest("POST", "/webhook",
                                  {{"X-GitHub-Event", event},
                                   {"X-GitHub-Delivery", id},
                                   {"X-Hub-Signature-256", "sha256=" + HmacSha256Hex(secret, body)},
                                   {"Content-Type", "application/json"}},
                                  body));
  }

  // Waits until no delivery is left in 'accepted' (routing may leave some 'unresolved').
  // A delivery is answered 2xx only after its commit, and the commit wakes the router; so
  // while one is still open, the router has a batch to come that routes it.
  bool WaitRouted() {
    while (true) {
      const int64_t seen = batches_.count();
      // Read without claiming: a claim here would take deliveries from the router.
      auto funnel = store_->inbox().GetFunnel();
      if (!funnel.ok()) return false;
      if (funnel->in_flight == funnel->unresolved) return true;
      if (!batches_.AwaitAtLeast(seen + 1)) return false;  // the safety net ran out
    }
  }

  InboxEntry Delivery(const std::string& id) {
    auto d = store_->inbox().GetDelivery(id);
    EXPECT_TRUE(d.ok() && d->has_value()) << id;
    return d.ok() && d->has_value() ? **d : InboxEntry{};
  }

  Store& store() { return *store_; }

 private:
  testing::TempDir dir_;
  testing::EventCount batches_;  // batches the router's loop applied
  ClockPtr clock_ = std::make_shared<RealClock>();
  StorePtr store_;
  std::unique_ptr<InboxRouter> router_;
  std::unique_ptr<InboxWriter> writer_;
  std::unique_ptr<WebhookHandler> handler_;
  std::unique_ptr<HttpServer> server_;
};

void ExpectBalanced(const Funnel& f) {
  EXPECT_EQ(f.received, f.routed + f.ignored + f.duplicate + f.rejected + f.dead + f.in_flight);
}

TEST(IngressTest, EveryFixtureIsAcceptedAndEndsRoutedIgnoredOrVisiblyUnresolved) {
  Ingress ingress;
  std::vector<std::pair<std::string, std::string>> posted;  // (event/file, delivery id)
  int n = 0;
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(GATEHOUSE_FIXTURES)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_GT(files.size(), 100u) << "fixtures missing at " << GATEHOUSE_FIXTURES;
  for (const fs::path& file : files) {
    const std::string event = file.parent_path().filename().string();
    const std::string id = "fixture-" + std::to_string(++n);
    ClientResponse r = ingress.Post(event, id, ReadFile(file));
    ASSERT_EQ(r.status, event == "ping" ? 200 : 202) << file << ": " << r.body;
    posted.emplace_back(event + "/" + file.filename().string(), id);
  }
  ASSERT_TRUE(ingress.WaitRouted());

  std::map<std::string, InboxEntry> by_name;
  int unresolved = 0;
  for (const auto& [name, id] : posted) {
    InboxEntry e = ingress.Delivery(id);
    by_name[name] = e;
    EXPECT_NE(e.state, InboxState::kDead) << name << ": " << e.state_reason;
    EXPECT_NE(e.state, InboxState::kAccepted) << name;
    if (e.state == InboxState::kUnresolved) {
      ++unresolved;
      // Only checks and statuses without a PR list may wait for a SHA lookup.
      EXPECT_TRUE(name.rfind("status/", 0) == 0 || name.rfind("check_", 0) == 0 ||
                  name.rfind("workflow_run/", 0) == 0)
          << name;
    }
    if (e.state == InboxState::kIgnored) {
      EXPECT_FALSE(e.state_reason.empty()) << name;
    }
  }
  // The PR-related ones, with the keys their payloads name.
  for (const char* action :
       {"opened", "reopened", "synchronize", "edited", "ready_for_review", "converted_to_draft",
        "closed", "labeled", "unlabeled", "review_requested"}) {
    const std::string name = std::string("pull_request/") + action + ".payload.json";
    if (!by_name.count(name)) continue;  // not every action has a fixture (edited has none)
    EXPECT_EQ(by_name[name].state, InboxState::kRouted) << name;
  }
  EXPECT_EQ(by_name["pull_request/assigned.payload.json"].state, InboxState::kIgnored);
  EXPECT_EQ(by_name["pull_request_review/submitted.payload.json"].state, InboxState::kRouted);
  EXPECT_EQ(by_name["check_run/completed.payload.json"].state, InboxState::kRouted);
  EXPECT_EQ(by_name["check_suite/completed.payload.json"].state, InboxState::kRouted);
  EXPECT_EQ(by_name["check_run/created.payload.json"].state, InboxState::kIgnored);
  EXPECT_EQ(by_name["ping/payload.json"].state, InboxState::kIgnored);
  EXPECT_EQ(by_name["star/created.payload.json"].state, InboxState::kIgnored);
  EXPECT_EQ(by_name["installation/created.payload.json"].state, InboxState::kRouted);
  // The status fixture's commit is the head of no PR gatehouse has seen.
  EXPECT_EQ(by_name["status/payload.json"].state, InboxState::kUnresolved);

  auto pr = ingress.store().work().GetWorkItem("codertocat/hello-world#2");
  ASSERT_TRUE(pr.ok() && pr->has_value());
  EXPECT_GE((*pr)->requested_gen, 10) << "each routed PR event is one signal on one item";

  auto funnel = ingress.store().inbox().GetFunnel();
  ASSERT_TRUE(funnel.ok());
  EXPECT_EQ(funnel->received, static_cast<int64_t>(posted.size()));
  EXPECT_EQ(funnel->dead, 0);
  EXPECT_EQ(funnel->in_flight, unresolved);
  EXPECT_EQ(funnel->unresolved, unresolved);
  ExpectBalanced(*funnel);
}

TEST(IngressTest, ACheckWithoutPullRequestsIsResolvedByAKnownHead) {
  Ingress ingress;
  const fs::path root = GATEHOUSE_FIXTURES;
  const std::string pr = ReadFile(root / "pull_request" / "synchronize.payload.json");
  ASSERT_EQ(ingress.Post("pull_request", "pr-1", pr).status, 202);
  ASSERT_TRUE(ingress.WaitRouted());
  const std::string head =
      boost::json::parse(pr).at("pull_request").at("head").at("sha").as_string().c_str();
  // A status on that head (the fixture, moved to the PR's commit): statuses carry no PR list.
  boost::json::value status = boost::json::parse(ReadFile(root / "status" / "payload.json"));
  status.as_object()["sha"] = head;
  ASSERT_EQ(ingress.Post("status", "st-1", boost::json::serialize(status)).status, 202);
  ASSERT_TRUE(ingress.WaitRouted());
  InboxEntry e = ingress.Delivery("st-1");
  EXPECT_EQ(e.state, InboxState::kRouted) << e.state_reason;
  auto item = ingress.store().work().GetWorkItem("codertocat/hello-world#2");
  ASSERT_TRUE(item.ok() && item->has_value());
  EXPECT_EQ((*item)->requested_gen, 2);
  EXPECT_NE(std::find((*item)->reasons.begin(), (*item)->reasons.end(), "status"),
            (*item)->reasons.end());
}

TEST(IngressTest, DuplicatesConflictsAndBadRequestsAreCountedNotRouted) {
  Ingress ingress;
  const std::string body =
      ReadFile(fs::path(GATEHOUSE_FIXTURES) / "pull_request" / "opened.payload.json");
  EXPECT_EQ(ingress.Post("pull_request", "dup-1", body).status, 202);
  EXPECT_EQ(ingress.Post("pull_request", "dup-1", body).status, 200);
  EXPECT_EQ(ingress.Post("pull_request", "dup-1", body + " ").status, 409);
  EXPECT_EQ(ingress.Post("pull_request", "bad-sig", body, "wrong secret").status, 401);
  EXPECT_EQ(ingress.Post("pull_request", "bad-json", "{not json").status, 400);
  ASSERT_TRUE(ingress.WaitRouted());
  auto item = ingress.store().work().GetWorkItem("codertocat/hello-world#2");
  ASSERT_TRUE(item.ok() && item->has_value());
  EXPECT_EQ((*item)->requested_gen, 1) << "the duplicate and the conflict routed nothing";
  EXPECT_FALSE(ingress.store().inbox().GetDelivery("bad-sig")->has_value());
  EXPECT_FALSE(ingress.store().inbox().GetDelivery("bad-json")->has_value());
}

}  // namespace
}  // namespace gatehouse
