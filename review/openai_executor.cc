#include "review/openai_executor.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <thread>

#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "review/detached_exchange.h"
#include "review/review_json.h"

namespace gatehouse::review {
namespace {

namespace json = boost::json;
using Steady = std::chrono::steady_clock;

constexpr auto kPoll = std::chrono::milliseconds(100);
constexpr auto kChatRetryAfter = std::chrono::seconds(10);
// What one request may carry of the diff, so it fits an ordinary model's context window.
constexpr size_t kMaxPatchBytes = 24 * 1024;
constexpr size_t kMaxTotalPatchBytes = 160 * 1024;
constexpr size_t kMaxReasonBytes = 400;
constexpr char kClipped[] = "\n... (patch clipped by gatehouse)";

std::string Clip(std::string_view s, size_t max) {
  if (s.size() <= max) return std::string(s);
  size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;  // UTF-8
  return std::string(s.substr(0, cut)) + "...";
}

std::string Scrub(std::string text, const std::string& secret) {
  if (secret.empty()) return text;
  for (size_t at = text.find(secret); at != std::string::npos; at = text.find(secret, at)) {
    text.replace(at, secret.size(), "***");
  }
  return text;
}

std::string Seconds(Duration d) {
  return std::to_string(std::chrono::duration_cast<std::chrono::seconds>(d).count()) + "s";
}

std::optional<int64_t> HeaderNumber(const HttpReply& reply, std::string_view name) {
  const std::string v = reply.Header(name);
  int64_t n = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (v.empty() || ec != std::errc() || n < 0) return std::nullopt;
  (void)end;  // "1.5" reads as 1: whole seconds are enough
  return n;
}

// The endpoint's own words: {"error": {"message": ...}}, else the start of the body.
std::string ErrorMessage(const std::string& body) {
  boost::system::error_code ec;
  json::value v = json::parse(body, ec);
  if (!ec && v.is_object()) {
    if (const auto* err = v.as_object().if_contains("error")) {
      if (const auto* o = err->if_object()) {
        if (const auto* m = o->if_contains("message"); m && m->is_string()) {
          return std::string(m->as_string());
        }
      }
      if (err->is_string()) return std::string(err->as_string());
    }
  }
  return body;
}

// `request` with each patch, and all of them together, cut to what one request may carry.
decide::ReviewRequest ClipPatches(decide::ReviewRequest request) {
  size_t total = 0;
  for (auto& f : request.files) {
    size_t budget = total >= kMaxTotalPatchBytes ? 0 : kMaxTotalPatchBytes - total;
    size_t keep = std::min({f.patch.size(), kMaxPatchBytes, budget});
    if (keep < f.patch.size()) f.patch = Clip(f.patch, keep) + kClipped;
    total += keep;
  }
  return request;
}

// The content of choices[0].message, or "" with `problem` set.
std::string MessageContent(const std::string& body, std::string* problem) {
  boost::system::error_code ec;
  json::value v = json::parse(body, ec);
  if (ec || !v.is_object()) {
    *problem = "the reply is not a JSON object: " + Clip(body, 120);
    return "";
  }
  const auto* choices = v.as_object().if_contains("choices");
  if (choices == nullptr || !choices->is_array() || choices->as_array().empty() ||
      !choices->as_array()[0].is_object()) {
    *problem = "the reply has no choices";
    return "";
  }
  const json::object& choice = choices->as_array()[0].as_object();
  const auto* message = choice.if_contains("message");
  const auto* content =
      message && message->is_object() ? message->as_object().if_contains("content") : nullptr;
  if (content == nullptr || !content->is_string()) {
    *problem = "choices[0].message.content is not a string";
    return "";
  }
  if (const auto* reason = choice.if_contains("finish_reason");
      reason && reason->is_string() && reason->as_string() == "length") {
    *problem = "the answer was cut off (finish_reason length)";
    return "";
  }
  return std::string(content->as_string());
}

class OpenAiExecutor final : public ReviewExecutor {
 public:
  OpenAiExecutor(std::string base_url, std::string model, std::string api_key)
      : base_url_(std::move(base_url)), model_(std::move(model)), api_key_(std::move(api_key)) {}

  ExecOutcome Review(const decide::ReviewRequest& request, Duration timeout,
                     const CancelProbe& cancelled) override {
    CurlTransportOptions options;
    options.base_url = base_url_;
    options.connect_timeout = std::min<Duration>(timeout, std::chrono::seconds(10));
    // The abandoned exchange of a cancelled or timed-out call ends by itself soon after.
    options.total_timeout = timeout + std::chrono::seconds(1);
    options.max_idle_handles = 1;
    auto transport = CurlTransport::Create(options);
    if (!transport.ok()) return ExecOutcome::Transient("openai: " + transport.status().message());


    HttpCall call;
    call.method = "POST";
    call.target = "/chat/completions";
    call.headers.emplace_back("Authorization", "Bearer " + api_key_);
    call.body = BuildChatRequest(request, model_);

    std::shared_ptr<DetachedExchange> exchange =
        StartDetachedExchange(std::move(transport).value(), std::move(call));

    const auto deadline = Steady::now() + std::chrono::duration_cast<Steady::duration>(timeout);
    MutexLock lock(&exchange->mu);
    while (!exchange->reply) {
      exchange->mu.Unlock();
      const bool stop = cancelled && cancelled();
      exchange->mu.Lock();
      if (exchange->reply) break;
      if (stop) return ExecOutcome::Cancelled("openai: cancelled; the request was abandoned");
      const auto now = Steady::now();
      if (now >= deadline) {
        return ExecOutcome::Transient("openai: no answer from " + base_url_ + " within " +
                                      Seconds(timeout));
      }
      exchange->cv.WaitUntil(&exchange->mu, std::min(deadline, now + kPoll));
    }
    const Result<HttpReply>& reply = *exchange->reply;
    if (!reply.ok()) {
      const Status& failed = reply.status();
      if (IsCurlTimeout(failed.message())) {
        return ExecOutcome::Transient(Scrub("openai: no answer from " + base_url_ + " within " +
                                                Seconds(timeout) + ": " + failed.message(),
                                            api_key_));
      }
      // No response at all (refused, reset, DNS): the endpoint is down.
      if (failed.code() == StatusCode::kUnavailable) {
        return ExecOutcome::Unavailable(
            Scrub("openai: no response from " + base_url_ + ": " + failed.message(), api_key_));
      }
      return ExecOutcome::Transient(Scrub("openai: " + failed.message(), api_key_));
    }
    return InterpretChatReply(*reply, kChatRetryAfter, api_key_);
  }

 private:
  const std::string base_url_;
  const std::string model_;
  const std::string api_key_;  // never logged
};

}  // namespace

const std::string& OpenAiSystemPrompt() {
  static const std::string kPrompt =
      R"(You are a code reviewer. You review one pull request, given as JSON in the user message: repo, number, role (what to review for), head_sha, base_sha, title, body, author, files (path, status, additions, deletions, patch: unified-diff hunks of the change; a patch may be empty or clipped), prior_findings (what you reported on an earlier head, prior_head_sha).

Answer with exactly one JSON object and nothing else, of this shape:
{"verdict": "approve" | "comment" | "request_changes",
 "summary": "<a few sentences for the PR author>",
 "findings": [{"path": "<a path from files>", "line": <integer >= 1: the line in the new file, 0 for the file as a whole>, "severity": "info" | "warning" | "blocking", "message": "<what is wrong and how to fix it>"}]}

Rules:
- Review for the role named in the request; judge only the changed lines and what they affect.
- "blocking" is for defects that must be fixed before merging (bugs, security problems, leaked credentials); "warning" for likely problems; "info" for suggestions.
- Use "request_changes" when there is at least one blocking finding, "approve" when there is nothing to fix, "comment" otherwise.
- Compute line numbers from the hunk headers (@@ -a,b +c,d @@: the first line after it is line c of the new file; lines starting with '-' are not in the new file).
- When prior_findings are given, say in the summary which of them this head resolves; report the ones still present again.
- At most 50 findings; an empty array when there are none. No Markdown fences, no text outside the JSON object.)";
  return kPrompt;
}

std::string BuildChatRequest(const decide::ReviewRequest& request, const std::string& model) {
  const std::string user = "Review this pull request for the role \"" + request.role +
                           "\". The request as JSON:\n" + EncodeReviewRequest(ClipPatches(request));
  json::array messages{json::object{{"role", "system"}, {"content", OpenAiSystemPrompt()}},
                       json::object{{"role", "user"}, {"content", user}}};
  json::object body{{"model", model},
                    {"messages", std::move(messages)},
                    {"temperature", 0},
                    {"response_format", json::object{{"type", "json_object"}}}};
  return json::serialize(body);
}

std::string StripCodeFence(std::string_view content) {
  auto trim = [](std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
  };
  std::string_view s = trim(content);
  if (s.starts_with("```")) {
    const size_t newline = s.find('\n');
    s = newline == std::string_view::npos ? std::string_view() : s.substr(newline + 1);
    s = trim(s);
    if (s.ends_with("```")) s.remove_suffix(3);
    s = trim(s);
  }
  return std::string(s);
}

ExecOutcome InterpretChatReply(const HttpReply& reply, Duration default_retry_after,
                               const std::string& secret) {
  const std::string status = "HTTP " + std::to_string(reply.status);
  if (reply.status == 429) {
    Duration after = default_retry_after;
    if (auto ms = HeaderNumber(reply, "retry-after-ms")) {
      after = std::chrono::milliseconds(*ms);
    } else if (auto s = HeaderNumber(reply, "retry-after")) {
      after = std::chrono::seconds(*s);
    }
    return ExecOutcome::RateLimited(
        after, Scrub("openai: " + status + ": " + Clip(ErrorMessage(reply.body), kMaxReasonBytes),
                     secret));
  }
  if (reply.status < 200 || reply.status >= 300) {
    std::string why =
        Scrub("openai: " + status + ": " + Clip(ErrorMessage(reply.body), kMaxReasonBytes), secret);
    // 502/503/504: the endpoint (or its gateway) is down, not this request bad.
    if (reply.status == 502 || reply.status == 503 || reply.status == 504) {
      return ExecOutcome::Unavailable(std::move(why));
    }
    return ExecOutcome::Transient(std::move(why));
  }
  std::string problem;
  std::string content = MessageContent(reply.body, &problem);
  if (!problem.empty()) return ExecOutcome::Transient(Scrub("openai: " + problem, secret));
  auto result = ParseReviewResult(StripCodeFence(content));
  if (!result.ok()) {
    return ExecOutcome::Transient(
        Scrub("openai: the model's answer is not a valid result: " + result.status().message() +
                  " (answer: " + Clip(content, 160) + ")",
              secret));
  }
  return ExecOutcome::Ok(*std::move(result));
}

Result<ReviewExecutorPtr> MakeOpenAiExecutor(const decide::ExecutorSpec& spec) {
  std::string base_url = spec.base_url;
  while (base_url.ends_with("/")) base_url.pop_back();
  if (!base_url.starts_with("http://") && !base_url.starts_with("https://")) {
    return InvalidArgument("openai executor: base_url must be an http:// or https:// URL, got \"" +
                           spec.base_url + "\"");
  }
  if (spec.model.empty()) return InvalidArgument("openai executor: model is empty");
  if (spec.api_key_env.empty()) return InvalidArgument("openai executor: api_key_env is empty");
  const char* key = std::getenv(spec.api_key_env.c_str());
  if (key == nullptr || *key == '\0') {
    return InvalidArgument("openai executor: environment variable " + spec.api_key_env +
                           " is not set");
  }
  return ReviewExecutorPtr(std::make_unique<OpenAiExecutor>(base_url, spec.model, key));
}

}  // namespace gatehouse::review
