// AdminHandler: everything the admin listener serves (docs/ADMIN_API.md) — the JSON API
// (admin/admin_api.h), Prometheus's /metrics (base/metrics.h) and the dashboard
// (admin/dashboard.h) — behind the admin token.
//
//   - Every path but /login needs the token: `Authorization: Bearer <token>` or the dashboard's
//     cookie. Without it the API and /metrics answer 401 (with `WWW-Authenticate: Bearer`), a
//     dashboard page redirects to /login.
//   - GET /login is the form; POST /login with the right token sets the HttpOnly, SameSite=Strict
//     cookie and redirects to /; a wrong one is 401 and the form again. POST /logout clears it.
//   - A POST authenticated by the cookie alone must come from the dashboard itself: an Origin
//     header, when sent, must name the Host it was sent to (403 otherwise).
//
// The store is read and written on the handler's own threads (`threads`), never on the HTTP
// server's I/O threads; with more than `max_queued` requests waiting, new ones get 503.
// Destroying the handler answers what is queued and joins its threads; the HTTP server using
// it must be stopped first.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "admin/admin_api.h"
#include "base/metrics.h"
#include "http/handler.h"

namespace gatehouse::admin {

class Dashboard;

struct AdminHandlerOptions {
  std::string token;  // required: non-empty
  int threads = 2;
  size_t max_queued = 64;
};

class AdminHandler final : public HttpHandler {
 public:
  // `api`, `registry` and `dashboard` (null: no dashboard pages) must outlive the handler.
  AdminHandler(AdminApi& api, const metrics::Registry& registry, const Dashboard* dashboard,
               AdminHandlerOptions options);
  ~AdminHandler() override;
  AdminHandler(const AdminHandler&) = delete;
  AdminHandler& operator=(const AdminHandler&) = delete;

  void Handle(HttpRequest request, Responder respond) override;

 private:
  struct Pool;
  HttpResponse Answer(const HttpRequest& request);
  HttpResponse AnswerOrError(const HttpRequest& request);
  HttpResponse Login(const HttpRequest& request);

  AdminApi& api_;
  const metrics::Registry& registry_;
  const Dashboard* dashboard_;
  const AdminHandlerOptions options_;
  std::unique_ptr<Pool> pool_;
};

}  // namespace gatehouse::admin
