// Durability under load: 32 concurrent clients post thousands of signed deliveries to the
// real `gatehouse serve`; the server is killed with SIGKILL in the middle. After a restart,
// every delivery id that got a 2xx is in the inbox, and routing of all of them completes.
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "github/signature.h"
#include "http/test_client.h"
#include "store/sqlite/sqlite_store.h"
#include "store/store_test_util.h"
#include "tests/child_process.h"

namespace gatehouse {
namespace {

using http_testing::BuildRequest;
using http_testing::ClientResponse;
using http_testing::TestConnection;

constexpr char kSecret[] = "crash-test-secret";

std::unique_ptr<testing::ChildProcess> StartServe(const std::string& db, uint16_t* port) {
  setenv("GATEHOUSE_WEBHOOK_SECRET", kSecret, 1);
  auto child = std::make_unique<testing::ChildProcess>(std::vector<std::string>{
      GATEHOUSE_BIN, "serve", "--db", db, "--listen", "127.0.0.1:0", "--admin-listen",
      "127.0.0.1:0", "--debounce-ms", "0", "--log-level", "error"});
  const std::string line = child->ReadLine();  // "gatehouse: listening on http://H:P/webhook"
  const size_t colon = line.rfind(':');
  const size_t slash = line.find('/', colon);
  if (colon == std::string::npos || slash == std::string::npos) {
    ADD_FAILURE() << "serve did not start: " << line;
    return child;
  }
  *port = static_cast<uint16_t>(std::stoi(line.substr(colon + 1, slash - colon - 1)));
  return child;
}

TEST(IngressCrashTest, EveryAcknowledgedDeliverySurvivesSigkill) {
  testing::TempDir dir;
  const std::string db = dir.File("g.db");
  std::ifstream in(std::string(GATEHOUSE_FIXTURES) + "/pull_request/synchronize.payload.json");
  std::ostringstream ss;
  ss << in.rdbuf();
  const std::string body = ss.str();
  const std::string signature = "sha256=" + HmacSha256Hex(kSecret, body);

  uint16_t port = 0;
  auto serve = StartServe(db, &port);
  ASSERT_NE(port, 0);

  constexpr int kClients = 32;
  constexpr int kKillAfter = 3000;  // acknowledged deliveries before the kill
  std::atomic<int> acked{0};
  std::atomic<bool> killed{false};
  std::mutex mu;
  std::vector<std::string> acked_ids;
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      std::unique_ptr<TestConnection> conn = TestConnection::Connect(port);
      for (int i = 0; conn && i < 100000; ++i) {
        const std::string id = "load-" + std::to_string(c) + "-" + std::to_string(i);
        if (!conn->Send(BuildRequest("POST", "/webhook",
                                     {{"X-GitHub-Event", "pull_request"},
                                      {"X-GitHub-Delivery", id},
                                      {"X-Hub-Signature-256", signature}},
                                     body))) {
          return;
        }
        ClientResponse r = conn->Read();
        if (r.status == 0) return;  // the server died under us
        if (r.status / 100 == 2) {
          std::lock_guard<std::mutex> lock(mu);
          acked_ids.push_back(id);
          acked.fetch_add(1);
        } else if (!killed.load()) {
          ADD_FAILURE() << id << ": " << r.status << " " << r.body;
          return;
        }
      }
    });
  }
  while (acked.load() < kKillAfter) std::this_thread::yield();
  killed = true;
  serve->Signal(SIGKILL);  // mid-load: requests are being read, stored and answered
  EXPECT_EQ(serve->Wait(), 128 + SIGKILL);
  for (auto& t : clients) t.join();
  std::printf("acknowledged before and during the kill: %zu\n", acked_ids.size());

  // Restart on the same file: everything acknowledged is there, and routing completes.
  uint16_t port2 = 0;
  auto restarted = StartServe(db, &port2);
  ASSERT_NE(port2, 0);
  auto store = OpenSqliteStore(db);
  ASSERT_TRUE(store.ok());
  for (const std::string& id : acked_ids) {
    auto d = (*store)->inbox().GetDelivery(id);
    ASSERT_TRUE(d.ok());
    ASSERT_TRUE(d->has_value()) << "acknowledged delivery " << id << " was lost";
  }
  Funnel f;
  // Routing runs in the restarted process, visible here only through the shared database
  // file: poll it.
  for (int i = 0; i < 30000; ++i) {  // until routing has drained (bounded safety net)
    auto funnel = (*store)->inbox().GetFunnel();
    ASSERT_TRUE(funnel.ok());
    f = *funnel;
    if (f.in_flight == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_EQ(f.in_flight, 0);
  EXPECT_EQ(f.dead, 0);
  EXPECT_GE(f.routed, static_cast<int64_t>(acked_ids.size()));
  EXPECT_EQ(f.received, f.routed + f.ignored + f.duplicate + f.rejected + f.dead + f.in_flight);
  auto item = (*store)->work().GetWorkItem("codertocat/hello-world#2");
  ASSERT_TRUE(item.ok() && item->has_value());
  EXPECT_EQ((*item)->requested_gen, f.routed) << "one signal per routed delivery";
  restarted->Signal(SIGTERM);
  EXPECT_EQ(restarted->Wait(), 0);
}

}  // namespace
}  // namespace gatehouse
