// CommandExecutor against real /bin/sh scripts in a temporary directory. Tests wait for
// events (a marker file, a process's exit through its pidfd), never for time; the timeout test
// asserts the outcome, not how long it took.
#include "review/command_executor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "review/duration_text.h"
#include "review/executor_test_util.h"

namespace gatehouse::review {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;
using Kind = ExecOutcome::Kind;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr const char* kApprove = R"({"verdict":"approve","summary":"ok","findings":[]})";

class CommandExecutorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/gatehouse-review-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Writes an executable /bin/sh script; returns its path.
  std::string Script(const std::string& name, const std::string& body) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << "#!/bin/sh\n" << body << "\n";
    chmod(path.c_str(), 0755);
    return path;
  }

  ExecOutcome Run(std::vector<std::string> argv, const decide::ReviewRequest& request = {},
                  Duration timeout = seconds(30), CancelProbe cancelled = nullptr,
                  size_t max_stdout = size_t{4} * 1024 * 1024) {
    CommandExecutorOptions options;
    options.argv = std::move(argv);
    options.max_stdout = max_stdout;
    auto executor = CommandExecutor::Create(std::move(options));
    EXPECT_TRUE(executor.ok());
    if (!executor.ok()) return ExecOutcome::Transient("no executor");
    return (*executor)->Review(request, timeout, cancelled);
  }

  bool Exists(const std::string& name) const { return std::filesystem::exists(dir_ + "/" + name); }

  std::string Read(const std::string& name) const {
    std::ifstream in(dir_ + "/" + name);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  std::string dir_;
};

// Blocks until process `pid` has exited (it may stay a zombie of its new parent), or 20 s
// passed: false then. A process that was not killed lives for 30 s.
bool ExitsSoon(pid_t pid) {
  const int fd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  if (fd < 0) return errno == ESRCH;  // already gone and reaped
  pollfd p{fd, POLLIN, 0};
  const int n = poll(&p, 1, 20000);
  close(fd);
  return n == 1;
}

TEST_F(CommandExecutorTest, ValidResult) {
  auto out = Run({Script("ok.sh", std::string("cat >/dev/null\necho '") + kApprove + "'")});
  ASSERT_EQ(out.kind, Kind::kResult) << out.reason;
  EXPECT_EQ(out.result.verdict, decide::ReviewVerdict::kApprove);
  EXPECT_EQ(out.result.summary, "ok");
}

TEST_F(CommandExecutorTest, TheRequestReachesStdin) {
  const std::string script = Script("echo.sh", R"sh(input=$(cat)
role=$(printf '%s' "$input" | sed -n 's/.*"role":"\([^"]*\)".*/\1/p')
head=$(printf '%s' "$input" | sed -n 's/.*"head_sha":"\([^"]*\)".*/\1/p')
printf '{"verdict":"comment","summary":"%s at %s"}' "$role" "$head")sh");
  decide::ReviewRequest request;
  request.role = "security";
  request.head_sha = "abc123";
  // PATH is searched for argv[0].
  auto out = Run({"sh", script}, request);
  ASSERT_EQ(out.kind, Kind::kResult) << out.reason;
  EXPECT_EQ(out.result.summary, "security at abc123");
}

TEST_F(CommandExecutorTest, NonZeroExitIsTransientWithTheStderrTail) {
  auto out =
      Run({Script("fail.sh", "echo 'first line' >&2\necho 'no model configured' >&2\nexit 3")});
  EXPECT_EQ(out.kind, Kind::kTransient);
  EXPECT_EQ(out.reason, "exit 3: first line | no model configured");

  auto quiet = Run({Script("quiet.sh", "exit 1")});
  EXPECT_EQ(quiet.kind, Kind::kTransient);
  EXPECT_EQ(quiet.reason, "exit 1");
}

TEST_F(CommandExecutorTest, OnlyTheTailOfALongStderrIsKept) {
  auto out = Run({Script("noisy.sh",
                         "i=0; while [ $i -lt 500 ]; do echo \"line $i\" >&2; "
                         "i=$((i+1)); done; echo END >&2; exit 2")});
  EXPECT_EQ(out.kind, Kind::kTransient);
  EXPECT_THAT(out.reason, StartsWith("exit 2: …"));
  EXPECT_THAT(out.reason, HasSubstr("line 499 | END"));
  EXPECT_LT(out.reason.size(), 4096u);
}

TEST_F(CommandExecutorTest, DeathBySignalIsTransient) {
  auto out = Run({Script("killed.sh", "echo dying >&2\nkill -TERM $$")});
  EXPECT_EQ(out.kind, Kind::kTransient);
  EXPECT_EQ(out.reason, "killed by signal 15: dying");
}

TEST_F(CommandExecutorTest, BadJsonIsTransientWithTheValidationError) {
  auto out = Run({Script("bad.sh", R"(echo '{"verdict":"lgtm","summary":""}')")});
  EXPECT_EQ(out.kind, Kind::kTransient);
  EXPECT_EQ(out.reason,
            "stdout is not a review result: verdict: expected one of approve, comment, "
            "request_changes, got \"lgtm\"");

  auto prose = Run({Script("prose.sh", "echo 'Looks good to me!'")});
  EXPECT_EQ(prose.kind, Kind::kTransient);
  EXPECT_THAT(prose.reason, StartsWith("stdout is not a review result: not JSON: "));
}

TEST_F(CommandExecutorTest, TimeoutKillsTheCommand) {
  auto out = Run({Script("slow.sh", "sleep 30")}, {}, milliseconds(300));
  EXPECT_EQ(out.kind, Kind::kTransient);
  EXPECT_EQ(out.reason, "timed out after 300ms");
}

TEST_F(CommandExecutorTest, CancelKillsTheCommandAndItsGrandchildren) {
  const std::string script =
      Script("tree.sh", "sleep 30 &\necho $! > " + dir_ + "/grandchild.pid\ntouch " + dir_ +
                            "/started\nsleep 30");
  auto out = Run({script}, {}, seconds(60), [this] { return Exists("started"); });
  EXPECT_EQ(out.kind, Kind::kCancelled) << out.reason;
  const pid_t grandchild = std::stoi(Read("grandchild.pid"));
  EXPECT_TRUE(ExitsSoon(grandchild));
}

TEST_F(CommandExecutorTest, CancelledBeforeStartRunsNothing) {
  auto out =
      Run({Script("never.sh", "touch " + dir_ + "/ran")}, {}, seconds(30), [] { return true; });
  EXPECT_EQ(out.kind, Kind::kCancelled);
  EXPECT_FALSE(Exists("ran"));
}

TEST_F(CommandExecutorTest, StrayBackgroundProcessesDoNotOutliveTheReview) {
  // The grandchild keeps stdout open; the result is taken when the script exits, and the
  // grandchild is killed with the group.
  const std::string script = Script(
      "stray.sh", "sleep 30 &\necho $! > " + dir_ + "/grandchild.pid\necho '" + kApprove + "'");
  auto out = Run({script});
  ASSERT_EQ(out.kind, Kind::kResult) << out.reason;
  EXPECT_TRUE(ExitsSoon(std::stoi(Read("grandchild.pid"))));
}

TEST_F(CommandExecutorTest, ACommandThatIgnoresStdinDoesNotKillUs) {
  decide::ReviewRequest request;
  request.body = std::string(size_t{8} * 1024 * 1024, 'x');  // far beyond a pipe buffer
  auto out = Run({Script("deaf.sh", std::string("echo '") + kApprove + "'")}, request);
  ASSERT_EQ(out.kind, Kind::kResult) << out.reason;
}

TEST_F(CommandExecutorTest, LargeRequestIsReadWhole) {
  decide::ReviewRequest request;
  request.body = std::string(size_t{3} * 1024 * 1024, 'y');
  const std::string script = Script(
      "count.sh", "n=$(wc -c)\nprintf '{\"verdict\":\"comment\",\"summary\":\"%s\"}' \"$n\"");
  auto out = Run({script}, request);
  ASSERT_EQ(out.kind, Kind::kResult) << out.reason;
  EXPECT_GT(std::stoul(out.result.summary), request.body.size());
}

TEST_F(CommandExecutorTest, StdoutOverTheCapIsTransient) {
  auto out = Run({Script("flood.sh", "head -c 100000 /dev/zero")}, {}, seconds(30), nullptr, 1024);
  EXPECT_EQ(out.kind, Kind::kTransient);
  EXPECT_EQ(out.reason, "stdout exceeded 1024 bytes");
}

TEST_F(CommandExecutorTest, AMissingProgramIsTransient) {
  auto out = Run({dir_ + "/does-not-exist"});
  EXPECT_EQ(out.kind, Kind::kTransient);
  EXPECT_EQ(out.reason, "cannot run " + dir_ + "/does-not-exist: No such file or directory");
}

TEST_F(CommandExecutorTest, ConcurrentReviewsGetTheirOwnAnswers) {
  const std::string script = Script("role.sh", R"sh(input=$(cat)
role=$(printf '%s' "$input" | sed -n 's/.*"role":"\([^"]*\)".*/\1/p')
printf '{"verdict":"comment","summary":"%s"}' "$role")sh");
  CommandExecutorOptions options;
  options.argv = {script};
  auto executor = CommandExecutor::Create(options);
  ASSERT_TRUE(executor.ok());
  EXPECT_EQ(executor_testing::ConcurrentRoleEchoes(**executor), 32);
}

// The pipes this process has open (sockets, e.g. of libcurl, are not counted).
int OpenPipes() {
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    const auto target = std::filesystem::read_symlink(entry.path(), ec);
    if (!ec && target.string().starts_with("pipe:")) ++n;
  }
  return n;
}

TEST_F(CommandExecutorTest, LeavesNoPipesOpen) {
  const int before = OpenPipes();
  Run({Script("ok.sh", std::string("echo '") + kApprove + "'")});
  Run({Script("fail.sh", "exit 4")});
  Run({Script("slow.sh", "sleep 30")}, {}, milliseconds(200));
  Run({Script("wait.sh", "touch " + dir_ + "/go\nsleep 30")}, {}, seconds(30),
      [this] { return Exists("go"); });
  Run({dir_ + "/missing"});
  EXPECT_EQ(OpenPipes(), before);
}

TEST(CommandExecutorCreateTest, RejectsAnEmptyArgv) {
  auto empty = CommandExecutor::Create({});
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(), "command executor: argv is empty");
  CommandExecutorOptions blank;
  blank.argv = {""};
  auto none = CommandExecutor::Create(blank);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().message(), "command executor: argv[0] is empty");
}

TEST(FormatTimeoutTest, PicksTheLargestWholeUnit) {
  EXPECT_EQ(FormatTimeout(seconds(5)), "5s");
  EXPECT_EQ(FormatTimeout(milliseconds(300)), "300ms");
  EXPECT_EQ(FormatTimeout(std::chrono::minutes(10)), "10m");
  EXPECT_EQ(FormatTimeout(std::chrono::hours(2)), "2h");
  EXPECT_EQ(FormatTimeout(seconds(90)), "90s");
  EXPECT_EQ(FormatTimeout(Duration(1500)), "1500us");
}

}  // namespace
}  // namespace gatehouse::review
