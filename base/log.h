// Structured logging: one JSON object per line.
//
//   Log(LogLevel::kInfo, "engine.started").Field("workers", 8).Field("db", path);
//
// emits, when the statement ends,
//
//   {"ts":"2026-11-30T12:00:00.123Z","level":"info","event":"engine.started","workers":8,...}
//
// Each line is written with a single write(2) call, so lines from concurrent threads (and
// processes sharing a file opened O_APPEND) never interleave. Lines below the configured level
// are dropped before any formatting work. Safe for concurrent use.
//
// Secrets must never be passed as fields; there is no redaction layer to rely on.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/clock.h"

namespace gatehouse {

enum class LogLevel { kDebug = 0, kInfo = 1, kWarn = 2, kError = 3, kOff = 4 };

// Parses "debug", "info", "warn", "error", "off". Returns false on anything else.
bool ParseLogLevel(std::string_view text, LogLevel* out);

// Process-wide configuration. Defaults: level info, file descriptor 2 (stderr), real clock.
void SetLogLevel(LogLevel level);
LogLevel GetLogLevel();
void SetLogFd(int fd);
void SetLogClock(ClockPtr clock);

// Appends `text` to `out` as a JSON string literal (with quotes), escaping as RFC 8259 requires.
void AppendJsonString(std::string& out, std::string_view text);

class Log {
 public:
  Log(LogLevel level, std::string_view event);
  ~Log();
  Log(const Log&) = delete;
  Log& operator=(const Log&) = delete;

  Log& Field(std::string_view key, std::string_view value);
  Log& Field(std::string_view key, const char* value) {
    return Field(key, std::string_view(value));
  }
  Log& Field(std::string_view key, const std::string& value) {
    return Field(key, std::string_view(value));
  }
  Log& Field(std::string_view key, int64_t value);
  Log& Field(std::string_view key, int value) { return Field(key, static_cast<int64_t>(value)); }
  Log& Field(std::string_view key, uint64_t value);
  Log& Field(std::string_view key, double value);
  Log& Field(std::string_view key, bool value);

 private:
  void AppendKey(std::string_view key);  // ,"key":

  bool enabled_;
  std::string line_;
};

}  // namespace gatehouse
