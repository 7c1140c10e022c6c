#include "review/http_executor.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <optional>
#include <thread>
#include <utility>

#include "base/ascii.h"
#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "github/signature.h"
#include "review/duration_text.h"
#include "review/detached_exchange.h"
#include "review/review_json.h"

namespace gatehouse::review {
namespace {

using Steady = std::chrono::steady_clock;
constexpr auto kWaitStep = std::chrono::milliseconds(100);
// How long past the timeout Review() waits for libcurl's own timeout to end the exchange.
constexpr auto kTimeoutGrace = std::chrono::seconds(2);
constexpr auto kDefaultRetryAfter = std::chrono::seconds(60);
constexpr size_t kSnippetBytes = 200;

// The body's first bytes on one line, for a reason.
std::string Snippet(std::string_view body) {
  std::string out;
  for (char c : body.substr(0, kSnippetBytes)) {
    out += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
  }
  if (body.size() > kSnippetBytes) out += "…";
  return out;
}

// Retry-After in seconds; HTTP dates and garbage give the default.
Duration RetryAfter(std::string_view value) {
  int64_t seconds = 0;
  const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (value.empty() || ec != std::errc() || end != value.data() + value.size() || seconds < 0) {
    return kDefaultRetryAfter;
  }
  return std::chrono::seconds(std::min<int64_t>(seconds, 24 * 3600));
}

// 502/503/504: a gateway or the reviewer itself says it is down, not that this request failed.
bool IsOutageStatus(int status) { return status == 502 || status == 503 || status == 504; }

}  // namespace

Result<HttpEndpoint> ParseHttpEndpoint(std::string_view url) {
  const std::string lower = AsciiLower(url.substr(0, 8));
  size_t scheme_end = 0;
  if (lower.starts_with("http://")) {
    scheme_end = 7;
  } else if (lower.starts_with("https://")) {
    scheme_end = 8;
  } else {
    return InvalidArgument("http executor: url must start with http:// or https://: " +
                           std::string(url));
  }
  if (url.find('#') != std::string_view::npos) {
    return InvalidArgument("http executor: url may not have a fragment: " + std::string(url));
  }
  const size_t authority_end = std::min(url.find_first_of("/?", scheme_end), url.size());
  const std::string_view authority = url.substr(scheme_end, authority_end - scheme_end);
  if (authority.empty() || authority.front() == ':') {
    return InvalidArgument("http executor: url has no host: " + std::string(url));
  }
  if (authority.find('@') != std::string_view::npos) {
    return InvalidArgument("http executor: url may not carry credentials; use secret_env");
  }
  HttpEndpoint endpoint;
  endpoint.base_url = std::string(url.substr(0, authority_end));
  endpoint.target = std::string(url.substr(authority_end));
  if (endpoint.target.empty() || endpoint.target.front() == '?') {
    endpoint.target.insert(0, "/");
  }
  return endpoint;
}

Result<ReviewExecutorPtr> HttpExecutor::Create(HttpExecutorOptions options) {
  auto endpoint = ParseHttpEndpoint(options.url);
  if (!endpoint.ok()) return endpoint.status();
  return ReviewExecutorPtr(new HttpExecutor(std::move(options), std::move(endpoint).value()));
}

ExecOutcome HttpExecutor::Review(const decide::ReviewRequest& request, Duration timeout,
                                 const CancelProbe& cancelled) {
  if (cancelled && cancelled()) return ExecOutcome::Cancelled("cancelled before it started");
  // libcurl reads a zero timeout as "none".
  const Duration bounded = std::max<Duration>(timeout, std::chrono::milliseconds(1));
  CurlTransportOptions transport_options;
  transport_options.base_url = endpoint_.base_url;
  transport_options.connect_timeout = std::min<Duration>(bounded, std::chrono::seconds(10));
  transport_options.total_timeout = bounded;
  transport_options.max_idle_handles = 0;  // one exchange per transport: keep no handle
  auto transport = CurlTransport::Create(transport_options);
  if (!transport.ok()) return ExecOutcome::Transient(transport.status().message());

  HttpCall call;
  call.method = "POST";
  call.target = endpoint_.target;
  call.body = EncodeReviewRequest(request);
  call.headers.emplace_back("X-Gatehouse-Event", "review_request");
  if (!options_.secret.empty()) {
    call.headers.emplace_back("X-Gatehouse-Signature-256",
                              "sha256=" + HmacSha256Hex(options_.secret, call.body));
  }

  const auto hard_deadline = Steady::now() + bounded + kTimeoutGrace;
  std::shared_ptr<DetachedExchange> exchange =
      StartDetachedExchange(std::move(transport).value(), std::move(call));
  std::optional<Result<HttpReply>> reply;
  while (!reply) {
    if (cancelled && cancelled()) {
      return ExecOutcome::Cancelled("cancelled; the HTTP call was abandoned");
    }
    {
      MutexLock lock(&exchange->mu);
      if (!exchange->reply) {
        exchange->cv.WaitUntil(&exchange->mu, std::min(Steady::now() + kWaitStep, hard_deadline));
      }
      if (exchange->reply) reply.emplace(std::move(*exchange->reply));
    }
    if (!reply && Steady::now() >= hard_deadline) {
      return ExecOutcome::Transient("timed out after " + FormatTimeout(timeout));
    }
  }
  if (!reply->ok()) {
    const std::string& why = reply->status().message();
    if (IsCurlTimeout(why)) return ExecOutcome::Transient("timed out after " + FormatTimeout(timeout));
    // No response at all (refused, reset, DNS): the reviewer is down, not this request bad.
    if (reply->status().code() == StatusCode::kUnavailable) {
      return ExecOutcome::Unavailable("no response: " + why);
    }
    return ExecOutcome::Transient(why);
  }
  return Classify(reply->value());
}

ExecOutcome HttpExecutor::Classify(const HttpReply& reply) const {
  const std::string from = "HTTP " + std::to_string(reply.status) + " from " + options_.url;
  if (reply.status == 429) {
    const Duration after = RetryAfter(reply.Header("retry-after"));
    return ExecOutcome::RateLimited(after, from + ": retry after " + FormatTimeout(after));
  }
  const std::string answered = reply.body.empty() ? from : from + ": " + Snippet(reply.body);
  if (IsOutageStatus(reply.status)) return ExecOutcome::Unavailable(answered);
  if (reply.status < 200 || reply.status > 299) return ExecOutcome::Transient(answered);
  auto result = ParseReviewResult(reply.body);
  if (!result.ok()) {
    return ExecOutcome::Transient("response is not a review result: " + result.status().message());
  }
  return ExecOutcome::Ok(std::move(result).value());
}

}  // namespace gatehouse::review
