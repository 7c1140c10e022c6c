// Turning a non-2xx GitHub reply (or a failed Send) into a typed GitHubError.
//
// Rate limits are recognised before anything else, as GitHub documents them:
//   - 403 or 429 with `Retry-After: <seconds>` (secondary limits) → until now + seconds;
//   - 403 or 429 with `X-RateLimit-Remaining: 0` (primary limit) → until
//     `X-RateLimit-Reset` (Unix seconds);
//   - 429 with neither → until now + 60 s (GitHub's advice for an unspecified wait).
// Everything else goes through KindFromHttpStatus. Pure; safe for concurrent use.
#pragma once

#include <string>

#include "base/clock.h"
#include "base/status.h"
#include "github/errors.h"
#include "github/transport.h"

namespace gatehouse {

// `what` names the call ("PUT /repos/a/b/pulls/1/merge"); GitHub's "message" is appended.
GitHubError ErrorFromReply(const HttpReply& reply, Time now, const std::string& what);

// A Send that got no response: Unavailable → kTransient, anything else → kPermanent.
GitHubError ErrorFromTransport(const Status& status, const std::string& what);

}  // namespace gatehouse
