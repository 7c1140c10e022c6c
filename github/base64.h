// Base64 as GitHub uses it: base64url without padding for JWT segments, and standard base64
// with embedded newlines for file contents (GET /repos/{o}/{r}/contents/{path}). The one base64
// in gatehouse: the client, the App auth and the simulator (sim/) all use these.
//
// Pure functions; safe for concurrent use.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gatehouse {

// RFC 4648 §5 alphabet ('-', '_'), no '=' padding.
std::string Base64UrlEncode(std::string_view data);

// RFC 4648 §4 alphabet ('+', '/'), '=' padded to a multiple of 4, no line breaks.
std::string Base64Encode(std::string_view data);

// Decodes either alphabet (standard or URL-safe), with or without '=' padding, skipping
// ASCII whitespace (GitHub wraps contents at 60 columns). nullopt on any other character
// or an impossible length.
std::optional<std::string> Base64Decode(std::string_view text);

}  // namespace gatehouse
