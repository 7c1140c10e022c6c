// MeteredTransport: an HttpTransport that counts every request it passes on, by method,
// endpoint and answer, in gatehouse_github_requests_total{method,endpoint,status}
// (docs/METRICS.md). The endpoint is the path's template — "/repos/{owner}/{repo}/pulls/{n}"
// — so the number of series stays bounded whatever the repositories are called; the status is
// the HTTP status ("200", "304", "502") or "none" when no answer came (reset, timeout). A 304
// is the conditional read that did not cost a request of the rate limit.
//
// Thread-safety: as the transport it wraps (Send from any thread); the series are atomics.
#pragma once

#include <string>
#include <string_view>

#include "base/metrics.h"
#include "github/transport.h"

namespace gatehouse {

// "/repos/acme/app/pulls/12/reviews?per_page=100" -> "/repos/{owner}/{repo}/pulls/{n}/reviews".
// Numbers become {n}, 40-hex SHAs {sha}, a repository's owner and name {owner}/{repo}, and
// what follows contents/, labels/, git/refs/ or branches/ one {path}/{name}/{ref}/{branch}. A
// target may be absolute (pagination links): everything before the path after `base_url`
// is dropped.
std::string EndpointTemplate(std::string_view target, std::string_view base_url = {});

class MeteredTransport final : public HttpTransport {
 public:
  // `inner` and `registry` must outlive this transport. `base_url` is the inner transport's.
  MeteredTransport(HttpTransport& inner, std::string base_url, metrics::Registry& registry);

  Result<HttpReply> Send(const HttpCall& call) override;

 private:
  HttpTransport& inner_;
  const std::string base_url_;
  metrics::Family<metrics::Counter>& requests_;
};

}  // namespace gatehouse
