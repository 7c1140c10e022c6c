// Who may use the admin listener (docs/ADMIN_API.md, "Authentication"): the holder of the
// admin token, sent as `Authorization: Bearer <token>` or, for the dashboard, as the HttpOnly
// cookie the login form sets. The comparison takes the same time whatever the guess.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "http/handler.h"

namespace gatehouse::admin {

// The dashboard's cookie.
inline constexpr std::string_view kAdminCookie = "gatehouse_admin";
// How long the dashboard's login lasts: the cookie's Max-Age (12 hours).
inline constexpr int64_t kLoginSeconds = 12 * 3600;

// True when `given` is `expected`, in time that depends on neither (both are hashed with
// SHA-256 and the digests compared with CRYPTO_memcmp). An empty `expected` matches nothing.
bool TokenEquals(std::string_view expected, std::string_view given);

// The token a request carries: the Bearer credential, else the admin cookie; "" when none.
std::string RequestToken(const HttpRequest& request);

// A fresh token: 32 random bytes (OpenSSL's RAND_bytes) as 64 hex digits.
Result<std::string> GenerateToken();

// True for 127.0.0.0/8 and ::1 (as ParseListenAddress returns hosts: no brackets).
bool IsLoopbackHost(std::string_view host);

// The admin listener's rule: any address with a token; without one, only a loopback address.
// InvalidArgument saying what to do otherwise.
Status CheckAdminListen(std::string_view listen, bool have_token);

}  // namespace gatehouse::admin
