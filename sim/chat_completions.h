// FakeChatCompletions: an OpenAI-compatible chat-completions endpoint with scripted answers,
// so that the openai reviewer executor is tested without a network (docs/SIMULATOR.md, "Fake
// chat completions"). SimHandler serves it at every POST path ending in /chat/completions
// (/v1/chat/completions, /openai/v1/chat/completions, ...).
//
// A request is checked as OpenAI checks one: `Authorization: Bearer <key>` (401 when missing,
// or when a key is configured and this is not it), then a JSON object with a non-empty string
// `model` and a non-empty `messages` array of objects with a string `role` and a `content`
// (400 otherwise). An accepted request is counted for its model and takes the next step of
// that model's queue, else of the default queue ("*"); with both empty it is answered as a
// model would, from the request (DefaultReview). Errors are OpenAI-shaped:
// {"error": {"message", "type", "param", "code"}}.
//
// Thread-safety: safe for concurrent use.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/mutex.h"
#include "base/status.h"
#include "base/thread_annotations.h"
#include "http/handler.h"

namespace gatehouse::sim {

// One scripted answer.
struct ChatStep {
  int status = 200;            // 200: a completion; else an OpenAI-shaped error
  std::string content;         // status 200: the assistant message's content, verbatim
  bool malformed = false;      // status 200 with a body that is not JSON at all
  int64_t retry_after_s = -1;  // >= 0: a Retry-After header (seconds)
  int64_t latency_ms = 0;      // the answer is held back this long (wall clock)
  std::string finish_reason = "stop";
};

// {"content": "..." | {...} (an object is sent as its JSON text), "status": 429,
//  "retry_after": 2, "latency_ms": 300, "malformed": true, "finish_reason": "length"}.
// InvalidArgument naming the bad field.
Result<ChatStep> ParseChatStep(const boost::json::value& v);

struct ChatAnswer {
  HttpResponse response;
  std::chrono::milliseconds latency{0};
};

// The answer when no step is scripted: the last user message's JSON object (the review
// request the openai executor embeds) is read for its "files"; every added line containing
// "FIXME" becomes a warning finding at its path and new-file line. The verdict is approve
// without findings, comment with them; the summary names the model and the file count. A
// message without a JSON object counts as zero files.
std::string DefaultReview(const std::string& model, const boost::json::array& messages);

class FakeChatCompletions {
 public:
  explicit FakeChatCompletions(ClockPtr clock, std::string api_key = "");

  // Whether SimHandler routes `path` here.
  static bool Handles(std::string_view path);

  ChatAnswer Serve(const HttpRequest& request);

  // PUT /_sim/openai: {"api_key": "...", "script": {"MODEL" | "*": [step, ...]}} replaces the
  // key (when given) and every queue (when `script` is given). Requests counts stay.
  Status Configure(const boost::json::object& body);
  // POST /_sim/openai/script: {"model": "MODEL" (default "*"), "steps": [step, ...]} appends.
  Status Append(const boost::json::object& body);
  void ClearScript();

  // GET /_sim/openai: {"api_key_set", "requests": {model: n}, "rejected", "queued":
  // {model: n}, "recent": [the last 20 accepted request bodies, parsed]}.
  boost::json::object Render() const;
  int64_t requests(const std::string& model) const;
  int64_t rejected() const;
  // The last 20 accepted request bodies, oldest first.
  std::vector<std::string> recent() const;

 private:
  // The next scripted step for `model`, or nullopt.
  std::optional<ChatStep> TakeStep(const std::string& model);
  HttpResponse Completion(const std::string& model, const std::string& content,
                          const std::string& finish_reason, size_t prompt_chars);

  const ClockPtr clock_;
  mutable Mutex mu_;
  std::string api_key_ GUARDED_BY(mu_);
  std::map<std::string, std::deque<ChatStep>> script_ GUARDED_BY(mu_);
  std::map<std::string, int64_t> requests_ GUARDED_BY(mu_);
  int64_t rejected_ GUARDED_BY(mu_) = 0;
  int64_t next_id_ GUARDED_BY(mu_) = 0;
  std::deque<std::string> recent_ GUARDED_BY(mu_);
};

}  // namespace gatehouse::sim
