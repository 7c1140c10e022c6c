#include "admin/admin_handler.h"

#include <deque>
#include <exception>
#include <functional>
#include <thread>
#include <utility>
#include <vector>

#include "admin/admin_auth.h"
#include "admin/dashboard.h"
#include "base/log.h"
#include "base/mutex.h"
#include "base/thread_name.h"
#include "http/query.h"

namespace gatehouse::admin {
namespace {

HttpResponse Redirect(std::string location) {
  HttpResponse r;
  r.status = 303;
  r.content_type = "";
  r.headers.emplace_back("Location", std::move(location));
  return r;
}

HttpResponse Unauthorized() {
  HttpResponse r = JsonError(401,
                             "the admin listener needs the admin token: "
                             "Authorization: Bearer $GATEHOUSE_ADMIN_TOKEN");
  r.headers.emplace_back("WWW-Authenticate", "Bearer realm=\"gatehouse\"");
  return r;
}

bool IsPage(std::string_view path) { return !AdminApi::Owns(path) && path != "/metrics"; }

// The host part of an Origin ("http://127.0.0.1:8081" → "127.0.0.1:8081").
std::string_view OriginHost(std::string_view origin) {
  const size_t scheme = origin.find("://");
  if (scheme != std::string_view::npos) origin.remove_prefix(scheme + 3);
  return origin.substr(0, origin.find('/'));
}

}  // namespace

// A fixed set of threads taking requests in arrival order.
struct AdminHandler::Pool {
  Mutex mu;
  CondVar cv;
  std::deque<std::function<void()>> queue GUARDED_BY(mu);
  bool stopping GUARDED_BY(mu) = false;
  std::vector<std::thread> threads;

  void Run() {
    SetThreadName("admin");
    while (true) {
      std::function<void()> task;
      {
        MutexLock lock(&mu);
        while (queue.empty() && !stopping) cv.Wait(&mu);
        if (queue.empty()) return;  // stopping, and everything queued was answered
        task = std::move(queue.front());
        queue.pop_front();
      }
      task();
    }
  }
};

AdminHandler::AdminHandler(AdminApi& api, const metrics::Registry& registry,
                           const Dashboard* dashboard, AdminHandlerOptions options)
    : api_(api),
      registry_(registry),
      dashboard_(dashboard),
      options_(std::move(options)),
      pool_(std::make_unique<Pool>()) {
  const int n = options_.threads < 1 ? 1 : options_.threads;
  for (int i = 0; i < n; ++i) pool_->threads.emplace_back([p = pool_.get()] { p->Run(); });
}

AdminHandler::~AdminHandler() {
  {
    MutexLock lock(&pool_->mu);
    pool_->stopping = true;
  }
  pool_->cv.SignalAll();
  for (std::thread& t : pool_->threads) t.join();
}

void AdminHandler::Handle(HttpRequest request, Responder respond) {
  {
    MutexLock lock(&pool_->mu);
    if (pool_->queue.size() >= options_.max_queued || pool_->stopping) {
      HttpResponse busy = JsonError(503, "the admin listener is busy; try again");
      busy.headers.emplace_back("Retry-After", "1");
      respond(std::move(busy));
      return;
    }
    pool_->queue.emplace_back(
        [this, request = std::move(request), respond = std::move(respond)]() mutable {
          respond(AnswerOrError(request));
        });
  }
  pool_->cv.Signal();
}

// A document of an unexpected shape (Boost.JSON's at() and as_*() throw) or an allocation
// failure must cost one request a 500, never the process: nothing above this catches.
HttpResponse AdminHandler::AnswerOrError(const HttpRequest& request) {
  try {
    return Answer(request);
  } catch (const std::exception& e) {
    Log(LogLevel::kError, "admin.request_failed")
        .Field("path", std::string(request.Path()))
        .Field("error", e.what());
    return JsonError(500, std::string("internal error: ") + e.what());
  }
}

HttpResponse AdminHandler::Answer(const HttpRequest& request) {
  const std::string_view path = request.Path();
  if (path == "/login") return Login(request);
  const std::string token = RequestToken(request);
  if (!TokenEquals(options_.token, token)) {
    if (!token.empty()) {
      Log(LogLevel::kWarn, "admin.unauthorized").Field("peer", request.peer).Field("path", path);
    }
    if (IsPage(path) && dashboard_ != nullptr && request.method == "GET") return Redirect("/login");
    return Unauthorized();
  }
  const bool by_cookie = request.Header("Authorization").empty();
  if (by_cookie && request.method == "POST") {
    const std::string origin = request.Header("Origin");
    if (!origin.empty() && OriginHost(origin) != request.Header("Host")) {
      return JsonError(403, "a cross-origin POST to the admin listener is refused");
    }
  }
  if (path == "/metrics") {
    if (request.method != "GET") return JsonError(405, "/metrics takes GET");
    HttpResponse r;
    r.content_type = "text/plain; version=0.0.4; charset=utf-8";
    r.body = registry_.Render();
    return r;
  }
  if (path == "/logout") {
    HttpResponse r = Redirect("/login");
    r.headers.emplace_back("Set-Cookie", std::string(kAdminCookie) +
                                             "=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0");
    return r;
  }
  if (AdminApi::Owns(path)) return api_.Serve(request);
  if (dashboard_ != nullptr) return dashboard_->Serve(request);
  return JsonError(404, "no such page");
}

HttpResponse AdminHandler::Login(const HttpRequest& request) {
  if (request.method == "GET") {
    if (dashboard_ == nullptr) return JsonError(404, "this admin listener has no dashboard");
    return dashboard_->LoginPage(false);
  }
  if (request.method != "POST") return JsonError(405, "/login takes GET and POST");
  // The form posts application/x-www-form-urlencoded: token=...
  const auto form = ParseQuery("?" + request.body);
  auto it = form.find("token");
  if (it == form.end() || !TokenEquals(options_.token, it->second)) {
    Log(LogLevel::kWarn, "admin.login_refused").Field("peer", request.peer);
    if (dashboard_ == nullptr) return Unauthorized();
    HttpResponse r = dashboard_->LoginPage(true);
    r.status = 401;
    return r;
  }
  HttpResponse r = Redirect("/");
  // The browser forgets it after kLoginSeconds (docs/ADMIN_API.md), as after /logout.
  r.headers.emplace_back("Set-Cookie", std::string(kAdminCookie) + "=" + PercentEncode(it->second) +
                                           "; Path=/; HttpOnly; SameSite=Strict; Max-Age=" +
                                           std::to_string(kLoginSeconds));
  return r;
}

}  // namespace gatehouse::admin
