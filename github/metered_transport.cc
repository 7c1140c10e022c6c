#include "github/metered_transport.h"

#include <cctype>
#include <vector>

namespace gatehouse {
namespace {

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

bool IsSha(std::string_view s) {
  if (s.size() != 40) return false;
  for (char c : s) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

// The segments after which the rest of the path is one name.
std::string_view RestPlaceholder(std::string_view previous, std::string_view before_previous) {
  if (previous == "contents") return "{path}";
  if (previous == "labels") return "{name}";
  if (previous == "branches") return "{branch}";
  if (previous == "refs" && before_previous == "git") return "{ref}";
  return {};
}

}  // namespace

std::string EndpointTemplate(std::string_view target, std::string_view base_url) {
  std::string_view path = target;
  if (path.rfind("http://", 0) == 0 || path.rfind("https://", 0) == 0) {
    if (!base_url.empty() && path.rfind(base_url, 0) == 0) {
      path.remove_prefix(base_url.size());
    } else {
      const size_t scheme = path.find("://");
      const size_t slash = path.find('/', scheme + 3);
      path = slash == std::string_view::npos ? std::string_view("/") : path.substr(slash);
    }
  }
  path = path.substr(0, path.find_first_of("?#"));
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    if (end > start) parts.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) {
    out += '/';
    const std::string_view prev = i > 0 ? parts[i - 1] : std::string_view();
    const std::string_view prev2 = i > 1 ? parts[i - 2] : std::string_view();
    if (i == 1 && parts[0] == "repos") {
      out += "{owner}";
    } else if (i == 2 && parts[0] == "repos") {
      out += "{repo}";
    } else if (std::string_view rest = RestPlaceholder(prev, prev2); !rest.empty()) {
      out += rest;
      break;
    } else if (AllDigits(parts[i])) {
      out += "{n}";
    } else if (IsSha(parts[i])) {
      out += "{sha}";
    } else {
      out += parts[i];
    }
  }
  return out.empty() ? "/" : out;
}

MeteredTransport::MeteredTransport(HttpTransport& inner, std::string base_url,
                                   metrics::Registry& registry)
    : inner_(inner),
      base_url_(std::move(base_url)),
      requests_(registry.AddCounter(
          "gatehouse_github_requests_total",
          "Requests to GitHub by method, endpoint template and HTTP status (\"none\": no answer; "
          "304: a conditional read that cost no rate limit)",
          {"method", "endpoint", "status"})) {}

Result<HttpReply> MeteredTransport::Send(const HttpCall& call) {
  Result<HttpReply> reply = inner_.Send(call);
  const std::string status = reply.ok() ? std::to_string(reply->status) : "none";
  requests_.With({call.method, EndpointTemplate(call.target, base_url_), status}).Inc();
  return reply;
}

}  // namespace gatehouse
