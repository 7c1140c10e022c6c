// App JWT verification: GitHub Apps authenticate as the App with an RS256 JWT signed by the
// App's private key, then exchange it for an installation token. The simulator verifies the
// signature against the App's configured public key and the iat/exp window, as GitHub does.
//
// Pure functions; safe for concurrent use.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/status.h"

namespace gatehouse::sim {

struct AppJwtClaims {
  std::string iss;  // the App id (GitHub accepts the numeric id or the client id)
  int64_t iat = 0;
  int64_t exp = 0;
};

// Verifies `jwt` (header.payload.signature, base64url) against `public_key_pem` (an RSA
// "PUBLIC KEY" PEM). InvalidArgument when malformed, FailedPrecondition when the signature
// does not verify, the algorithm is not RS256, or `now` is outside [iat - 60s, exp]; GitHub
// also refuses an exp more than 10 minutes after iat.
Result<AppJwtClaims> VerifyAppJwt(std::string_view jwt, const std::string& public_key_pem,
                                  Time now);

}  // namespace gatehouse::sim
