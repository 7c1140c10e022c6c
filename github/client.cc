// GitHubClient's machinery: auth, rate limits, ETags, pagination, typed errors. The
// endpoint wrappers are in client_endpoints.cc.
#include "github/client.h"

#include <boost/json.hpp>

#include "base/log.h"
#include "github/reply_error.h"

namespace gatehouse {
namespace {

GitHubError RateLimitedError(Time until, std::string message) {
  return GitHubError{GitHubErrorKind::kRateLimited, 0, until, std::move(message)};
}

}  // namespace

std::string NextLinkUrl(std::string_view link_header) {
  // <https://api.github.com/...&page=2>; rel="next", <...>; rel="last"
  size_t pos = 0;
  while (pos < link_header.size()) {
    size_t open = link_header.find('<', pos);
    if (open == std::string_view::npos) break;
    size_t close = link_header.find('>', open);
    if (close == std::string_view::npos) break;
    size_t next_entry = link_header.find('<', close);
    std::string_view params = link_header.substr(close + 1, next_entry == std::string_view::npos
                                                                ? std::string_view::npos
                                                                : next_entry - close - 1);
    if (params.find("rel=\"next\"") != std::string_view::npos ||
        params.find("rel=next") != std::string_view::npos) {
      return std::string(link_header.substr(open + 1, close - open - 1));
    }
    pos = close + 1;
  }
  return {};
}

std::string UrlEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : text) {
    auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += c;
    } else {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 15];
    }
  }
  return out;
}

GitHubClient::GitHubClient(HttpTransport& transport, TokenSource& tokens, ClockPtr clock,
                           GitHubClientOptions options)
    : transport_(transport), tokens_(tokens), clock_(std::move(clock)), options_(options) {}

GitHubClient::RateLimitState GitHubClient::RateLimitFor(int64_t installation_id) const {
  MutexLock lock(&mutex_);
  auto it = rate_limits_.find(installation_id);
  return it == rate_limits_.end() ? RateLimitState{} : it->second;
}

GitHubClient::RateLimitState GitHubClient::GraphqlRateLimitFor(int64_t installation_id) const {
  MutexLock lock(&mutex_);
  auto it = graphql_limits_.find(installation_id);
  return it == graphql_limits_.end() ? RateLimitState{} : it->second;
}

std::optional<GitHubError> GitHubClient::RefuseForRateLimit(const CallContext& ctx,
                                                            const std::string& what,
                                                            Window window) {
  Time now = clock_->Now();
  MutexLock lock(&mutex_);
  const std::map<int64_t, RateLimitState>& limits = LimitsLocked(window);
  auto it = limits.find(ctx.installation_id);
  if (it == limits.end()) return std::nullopt;
  const RateLimitState& s = it->second;
  std::optional<GitHubError> refused;
  if (s.blocked_until > now) {
    refused = RateLimitedError(s.blocked_until, what + ": refused locally");
  } else if (s.remaining && s.reset > now) {
    if (*s.remaining <= 0) {
      refused = RateLimitedError(s.reset, what + ": limit exhausted");
    } else if (ctx.background && *s.remaining <= options_.background_reserve) {
      refused = RateLimitedError(s.reset, what + ": background call refused, " +
                                              std::to_string(*s.remaining) +
                                              " requests left are reserved");
    }
  }
  if (refused) ++refusals_[ctx.installation_id];
  return refused;
}

std::map<int64_t, GitHubClient::RateLimitState> GitHubClient::RateLimits() const {
  MutexLock lock(&mutex_);
  return rate_limits_;
}

std::map<int64_t, int64_t> GitHubClient::RateLimitRefusals() const {
  MutexLock lock(&mutex_);
  return refusals_;
}

void GitHubClient::RecordRateLimit(int64_t installation_id, const HttpReply& reply) {
  auto remaining = reply.IntHeader("x-ratelimit-remaining");
  auto reset = reply.IntHeader("x-ratelimit-reset");
  if (!remaining || !reset) return;
  const Window window =
      reply.Header("x-ratelimit-resource") == "graphql" ? Window::kGraphql : Window::kCore;
  MutexLock lock(&mutex_);
  RateLimitState& s = LimitsLocked(window)[installation_id];
  s.remaining = *remaining;
  s.reset = Time(std::chrono::seconds(*reset));
}

GitHubResult<HttpReply> GitHubClient::SendAuthorized(const CallContext& ctx, HttpCall& call,
                                                     const std::string& what) {
  for (int attempt = 0;; ++attempt) {
    auto token = tokens_.Token(ctx.installation_id);
    if (!token.ok()) return token.error();
    std::erase_if(call.headers, [](const auto& h) { return h.first == "Authorization"; });
    call.headers.emplace_back("Authorization", "Bearer " + *token);
    auto reply = transport_.Send(call);
    if (!reply.ok()) return ErrorFromTransport(reply.status(), what);
    RecordRateLimit(ctx.installation_id, *reply);
    // A 401 usually means the cached installation token was revoked or expired early; one
    // retry with a fresh token tells that apart from a real authorization problem.
    if (reply->status == 401 && attempt == 0) {
      tokens_.Invalidate(ctx.installation_id);
      continue;
    }
    return std::move(reply).value();
  }
}

GitHubResult<GitHubClient::Response> GitHubClient::Call(const CallContext& ctx,
                                                        const std::string& method,
                                                        const std::string& target,
                                                        const boost::json::value& body) {
  return Request(ctx, method, target, body, Window::kCore);
}

GitHubResult<GitHubClient::Response> GitHubClient::Request(const CallContext& ctx,
                                                           const std::string& method,
                                                           const std::string& target,
                                                           const boost::json::value& body,
                                                           Window window) {
  const std::string what = method + " " + target;
  if (auto refused = RefuseForRateLimit(ctx, what, window)) return *refused;

  HttpCall call;
  call.method = method;
  call.target = target;
  if (!body.is_null()) call.body = boost::json::serialize(body);

  const bool is_get = method == "GET";
  const std::string cache_key = std::to_string(ctx.installation_id) + " " + target;
  std::optional<CachedGet> cached;
  if (is_get) {
    MutexLock lock(&mutex_);
    if (auto it = etags_.find(cache_key); it != etags_.end()) {
      cached = it->second;
      etag_use_.splice(etag_use_.end(), etag_use_, it->second.use);  // recently used
    }
  }
  if (cached) call.headers.emplace_back("If-None-Match", cached->etag);

  auto reply = SendAuthorized(ctx, call, what);
  if (!reply.ok()) return reply.error();

  std::string text;
  std::string link;
  if (reply->status == 304 && cached) {
    text = std::move(cached->body);
    link = std::move(cached->link);
  } else if (reply->status >= 200 && reply->status < 300) {
    text = std::move(reply->body);
    link = reply->Header("link");
    std::string etag = reply->Header("etag");
    if (is_get && !etag.empty()) {
      MutexLock lock(&mutex_);
      auto it = etags_.find(cache_key);
      if (it == etags_.end()) {
        etag_use_.push_back(cache_key);
        it = etags_.emplace(cache_key, CachedGet{{}, {}, {}, std::prev(etag_use_.end())}).first;
      } else {
        etag_use_.splice(etag_use_.end(), etag_use_, it->second.use);
      }
      it->second.etag = std::move(etag);
      it->second.body = text;
      it->second.link = link;
      while (etags_.size() > options_.etag_cache_entries && !etag_use_.empty()) {
        etags_.erase(etag_use_.front());
        etag_use_.pop_front();
      }
    }
  } else {
    GitHubError error = ErrorFromReply(*reply, clock_->Now(), what);
    if (error.kind == GitHubErrorKind::kRateLimited) {
      MutexLock lock(&mutex_);
      RateLimitState& s = LimitsLocked(window)[ctx.installation_id];
      s.blocked_until = std::max(s.blocked_until, error.until);
    }
    Log line(LogLevel::kInfo, "github.call_failed");
    if (!ctx.subject.empty()) line.Field("subject", ctx.subject);
    line.Field("call", what)
        .Field("status", reply->status)
        .Field("kind", GitHubErrorKindName(error.kind));
    return error;
  }

  Response response;
  response.status = reply->status;
  response.next_url = NextLinkUrl(link);
  if (!text.empty()) {
    boost::system::error_code ec;
    response.body = boost::json::parse(text, ec);
    if (ec) {
      return GitHubError{GitHubErrorKind::kPermanent,
                         reply->status,
                         {},
                         what + ": response is not JSON: " + ec.message()};
    }
  }
  return response;
}

GitHubResult<boost::json::array> GitHubClient::GetAllPages(const CallContext& ctx,
                                                           const std::string& target,
                                                           const std::string& items_key) {
  boost::json::array all;
  std::string next = target;
  for (int page = 0; !next.empty(); ++page) {
    if (page >= options_.max_pages) {
      return GitHubError{
          GitHubErrorKind::kPermanent,
          0,
          {},
          "GET " + target + ": more than " + std::to_string(options_.max_pages) + " pages"};
    }
    auto response = Call(ctx, "GET", next);
    if (!response.ok()) return response.error();
    const boost::json::array* items = nullptr;
    if (items_key.empty()) {
      items = response->body.if_array();
    } else if (const auto* obj = response->body.if_object()) {
      if (const auto* v = obj->if_contains(items_key)) items = v->if_array();
    }
    if (items == nullptr) {
      return GitHubError{GitHubErrorKind::kPermanent,
                         response->status,
                         {},
                         "GET " + next + ": expected a list" +
                             (items_key.empty() ? "" : " under \"" + items_key + "\"")};
    }
    for (const auto& item : *items) all.push_back(item);
    next = std::move(response->next_url);
  }
  return all;
}

}  // namespace gatehouse
