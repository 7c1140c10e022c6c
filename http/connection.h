// HttpConnection: one accepted TCP connection of an HttpServer. Private to http/: only
// http/server.cc and http/connection.cc include this header.
//
// A connection reads one request at a time, hands it to the HttpHandler, writes the answer
// its Responder sends, and enforces the limits and timeouts described in http/server.h. It
// runs on its own strand; the methods below may be called from any thread except CloseNow.
#pragma once

#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <memory>

#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "http/server.h"

namespace gatehouse {

// Lets Responders reach connections only while the server's io_context exists: Stop closes
// the gate before the io_context goes away, and a Responder posts only under the mutex
// while the gate is open.
struct ResponseGate {
  Mutex mu;
  bool open GUARDED_BY(mu) = true;
};

class HttpConnection;

// What the connections of one server share. The server derives from it and outlives every
// use connections make of it.
class HttpConnectionHost {
 public:
  HttpConnectionHost(const HttpServerOptions& server_options, HttpHandler& server_handler)
      : options(server_options), handler(server_handler) {}
  virtual ~HttpConnectionHost() = default;

  // Called on the connection's strand (or by Stop) when it closes, exactly once.
  virtual void Unregister(HttpConnection* connection) = 0;

  const HttpServerOptions options;
  HttpHandler& handler;
  const std::shared_ptr<ResponseGate> gate = std::make_shared<ResponseGate>();
  // Set by Stop once the server no longer accepts: a connection finishes the request it has
  // and then closes instead of waiting for another.
  std::atomic<bool> stopping{false};
};

class HttpConnection {
 public:
  virtual ~HttpConnection() = default;
  // Begins reading the first request.
  virtual void Start() = 0;
  // The server is stopping: a connection between requests closes now.
  virtual void NotifyStopping() = 0;
  // Closes at once. Only when no I/O thread runs (Stop, after joining them).
  virtual void CloseNow() = 0;
};

// Wraps an accepted socket (whose executor is the connection's strand). Does not start it.
std::shared_ptr<HttpConnection> MakeHttpConnection(boost::asio::ip::tcp::socket socket,
                                                   HttpConnectionHost& host);

}  // namespace gatehouse
