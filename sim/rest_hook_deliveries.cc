// SimHandler: the App's webhook deliveries, as GitHub serves them (docs/SIMULATOR.md):
//
//   GET  /app/hook/deliveries[?per_page=1..100&cursor=C]  newest first; Link rel="next" carries
//                                                          the next page's cursor
//   GET  /app/hook/deliveries/{id}                         one attempt with request headers and
//                                                          payload (parsed JSON), 404 unknown
//   POST /app/hook/deliveries/{id}/attempts                redeliver: 202, a new attempt (same
//                                                          guid, redelivery true)
//
// Each needs an App JWT, as on GitHub. Aimed faults apply (path /app/hook/...); the counters do
// not (they are for /repos/ calls). Calls count against the App's own rate window.
#include <charconv>
#include <limits>

#include "sim/jwt.h"
#include "sim/render.h"
#include "sim/rest.h"

namespace gatehouse::sim {
namespace json = boost::json;

namespace {

// The App's rate window, apart from every installation's (installation ids are positive).
constexpr int64_t kAppWindow = std::numeric_limits<int64_t>::min();

std::optional<int64_t> ParseId(std::string_view s) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || v < 0) return std::nullopt;
  return v;
}

json::object Summary(const DeliveryAttempt& a) {
  json::object o;
  o["id"] = a.id;
  o["guid"] = a.guid;
  o["delivered_at"] = GitHubTime(a.delivered_at);
  o["redelivery"] = a.redelivery;
  o["duration"] = a.duration_s;
  o["status"] = a.status;
  o["status_code"] = a.status_code;
  o["event"] = a.event;
  o["action"] = a.action.empty() ? json::value(nullptr) : json::value(a.action);
  o["installation_id"] =
      a.installation_id == 0 ? json::value(nullptr) : json::value(a.installation_id);
  o["repository_id"] = a.repository_id == 0 ? json::value(nullptr) : json::value(a.repository_id);
  o["throttled_at"] = nullptr;
  return o;
}

json::object Detail(const DeliveryAttempt& a) {
  json::object o = Summary(a);
  o["url"] = a.url;
  json::object headers;
  for (const auto& [name, value] : a.request_headers) headers[name] = value;
  boost::system::error_code ec;
  json::value payload = json::parse(a.payload, ec);
  if (ec) payload = nullptr;
  json::object request;
  request["headers"] = std::move(headers);
  request["payload"] = std::move(payload);
  o["request"] = std::move(request);
  json::object response;
  response["headers"] = json::object();
  response["payload"] = nullptr;
  o["response"] = std::move(response);
  return o;
}

}  // namespace

bool SimHandler::AdmitAppCall(const HttpRequest& request, HttpResponse* out,
                              std::vector<std::pair<std::string, std::string>>* headers) {
  MutexLock lock(&mu_);
  const int64_t now_s = NowEpochSeconds();
  RateWindow& w = windows_[kAppWindow];
  if (w.reset_epoch_s <= now_s) {
    w.reset_epoch_s = now_s + 3600;
    w.remaining = options_.rate_limit;
  }
  bool refused = true;
  if (auto aimed = TakeAimedFault(&faults_.aimed, request.method, request.Path())) {
    if (aimed->fault == "connection_reset") {
      *out = GitHubError(502, "connection reset by the simulator");
      out->reset_connection = true;
    } else if (aimed->fault == "secondary_rate_limit") {
      *out = GitHubError(403, "You have exceeded a secondary rate limit.");
      out->headers.emplace_back("Retry-After", std::to_string(aimed->retry_after_seconds));
    } else {
      *out = GitHubError(aimed->status, "Server Error");
    }
  } else if (w.remaining <= 0) {
    *out = GitHubError(403, "API rate limit exceeded for the App.");
  } else {
    --w.remaining;
    refused = false;
  }
  headers->emplace_back("X-RateLimit-Limit", std::to_string(options_.rate_limit));
  headers->emplace_back("X-RateLimit-Remaining", std::to_string(w.remaining));
  headers->emplace_back("X-RateLimit-Reset", std::to_string(w.reset_epoch_s));
  headers->emplace_back("X-RateLimit-Used", std::to_string(options_.rate_limit - w.remaining));
  headers->emplace_back("X-RateLimit-Resource", "core");
  return !refused;
}

HttpResponse SimHandler::AnswerHookDeliveries(const HttpRequest& request,
                                              const std::vector<std::string>& parts) {
  const DeliveryLog* log = options_.webhooks ? &options_.webhooks->log() : nullptr;
  if (parts.size() == 3 && request.method == "GET") {
    const auto query = ParseQuery(request.target);
    int64_t per_page = 30;
    if (auto it = query.find("per_page"); it != query.end()) {
      auto v = ParseId(it->second);
      if (!v || *v < 1 || *v > 100) return GitHubError(422, "per_page must be between 1 and 100");
      per_page = *v;
    }
    std::optional<int64_t> cursor;
    if (auto it = query.find("cursor"); it != query.end() && !it->second.empty()) {
      cursor = ParseId(it->second);
      if (!cursor) return GitHubError(422, "Invalid cursor");
    }
    std::optional<int64_t> next;
    json::array items;
    if (log != nullptr) {
      for (const DeliveryAttempt& a : log->Page(cursor, static_cast<size_t>(per_page), &next)) {
        items.push_back(Summary(a));
      }
    }
    HttpResponse response = JsonValueResponse(200, items);
    if (next) {
      const std::string host = request.Header("Host");
      const std::string base = host.empty() ? "https://api.github.com" : "http://" + host;
      response.headers.emplace_back(
          "Link", "<" + base + "/app/hook/deliveries?per_page=" + std::to_string(per_page) +
                      "&cursor=" + std::to_string(*next) + ">; rel=\"next\"");
    }
    return response;
  }
  if (parts.size() == 4 && request.method == "GET") {
    auto id = ParseId(parts[3]);
    auto attempt = id && log ? log->Find(*id) : std::nullopt;
    return attempt ? JsonValueResponse(200, Detail(*attempt)) : GitHubError(404, "Not Found");
  }
  if (parts.size() == 5 && parts[4] == "attempts" && request.method == "POST") {
    auto id = ParseId(parts[3]);
    const bool queued = id && options_.webhooks && options_.webhooks->Redeliver(*id);
    return queued ? JsonValueResponse(202, json::object{}) : GitHubError(404, "Not Found");
  }
  return GitHubError(404, "Not Found");
}

HttpResponse SimHandler::ServeHookDeliveries(const HttpRequest& request,
                                             const std::vector<std::string>& parts) {
  if (auto refused = CheckAppJwt(request)) return *refused;
  HttpResponse response;
  std::vector<std::pair<std::string, std::string>> headers;
  if (!AdmitAppCall(request, &response, &headers)) {
    requests_.Record("app", request.method, request.target, response.status, false);
    for (auto& h : headers) response.headers.push_back(std::move(h));
    return response;
  }
  HttpResponse answer = AnswerHookDeliveries(request, parts);
  // Counted once the answer is known: the tally records what the caller got.
  requests_.Record("app", request.method, request.target, answer.status, true);
  for (auto& h : headers) answer.headers.push_back(std::move(h));
  return answer;
}

}  // namespace gatehouse::sim
