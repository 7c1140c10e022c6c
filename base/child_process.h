// ChildProcess: a child process with its stdout on a pipe (to read the address it prints) and,
// optionally, its stderr in a file. Used by `gatehouse demo` and the multi-process tests.
//
// The child inherits the environment of the calling process. Destroying a ChildProcess that
// was not waited for kills it (SIGKILL) and reaps it. Not thread-safe.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

namespace gatehouse {

class ChildProcess {
 public:
  // `stderr_path`: "" inherits stderr; otherwise the child's stderr is appended to that file.
  explicit ChildProcess(const std::vector<std::string>& argv, const std::string& stderr_path = "") {
    int fds[2];
    if (pipe(fds) != 0) return;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    if (!stderr_path.empty()) {
      posix_spawn_file_actions_addopen(&actions, 2, stderr_path.c_str(),
                                       O_WRONLY | O_CREAT | O_APPEND, 0644);
    }
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    if (posix_spawn(&pid_, args[0], &actions, nullptr, args.data(), environ) != 0) pid_ = -1;
    posix_spawn_file_actions_destroy(&actions);
    close(fds[1]);
    out_ = fdopen(fds[0], "r");
  }
  ~ChildProcess() {
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    if (out_) fclose(out_);
  }
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  bool ok() const { return pid_ > 0 && out_ != nullptr; }

  // Blocks until the child prints a line (or closes stdout: returns "").
  std::string ReadLine() {
    char buf[1024];
    if (out_ == nullptr || fgets(buf, sizeof(buf), out_) == nullptr) return "";
    std::string line(buf);
    if (!line.empty() && line.back() == '\n') line.pop_back();
    return line;
  }

  void Signal(int sig) { kill(pid_, sig); }

  // Waits for exit; returns the exit code, or 128 + signal number.
  int Wait() {
    int status = 0;
    waitpid(pid_, &status, 0);
    reaped_ = true;
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return -1;
  }

 private:
  pid_t pid_ = -1;
  FILE* out_ = nullptr;
  bool reaped_ = false;
};

}  // namespace gatehouse
