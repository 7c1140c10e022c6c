// Webhook signatures: GitHub signs each delivery's raw body with HMAC-SHA256 under the
// webhook secret and sends `X-Hub-Signature-256: sha256=<64 lower-case hex>`.
//
// All functions are pure and safe for concurrent use (OpenSSL's one-shot digests keep no
// shared state).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gatehouse {

// SHA-256 of `data`, as 64 lower-case hex digits.
std::string Sha256Hex(std::string_view data);

// HMAC-SHA256 of `data` under `secret`, as 64 lower-case hex digits.
std::string HmacSha256Hex(std::string_view secret, std::string_view data);

// True when `header_value` is `sha256=` followed by 64 hex digits (either case) that equal
// the HMAC-SHA256 of `body` under one of the non-empty `secrets` (the current secret and,
// during rotation, the previous one). Digests are compared in constant time, and every
// secret is tried even after a match, so timing reveals neither how much of a guess was
// right nor which secret matched. A malformed header, or no non-empty secret, gives false.
bool VerifySignature256(std::string_view header_value, std::string_view body,
                        const std::vector<std::string>& secrets);

}  // namespace gatehouse
