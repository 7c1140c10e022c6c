#include "github/reply_error.h"

#include <boost/json.hpp>
#include <charconv>
#include <ctime>

namespace gatehouse {
namespace {

std::optional<int64_t> ParseInt(std::string_view s) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

std::string GitHubMessage(const std::string& body) {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(body, ec);
  if (ec || !v.is_object()) return {};
  if (const auto* m = v.as_object().if_contains("message"); m != nullptr && m->is_string()) {
    return std::string(m->get_string());
  }
  return {};
}

}  // namespace

GitHubError ErrorFromReply(const HttpReply& reply, Time now, const std::string& what) {
  GitHubError error;
  error.http_status = reply.status;
  error.message = what;
  if (std::string m = GitHubMessage(reply.body); !m.empty()) error.message += ": " + m;

  if (reply.status == 403 || reply.status == 429) {
    if (auto secs = ParseInt(reply.Header("retry-after")); secs && *secs >= 0) {
      error.kind = GitHubErrorKind::kRateLimited;
      error.until = now + std::chrono::seconds(*secs);
      return error;
    }
    auto remaining = ParseInt(reply.Header("x-ratelimit-remaining"));
    auto reset = ParseInt(reply.Header("x-ratelimit-reset"));
    if (remaining && *remaining == 0 && reset) {
      error.kind = GitHubErrorKind::kRateLimited;
      error.until = std::max(now, Time(std::chrono::seconds(*reset)));
      return error;
    }
    if (reply.status == 429) {
      error.kind = GitHubErrorKind::kRateLimited;
      error.until = now + std::chrono::seconds(60);
      return error;
    }
  }
  error.kind = KindFromHttpStatus(reply.status);
  return error;
}

GitHubError ErrorFromTransport(const Status& status, const std::string& what) {
  GitHubError error;
  error.kind = status.code() == StatusCode::kUnavailable ? GitHubErrorKind::kTransient
                                                         : GitHubErrorKind::kPermanent;
  error.message = what + ": " + status.message();
  return error;
}

}  // namespace gatehouse
