// Clock: the only way gatehouse code reads the time.
//
// Time is injected so that tests move a simulated clock instead of sleeping. Timestamps are
// microseconds since the Unix epoch (wall-clock time, comparable across processes on one
// host, which is what leases shared through one database file need).
//
// Both implementations are safe for concurrent use from multiple threads.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace gatehouse {

using Duration = std::chrono::microseconds;
using Time = std::chrono::time_point<std::chrono::system_clock, Duration>;

inline int64_t ToMicros(Time t) { return t.time_since_epoch().count(); }
inline Time FromMicros(int64_t us) { return Time(Duration(us)); }

// RFC 3339 in UTC with milliseconds, e.g. "2026-11-30T12:00:00.123Z".
std::string FormatTime(Time t);

// Parses RFC 3339 in UTC as GitHub writes it ("2026-11-30T12:00:00Z", optionally with
// fractional seconds, as FormatTime writes them); nullopt for anything else.
std::optional<Time> ParseTime(std::string_view text);

class Clock {
 public:
  virtual ~Clock() = default;
  virtual Time Now() const = 0;
};

using ClockPtr = std::shared_ptr<Clock>;

// The system's wall clock.
class RealClock final : public Clock {
 public:
  Time Now() const override;
};

// A clock that only moves when told to. Starts at `start`.
class SimClock final : public Clock {
 public:
  explicit SimClock(Time start) : now_us_(ToMicros(start)) {}
  Time Now() const override { return FromMicros(now_us_.load(std::memory_order_acquire)); }
  void Set(Time t) { now_us_.store(ToMicros(t), std::memory_order_release); }
  void Advance(Duration d) { now_us_.fetch_add(d.count(), std::memory_order_acq_rel); }

 private:
  std::atomic<int64_t> now_us_;
};

}  // namespace gatehouse
