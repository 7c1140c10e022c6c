// HttpExecutor: the `http` reviewer (docs/REVIEWERS.md, "Executors"). Each Review() POSTs
// EncodeReviewRequest to the endpoint and reads the result JSON from a 2xx response body, within
// the timeout. The request carries
//   Content-Type: application/json            (added by CurlTransport for a JSON body)
//   X-Gatehouse-Event: review_request
//   X-Gatehouse-Signature-256: sha256=<hex>   HMAC-SHA256 of the body under the secret, like
//                                             GitHub's X-Hub-Signature-256; omitted when the
//                                             reviewer has no secret
//
// Outcomes:
//   2xx with a valid result                 -> kResult
//   2xx whose body is not a result          -> kTransient "response is not a review result: ..."
//   429                                     -> kRateLimited after Retry-After (seconds; 60 s
//                                              when absent or unreadable)
//   502, 503, 504                           -> kUnavailable "HTTP 503 from URL: <body snippet>"
//   500, other 5xx, 4xx, other statuses     -> kTransient "HTTP 500 from URL: <body snippet>"
//   no response (refused, reset, DNS)       -> kUnavailable "no response: <libcurl's reason>"
//   no answer within the timeout            -> kTransient "timed out after 5s" (it answered
//                                              too slowly: an attempt is spent)
//   cancelled() turned true                 -> kCancelled at once; the call is abandoned
// The exchange runs on a thread of its own so that cancelled() can be polled (every 100 ms)
// while it is under way; an abandoned exchange finishes in the background (libcurl's own
// timeout bounds it), owning everything it uses.
//
// Thread-safe: Review() shares nothing mutable between calls.
#pragma once

#include <string>
#include <string_view>

#include "github/transport.h"
#include "review/executor.h"

namespace gatehouse::review {

struct HttpEndpoint {
  std::string base_url;  // scheme://host[:port]
  std::string target;    // /path?query ("/" when the URL has no path)
};

// Splits an http(s) URL. InvalidArgument for another scheme, no host, or a fragment.
Result<HttpEndpoint> ParseHttpEndpoint(std::string_view url);

struct HttpExecutorOptions {
  std::string url;
  std::string secret;  // "" = requests are not signed
};

class HttpExecutor final : public ReviewExecutor {
 public:
  // InvalidArgument for a URL ParseHttpEndpoint refuses.
  static Result<ReviewExecutorPtr> Create(HttpExecutorOptions options);

  ExecOutcome Review(const decide::ReviewRequest& request, Duration timeout,
                     const CancelProbe& cancelled) override;

 private:
  HttpExecutor(HttpExecutorOptions options, HttpEndpoint endpoint)
      : options_(std::move(options)), endpoint_(std::move(endpoint)) {}
  ExecOutcome Classify(const HttpReply& reply) const;

  const HttpExecutorOptions options_;
  const HttpEndpoint endpoint_;
};

}  // namespace gatehouse::review
