// HttpServer: the listening socket, the I/O threads, and the registry of open connections
// (http/connection.h), which is how Stop finds and waits for them. Compiles Asio but not
// Beast's HTTP code.
#include "http/server.h"

#include <algorithm>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <exception>
#include <future>
#include <optional>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/log.h"
#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "base/thread_name.h"
#include "http/connection.h"

namespace gatehouse {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using boost::system::error_code;

// One io_context run by `threads` threads; the acceptor and every connection have their
// own strand.
struct ServerCore final : HttpConnectionHost {
  ServerCore(const HttpServerOptions& o, HttpHandler& h)
      : HttpConnectionHost(o, h),
        ioc(o.threads),
        acceptor(asio::make_strand(ioc)),
        accept_retry(acceptor.get_executor()) {}

  Status Listen(const ListenAddress& address);
  Status Run();
  void Stop(Duration grace);
  void Accept();
  void RunThread();
  void Register(const std::shared_ptr<HttpConnection>& connection);
  void Unregister(HttpConnection* connection) override;

  Mutex connections_mu;
  CondVar connections_cv;
  std::unordered_map<HttpConnection*, std::shared_ptr<HttpConnection>> connections
      GUARDED_BY(connections_mu);
  // Declared after everything a connection uses: connections that queued handlers still
  // hold are destroyed with the io_context, before those members.
  asio::io_context ioc;
  tcp::acceptor acceptor;
  asio::steady_timer accept_retry;
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> work;
  std::vector<std::thread> threads;
  uint16_t port = 0;
  bool stopped = false;
};

Status ServerCore::Listen(const ListenAddress& address) {
  error_code ec;
  asio::ip::address ip = asio::ip::make_address(address.host, ec);
  if (ec) return InvalidArgument("listen address " + options.listen + ": " + ec.message());
  tcp::endpoint endpoint(ip, address.port);
  auto failed = [&](std::string_view step) {
    return Unavailable(std::string(step) + " " + options.listen + ": " + ec.message());
  };
  acceptor.open(endpoint.protocol(), ec);
  if (ec) return failed("opening a socket for");
  // Lets a restarted server bind while old connections linger in TIME_WAIT; on Linux it
  // does not let two servers listen on one port.
  acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (ec) return failed("setting SO_REUSEADDR for");
  acceptor.bind(endpoint, ec);
  if (ec) return failed("binding");
  acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return failed("listening on");
  port = acceptor.local_endpoint(ec).port();
  if (ec) return failed("reading the bound port of");
  return Status::Ok();
}

Status ServerCore::Run() {
  work.emplace(ioc.get_executor());
  asio::post(acceptor.get_executor(), [this] { Accept(); });
  try {
    for (int i = 0; i < options.threads; ++i)
      threads.emplace_back([this, i] {
        SetThreadName("gh-http-" + std::to_string(i));
        RunThread();
      });
  } catch (const std::system_error& e) {
    Stop(Duration::zero());
    return Unavailable(std::string("starting the HTTP server's threads: ") + e.what());
  }
  return Status::Ok();
}

void ServerCore::RunThread() {
  for (;;) {
    try {
      ioc.run();
      return;
    } catch (const std::exception& e) {
      // A handler threw (allocation failure, most likely); the connection it served is
      // lost, the others go on.
      Log(LogLevel::kError, "http.io_thread_error").Field("what", e.what());
    }
  }
}

void ServerCore::Accept() {
  acceptor.async_accept(asio::make_strand(ioc), [this](error_code ec, tcp::socket socket) {
    if (!acceptor.is_open()) return;  // Stop closed it
    if (ec) {
      // E.g. out of file descriptors: back off instead of spinning on the error.
      Log(LogLevel::kWarn, "http.accept_failed").Field("error", ec.message());
      accept_retry.expires_after(std::chrono::milliseconds(50));
      accept_retry.async_wait([this](error_code wait_ec) {
        if (!wait_ec && acceptor.is_open()) Accept();
      });
      return;
    }
    auto connection = MakeHttpConnection(std::move(socket), *this);
    Register(connection);
    connection->Start();
    Accept();
  });
}

void ServerCore::Register(const std::shared_ptr<HttpConnection>& connection) {
  MutexLock lock(&connections_mu);
  connections.emplace(connection.get(), connection);
}

void ServerCore::Unregister(HttpConnection* connection) {
  MutexLock lock(&connections_mu);
  connections.erase(connection);
  if (connections.empty()) connections_cv.SignalAll();
}

void ServerCore::Stop(Duration grace) {
  if (stopped) return;
  stopped = true;
  Log(LogLevel::kInfo, "http.stopping")
      .Field("grace_ms", static_cast<int64_t>(
                             std::chrono::duration_cast<std::chrono::milliseconds>(grace).count()));
  if (!threads.empty()) {
    std::promise<void> closed;
    asio::post(acceptor.get_executor(), [this, &closed] {
      error_code ignored;
      acceptor.close(ignored);
      accept_retry.cancel();
      closed.set_value();
    });
    closed.get_future().wait();
  }
  // Only now, so that a connection closed for stopping implies that the server no longer
  // accepts. Connections check the flag on their strand before waiting for a request, and the
  // notification below reaches those already waiting.
  stopping.store(true, std::memory_order_release);

  std::vector<std::shared_ptr<HttpConnection>> open;
  {
    MutexLock lock(&connections_mu);
    for (const auto& entry : connections) open.push_back(entry.second);
  }
  for (const auto& connection : open) connection->NotifyStopping();
  open.clear();

  size_t abandoned = 0;
  {
    // Real time: the wait is for open connections (real I/O) to finish. Clamped so that
    // "wait forever" (Duration::max()) cannot overflow the deadline.
    const auto deadline =
        CondVar::Steady::now() + std::min(grace, Duration(std::chrono::hours(24 * 365)));
    MutexLock lock(&connections_mu);
    while (!connections.empty() && connections_cv.WaitUntil(&connections_mu, deadline)) {
    }
    abandoned = connections.size();
  }
  {
    MutexLock lock(&gate->mu);
    gate->open = false;
  }
  work.reset();
  ioc.stop();
  for (std::thread& thread : threads) thread.join();
  threads.clear();

  // No I/O thread runs any more, so what is left can be closed from this thread.
  std::unordered_map<HttpConnection*, std::shared_ptr<HttpConnection>> left;
  {
    MutexLock lock(&connections_mu);
    left.swap(connections);
  }
  for (const auto& entry : left) entry.second->CloseNow();
  left.clear();
  error_code ignored;
  acceptor.close(ignored);
  Log(abandoned == 0 ? LogLevel::kInfo : LogLevel::kWarn, "http.stopped")
      .Field("abandoned_connections", static_cast<uint64_t>(abandoned));
}

}  // namespace

Result<ListenAddress> ParseListenAddress(std::string_view text) {
  auto bad = [&](std::string_view why) {
    return InvalidArgument("listen address \"" + std::string(text) + "\": " + std::string(why));
  };
  std::string_view host;
  std::string_view port;
  bool bracketed = !text.empty() && text.front() == '[';
  if (bracketed) {
    size_t close = text.find(']');
    if (close == std::string_view::npos || close + 1 >= text.size() || text[close + 1] != ':') {
      return bad("expected \"[IPv6 address]:port\"");
    }
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    size_t colon = text.rfind(':');
    if (colon == std::string_view::npos) return bad("expected \"host:port\"");
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
    if (host.find(':') != std::string_view::npos) {
      return bad("an IPv6 address goes in brackets, e.g. \"[::1]:8080\"");
    }
  }
  if (host.empty()) return bad("missing host");
  uint32_t number = 0;
  if (port.empty() || port.size() > 5) return bad("the port must be a number from 0 to 65535");
  for (char c : port) {
    if (c < '0' || c > '9') return bad("the port must be a number from 0 to 65535");
    number = number * 10 + static_cast<uint32_t>(c - '0');
  }
  if (number > 65535) return bad("the port must be a number from 0 to 65535");
  error_code ec;
  asio::ip::address ip = asio::ip::make_address(std::string(host), ec);
  if (ec) return bad("the host must be an IP address (no names)");
  if (bracketed != ip.is_v6()) return bad("brackets go around IPv6 addresses only");
  return ListenAddress{std::string(host), static_cast<uint16_t>(number)};
}

struct HttpServer::Impl {
  Impl(const HttpServerOptions& options, HttpHandler& handler) : core(options, handler) {}
  ServerCore core;
};

Result<std::unique_ptr<HttpServer>> HttpServer::Start(const HttpServerOptions& options,
                                                      HttpHandler& handler) {
  if (options.threads < 1) return InvalidArgument("HTTP server threads must be at least 1");
  if (options.body_limit == 0) return InvalidArgument("HTTP body limit must be positive");
  GH_ASSIGN_OR_RETURN(ListenAddress address, ParseListenAddress(options.listen));
  auto impl = std::make_unique<Impl>(options, handler);
  GH_RETURN_IF_ERROR(impl->core.Listen(address));
  GH_RETURN_IF_ERROR(impl->core.Run());
  Log(LogLevel::kInfo, "http.listening")
      .Field("listen", options.listen)
      .Field("port", impl->core.port)
      .Field("threads", options.threads)
      .Field("body_limit", static_cast<uint64_t>(options.body_limit));
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpServer::~HttpServer() { Stop(Duration::zero()); }

uint16_t HttpServer::port() const { return impl_->core.port; }

void HttpServer::Stop(Duration grace) { impl_->core.Stop(grace); }

}  // namespace gatehouse
