#include "app/demo_serve_after.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <string>

namespace gatehouse::app {
namespace {

// The write end of the self-pipe the handler wakes the waiting thread with.
volatile sig_atomic_t g_wake_fd = -1;

extern "C" void WakeOnSignal(int signo) {
  const int fd = g_wake_fd;
  if (fd < 0) return;
  const unsigned char b = static_cast<unsigned char>(signo);
  const int saved = errno;
  [[maybe_unused]] const ssize_t n = ::write(fd, &b, 1);
  errno = saved;
}

bool WriteTokenFile(const std::string& path, const std::string& token) {
  ::unlink(path.c_str());
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  const std::string text = token + "\n";
  const bool ok = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  return ::close(fd) == 0 && ok;
}

}  // namespace

bool ServeUntilSignal(DemoRig& rig, const std::string& dir) {
  const std::string token_file = dir + "/admin-token";
  if (!WriteTokenFile(token_file, rig.admin_token())) {
    std::fprintf(stderr, "gatehouse demo: cannot write %s\n", token_file.c_str());
    return false;
  }
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return false;
  g_wake_fd = fds[1];
  struct sigaction action = {};
  action.sa_handler = WakeOnSignal;
  sigemptyset(&action.sa_mask);
  struct sigaction old_int = {}, old_term = {};
  ::sigaction(SIGINT, &action, &old_int);
  ::sigaction(SIGTERM, &action, &old_term);

  std::printf("gatehouse demo: serving dashboard=%s token_file=%s sim=%s webhooks=%s\n",
              rig.admin_url().c_str(), token_file.c_str(), rig.sim_url().c_str(),
              rig.nodes().WebhookUrls().c_str());
  std::printf("gatehouse demo: the dashboard's token is in %s; Ctrl-C stops everything\n",
              token_file.c_str());
  std::fflush(stdout);

  unsigned char b = 0;
  while (::read(fds[0], &b, 1) < 0 && errno == EINTR) {
  }
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGTERM, &old_term, nullptr);
  g_wake_fd = -1;
  ::close(fds[0]);
  ::close(fds[1]);
  std::fprintf(stderr, "gatehouse demo: stopping\n");
  return true;
}

}  // namespace gatehouse::app
