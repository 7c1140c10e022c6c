#include "admin/admin_listener.h"

#include <utility>

#include "admin/admin_api.h"
#include "admin/admin_auth.h"
#include "admin/admin_handler.h"
#include "admin/dashboard.h"
#include "http/server.h"

namespace gatehouse::admin {

Result<std::unique_ptr<AdminListener>> AdminListener::Start(const AdminListenerOptions& options,
                                                            Store& store,
                                                            const metrics::Registry& registry,
                                                            ClockPtr clock) {
  if (options.token.empty()) return InvalidArgument("the admin listener needs a token");
  GH_RETURN_IF_ERROR(CheckAdminListen(options.listen, true));
  std::unique_ptr<AdminListener> l(new AdminListener());
  l->api_ = std::make_unique<AdminApi>(store, clock, options.reviewers);
  l->dashboard_ = std::make_unique<Dashboard>(store, clock, options.reviewers);
  AdminHandlerOptions handler;
  handler.token = options.token;
  handler.threads = options.threads;
  l->handler_ = std::make_unique<AdminHandler>(*l->api_, registry, l->dashboard_.get(), handler);
  HttpServerOptions http;
  http.listen = options.listen;
  http.threads = 1;
  http.body_limit = 64 * 1024;  // a login form or an empty POST
  auto server = HttpServer::Start(http, *l->handler_);
  if (!server.ok()) return server.status().WithContext("the admin listener on " + options.listen);
  l->http_ = std::move(server).value();
  return l;
}

AdminListener::~AdminListener() { Stop(std::chrono::seconds(0)); }

uint16_t AdminListener::port() const { return http_ ? http_->port() : 0; }

void AdminListener::Stop(Duration grace) {
  if (http_) http_->Stop(grace);
}

}  // namespace gatehouse::admin
