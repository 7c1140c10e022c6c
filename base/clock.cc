#include "base/clock.h"

#include <charconv>
#include <cstdio>
#include <ctime>
#include <string_view>

namespace gatehouse {
namespace {

std::optional<int64_t> ParseInt(std::string_view s) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

}  // namespace

Time RealClock::Now() const {
  return std::chrono::time_point_cast<Duration>(std::chrono::system_clock::now());
}

std::string FormatTime(Time t) {
  const int64_t us = ToMicros(t);
  int64_t secs = us / 1'000'000;
  int64_t rem = us % 1'000'000;
  if (rem < 0) {
    rem += 1'000'000;
    secs -= 1;
  }
  const std::time_t tt = static_cast<std::time_t>(secs);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                static_cast<int>(rem / 1000));
  return buf;
}

std::optional<Time> ParseTime(std::string_view text) {
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
