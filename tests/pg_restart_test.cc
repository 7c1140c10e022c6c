// A PostgreSQL restart in the middle of a webhook storm loses nothing.
//
// The test starts a throw-away PostgreSQL cluster of its own (scripts/pg-cluster.sh, with its
// state file in the test's temporary directory, so the shared test cluster is never touched)
// and two real `gatehouse serve` processes on it. Several threads post a storm of signed
// pull_request deliveries (one distinct PR each, distinct delivery ids) to both nodes, and in
// the middle the cluster is restarted (`pg_ctl restart -m fast`). Every answer is recorded.
//
// What must hold:
//  - every delivery answered 2xx is in the inbox and ends terminal (routed or ignored);
//  - a delivery not answered 2xx got a real answer (503), never a closed connection or a hang;
//  - both processes keep answering /healthz, and /readyz is OK again after the restart;
//  - a second wave sent after the restart is answered 2xx entirely (the nodes reconnected);
//  - routing drains to in_flight 0, every work item ends idle and none is dead;
//  - both processes exit cleanly on SIGTERM (no crash along the way).
//
// It needs PostgreSQL: GATEHOUSE_TEST_PG_URL being set is the sign that this environment has it
// (the URL itself is not used). Unset, the test skips, saying why.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <functional>
#include <optional>
#include <mutex>
#include <sstream>
#include <thread>

#include "github/signature.h"
#include "http/test_client.h"
#include "store/open_store.h"
#include "store/pg_test_database.h"
#include "store/store_test_util.h"
#include "tests/child_process.h"

namespace gatehouse {
namespace {

using http_testing::BuildRequest;
using http_testing::ClientResponse;
using http_testing::TestConnection;
using Steady = std::chrono::steady_clock;

constexpr char kSecret[] = "pg-restart-secret";

// Runs `bash scripts/pg-cluster.sh ARGS` (state in the environment's GATEHOUSE_PG_STATE) and
// returns its stdout's last line; sets *ok to whether it exited 0.
std::string RunClusterScript(const std::string& args, bool* ok) {
  const std::string cmd =
      "bash '" + std::string(GATEHOUSE_SOURCE_DIR) + "/scripts/pg-cluster.sh' " + args;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) {
    *ok = false;
    return "";
  }
  std::string last;
  char buf[512];
  while (std::fgets(buf, sizeof(buf), p) != nullptr) {
    last = buf;
    while (!last.empty() && last.back() == '\n') last.pop_back();
  }
  *ok = ::pclose(p) == 0;
  return last;
}

// The test's own cluster: started in the constructor, stopped (and its directory removed) in
// the destructor, on every exit path of the test, failures included.
class OwnCluster {
 public:
  explicit OwnCluster(const std::string& state_file) {
    ::setenv("GATEHOUSE_PG_STATE", state_file.c_str(), 1);
    bool ok = false;
    url_ = RunClusterScript("start", &ok);
    if (!ok || url_.rfind("postgresql://", 0) != 0) url_.clear();
  }
  ~OwnCluster() {
    bool ok = false;
    RunClusterScript("stop", &ok);
    if (!ok) std::fprintf(stderr, "pg_restart_test: stopping the test's cluster failed\n");
  }
  OwnCluster(const OwnCluster&) = delete;
  OwnCluster& operator=(const OwnCluster&) = delete;

  const std::string& url() const { return url_; }  // empty: the cluster did not start
  bool Restart() {
    bool ok = false;
    RunClusterScript("restart", &ok);
    return ok;
  }

 private:
  std::string url_;
};

struct Node {
  std::unique_ptr<testing::ChildProcess> process;
  uint16_t port = 0;
};

Node StartServe(const std::string& db_url, const std::string& stderr_path) {
  ::setenv("GATEHOUSE_WEBHOOK_SECRET", kSecret, 1);
  Node n;
  n.process = std::make_unique<testing::ChildProcess>(
      std::vector<std::string>{GATEHOUSE_BIN, "serve", "--db", db_url, "--listen", "127.0.0.1:0",
                               "--admin-listen", "off", "--debounce-ms", "0", "--lease-seconds",
                               "2", "--log-level", "warn"},
      stderr_path);
  const std::string line = n.process->ReadLine();  // "gatehouse: listening on http://H:P/webhook"
  const size_t colon = line.rfind(':');
  const size_t slash = line.find('/', colon);
  if (colon == std::string::npos || slash == std::string::npos) return n;
  n.port = static_cast<uint16_t>(std::stoi(line.substr(colon + 1, slash - colon - 1)));
  return n;
}

int Get(uint16_t port, const std::string& path) {
  std::unique_ptr<TestConnection> conn = TestConnection::Connect(port);
  if (!conn || !conn->Send(BuildRequest("GET", path, {}, ""))) return 0;
  return conn->Read().status;
}

// Polls GET `path` on `port` until it answers 200 or `deadline` passes.
bool AnswersOkBefore(uint16_t port, const std::string& path, Steady::time_point deadline) {
  while (Steady::now() < deadline) {
    if (Get(port, path) == 200) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

// One pull_request delivery about PR `number` (the fixture with its number replaced).
struct Outgoing {
  std::string id;
  std::string body;
  std::string signature;
};

Outgoing MakeDelivery(const std::string& fixture, const std::string& id, int number) {
  std::string body = fixture;
  const std::string from = "\"number\": 2,";
  const std::string to = "\"number\": " + std::to_string(number) + ",";
  for (size_t at = body.find(from); at != std::string::npos; at = body.find(from, at + to.size())) {
    body.replace(at, from.size(), to);
  }
  return Outgoing{id, body, "sha256=" + HmacSha256Hex(kSecret, body)};
}

struct Answer {
  std::string id;
  int status = 0;  // 0: no complete response (closed, reset, or the 30 s safety timeout)
};

// Posts deliveries over one keep-alive connection to `port` (reconnecting after a connection
// the server closed) until `next` returns none; every delivery gets exactly one Answer.
std::vector<Answer> PostAll(uint16_t port, const std::function<std::optional<Outgoing>()>& next,
                            std::atomic<int>* sent) {
  std::vector<Answer> out;
  std::unique_ptr<TestConnection> conn;
  for (std::optional<Outgoing> d = next(); d; d = next()) {
    if (!conn) conn = TestConnection::Connect(port);
    Answer a{d->id, 0};
    if (conn && conn->Send(BuildRequest("POST", "/webhook",
                                        {{"X-GitHub-Event", "pull_request"},
                                         {"X-GitHub-Delivery", d->id},
                                         {"X-Hub-Signature-256", d->signature}},
                                        d->body))) {
      a.status = conn->Read().status;
    }
    if (a.status == 0) conn.reset();
    out.push_back(a);
    sent->fetch_add(1);
  }
  return out;
}

std::string ReadFixture() {
  std::ifstream in(std::string(GATEHOUSE_FIXTURES) + "/pull_request/opened.payload.json");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(PgRestartTest, RestartMidStormLosesNoAcknowledgedDelivery) {
  if (std::getenv(testing::kTestPgUrlEnv) == nullptr) {
    GTEST_SKIP() << testing::kTestPgUrlEnv
                 << " is unset: no PostgreSQL in this environment (scripts/test.sh sets it)";
  }
  testing::TempDir dir;
  OwnCluster cluster(dir.File("pg-cluster.state"));
  ASSERT_FALSE(cluster.url().empty()) << "scripts/pg-cluster.sh start failed";
  const std::string fixture = ReadFixture();
  ASSERT_NE(fixture.find("\"number\": 2,"), std::string::npos);

  Node nodes[2] = {StartServe(cluster.url(), dir.File("serve0.log")),
                   StartServe(cluster.url(), dir.File("serve1.log"))};
  ASSERT_NE(nodes[0].port, 0) << "first gatehouse serve did not start";
  ASSERT_NE(nodes[1].port, 0) << "second gatehouse serve did not start";

  // The storm: kThreads senders, alternating between the nodes, each with its own PRs. Each
  // sends until the restart is over and it has sent kAfterRestart more (a bound of kMaxPerThread
  // ends it regardless: while the server is down, refusals come fast).
  constexpr int kThreads = 6;
  constexpr int kRestartAfter = 160;  // deliveries sent before the restart begins
  constexpr int kAfterRestart = 40;   // per thread, once the restart has finished
  constexpr int kMaxPerThread = 20000;
  std::atomic<int> sent{0};
  std::atomic<bool> restart_done{false};
  std::vector<std::vector<Answer>> answers(kThreads);
  std::vector<std::thread> senders;
  for (int t = 0; t < kThreads; ++t) {
    senders.emplace_back([&, t] {
      int i = 0, after = 0;
      auto next = [&]() -> std::optional<Outgoing> {
        if (restart_done.load() && after++ >= kAfterRestart) return std::nullopt;
        if (i >= kMaxPerThread) return std::nullopt;
        const int pr = 100000 + t * kMaxPerThread + i++;
        return MakeDelivery(fixture, "storm-" + std::to_string(pr), pr);
      };
      answers[t] = PostAll(nodes[t % 2].port, next, &sent);
    });
  }
  // Restart while the senders are busy; they keep sending during and after it.
  while (sent.load() < kRestartAfter) std::this_thread::yield();
  const int sent_before_restart = sent.load();
  const bool restarted = cluster.Restart();
  const int sent_after_restart = sent.load();
  restart_done = true;
  for (auto& t : senders) t.join();
  ASSERT_TRUE(restarted) << "scripts/pg-cluster.sh restart failed";
  for (const auto& per_thread : answers) {
    EXPECT_LT(per_thread.size(), static_cast<size_t>(kMaxPerThread))
        << "a sender hit its bound before the restart ended";
  }

  std::vector<std::string> acked;
  int refused = 0;
  for (const auto& per_thread : answers) {
    for (const Answer& a : per_thread) {
      if (a.status / 100 == 2) {
        acked.push_back(a.id);
        continue;
      }
      ++refused;
      EXPECT_EQ(a.status, 503) << a.id << ": a delivery not accepted must get a 503, not a "
                                          "closed connection (0) or another status";
    }
  }
  std::printf("first wave: %zu acknowledged, %d refused (sent %d before the restart began, %d by "
              "its end)\n",
              acked.size(), refused, sent_before_restart, sent_after_restart);

  // Both nodes are alive and ready again.
  const auto ready_by = Steady::now() + std::chrono::seconds(30);
  for (const Node& n : nodes) {
    EXPECT_EQ(Get(n.port, "/healthz"), 200);
    EXPECT_TRUE(AnswersOkBefore(n.port, "/readyz", ready_by)) << "node on " << n.port;
  }

  // The second wave: the nodes have reconnected, so every delivery is accepted.
  std::vector<std::thread> second;
  std::vector<std::vector<Answer>> answers2(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    second.emplace_back([&, t] {
      int i = 0;
      auto next = [&]() -> std::optional<Outgoing> {
        if (i >= 20) return std::nullopt;
        const int pr = 900000 + t * 20 + i++;
        return MakeDelivery(fixture, "after-" + std::to_string(pr), pr);
      };
      answers2[t] = PostAll(nodes[t % 2].port, next, &sent);
    });
  }
  for (auto& t : second) t.join();
  for (const auto& per_thread : answers2) {
    for (const Answer& a : per_thread) {
      EXPECT_EQ(a.status / 100, 2) << a.id << " after the restart: " << a.status;
      if (a.status / 100 == 2) acked.push_back(a.id);
    }
  }

  // Everything acknowledged is in the inbox, and routing drains with nothing dead.
  StoreOptions options;
  options.listen = false;
  options.pool_size = 2;
  auto store = OpenStore(cluster.url(), options);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  Funnel f;
  std::vector<WorkItem> items;
  bool drained = false;
  const auto drain_by = Steady::now() + std::chrono::seconds(60);
  while (!drained && Steady::now() < drain_by) {
    auto funnel = (*store)->inbox().GetFunnel();
    auto listed = (*store)->work().ListWorkItems(WorkFilter{std::nullopt, 100000, ""});
    ASSERT_TRUE(funnel.ok()) << funnel.status().ToString();
    ASSERT_TRUE(listed.ok()) << listed.status().ToString();
    f = *funnel;
    items = *listed;
    drained = f.in_flight == 0;
    for (const WorkItem& w : items) drained = drained && w.state == WorkState::kIdle;
    if (!drained) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(drained) << "in_flight " << f.in_flight << " after 60 s";
  if (!drained) {  // what the nodes said, for the failure's reader
    for (int i = 0; i < 2; ++i) {
      bool ok = false;
      std::printf("--- serve%d.log (last lines) ---\n%s\n", i,
                  RunClusterScript("--help >/dev/null; tail -n 15 '" +
                                       dir.File("serve" + std::to_string(i) + ".log") + "' >&2",
                                   &ok)
                      .c_str());
    }
  }
  EXPECT_EQ(f.dead, 0);
  for (const std::string& id : acked) {
    auto d = (*store)->inbox().GetDelivery(id);
    ASSERT_TRUE(d.ok()) << d.status().ToString();
    ASSERT_TRUE(d->has_value()) << "acknowledged delivery " << id << " was lost";
    EXPECT_TRUE((*d)->state == InboxState::kRouted || (*d)->state == InboxState::kIgnored)
        << id << " ended " << InboxStateName((*d)->state) << ": " << (*d)->state_reason;
  }
  // One work item per distinct PR routed (each delivery is its own PR), none dead.
  EXPECT_GE(static_cast<int64_t>(items.size()), static_cast<int64_t>(acked.size()));
  for (const WorkItem& w : items) {
    EXPECT_NE(w.state, WorkState::kDead) << w.key << ": " << w.last_error;
    EXPECT_EQ(w.done_gen, w.requested_gen) << w.key << " " << WorkStateName(w.state);
  }
  std::printf("after the drain: %zu acknowledged in all, funnel received %lld routed %lld, %zu "
              "work items\n",
              acked.size(), static_cast<long long>(f.received), static_cast<long long>(f.routed),
              items.size());

  for (Node& n : nodes) {
    n.process->Signal(SIGTERM);
    EXPECT_EQ(n.process->Wait(), 0) << "a node did not exit cleanly (see its log in "
                                    << dir.File("serve*.log") << ")";
  }
}

}  // namespace
}  // namespace gatehouse
