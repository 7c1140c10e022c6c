// How the C++ benchmarks (engine_bench, pg_bench) time and print their figures: elapsed
// seconds on the steady clock, counts and rates grouped by thousands, fixed decimals, and the
// median of repeated rounds. Header-only; nothing here is measured.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace gatehouse::bench {

using Steady = std::chrono::steady_clock;

inline double SecondsSince(Steady::time_point start) {
  return std::chrono::duration<double>(Steady::now() - start).count();
}

// "12,345" for a rate or a count; rates are rounded to integers.
inline std::string Grouped(double value) {
  std::string digits = std::to_string(static_cast<int64_t>(value + 0.5));
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

inline std::string Fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, value);
  return buf;
}

// The median of a non-empty set of rounds.
inline double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace gatehouse::bench
