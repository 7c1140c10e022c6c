#include "review/command_executor.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstring>
#include <optional>
#include <utility>

#include "review/duration_text.h"
#include "review/review_json.h"

extern char** environ;

namespace gatehouse::review {
namespace {

using Steady = std::chrono::steady_clock;
constexpr auto kPollStep = std::chrono::milliseconds(100);
// Without a pidfd (kernels before 5.3) the child's exit is noticed by polling this often.
constexpr auto kExitPollStep = std::chrono::milliseconds(10);

// An owned file descriptor.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  Fd(Fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) {
      Close();
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  ~Fd() { Close(); }
  int get() const { return fd_; }
  bool open() const { return fd_ >= 0; }
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

std::string Errno(int err) { return std::strerror(err); }

// Blocks SIGPIPE on the calling thread for its lifetime, so a write to a pipe whose reader is
// gone fails with EPIPE instead of killing the process; Discard() takes back the SIGPIPE such a
// write left pending (SIGPIPE is sent to the writing thread).
class SigpipeBlock {
 public:
  SigpipeBlock() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set_, &old_);
    sigset_t pending;
    sigemptyset(&pending);
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
  }
  ~SigpipeBlock() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  SigpipeBlock(const SigpipeBlock&) = delete;
  SigpipeBlock& operator=(const SigpipeBlock&) = delete;

  void Discard() {
    if (was_pending_) return;
    timespec zero{};
    sigtimedwait(&set_, nullptr, &zero);
  }

 private:
  sigset_t set_;
  sigset_t old_;
  bool was_pending_ = false;
};

struct Pipe {
  Fd read;
  Fd write;
};

Result<Pipe> MakePipe() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return Unavailable("pipe2: " + Errno(errno));
  return Pipe{Fd(fds[0]), Fd(fds[1])};
}

void SetNonBlocking(const Fd& fd) {
  const int flags = fcntl(fd.get(), F_GETFL);
  if (flags >= 0) fcntl(fd.get(), F_SETFL, flags | O_NONBLOCK);
}

// A started child: its pid (also its process group id), an optional pidfd that turns readable
// when it exits, and the parent's ends of its stdin, stdout and stderr (non-blocking).
struct Child {
  pid_t pid = -1;
  Fd pidfd;
  Fd in;
  Fd out;
  Fd err;
};

// Starts argv in a new process group with default signal dispositions and an empty mask.
// On failure the reason, ready for a Transient outcome.
Result<Child> Spawn(const std::vector<std::string>& argv) {
  auto in = MakePipe();
  if (!in.ok()) return in.status();
  auto out = MakePipe();
  if (!out.ok()) return out.status();
  auto err = MakePipe();
  if (!err.ok()) return err.status();

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  // dup2 clears close-on-exec on the copies; the originals close on exec.
  posix_spawn_file_actions_adddup2(&actions, in->read.get(), 0);
  posix_spawn_file_actions_adddup2(&actions, out->write.get(), 1);
  posix_spawn_file_actions_adddup2(&actions, err->write.get(), 2);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t mask;
  sigemptyset(&mask);
  posix_spawnattr_setsigmask(&attr, &mask);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigdefault(&attr, &defaults);

  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  Child child;
  const int rc = posix_spawnp(&child.pid, args[0], &actions, &attr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) return Unavailable("cannot run " + argv[0] + ": " + Errno(rc));

  child.pidfd = Fd(static_cast<int>(syscall(SYS_pidfd_open, child.pid, 0)));
  child.in = std::move(in->write);
  child.out = std::move(out->read);
  child.err = std::move(err->read);
  SetNonBlocking(child.in);
  SetNonBlocking(child.out);
  SetNonBlocking(child.err);
  return child;  // the child's ends close here, in the parent
}

bool HasExited(const Child& child, short pidfd_revents) {
  if (child.pidfd.open()) return (pidfd_revents & POLLIN) != 0;
  siginfo_t info{};
  // WNOWAIT leaves the zombie in place, so its pid (and group id) cannot be reused before the
  // group is killed and the child reaped.
  if (waitid(P_PID, static_cast<id_t>(child.pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
    return false;
  }
  return info.si_pid == child.pid;
}

enum class End { kExited, kTimedOut, kCancelled, kOverflow };

// What one exchange with a child collected.
struct Collected {
  std::string out;
  std::string err_tail;
  bool err_clipped = false;
};

// Reads what `fd` has now. False at end of file (or a read error); the fd is then closed.
bool Drain(Fd& fd, std::string* into, size_t cap, bool keep_tail, bool* clipped) {
  char buf[16384];
  while (true) {
    const ssize_t n = ::read(fd.get(), buf, sizeof(buf));
    if (n > 0) {
      into->append(buf, static_cast<size_t>(n));
      if (keep_tail && into->size() > cap) {
        into->erase(0, into->size() - cap);
        *clipped = true;
      }
      if (!keep_tail && into->size() > cap) return true;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    fd.Close();
    return false;
  }
}

// Writes what the pipe takes of input[*written..]; closes `fd` when all is written or the
// reader is gone (EPIPE: the child did not want its stdin, which is its business).
void Feed(Fd& fd, const std::string& input, size_t* written, SigpipeBlock* sigpipe) {
  while (*written < input.size()) {
    const ssize_t n = ::write(fd.get(), input.data() + *written, input.size() - *written);
    if (n > 0) {
      *written += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (n < 0 && errno == EPIPE) sigpipe->Discard();
    break;
  }
  fd.Close();
}

// Feeds stdin, collects stdout and stderr, and watches the child, the deadline and
// `cancelled` (at least every kPollStep) until one of them ends the exchange.
End Exchange(Child& child, const std::string& input, Steady::time_point deadline,
             const CancelProbe& cancelled, const CommandExecutorOptions& options, Collected* got) {
  SigpipeBlock sigpipe;
  size_t written = 0;
  if (input.empty()) child.in.Close();
  while (true) {
    if (cancelled && cancelled()) return End::kCancelled;
    const auto now = Steady::now();
    if (now >= deadline) return End::kTimedOut;
    auto step = std::min<Steady::duration>(kPollStep, deadline - now);
    if (!child.pidfd.open()) step = std::min<Steady::duration>(step, kExitPollStep);
    const int wait_ms =
        static_cast<int>(std::chrono::ceil<std::chrono::milliseconds>(step).count());

    pollfd fds[4];
    nfds_t n = 0;
    auto add = [&fds, &n](const Fd& fd, short events) -> int {
      if (!fd.open()) return -1;
      fds[n] = pollfd{fd.get(), events, 0};
      return static_cast<int>(n++);
    };
    const int in_i = add(child.in, POLLOUT);
    const int out_i = add(child.out, POLLIN);
    const int err_i = add(child.err, POLLIN);
    const int pid_i = add(child.pidfd, POLLIN);
    // A failed poll (EINTR) is retried; the deadline still bounds the loop.
    if (poll(fds, n, wait_ms) < 0) continue;
    auto ready = [&fds](int i) { return i >= 0 && fds[i].revents != 0; };

    if (ready(in_i)) Feed(child.in, input, &written, &sigpipe);
    if (ready(out_i)) {
      Drain(child.out, &got->out, options.max_stdout, false, nullptr);
      if (got->out.size() > options.max_stdout) return End::kOverflow;
    }
    if (ready(err_i))
      Drain(child.err, &got->err_tail, options.stderr_tail, true, &got->err_clipped);
    if (HasExited(child, pid_i >= 0 ? fds[pid_i].revents : 0)) {
      // Whatever it wrote before exiting is in the pipes; a grandchild holding them open must
      // not keep us waiting, so read only what is there now.
      if (child.out.open()) Drain(child.out, &got->out, options.max_stdout, false, nullptr);
      if (got->out.size() > options.max_stdout) return End::kOverflow;
      if (child.err.open()) {
        Drain(child.err, &got->err_tail, options.stderr_tail, true, &got->err_clipped);
      }
      return End::kExited;
    }
  }
}

// SIGKILLs the child's whole process group, then reaps the child; its wait status.
int KillGroupAndReap(pid_t pid) {
  ::kill(-pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

// The stderr tail as one line for a reason: trimmed, newlines shown as " | ".
std::string TailForReason(const Collected& got) {
  std::string_view s = got.err_tail;
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  std::string line = got.err_clipped ? "…" : "";
  for (char c : s) {
    if (c == '\n') {
      line += " | ";
    } else if (c != '\r') {
      line += c;
    }
  }
  return line;
}

std::string WithTail(std::string what, const Collected& got) {
  std::string tail = TailForReason(got);
  if (tail.empty()) return what;
  return what + ": " + tail;
}

}  // namespace

Result<ReviewExecutorPtr> CommandExecutor::Create(CommandExecutorOptions options) {
  if (options.argv.empty()) return InvalidArgument("command executor: argv is empty");
  if (options.argv[0].empty()) return InvalidArgument("command executor: argv[0] is empty");
  return ReviewExecutorPtr(new CommandExecutor(std::move(options)));
}

ExecOutcome CommandExecutor::Review(const decide::ReviewRequest& request, Duration timeout,
                                    const CancelProbe& cancelled) {
  if (cancelled && cancelled()) return ExecOutcome::Cancelled("cancelled before it started");
  const auto deadline = Steady::now() + timeout;
  const std::string input = EncodeReviewRequest(request);
  auto child = Spawn(options_.argv);
  if (!child.ok()) return ExecOutcome::Transient(child.status().message());

  Collected got;
  const End end = Exchange(*child, input, deadline, cancelled, options_, &got);
  const int status = KillGroupAndReap(child->pid);
  switch (end) {
    case End::kCancelled:
      return ExecOutcome::Cancelled("cancelled; the command was killed");
    case End::kTimedOut:
      return ExecOutcome::Transient(WithTail("timed out after " + FormatTimeout(timeout), got));
    case End::kOverflow:
      return ExecOutcome::Transient("stdout exceeded " + std::to_string(options_.max_stdout) +
                                    " bytes");
    case End::kExited:
      break;
  }
  if (WIFSIGNALED(status)) {
    return ExecOutcome::Transient(
        WithTail("killed by signal " + std::to_string(WTERMSIG(status)), got));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return ExecOutcome::Transient(
        WithTail("exit " + std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1), got));
  }
  auto result = ParseReviewResult(got.out);
  if (!result.ok()) {
    return ExecOutcome::Transient("stdout is not a review result: " + result.status().message());
  }
  return ExecOutcome::Ok(std::move(result).value());
}

}  // namespace gatehouse::review
