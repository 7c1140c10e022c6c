#include "base/log.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>

#include "base/mutex.h"

namespace gatehouse {
namespace {

std::atomic<int> g_level{static_cast<int>(LogLevel::kInfo)};
std::atomic<int> g_fd{2};
Mutex g_clock_mu;
ClockPtr g_clock GUARDED_BY(g_clock_mu);  // null means the real clock

Time LogNow() {
  MutexLock lock(&g_clock_mu);
  if (g_clock) return g_clock->Now();
  return RealClock().Now();
}

std::string_view LevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarn:
      return "warn";
    case LogLevel::kError:
      return "error";
    case LogLevel::kOff:
      return "off";
  }
  return "info";
}

void WriteAll(int fd, const std::string& s) {
  const char* p = s.data();
  size_t left = s.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;  // Logging must never take the process down.
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
}

}  // namespace

bool ParseLogLevel(std::string_view text, LogLevel* out) {
  for (LogLevel l :
       {LogLevel::kDebug, LogLevel::kInfo, LogLevel::kWarn, LogLevel::kError, LogLevel::kOff}) {
    if (text == LevelName(l)) {
      *out = l;
      return true;
    }
  }
  return false;
}

void SetLogLevel(LogLevel level) { g_level.store(static_cast<int>(level)); }
LogLevel GetLogLevel() { return static_cast<LogLevel>(g_level.load()); }
void SetLogFd(int fd) { g_fd.store(fd); }
void SetLogClock(ClockPtr clock) {
  MutexLock lock(&g_clock_mu);
  g_clock = std::move(clock);
}

void AppendJsonString(std::string& out, std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  out.push_back('"');
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (u < 0x20) {
          out += "\\u00";
          out.push_back(kHex[u >> 4]);
          out.push_back(kHex[u & 0xf]);
        } else {
          out.push_back(c);
        }
    }
  }
  out.push_back('"');
}

Log::Log(LogLevel level, std::string_view event)
    : enabled_(static_cast<int>(level) >= g_level.load(std::memory_order_relaxed) &&
               level != LogLevel::kOff) {
  if (!enabled_) return;
  line_.reserve(160);
  line_ += "{\"ts\":\"";
  line_ += FormatTime(LogNow());
  line_ += "\",\"level\":\"";
  line_ += LevelName(level);
  line_ += "\",\"event\":";
  AppendJsonString(line_, event);
}

Log::~Log() {
  if (!enabled_) return;
  line_ += "}\n";
  WriteAll(g_fd.load(std::memory_order_relaxed), line_);
}

void Log::AppendKey(std::string_view key) {
  line_.push_back(',');
  AppendJsonString(line_, key);
  line_.push_back(':');
}

Log& Log::Field(std::string_view key, std::string_view value) {
  if (!enabled_) return *this;
  AppendKey(key);
  AppendJsonString(line_, value);
  return *this;
}

Log& Log::Field(std::string_view key, int64_t value) {
  if (!enabled_) return *this;
  AppendKey(key);
  line_ += std::to_string(value);
  return *this;
}

Log& Log::Field(std::string_view key, uint64_t value) {
  if (!enabled_) return *this;
  AppendKey(key);
  line_ += std::to_string(value);
  return *this;
}

Log& Log::Field(std::string_view key, double value) {
  if (!enabled_) return *this;
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.6g", value);
  AppendKey(key);
  line_ += buf;
  return *this;
}

Log& Log::Field(std::string_view key, bool value) {
  if (!enabled_) return *this;
  AppendKey(key);
  line_ += value ? "true" : "false";
  return *this;
}

}  // namespace gatehouse
