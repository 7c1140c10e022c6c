// HttpConnection's implementation: with http/request_parser.cc, the only translation units
// that compile Beast's HTTP code. What a request's bytes mean (limits, errors, the request a
// handler sees) is decided in http/beast_request.h, shared with HttpRequestReader.
//
// A connection's state is only touched on its strand, so it needs no lock. A Responder holds
// only a weak reference to its connection plus the server's ResponseGate, so a Responder
// called late (or dropped) never touches a destroyed server.
#include "http/connection.h"

#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/string.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>
#include <exception>
#include <optional>
#include <utility>
#include <vector>

#include "base/log.h"
#include "http/beast_request.h"

namespace gatehouse {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using beast::error_code;

// After an error response that closes the connection, request bytes the server never read
// would make the kernel answer with RST, which can destroy the response before the client
// reads it. So the server half-closes and discards what the client still sends, for a
// bounded time and amount, before closing.
constexpr auto kLingerTime = std::chrono::seconds(2);
constexpr size_t kLingerMaxBytes = size_t{1} << 20;
constexpr size_t kLingerReadSize = size_t{16} * 1024;
constexpr size_t kFirstReadSize = size_t{16} * 1024;
constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";

std::string Str(beast::string_view s) { return std::string(s.data(), s.size()); }

// The client went away or was too slow: there is nobody to answer.
bool IsDisconnect(const error_code& ec) {
  return ec == http::error::end_of_stream || ec == http::error::partial_message ||
         ec == asio::error::eof || ec == asio::error::connection_reset ||
         ec == asio::error::operation_aborted || ec == beast::error::timeout;
}

class HttpConnectionImpl final : public HttpConnection,
                                 public std::enable_shared_from_this<HttpConnectionImpl> {
 public:
  HttpConnectionImpl(tcp::socket socket, HttpConnectionHost& host);

  const asio::any_io_executor& executor() const { return executor_; }

  void Start() override;
  void NotifyStopping() override;
  void CloseNow() override { Close(); }
  // On the strand: the handler's answer to the current request.
  void Respond(HttpResponse response);

 private:
  enum class State { kIdle, kReading, kHandling, kWriting, kClosing, kClosed };
  enum class After { kKeepAlive, kClose, kLinger };

  void WaitForRequest();
  void OnFirstBytes(error_code ec, size_t bytes);
  void ReadHeader();
  void OnHeader(error_code ec, size_t header_bytes);
  void ReadBody();
  void OnBody(error_code ec);
  void Dispatch();
  void Fail(int status, std::string_view message, const error_code& ec);
  void RefuseTooLarge();
  void Write(HttpResponse response, After after);
  void OnWrite(error_code ec, After after);
  void Linger();
  void Drain();
  void Reset();  // closes with a TCP RST instead of a FIN; no response bytes
  void Close();  // idempotent

  HttpConnectionHost& host_;
  const asio::any_io_executor executor_;  // the connection's strand
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::string peer_;
  State state_ = State::kIdle;
  bool first_request_ = true;
  // The current request, as far as it is known.
  std::optional<http_internal::RequestParser> parser_;
  unsigned version_ = 11;
  bool keep_alive_ = false;
  std::string method_;
  std::string path_;
  std::chrono::steady_clock::time_point started_;
  // The response being written; Beast needs it alive until the write completes.
  std::optional<http::response<http::string_body>> response_;
  int status_ = 0;
  std::vector<char> drain_;
  size_t drained_ = 0;
};

// The state behind one request's Responder: delivers at most one response, and a 500 if
// every copy of the Responder is dropped unanswered.
class PendingResponse {
 public:
  PendingResponse(std::shared_ptr<ResponseGate> gate, std::weak_ptr<HttpConnectionImpl> connection)
      : gate_(std::move(gate)), connection_(std::move(connection)) {}
  ~PendingResponse() {
    if (sent_.exchange(true)) return;
    if (Deliver(JsonError(500, "internal error: request dropped without a response"))) {
      Log(LogLevel::kError, "http.responder_dropped");
    }
  }
  PendingResponse(const PendingResponse&) = delete;
  PendingResponse& operator=(const PendingResponse&) = delete;

  void Send(HttpResponse response) {
    if (sent_.exchange(true)) {
      Log(LogLevel::kError, "http.responder_called_twice");
      return;
    }
    Deliver(std::move(response));
  }

 private:
  bool Deliver(HttpResponse response) {
    MutexLock lock(&gate_->mu);
    if (!gate_->open) return false;
    std::shared_ptr<HttpConnectionImpl> connection = connection_.lock();
    if (!connection) return false;
    asio::any_io_executor executor = connection->executor();
    asio::post(executor,
               [connection = std::move(connection), response = std::move(response)]() mutable {
                 connection->Respond(std::move(response));
               });
    return true;
  }

  const std::shared_ptr<ResponseGate> gate_;
  const std::weak_ptr<HttpConnectionImpl> connection_;
  std::atomic<bool> sent_{false};
};

HttpConnectionImpl::HttpConnectionImpl(tcp::socket socket, HttpConnectionHost& host)
    : host_(host), executor_(socket.get_executor()), stream_(std::move(socket)) {
  error_code ec;
  stream_.socket().set_option(tcp::no_delay(true), ec);
  tcp::endpoint remote = stream_.socket().remote_endpoint(ec);
  if (!ec) {
    std::string address = remote.address().to_string();
    peer_ = remote.address().is_v6() ? "[" + address + "]" : address;
    peer_ += ":" + std::to_string(remote.port());
  }
}

void HttpConnectionImpl::Start() {
  asio::post(executor_, [self = shared_from_this()] { self->WaitForRequest(); });
}

void HttpConnectionImpl::NotifyStopping() {
  asio::post(executor_, [self = shared_from_this()] {
    if (self->state_ == State::kIdle) self->Close();
  });
}

void HttpConnectionImpl::WaitForRequest() {
  if (host_.stopping.load(std::memory_order_acquire)) {
    Close();
    return;
  }
  if (buffer_.size() > 0) {  // the client sent the next request early
    ReadHeader();
    return;
  }
  state_ = State::kIdle;
  stream_.expires_after(first_request_ ? host_.options.header_timeout : host_.options.idle_timeout);
  stream_.async_read_some(
      buffer_.prepare(kFirstReadSize),
      [self = shared_from_this()](error_code ec, size_t bytes) { self->OnFirstBytes(ec, bytes); });
}

void HttpConnectionImpl::OnFirstBytes(error_code ec, size_t bytes) {
  if (ec) {  // idle timeout, the client closed, or Stop closed us
    Close();
    return;
  }
  buffer_.commit(bytes);
  ReadHeader();
}

void HttpConnectionImpl::ReadHeader() {
  state_ = State::kReading;
  started_ = std::chrono::steady_clock::now();
  version_ = 11;
  keep_alive_ = false;
  method_.clear();
  path_.clear();
  parser_.emplace();
  http_internal::PrepareParser(*parser_, host_.options.body_limit);
  stream_.expires_after(host_.options.header_timeout);
  http::async_read_header(
      stream_, buffer_, *parser_,
      [self = shared_from_this()](error_code ec, size_t bytes) { self->OnHeader(ec, bytes); });
}

void HttpConnectionImpl::OnHeader(error_code ec, size_t header_bytes) {
  // `header_bytes`: what the parser consumed for the header; counted here too, because Beast's
  // own limit depends on how the bytes arrived (http/beast_request.h).
  const RequestParse parse = ec ? http_internal::ClassifyParseError(ec)
                             : http_internal::HeaderOverLimit(header_bytes)
                                 ? RequestParse::kHeaderTooLarge
                                 : RequestParse::kComplete;
  if (parse == RequestParse::kBodyTooLarge) {  // Beast compares Content-Length with the limit
    RefuseTooLarge();
    return;
  }
  if (parse == RequestParse::kHeaderTooLarge) {
    Fail(StatusForRequestParse(parse), "request header too large", ec);
    return;
  }
  if (ec) {
    if (IsDisconnect(ec)) {
      Close();
    } else {
      Fail(400, "malformed HTTP request", ec);
    }
    return;
  }
  const auto& header = parser_->get();
  version_ = header.version();
  keep_alive_ = header.keep_alive();
  method_ = Str(header.method_string());
  path_ = Str(header.target());
  path_.resize(std::min(path_.find('?'), path_.size()));  // queries may carry tokens
  if (http_internal::DeclaresBodyOverLimit(*parser_, host_.options.body_limit)) {
    RefuseTooLarge();
    return;
  }
  if (parser_->is_done()) {
    Dispatch();
    return;
  }
  if (beast::iequals(header[http::field::expect], "100-continue")) {
    stream_.expires_after(host_.options.write_timeout);
    asio::async_write(stream_, asio::buffer(kContinue.data(), kContinue.size()),
                      [self = shared_from_this()](error_code write_ec, size_t) {
                        if (write_ec) {
                          self->Close();
                        } else {
                          self->ReadBody();
                        }
                      });
    return;
  }
  ReadBody();
}

void HttpConnectionImpl::ReadBody() {
  stream_.expires_after(host_.options.read_timeout);
  http::async_read(stream_, buffer_, *parser_,
                   [self = shared_from_this()](error_code ec, size_t) { self->OnBody(ec); });
}

void HttpConnectionImpl::OnBody(error_code ec) {
  if (ec && http_internal::ClassifyParseError(ec) == RequestParse::kBodyTooLarge) {
    RefuseTooLarge();
  } else if (ec && IsDisconnect(ec)) {
    Close();
  } else if (ec) {
    Fail(400, "malformed HTTP request body", ec);
  } else {
    Dispatch();
  }
}

void HttpConnectionImpl::Dispatch() {
  HttpRequest request = http_internal::TakeHttpRequest(*parser_, peer_);
  parser_.reset();

  state_ = State::kHandling;
  stream_.expires_never();  // the handler owns this time (the inbox's commit, for webhooks)
  auto pending = std::make_shared<PendingResponse>(host_.gate, weak_from_this());
  try {
    host_.handler.Handle(std::move(request),
                         [pending](HttpResponse response) { pending->Send(std::move(response)); });
  } catch (const std::exception& e) {
    Log(LogLevel::kError, "http.handler_threw").Field("path", path_).Field("what", e.what());
    pending->Send(JsonError(500, "internal error"));
  }
}

void HttpConnectionImpl::Fail(int status, std::string_view message, const error_code& ec) {
  Log(LogLevel::kInfo, "http.bad_request")
      .Field("peer", peer_)
      .Field("status", status)
      .Field("error", ec.message());
  keep_alive_ = false;
  Write(JsonError(status, message), After::kLinger);
}

void HttpConnectionImpl::RefuseTooLarge() {
  Log(LogLevel::kInfo, "http.body_too_large")
      .Field("peer", peer_)
      .Field("path", path_)
      .Field("limit", static_cast<uint64_t>(host_.options.body_limit));
  if (host_.options.on_body_too_large) host_.options.on_body_too_large();
  keep_alive_ = false;
  Write(JsonError(
            413, "request body larger than " + std::to_string(host_.options.body_limit) + " bytes"),
        After::kLinger);
}

void HttpConnectionImpl::Respond(HttpResponse response) {
  if (state_ != State::kHandling) return;  // closed meanwhile (Stop, or a forced close)
  if (response.reset_connection) {
    Reset();
    return;
  }
  Write(std::move(response), After::kKeepAlive);
}

void HttpConnectionImpl::Write(HttpResponse response, After after) {
  if (response.status < 200 || response.status > 599) {
    Log(LogLevel::kError, "http.bad_status").Field("status", response.status);
    response = JsonError(500, "internal error");
  }
  bool keep_alive =
      after == After::kKeepAlive && keep_alive_ && !host_.stopping.load(std::memory_order_acquire);
  if (after == After::kKeepAlive && !keep_alive) after = After::kClose;

  response_.emplace(static_cast<http::status>(response.status), version_);
  if (!response.content_type.empty()) {
    response_->set(http::field::content_type, response.content_type);
  }
  for (const auto& [name, value] : response.headers) response_->insert(name, value);
  response_->body() = std::move(response.body);
  response_->keep_alive(keep_alive);
  response_->prepare_payload();
  status_ = response.status;

  state_ = State::kWriting;
  stream_.expires_after(host_.options.write_timeout);
  http::async_write(stream_, *response_, [self = shared_from_this(), after](error_code ec, size_t) {
    self->OnWrite(ec, after);
  });
}

void HttpConnectionImpl::OnWrite(error_code ec, After after) {
  response_.reset();
  Log(LogLevel::kDebug, "http.request")
      .Field("method", method_)
      .Field("path", path_)
      .Field("status", status_)
      .Field("us", static_cast<int64_t>(std::chrono::duration_cast<std::chrono::microseconds>(
                                            std::chrono::steady_clock::now() - started_)
                                            .count()))
      .Field("peer", peer_);
  if (ec) {
    Close();
    return;
  }
  switch (after) {
    case After::kKeepAlive:
      first_request_ = false;
      WaitForRequest();
      break;
    case After::kClose:
      Close();
      break;
    case After::kLinger:
      Linger();
      break;
  }
}

void HttpConnectionImpl::Linger() {
  state_ = State::kClosing;
  error_code ignored;
  stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
  drain_.resize(kLingerReadSize);
  stream_.expires_after(kLingerTime);
  Drain();
}

void HttpConnectionImpl::Drain() {
  stream_.async_read_some(asio::buffer(drain_),
                          [self = shared_from_this()](error_code ec, size_t bytes) {
                            self->drained_ += bytes;
                            if (ec || self->drained_ > kLingerMaxBytes) {
                              self->Close();
                            } else {
                              self->Drain();
                            }
                          });
}

void HttpConnectionImpl::Reset() {
  if (state_ == State::kClosed) return;
  Log(LogLevel::kDebug, "http.reset")
      .Field("method", method_)
      .Field("path", path_)
      .Field("peer", peer_);
  state_ = State::kClosed;
  error_code ignored;
  // SO_LINGER {on, 0}: close() discards unsent data and sends RST, not FIN.
  stream_.socket().set_option(asio::socket_base::linger(true, 0), ignored);
  stream_.close();
  host_.Unregister(this);
}

void HttpConnectionImpl::Close() {
  if (state_ == State::kClosed) return;
  state_ = State::kClosed;
  error_code ignored;
  stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
  stream_.close();
  host_.Unregister(this);
}

}  // namespace

std::shared_ptr<HttpConnection> MakeHttpConnection(tcp::socket socket, HttpConnectionHost& host) {
  return std::make_shared<HttpConnectionImpl>(std::move(socket), host);
}

}  // namespace gatehouse
