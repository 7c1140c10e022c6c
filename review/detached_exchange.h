// DetachedExchange: one HTTP exchange run on a thread of its own, so that a reviewer executor
// can stop waiting for it — a cancellation, its timeout — without waiting for libcurl. The
// thread owns the transport and outlives the wait if it must; whoever finishes last frees the
// exchange (it is shared).
//
// Thread-safety: `mu` guards the reply; the helper thread sets it once and signals `cv`.
#pragma once

#include <memory>
#include <optional>
#include <string_view>

#include "base/mutex.h"
#include "base/status.h"
#include "base/thread_annotations.h"
#include "github/transport.h"

namespace gatehouse::review {

struct DetachedExchange {
  Mutex mu;
  CondVar cv;
  std::optional<Result<HttpReply>> reply GUARDED_BY(mu);  // set once, when the call returned
};

// Starts `call` over `transport` on a detached thread; its reply lands in the exchange.
std::shared_ptr<DetachedExchange> StartDetachedExchange(std::shared_ptr<HttpTransport> transport,
                                                        HttpCall call);

// Whether libcurl's message says the exchange ran out of time (connect or total). A name that
// never resolved is DNS being down, not the endpoint answering slowly: not a timeout.
bool IsCurlTimeout(std::string_view curl_message);

}  // namespace gatehouse::review
