// URL pieces a handler needs: percent-decoding, the query string as a map, and splitting a path
// into decoded segments. Plain string work, shared by every handler (the admin API, the
// simulator's REST and control endpoints).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace gatehouse {

// "%2F" → "/", "+" → " "; a '%' not followed by two hex digits is kept as is.
std::string PercentDecode(std::string_view in);
// The inverse for one path segment or query value: everything but [A-Za-z0-9-._~] as %XX.
std::string PercentEncode(std::string_view in);

// The query string of `target` ("/x?a=1&b=%2F" → {a: 1, b: /}); the last of a repeated name
// wins; a name without '=' maps to "".
std::map<std::string, std::string> ParseQuery(std::string_view target);

// The decoded, non-empty segments of the path of `target`: "/a/b%2Fc//d?x" → {a, b/c, d}.
std::vector<std::string> PathSegments(std::string_view target);

}  // namespace gatehouse
