// What an HTTP handler sees: a fully read request, and a one-shot way to answer it.
//
// These are plain structs so that code behind the server (the webhook handler, tests) never
// compiles Boost.Beast; only http/connection.cc does.
//
// Threading: HttpServer calls HttpHandler::Handle on one of its I/O threads, concurrently for
// different connections, so a handler must be thread-safe and must not block for long (it
// holds up every connection served by that thread). It answers by calling the Responder,
// immediately or later, from any thread.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gatehouse {

struct HttpRequest {
  std::string method;                                        // as sent, e.g. "POST"
  std::string target;                                        // as sent, e.g. "/webhook?x=1"
  std::vector<std::pair<std::string, std::string>> headers;  // in arrival order
  std::string body;                                          // complete, within the body limit
  std::string peer;  // the client's address ("127.0.0.1:50000"), for logs

  // The value of the first header called `name` (compared ASCII case-insensitively), or ""
  // when there is none.
  std::string Header(std::string_view name) const;
  bool HasHeader(std::string_view name) const;
  // The target without its query string.
  std::string_view Path() const;
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";  // omitted when empty
  std::string body;
  // Extra headers. Content-Length and Connection are the server's business.
  std::vector<std::pair<std::string, std::string>> headers;
  // Instead of answering, reset the connection: the server closes the socket abruptly (TCP
  // RST) and sends no response bytes, so the client sees ECONNRESET. The other fields are
  // ignored. For fault injection (gatehouse-sim's reset faults).
  bool reset_connection = false;
};

// `status` with a JSON body given verbatim.
HttpResponse JsonResponse(int status, std::string json_body);
// `status` with the body {"error":"<message>"}.
HttpResponse JsonError(int status, std::string_view message);

// Sends the response for one request. Call it exactly once, from any thread; later calls are
// ignored. Dropping every copy without calling it answers 500, so a lost request cannot hang
// its connection. Calling it after the connection closed or the server stopped does nothing.
using Responder = std::function<void(HttpResponse)>;

class HttpHandler {
 public:
  virtual ~HttpHandler() = default;
  virtual void Handle(HttpRequest request, Responder respond) = 0;
};

}  // namespace gatehouse
