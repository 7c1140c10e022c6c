#include "base/log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

namespace gatehouse {
namespace {

// Captures log lines through a pipe.
class LogCapture {
 public:
  LogCapture() {
    EXPECT_EQ(pipe(fds_), 0);
    SetLogFd(fds_[1]);
  }
  ~LogCapture() {
    SetLogFd(2);
    close(fds_[0]);
    close(fds_[1]);
  }
  std::string Drain() {
    close(fds_[1]);
    fds_[1] = dup(2);  // keep the destructor's close harmless
    SetLogFd(2);
    std::string out;
    char buf[4096];
    ssize_t n;
    while ((n = read(fds_[0], buf, sizeof(buf))) > 0) out.append(buf, static_cast<size_t>(n));
    return out;
  }

 private:
  int fds_[2];
};

TEST(LogTest, WritesOneJsonObjectPerLine) {
  auto clock = std::make_shared<SimClock>(FromMicros(1'764'504'000'123'000));
  SetLogClock(clock);
  SetLogLevel(LogLevel::kInfo);
  LogCapture cap;
  Log(LogLevel::kInfo, "engine.started").Field("workers", 8).Field("db", "a \"b\"\n");
  Log(LogLevel::kDebug, "dropped").Field("x", 1);
  Log(LogLevel::kWarn, "w").Field("ok", true).Field("ratio", 0.5);
  const std::string out = cap.Drain();
  SetLogClock(nullptr);
  EXPECT_EQ(out,
            "{\"ts\":\"2025-11-30T12:00:00.123Z\",\"level\":\"info\",\"event\":\"engine.started\","
            "\"workers\":8,\"db\":\"a \\\"b\\\"\\n\"}\n"
            "{\"ts\":\"2025-11-30T12:00:00.123Z\",\"level\":\"warn\",\"event\":\"w\",\"ok\":true,"
            "\"ratio\":0.5}\n");
}

TEST(LogTest, EscapesControlCharacters) {
  std::string out;
  AppendJsonString(out, std::string("a\x01z", 3));
  EXPECT_EQ(out, "\"a\\u0001z\"");
}

TEST(LogTest, ParsesLevels) {
  LogLevel l;
  EXPECT_TRUE(ParseLogLevel("debug", &l));
  EXPECT_EQ(l, LogLevel::kDebug);
  EXPECT_TRUE(ParseLogLevel("error", &l));
  EXPECT_EQ(l, LogLevel::kError);
  EXPECT_FALSE(ParseLogLevel("verbose", &l));
}

}  // namespace
}  // namespace gatehouse
