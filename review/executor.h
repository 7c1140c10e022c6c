// ReviewExecutor: how one reviewer reviews one PR head (docs/REVIEWERS.md, "Executors";
// DESIGN.md §5: everything that touches the outside world is an interface with real
// implementations). MakeExecutor builds the one a reviewers-file entry names:
//   command          runs an argv, the request JSON on stdin, the result JSON on stdout
//   http             POSTs the request JSON (HMAC-signed like GitHub webhooks), reads the result
//   openai           asks an OpenAI-compatible chat-completions endpoint, validates its answer
//   builtin:secrets  scans the added lines of the patches for credentials (RE2)
//
// Review() blocks until the result, a failure, the timeout, or `cancelled()` turning true
// (polled at least every 100 ms; a running command is killed, an HTTP call abandoned). It never
// touches the store: no store connection is held while a reviewer works.
//
// Implementations are thread-safe: one executor serves every run of its reviewer.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "base/clock.h"
#include "base/status.h"
#include "decide/review_types.h"
#include "decide/reviewers_config.h"

namespace gatehouse::review {

using CancelProbe = std::function<bool()>;

struct ExecOutcome {
  enum class Kind {
    kResult,       // `result` holds a validated ReviewResult
    kTransient,    // non-zero exit, timeout, bad JSON, 5xx, connection error: retry later
    kRateLimited,  // the endpoint said 429: wait `retry_after`, spend no attempt
    kUnavailable,  // the reviewer is down (connection refused, 502/503/504): wait on the
                   // availability budget, spend no attempt (docs/REVIEWERS.md, "Outages")
    kCancelled,    // cancelled() turned true; whatever ran was stopped
  };
  Kind kind = Kind::kResult;
  decide::ReviewResult result;
  std::string reason;  // for every kind but kResult: what went wrong, precisely
  Duration retry_after{0};

  static ExecOutcome Ok(decide::ReviewResult r) { return {Kind::kResult, std::move(r), "", {}}; }
  static ExecOutcome Transient(std::string why) {
    return {Kind::kTransient, {}, std::move(why), {}};
  }
  static ExecOutcome RateLimited(Duration after, std::string why) {
    return {Kind::kRateLimited, {}, std::move(why), after};
  }
  static ExecOutcome Cancelled(std::string why) {
    return {Kind::kCancelled, {}, std::move(why), {}};
  }
  static ExecOutcome Unavailable(std::string why) {
    return {Kind::kUnavailable, {}, std::move(why), {}};
  }
};

class ReviewExecutor {
 public:
  virtual ~ReviewExecutor() = default;
  virtual ExecOutcome Review(const decide::ReviewRequest& request, Duration timeout,
                             const CancelProbe& cancelled) = 0;
};

using ReviewExecutorPtr = std::unique_ptr<ReviewExecutor>;

// The executor `spec` names. InvalidArgument when it cannot be built (an http URL that is not
// http(s), an api_key_env that is unset, ...), with a message naming the reviewer's problem.
Result<ReviewExecutorPtr> MakeExecutor(const decide::ExecutorSpec& spec);

}  // namespace gatehouse::review
