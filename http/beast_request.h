// The request-reading decisions shared by the connection's asynchronous reads
// (http/connection.cc) and HttpRequestReader (http/request_parser.cc), so that both read a
// request the same way. Private to http/: only those two files include it (Beast stays in
// them).
#pragma once

#include <boost/beast/core/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <cstddef>
#include <string>

#include "http/handler.h"
#include "http/request_parser.h"

namespace gatehouse::http_internal {

using RequestParser = boost::beast::http::request_parser<boost::beast::http::string_body>;

// The most bytes a request's header block may have, start line to the blank line included:
// 8 KiB, Beast's default. Beast's own check of that limit depends on how the bytes arrive (a
// header a little over it could pass when it came in three pieces), so the server also counts
// the header's bytes itself once Beast has parsed it: HeaderOverLimit.
inline constexpr size_t kHeaderLimit = 8 * 1024;

// A fresh parser for one request, with the server's body limit and kHeaderLimit.
void PrepareParser(RequestParser& parser, size_t body_limit);

// Whether a header block of `header_bytes` (what the parser consumed to finish the header) is
// over kHeaderLimit: kHeaderTooLarge, whatever Beast said.
inline bool HeaderOverLimit(size_t header_bytes) { return header_bytes > kHeaderLimit; }

// A parse error's outcome: body_limit is kBodyTooLarge, header_limit kHeaderTooLarge,
// need_more kNeedMore, anything else kMalformed. (Disconnects are the connection's business:
// it checks them before calling this for anything but the two limits.)
RequestParse ClassifyParseError(const boost::beast::error_code& ec);

// Whether a parsed header declares a body over `body_limit` (Beast checks this too; this is
// the server's own statement of the rule).
bool DeclaresBodyOverLimit(const RequestParser& parser, size_t body_limit);

// The parsed message as a handler sees it; `parser` is released.
HttpRequest TakeHttpRequest(RequestParser& parser, std::string peer);

}  // namespace gatehouse::http_internal
