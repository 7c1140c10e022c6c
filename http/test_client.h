// A tiny blocking HTTP/1.1 client over raw sockets, for tests that drive a real HttpServer
// on loopback. It sends bytes exactly as given (so tests can send malformed or partial
// requests) and reads one response at a time (Content-Length bodies; until EOF otherwise).
//
// Reads have a generous safety timeout so that a server bug fails a test instead of hanging
// it; tests never rely on it for ordering. One TestConnection per thread.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/ascii.h"

namespace gatehouse::http_testing {

struct ClientResponse {
  int status = 0;  // 0: the connection closed (or failed) before a complete response
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;

  std::string Header(const std::string& lower_name) const {
    auto it = headers.find(lower_name);
    return it == headers.end() ? std::string() : it->second;
  }
};

class TestConnection {
 public:
  // Connects to 127.0.0.1:`port`; nullptr on failure.
  static std::unique_ptr<TestConnection> Connect(uint16_t port) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return nullptr;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval safety{30, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &safety, sizeof(safety));
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &safety, sizeof(safety));
    int one = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
      ::close(fd);
      return nullptr;
    }
    return std::unique_ptr<TestConnection>(new TestConnection(fd));
  }

  ~TestConnection() { ::close(fd_); }
  TestConnection(const TestConnection&) = delete;
  TestConnection& operator=(const TestConnection&) = delete;

  // False when the server closed or reset the connection.
  bool Send(std::string_view bytes) {
    while (!bytes.empty()) {
      ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      bytes.remove_prefix(static_cast<size_t>(n));
    }
    return true;
  }

  // Reads one response (a 100 Continue counts as one).
  ClientResponse Read() {
    ClientResponse response;
    size_t header_end;
    while ((header_end = buffer_.find("\r\n\r\n")) == std::string::npos) {
      if (!Fill()) return response;
    }
    std::string head = buffer_.substr(0, header_end);
    buffer_.erase(0, header_end + 4);
    size_t line_end = head.find("\r\n");
    std::string status_line = head.substr(0, line_end);
    // "HTTP/1.1 202 Accepted"
    size_t space = status_line.find(' ');
    if (space == std::string::npos) return response;
    int status = std::atoi(status_line.c_str() + space + 1);
    while (line_end != std::string::npos) {
      size_t start = line_end + 2;
      line_end = head.find("\r\n", start);
      std::string line =
          head.substr(start, line_end == std::string::npos ? line_end : line_end - start);
      size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      const std::string name = AsciiLower(std::string_view(line).substr(0, colon));
      size_t value_start = line.find_first_not_of(' ', colon + 1);
      response.headers[name] = value_start == std::string::npos ? "" : line.substr(value_start);
    }
    if (status == 100) {
      response.status = status;
      return response;
    }
    auto length = response.headers.find("content-length");
    if (length != response.headers.end()) {
      size_t want = std::stoul(length->second);
      while (buffer_.size() < want) {
        if (!Fill()) return response;
      }
      response.body = buffer_.substr(0, want);
      buffer_.erase(0, want);
    } else {
      while (Fill()) {
      }
      response.body = std::move(buffer_);
      buffer_.clear();
    }
    response.status = status;
    return response;
  }

  // True when the server closes the connection (EOF or reset) with no further bytes.
  bool ReadsEof() { return buffer_.empty() && !Fill(); }

  // True when the server resets the connection (ECONNRESET) with no further bytes.
  bool ReadsReset() {
    if (!buffer_.empty()) return false;
    char chunk[256];
    for (;;) {
      ssize_t n = ::recv(fd_, chunk, sizeof(chunk), 0);
      if (n < 0 && errno == EINTR) continue;
      return n < 0 && errno == ECONNRESET;
    }
  }

 private:
  explicit TestConnection(int fd) : fd_(fd) {}

  bool Fill() {
    char chunk[16384];
    for (;;) {
      ssize_t n = ::recv(fd_, chunk, sizeof(chunk), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      buffer_.append(chunk, static_cast<size_t>(n));
      return true;
    }
  }

  int fd_;
  std::string buffer_;
};

// A request as bytes. Adds Host and, for a POST or a non-empty body, Content-Length.
inline std::string BuildRequest(std::string_view method, std::string_view target,
                                const std::vector<std::pair<std::string, std::string>>& headers,
                                std::string_view body) {
  std::string out;
  out.append(method).append(" ").append(target).append(" HTTP/1.1\r\nHost: test\r\n");
  for (const auto& [name, value] : headers)
    out.append(name).append(": ").append(value).append("\r\n");
  if (!body.empty() || method == "POST") {
    out.append("Content-Length: ").append(std::to_string(body.size())).append("\r\n");
  }
  out.append("\r\n").append(body);
  return out;
}

// One request on a fresh connection.
inline ClientResponse RoundTrip(uint16_t port, const std::string& request) {
  auto connection = TestConnection::Connect(port);
  if (!connection || !connection->Send(request)) return {};
  return connection->Read();
}

}  // namespace gatehouse::http_testing
