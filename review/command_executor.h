// CommandExecutor: the `command` reviewer (docs/REVIEWERS.md, "Executors"). Each Review() runs
// the argv as a new process (argv[0] is looked up on PATH unless it holds a '/'), in a process
// group of its own, with the environment of gatehouse; writes EncodeReviewRequest to its stdin
// and closes it; reads its stdout (at most `max_stdout` bytes) and keeps the last
// `stderr_tail` bytes of its stderr for error messages.
//
// Outcomes:
//   exit 0 and stdout a valid result        -> kResult
//   exit N != 0                             -> kTransient "exit 3: <stderr tail>"
//   killed by a signal                      -> kTransient "killed by signal 9: <stderr tail>"
//   stdout not a result                     -> kTransient "stdout is not a review result: ..."
//   no exit within the timeout              -> kTransient "timed out after 5s"
//   stdout over the cap                     -> kTransient "stdout exceeded 4194304 bytes"
//   the program cannot be started           -> kTransient "cannot run ./x: No such file ..."
//   cancelled() turned true                 -> kCancelled
// The timeout and cancelled() are checked at least every 100 ms. On timeout, cancel or
// overflow the whole process group is sent SIGKILL; in every case the group is killed (a
// reviewer's stray background processes do not outlive Review()) and the child is reaped
// before Review() returns. The timeout is real time: it bounds a real process.
//
// Thread-safe: Review() keeps no state between calls, creates its pipes close-on-exec (so a
// child started concurrently on another thread inherits none of them) and blocks SIGPIPE on the
// calling thread while it writes, so a child that exits without reading its stdin cannot kill
// gatehouse.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "review/executor.h"

namespace gatehouse::review {

struct CommandExecutorOptions {
  std::vector<std::string> argv;  // non-empty
  size_t max_stdout = size_t{4} * 1024 * 1024;
  size_t stderr_tail = 2048;
};

class CommandExecutor final : public ReviewExecutor {
 public:
  // InvalidArgument for an empty argv or an empty argv[0].
  static Result<ReviewExecutorPtr> Create(CommandExecutorOptions options);

  ExecOutcome Review(const decide::ReviewRequest& request, Duration timeout,
                     const CancelProbe& cancelled) override;

 private:
  explicit CommandExecutor(CommandExecutorOptions options) : options_(std::move(options)) {}
  const CommandExecutorOptions options_;
};

}  // namespace gatehouse::review
