// HttpTransport: how the GitHub client reaches the REST API, one request and one response at
// a time. The interface is the seam for tests and fault injection; CurlTransport is the real
// implementation over libcurl.
//
// A transport knows the base URL (https://api.github.com, or https://HOST/api/v3 for GitHub
// Enterprise Server) and adds the headers every GitHub request carries (User-Agent, Accept,
// X-GitHub-Api-Version). Authorization is the caller's business: the transport never sees
// where a token came from and never logs headers.
//
// Thread-safety: Send may be called concurrently from any number of threads.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "base/mutex.h"
#include "base/status.h"
#include "base/thread_annotations.h"

namespace gatehouse {

struct HttpCall {
  std::string method = "GET";
  // A path with query relative to the base URL ("/repos/a/b/pulls?page=2"), or an absolute
  // URL, which must start with the base URL (pagination links; a token is never sent to
  // another host).
  std::string target;
  std::vector<std::pair<std::string, std::string>> headers;  // added to the standard ones
  std::string body;  // sent with Content-Type: application/json when non-empty
};

struct HttpReply {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  std::string body;

  // The value of the first header called `lower_name`, or "" when there is none.
  std::string Header(std::string_view lower_name) const;
  // That header as a decimal integer; nullopt when it is missing or not one.
  std::optional<int64_t> IntHeader(std::string_view lower_name) const;
};

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  // Any HTTP status is a successful Send. Unavailable when no response was received
  // (connection refused or reset, DNS, timeout): the caller treats that as transient.
  // InvalidArgument for a target outside the base URL.
  virtual Result<HttpReply> Send(const HttpCall& call) = 0;
};

using HttpTransportPtr = std::unique_ptr<HttpTransport>;

struct CurlTransportOptions {
  std::string base_url = "https://api.github.com";  // no trailing slash needed
  Duration connect_timeout = std::chrono::seconds(10);
  Duration total_timeout = std::chrono::seconds(30);  // the whole exchange
  size_t max_idle_handles = 8;  // easy handles (and their connections) kept for reuse
  std::string user_agent = "gatehouse/0.1";
};

// libcurl, with a small pool of easy handles: a handle keeps its connection cache between
// requests, so consecutive calls on one thread (or from a pooled handle) reuse the TLS
// connection. curl_global_init runs once per process.
class CurlTransport final : public HttpTransport {
 public:
  // InvalidArgument for a base URL that is not http(s)://...
  static Result<std::unique_ptr<CurlTransport>> Create(CurlTransportOptions options);
  ~CurlTransport() override;
  CurlTransport(const CurlTransport&) = delete;
  CurlTransport& operator=(const CurlTransport&) = delete;

  Result<HttpReply> Send(const HttpCall& call) override;

 private:
  explicit CurlTransport(CurlTransportOptions options);
  void* TakeHandle();
  void ReturnHandle(void* handle);

  const CurlTransportOptions options_;
  Mutex mutex_;
  std::vector<void*> idle_ GUARDED_BY(mutex_);  // CURL* easy handles
};

}  // namespace gatehouse
