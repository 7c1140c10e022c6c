// HttpRequestReader and the shared request-reading decisions (http/beast_request.h). Compiles
// Beast's HTTP parser, but no Asio I/O.
#include "http/request_parser.h"

#include <boost/asio/buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <cstdint>
#include <optional>
#include <utility>

#include "http/beast_request.h"

namespace gatehouse {
namespace http_internal {

namespace beast = boost::beast;
namespace http = beast::http;

std::string Str(beast::string_view s) { return std::string(s.data(), s.size()); }

void PrepareParser(RequestParser& parser, size_t body_limit) {
  parser.body_limit(body_limit);
  parser.header_limit(static_cast<std::uint32_t>(kHeaderLimit));
}

RequestParse ClassifyParseError(const beast::error_code& ec) {
  if (ec == http::error::body_limit) return RequestParse::kBodyTooLarge;
  if (ec == http::error::header_limit) return RequestParse::kHeaderTooLarge;
  if (ec == http::error::need_more) return RequestParse::kNeedMore;
  return RequestParse::kMalformed;
}

bool DeclaresBodyOverLimit(const RequestParser& parser, size_t body_limit) {
  auto length = parser.content_length();
  return length && *length > body_limit;
}

HttpRequest TakeHttpRequest(RequestParser& parser, std::string peer) {
  http::request<http::string_body> message = parser.release();
  HttpRequest request;
  request.method = Str(message.method_string());
  request.target = Str(message.target());
  for (const auto& field : message) {
    request.headers.emplace_back(Str(field.name_string()), Str(field.value()));
  }
  request.body = std::move(message.body());
  request.peer = std::move(peer);
  return request;
}

}  // namespace http_internal

int StatusForRequestParse(RequestParse outcome) {
  switch (outcome) {
    case RequestParse::kMalformed:
      return 400;
    case RequestParse::kBodyTooLarge:
      return 413;
    case RequestParse::kHeaderTooLarge:
      return 431;
    case RequestParse::kNeedMore:
    case RequestParse::kComplete:
      return 0;
  }
  return 400;
}

struct HttpRequestReader::Impl {
  explicit Impl(size_t limit) : body_limit(limit) {
    http_internal::PrepareParser(parser, body_limit);
  }

  // Hands `pending` to the parser until it needs more or is done. The header is parsed on its
  // own (not eager), so that the bytes it took are known and checked against the header limit
  // as the connection checks them; then the body as far as it was sent, in the same Feed.
  RequestParse Step() {
    while (!parser.is_done()) {
      const bool in_header = !parser.is_header_done();
      parser.eager(!in_header);
      boost::beast::error_code ec;
      const size_t used = parser.put(boost::asio::buffer(pending.data(), pending.size()), ec);
      pending.erase(0, used);
      if (in_header) header_bytes += used;
      if (ec) return http_internal::ClassifyParseError(ec);
      if (in_header && parser.is_header_done()) {
        if (http_internal::HeaderOverLimit(header_bytes)) return RequestParse::kHeaderTooLarge;
        if (http_internal::DeclaresBodyOverLimit(parser, body_limit)) {
          return RequestParse::kBodyTooLarge;
        }
      }
      if (used == 0) return RequestParse::kNeedMore;
    }
    return RequestParse::kComplete;
  }

  const size_t body_limit;
  size_t header_bytes = 0;  // consumed by the parser while the header was not done
  http_internal::RequestParser parser;
  std::string pending;  // fed, not yet consumed by the parser
  RequestParse outcome = RequestParse::kNeedMore;
  bool taken = false;
  bool keep_alive = false;  // read when complete: TakeRequest releases the message
};

HttpRequestReader::HttpRequestReader(size_t body_limit)
    : impl_(std::make_unique<Impl>(body_limit)) {}

HttpRequestReader::~HttpRequestReader() = default;

RequestParse HttpRequestReader::Feed(std::string_view bytes) {
  if (impl_->outcome != RequestParse::kNeedMore) return impl_->outcome;
  impl_->pending.append(bytes);
  impl_->outcome = impl_->Step();
  if (impl_->outcome == RequestParse::kComplete) {
    impl_->keep_alive = impl_->parser.get().keep_alive();
  }
  return impl_->outcome;
}

HttpRequest HttpRequestReader::TakeRequest() {
  if (impl_->outcome != RequestParse::kComplete || impl_->taken) return {};
  impl_->taken = true;
  return http_internal::TakeHttpRequest(impl_->parser, "");
}

bool HttpRequestReader::keep_alive() const {
  return impl_->outcome == RequestParse::kComplete && impl_->keep_alive;
}

std::string_view HttpRequestReader::rest() const { return impl_->pending; }

}  // namespace gatehouse
