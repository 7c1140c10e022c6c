#include "github/transport.h"

#include <curl/curl.h>

#include <algorithm>
#include <charconv>
#include <mutex>

#include "base/ascii.h"

namespace gatehouse {
namespace {

std::once_flag g_curl_init_once;


std::string Trim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r' || s[e - 1] == '\n'))
    --e;
  return std::string(s.substr(b, e - b));
}

size_t WriteBody(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

// Called once per header line, including the status line of every response (a redirect or
// a 100-continue starts a new set), so a status line clears what came before.
size_t WriteHeader(char* data, size_t size, size_t n, void* user) {
  auto* reply = static_cast<HttpReply*>(user);
  std::string_view line(data, size * n);
  if (line.starts_with("HTTP/")) {
    reply->headers.clear();
    return size * n;
  }
  size_t colon = line.find(':');
  if (colon != std::string_view::npos) {
    reply->headers.emplace_back(AsciiLower(line.substr(0, colon)), Trim(line.substr(colon + 1)));
  }
  return size * n;
}

}  // namespace

std::string HttpReply::Header(std::string_view lower_name) const {
  for (const auto& [name, value] : headers) {
    if (name == lower_name) return value;
  }
  return {};
}

std::optional<int64_t> HttpReply::IntHeader(std::string_view lower_name) const {
  const std::string s = Header(lower_name);
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

Result<std::unique_ptr<CurlTransport>> CurlTransport::Create(CurlTransportOptions options) {
  if (!options.base_url.starts_with("https://") && !options.base_url.starts_with("http://")) {
    return InvalidArgument("GitHub base URL must start with http:// or https://: " +
                           options.base_url);
  }
  while (options.base_url.ends_with("/")) options.base_url.pop_back();
  CURLcode init = CURLE_OK;
  std::call_once(g_curl_init_once, [&init] { init = curl_global_init(CURL_GLOBAL_DEFAULT); });
  if (init != CURLE_OK) return Internal("curl_global_init failed");
  return std::unique_ptr<CurlTransport>(new CurlTransport(std::move(options)));
}

CurlTransport::CurlTransport(CurlTransportOptions options) : options_(std::move(options)) {}

CurlTransport::~CurlTransport() {
  for (void* h : idle_) curl_easy_cleanup(static_cast<CURL*>(h));
}

void* CurlTransport::TakeHandle() {
  {
    MutexLock lock(&mutex_);
    if (!idle_.empty()) {
      void* h = idle_.back();
      idle_.pop_back();
      return h;
    }
  }
  return curl_easy_init();
}

void CurlTransport::ReturnHandle(void* handle) {
  {
    MutexLock lock(&mutex_);
    if (idle_.size() < options_.max_idle_handles) {
      idle_.push_back(handle);
      return;
    }
  }
  curl_easy_cleanup(static_cast<CURL*>(handle));
}

Result<HttpReply> CurlTransport::Send(const HttpCall& call) {
  std::string url;
  if (call.target.starts_with("http://") || call.target.starts_with("https://")) {
    // Pagination links are absolute; refuse anything that would carry our token elsewhere.
    if (!call.target.starts_with(options_.base_url + "/")) {
      return InvalidArgument("URL outside the GitHub base URL: " + call.target);
    }
    url = call.target;
  } else {
    url = options_.base_url + (call.target.starts_with("/") ? "" : "/") + call.target;
  }

  auto* curl = static_cast<CURL*>(TakeHandle());
  if (curl == nullptr) return Internal("curl_easy_init failed");
  // Reset clears the options but keeps the connection cache, which is the point of pooling.
  curl_easy_reset(curl);

  curl_slist* headers = nullptr;
  headers = curl_slist_append(headers, "Accept: application/vnd.github+json");
  headers = curl_slist_append(headers, "X-GitHub-Api-Version: 2022-11-28");
  if (!call.body.empty()) headers = curl_slist_append(headers, "Content-Type: application/json");
  // Without this libcurl sends "Expect: 100-continue" for larger bodies and waits.
  headers = curl_slist_append(headers, "Expect:");
  for (const auto& [name, value] : call.headers) {
    std::string line = name;
    line += ": ";
    line += value;
    headers = curl_slist_append(headers, line.c_str());
  }

  HttpReply reply;
  char error_buffer[CURL_ERROR_SIZE] = {0};
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, call.method.c_str());
  if (call.method == "HEAD") curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  if (!call.body.empty() || call.method == "POST" || call.method == "PUT" ||
      call.method == "PATCH") {
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS, call.body.data());
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(call.body.size()));
  }
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, options_.user_agent.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, &WriteBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &reply.body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, &WriteHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &reply);
  curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);  // timeouts without SIGALRM; thread-safe
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(options_.connect_timeout.count() / 1000));  // NOLINT
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS,
                   static_cast<long>(options_.total_timeout.count() / 1000));  // NOLINT
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(curl, CURLOPT_ACCEPT_ENCODING, "");  // whatever libcurl can decode
  // A mutation never goes out on a reused connection. libcurl silently re-sends a request
  // whose reused connection died before any answer came back; for a POST that had already
  // reached GitHub that would be a second effect the action ledger never saw. On a fresh
  // connection the failure is reported instead (transient: the ledger's intent stays open and
  // the next pass reconciles it). Reads keep reusing connections.
  const bool mutation = call.method != "GET" && call.method != "HEAD";
  curl_easy_setopt(curl, CURLOPT_FRESH_CONNECT, mutation ? 1L : 0L);
  if (call.method == "GET") {
    // GitHub redirects reads of renamed or transferred repositories (301/307). libcurl drops
    // our Authorization header if a redirect leaves the host.
    curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
    curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 3L);
  }

  CURLcode rc = curl_easy_perform(curl);
  long status = 0;  // NOLINT: libcurl's type
  if (rc == CURLE_OK) curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  // Forget the pointers into this frame before the handle goes back to the pool.
  curl_easy_reset(curl);
  curl_slist_free_all(headers);
  ReturnHandle(curl);

  if (rc == CURLE_URL_MALFORMAT || rc == CURLE_UNSUPPORTED_PROTOCOL ||
      rc == CURLE_BAD_FUNCTION_ARGUMENT || rc == CURLE_TOO_MANY_REDIRECTS) {
    return InvalidArgument(call.method + " " + url + ": " + curl_easy_strerror(rc));
  }
  if (rc != CURLE_OK) {
    // The URL is safe to report (no credentials in it); headers are not reported.
    return Unavailable(call.method + " " + url + ": " +
                       (error_buffer[0] != '\0' ? std::string(error_buffer)
                                                : std::string(curl_easy_strerror(rc))));
  }
  reply.status = static_cast<int>(status);
  return reply;
}

}  // namespace gatehouse
