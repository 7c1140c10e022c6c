// Reading one HTTP/1.1 request from bytes, under the server's limits (http/server.h): the
// parse HttpServer applies to every connection, callable without sockets (the fuzz target
// http/request_parser_fuzz_test.cc, and anything else that holds raw request bytes).
//
// The connection (http/connection.cc) reads with Beast's asynchronous reads on the same parser
// type and takes the same decisions from http/beast_request.h: which parse errors are 400, 413
// or 431, when a declared Content-Length is over the limit, and how a parsed message becomes
// an HttpRequest. This header is Boost-free; only http/ compiles Beast.
//
// Not thread-safe: one reader per request, used by one thread at a time.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

#include "http/handler.h"

namespace gatehouse {

enum class RequestParse {
  kNeedMore,        // a prefix of a request so far: feed more bytes
  kComplete,        // one whole request: TakeRequest()
  kMalformed,       // not HTTP/1.x: the server answers 400 and closes
  kBodyTooLarge,    // declared or sent body over the limit: 413 and close
  kHeaderTooLarge,  // the header over the parser's header limit (8 KiB): 431 and close
};

// The status the server answers with: 400, 413 or 431; 0 for kNeedMore and kComplete.
int StatusForRequestParse(RequestParse outcome);

class HttpRequestReader {
 public:
  explicit HttpRequestReader(size_t body_limit);
  ~HttpRequestReader();
  HttpRequestReader(const HttpRequestReader&) = delete;
  HttpRequestReader& operator=(const HttpRequestReader&) = delete;

  // Feeds the next bytes the client sent, in order, and says where the request stands. Once
  // the outcome is anything but kNeedMore it is final: later calls return it again and
  // consume nothing. Bytes after a complete request (a pipelined next request) are kept in
  // rest().
  RequestParse Feed(std::string_view bytes);

  // kComplete only: the request as a handler sees it (peer left empty). Once.
  HttpRequest TakeRequest();
  // kComplete only: what the client asked for the connection (HTTP/1.1 default keep-alive).
  bool keep_alive() const;
  // Bytes fed but not part of this request.
  std::string_view rest() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gatehouse
