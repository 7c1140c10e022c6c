// How the executors' reasons print a duration ("timed out after 5s"): the largest unit that
// divides it exactly, so a configured timeout reads back as it was written.
//
// Header-only pure function; safe from any thread.
#pragma once

#include <chrono>
#include <string>

#include "base/clock.h"

namespace gatehouse::review {

// "5s", "300ms", "2m", "1h", "1500us".
inline std::string FormatTimeout(Duration d) {
  using std::chrono::hours;
  using std::chrono::microseconds;
  using std::chrono::minutes;
  const int64_t us = d.count();
  const int64_t per_hour = microseconds(hours(1)).count();
  const int64_t per_minute = microseconds(minutes(1)).count();
  if (us > 0 && us % per_hour == 0) return std::to_string(us / per_hour) + "h";
  if (us > 0 && us % per_minute == 0) return std::to_string(us / per_minute) + "m";
  if (us % 1000000 == 0) return std::to_string(us / 1000000) + "s";
  if (us % 1000 == 0) return std::to_string(us / 1000) + "ms";
  return std::to_string(us) + "us";
}

}  // namespace gatehouse::review
