#include "base/clock.h"

#include <cstdio>
#include <ctime>

namespace gatehouse {

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

}  // namespace gatehouse
