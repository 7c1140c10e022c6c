// The front door in one process, for tests that post to it: a real HTTP server on loopback,
// the real webhook handler with signatures, the inbox writer on a real SQLite file, and the
// router. Post() signs with kSecret unless told otherwise; WaitRouted() waits, without a
// sleep, until routing has taken every accepted delivery.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>
#include <string>

#include "engine/engine_test_util.h"
#include "engine/inbox_router.h"
#include "engine/inbox_writer.h"
#include "github/signature.h"
#include "http/server.h"
#include "http/test_client.h"
#include "http/webhook_handler.h"
#include "store/sqlite/sqlite_store.h"
#include "store/store_test_util.h"

namespace gatehouse::ingress_testing {

using http_testing::BuildRequest;
using http_testing::ClientResponse;
using http_testing::RoundTrip;

constexpr char kSecret[] = "ingress-test-secret";

inline std::string ReadFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class Ingress {
 public:
  // `adjust` changes the HTTP server's options (timeouts) before it starts.
  explicit Ingress(std::function<void(HttpServerOptions&)> adjust = {}) {
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
    if (adjust) adjust(ho);
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
  uint16_t port() const { return server_->port(); }
  // Stops the writer and the router; what they counted is then in the store.
  void StopEngine() {
    writer_->Stop();
    router_->Stop();
  }

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

inline void ExpectBalanced(const Funnel& f) {
  EXPECT_EQ(f.received, f.routed + f.ignored + f.duplicate + f.rejected + f.dead + f.in_flight);
}

}  // namespace gatehouse::ingress_testing
