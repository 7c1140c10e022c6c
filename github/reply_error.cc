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

std::optional<Time> ParseGitHubTime(std::string_view text) {
  // YYYY-MM-DDTHH:MM:SS[.fff...]Z
  if (text.size() < 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' ||
      text[16] != ':' || text.back() != 'Z') {
    return std::nullopt;
  }
  auto field = [&](size_t pos, size_t len) { return ParseInt(text.substr(pos, len)); };
  auto y = field(0, 4), mo = field(5, 2), d = field(8, 2), h = field(11, 2), mi = field(14, 2),
       s = field(17, 2);
  if (!y || !mo || !d || !h || !mi || !s) return std::nullopt;
  int64_t micros = 0;
  std::string_view rest = text.substr(19, text.size() - 20);
  if (!rest.empty()) {
    if (rest[0] != '.' || rest.size() < 2) return std::nullopt;
    std::string digits(rest.substr(1, 6));
    auto frac = ParseInt(digits);
    if (!frac) return std::nullopt;
    micros = *frac;
    for (size_t i = digits.size(); i < 6; ++i) micros *= 10;
  }
  std::tm tm{};
  tm.tm_year = static_cast<int>(*y - 1900);
  tm.tm_mon = static_cast<int>(*mo - 1);
  tm.tm_mday = static_cast<int>(*d);
  tm.tm_hour = static_cast<int>(*h);
  tm.tm_min = static_cast<int>(*mi);
  tm.tm_sec = static_cast<int>(*s);
  time_t secs = timegm(&tm);
  return Time(std::chrono::seconds(secs)) + Duration(micros);
}

}  // namespace gatehouse
