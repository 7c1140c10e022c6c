// HttpServer: the HTTP/1.1 front door (DESIGN.md §4), on Boost.Beast and Asio.
//
// Each connection reads one request at a time (keep-alive, no pipelining), hands it to the
// HttpHandler and writes the response the handler's Responder sends, from whichever thread
// that happens on. The server protects itself from untrusted clients:
//   - a request body larger than `body_limit` is refused with 413 as soon as that is known
//     (from Content-Length, before the body is read, or while reading a chunked body); the
//     body is never buffered beyond the limit, and the connection is closed;
//   - malformed HTTP gets 400, an oversized header block 431, and the connection is closed;
//   - every read and write has a deadline, so a slow or silent client cannot hold a
//     connection forever (a request being handled has none: the handler owns that time).
//
// Stop(grace) stops accepting, closes idle keep-alive connections at once, lets requests
// already read get their responses (up to `grace`), then closes whatever is left and joins
// the I/O threads.
//
// Thread-safety: Start and Stop are called from one controlling thread; port() from any.
// No Boost types appear here, so code using the server never compiles Beast or Asio.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "base/clock.h"
#include "base/status.h"
#include "http/handler.h"

namespace gatehouse {

struct HttpServerOptions {
  // "host:port": an IPv4 literal or a bracketed IPv6 literal ("[::1]:8080"); no host names.
  // Port 0 binds an ephemeral port; see HttpServer::port().
  std::string listen = "127.0.0.1:8080";
  size_t body_limit = size_t{25} * 1024 * 1024;  // GitHub caps payloads at 25 MB
  // A new connection must deliver its first request's header within header_timeout (counted
  // once while waiting for the first byte and once more for the rest of the header).
  Duration header_timeout = std::chrono::seconds(10);
  Duration read_timeout = std::chrono::seconds(10);   // the whole body
  Duration write_timeout = std::chrono::seconds(10);  // the whole response
  // How long a keep-alive connection may wait for its next request.
  Duration idle_timeout = std::chrono::seconds(60);
  int threads = 2;  // I/O threads; the handler runs on them
  // Called (on an I/O thread) each time a request is refused with 413, e.g. to count it.
  std::function<void()> on_body_too_large;
};

struct ListenAddress {
  std::string host;  // the IP literal, without brackets
  uint16_t port = 0;
};

// Parses HttpServerOptions::listen. InvalidArgument names what is wrong.
Result<ListenAddress> ParseListenAddress(std::string_view text);

class HttpServer {
 public:
  // Binds and listens on `options.listen`, then serves on `options.threads` threads.
  // InvalidArgument for bad options or address; Unavailable when the address cannot be
  // bound (e.g. the port is in use). `handler` must outlive the server.
  static Result<std::unique_ptr<HttpServer>> Start(const HttpServerOptions& options,
                                                   HttpHandler& handler);

  // Stops with no grace if Stop was not called.
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // The bound port (the ephemeral one when listening on port 0).
  uint16_t port() const;

  // Blocks until every connection closed or `grace` passed, whichever comes first; see the
  // file comment. Responders called afterwards do nothing. Idempotent.
  void Stop(Duration grace);

 private:
  struct Impl;
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace gatehouse
