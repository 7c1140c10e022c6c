// AdminListener: the admin listener as one object (docs/ADMIN_API.md) — the JSON API, the
// dashboard and /metrics behind the admin token, on an HttpServer of its own, separate from
// the webhook listener so that it can stay on loopback (or a private network) while webhooks
// come from GitHub.
//
// Lifecycle: Start → Stop (or the destructor). The registry and the store must outlive it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "admin/views.h"
#include "base/clock.h"
#include "base/metrics.h"
#include "base/status.h"
#include "store/store.h"

namespace gatehouse {
class HttpServer;
}

namespace gatehouse::admin {

class AdminApi;
class AdminHandler;
class Dashboard;

struct AdminListenerOptions {
  std::string listen = "127.0.0.1:8081";  // port 0 picks one
  std::string token;                      // required: non-empty
  int threads = 2;                        // store reads and writes happen on these
  std::vector<ReviewerConfig> reviewers;  // this process's reviewers file (slots, roles)
};

class AdminListener {
 public:
  // Binds and serves. InvalidArgument for an empty token or a malformed address (the
  // loopback-without-token rule is the caller's, CheckAdminListen: here a token is always
  // set); Unavailable when the address cannot be bound.
  static Result<std::unique_ptr<AdminListener>> Start(const AdminListenerOptions& options,
                                                      Store& store,
                                                      const metrics::Registry& registry,
                                                      ClockPtr clock);
  ~AdminListener();
  AdminListener(const AdminListener&) = delete;
  AdminListener& operator=(const AdminListener&) = delete;

  uint16_t port() const;
  // Stops taking requests and answers those in flight (up to `grace`). Idempotent.
  void Stop(Duration grace);

 private:
  AdminListener() = default;
  std::unique_ptr<AdminApi> api_;
  std::unique_ptr<Dashboard> dashboard_;
  std::unique_ptr<AdminHandler> handler_;
  std::unique_ptr<HttpServer> http_;
};

}  // namespace gatehouse::admin
