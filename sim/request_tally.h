// RequestTally: every API request the simulator served for gatehouse, counted the way GitHub's
// rate limit sees it (docs/SIMULATOR.md "Requests"), so that a benchmark or the demo can say
// how many rate-limit-costing requests a pass or a webhook took, measured on GitHub's side and
// not by the client being measured.
//
// A request is counted under its rate window — an installation id, or `app` for App-JWT calls
// (the webhook-deliveries API) — and under its method and endpoint template (`GET
// /repos/{owner}/{repo}/pulls/{n}`, github/metered_transport.h's `EndpointTemplate`). It is
// `costing` when the window counted it: admitted and not answered 304. A 304 (a conditional
// request whose answer did not change) and a request refused before it was served (a fault, an
// exhausted limit) cost nothing, as on GitHub.
//
// Thread-safety: safe for concurrent use.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>

#include "base/mutex.h"
#include "base/thread_annotations.h"

namespace gatehouse::sim {

struct RequestCounts {
  int64_t requests = 0;
  int64_t costing = 0;
  int64_t not_modified = 0;  // 304
  int64_t errors = 0;        // 4xx/5xx answers, refused or served
};

class RequestTally {
 public:
  // `window`: the installation id as text, or "app".
  void Record(const std::string& window, std::string_view method, std::string_view target,
              int status, bool costing);

  // {"total": counts, "windows": {window: counts}, "endpoints": [{method, endpoint, counts...}]}
  // with counts as {"requests", "costing", "not_modified", "errors"}.
  boost::json::object Render() const;
  // Render()s the counts and starts afresh, in one step (no request falls between).
  boost::json::object RenderAndReset();

 private:
  boost::json::object RenderLocked() const REQUIRES(mu_);

  mutable Mutex mu_;
  RequestCounts total_ GUARDED_BY(mu_);
  std::map<std::string, RequestCounts> windows_ GUARDED_BY(mu_);
  std::map<std::pair<std::string, std::string>, RequestCounts> endpoints_ GUARDED_BY(mu_);
};

}  // namespace gatehouse::sim
