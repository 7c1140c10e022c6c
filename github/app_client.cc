#include "github/app_client.h"

#include <boost/json.hpp>
#include <charconv>

#include "base/log.h"
#include "github/client.h"
#include "github/reply_error.h"

namespace gatehouse {
namespace json = boost::json;
namespace {

std::optional<int64_t> OptionalInt(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr) return std::nullopt;
  if (v->is_int64()) return v->as_int64();
  if (v->is_uint64()) return static_cast<int64_t>(v->as_uint64());
  return std::nullopt;
}

std::string Text(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

GitHubError Malformed(const std::string& what, const std::string& why) {
  return GitHubError{GitHubErrorKind::kPermanent, 0, {}, what + ": " + why};
}

// One list entry; false when it lacks what recovery needs (an id and a guid).
bool ParseDelivery(const json::value& v, HookDelivery* out) {
  const json::object* o = v.if_object();
  if (o == nullptr) return false;
  auto id = OptionalInt(*o, "id");
  out->guid = Text(*o, "guid");
  if (!id || out->guid.empty()) return false;
  out->id = *id;
  out->delivered_at = Text(*o, "delivered_at");
  out->delivered_time = ParseTime(out->delivered_at);
  const json::value* r = o->if_contains("redelivery");
  out->redelivery = r != nullptr && r->is_bool() && r->as_bool();
  if (const json::value* d = o->if_contains("duration"); d != nullptr) {
    if (d->is_double()) out->duration = d->as_double();
    if (d->is_int64()) out->duration = static_cast<double>(d->as_int64());
  }
  out->status = Text(*o, "status");
  out->status_code = static_cast<int>(OptionalInt(*o, "status_code").value_or(0));
  out->event = Text(*o, "event");
  out->action = Text(*o, "action");
  out->installation_id = OptionalInt(*o, "installation_id");
  out->repository_id = OptionalInt(*o, "repository_id");
  return true;
}

std::string PercentDecode(std::string_view in) {
  std::string out;
  for (size_t i = 0; i < in.size(); ++i) {
    int hex = 0;
    if (in[i] == '%' && i + 2 < in.size() &&
        std::from_chars(in.data() + i + 1, in.data() + i + 3, hex, 16).ptr == in.data() + i + 3) {
      out += static_cast<char>(hex);
      i += 2;
    } else {
      out += in[i];
    }
  }
  return out;
}

}  // namespace

std::string NextCursorFromLink(std::string_view link_header) {
  const std::string next = NextLinkUrl(link_header);
  const size_t q = next.find('?');
  if (q == std::string::npos) return {};
  std::string_view query = std::string_view(next).substr(q + 1);
  while (!query.empty()) {
    const size_t amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    if (pair.starts_with("cursor=")) return PercentDecode(pair.substr(7));
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return {};
}

AppClient::AppClient(HttpTransport& transport, const AppJwtSigner& signer, ClockPtr clock,
                     AppClientOptions options)
    : transport_(transport), signer_(signer), clock_(std::move(clock)), options_(options) {}

std::optional<GitHubError> AppClient::RefuseLocally(const std::string& what) const {
  const Time now = clock_->Now();
  MutexLock lock(&mu_);
  auto limited = [&](Time until, const std::string& why) {
    return GitHubError{GitHubErrorKind::kRateLimited, 0, until, what + ": " + why};
  };
  if (blocked_until_ > now) return limited(blocked_until_, "refused locally");
  if (remaining_ && reset_ > now && *remaining_ <= options_.background_reserve) {
    return limited(reset_,
                   "the App's last " + std::to_string(*remaining_) + " requests are reserved");
  }
  return std::nullopt;
}

void AppClient::Remember(const HttpReply& reply, const std::optional<GitHubError>& error) {
  auto remaining = reply.IntHeader("x-ratelimit-remaining");
  auto reset = reply.IntHeader("x-ratelimit-reset");
  MutexLock lock(&mu_);
  if (remaining && reset) {
    remaining_ = *remaining;
    reset_ = Time(std::chrono::seconds(*reset));
  }
  if (error && error->kind == GitHubErrorKind::kRateLimited) {
    blocked_until_ = std::max(blocked_until_, error->until);
  }
}

GitHubResult<HttpReply> AppClient::Send(const std::string& method, const std::string& target,
                                        int expect) {
  const std::string what = method + " " + target;
  if (auto refused = RefuseLocally(what)) return *refused;
  auto jwt = signer_.Sign(clock_->Now());
  if (!jwt.ok()) return GitHubError{GitHubErrorKind::kPermanent, 0, {}, jwt.status().message()};
  HttpCall call;
  call.method = method;
  call.target = target;
  call.headers.emplace_back("Authorization", "Bearer " + *jwt);  // never logged
  auto reply = transport_.Send(call);
  if (!reply.ok()) return ErrorFromTransport(reply.status(), what);
  std::optional<GitHubError> error;
  if (reply->status != expect) error = ErrorFromReply(*reply, clock_->Now(), what);
  Remember(*reply, error);
  if (error) {
    Log(LogLevel::kInfo, "github.call_failed")
        .Field("call", what)
        .Field("status", reply->status)
        .Field("kind", GitHubErrorKindName(error->kind));
    return *error;
  }
  return std::move(reply).value();
}

GitHubResult<HookDeliveryPage> AppClient::ListDeliveries(int per_page, const std::string& cursor) {
  std::string target = "/app/hook/deliveries?per_page=" + std::to_string(per_page);
  if (per_page < 1 || per_page > 100) {
    return Malformed("GET " + target, "per_page must be between 1 and 100");
  }
  if (!cursor.empty()) target += "&cursor=" + UrlEncode(cursor);
  auto sent = Send("GET", target, 200);
  if (!sent.ok()) return sent.error();
  const HttpReply& reply = *sent;
  boost::system::error_code ec;
  json::value v = json::parse(reply.body, ec);
  const json::array* items = ec ? nullptr : v.if_array();
  if (items == nullptr) return Malformed("GET " + target, "expected a list of deliveries");
  HookDeliveryPage page;
  for (const json::value& item : *items) {
    HookDelivery d;
    if (!ParseDelivery(item, &d)) return Malformed("GET " + target, "a delivery lacks id or guid");
    page.deliveries.push_back(std::move(d));
  }
  page.next_cursor = NextCursorFromLink(reply.Header("link"));
  return page;
}

GitHubResult<HookDeliveryDetail> AppClient::GetDelivery(int64_t id) {
  const std::string target = "/app/hook/deliveries/" + std::to_string(id);
  auto sent = Send("GET", target, 200);
  if (!sent.ok()) return sent.error();
  const HttpReply& reply = *sent;
  boost::system::error_code ec;
  json::value v = json::parse(reply.body, ec);
  HookDeliveryDetail detail;
  if (ec || !ParseDelivery(v, &detail.delivery)) {
    return Malformed("GET " + target, "not a delivery");
  }
  const json::object& o = v.as_object();
  detail.url = Text(o, "url");
  const json::value* request = o.if_contains("request");
  const json::object* req = request ? request->if_object() : nullptr;
  const json::value* payload = req ? req->if_contains("payload") : nullptr;
  if (payload == nullptr || !payload->is_object()) {
    return Malformed("GET " + target, "request.payload is not an object");
  }
  detail.payload = json::serialize(*payload);
  if (const json::value* h = req->if_contains("headers"); h != nullptr && h->is_object()) {
    for (const auto& [name, value] : h->as_object()) {
      if (value.is_string()) {
        detail.request_headers.emplace_back(std::string(name), std::string(value.as_string()));
      }
    }
  }
  return detail;
}

GitHubResult<GitHubOk> AppClient::Redeliver(int64_t id) {
  const std::string target = "/app/hook/deliveries/" + std::to_string(id) + "/attempts";
  auto sent = Send("POST", target, 202);
  if (!sent.ok()) return sent.error();
  return GitHubOk{};
}

GitHubResult<std::vector<int64_t>> AppClient::ListInstallationIds() {
  std::vector<int64_t> ids;
  std::string target = "/app/installations?per_page=100";
  // GitHub's own bound on a listing; an App with more installations than 100 pages of 100
  // is outside what one gatehouse serves.
  constexpr int kMaxPages = 100;
  for (int page = 0; !target.empty(); ++page) {
    if (page >= kMaxPages) {
      return Malformed("GET /app/installations",
                       "more than " + std::to_string(kMaxPages) + " pages of installations");
    }
    auto sent = Send("GET", target, 200);
    if (!sent.ok()) return sent.error();
    boost::system::error_code ec;
    json::value v = json::parse(sent->body, ec);
    const json::array* items = ec ? nullptr : v.if_array();
    if (items == nullptr) return Malformed("GET " + target, "expected a list of installations");
    for (const json::value& item : *items) {
      const json::object* o = item.if_object();
      auto id = o != nullptr ? OptionalInt(*o, "id") : std::nullopt;
      if (!id) return Malformed("GET " + target, "an installation lacks its id");
      const json::value* suspended = o->if_contains("suspended_at");
      if (suspended != nullptr && !suspended->is_null()) continue;
      ids.push_back(*id);
    }
    target = NextLinkUrl(sent->Header("link"));
  }
  return ids;
}

}  // namespace gatehouse
