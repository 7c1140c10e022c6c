#include "http/handler.h"

#include "base/ascii.h"
#include "base/log.h"

namespace gatehouse {

std::string HttpRequest::Header(std::string_view name) const {
  for (const auto& [key, value] : headers) {
    if (EqualsIgnoreCase(key, name)) return value;
  }
  return {};
}

bool HttpRequest::HasHeader(std::string_view name) const {
  for (const auto& header : headers) {
    if (EqualsIgnoreCase(header.first, name)) return true;
  }
  return false;
}

std::string_view HttpRequest::Path() const {
  std::string_view path = target;
  return path.substr(0, path.find('?'));
}

HttpResponse JsonResponse(int status, std::string json_body) {
  HttpResponse response;
  response.status = status;
  response.body = std::move(json_body);
  return response;
}

HttpResponse JsonError(int status, std::string_view message) {
  std::string body = "{\"error\":";
  AppendJsonString(body, message);
  body += '}';
  return JsonResponse(status, std::move(body));
}

}  // namespace gatehouse
