// libFuzzer target: the HTTP request parser and its limits (http/request_parser.h), the parse
// HttpServer applies to every connection's bytes.
//
// Input: one byte choosing the body limit (0, 16 bytes, 1 KiB or the server's 25 MiB), two
// bytes choosing where the bytes are cut (into two pieces, and into three), then the bytes a
// client sends. Seeds:
// fuzz/corpus/http_request_fuzz_test/ (webhook POSTs, chunked bodies, pipelined requests,
// oversized and malformed ones). What must hold beyond "no crash":
//  - the outcome does not depend on how the bytes arrive: all at once, in two or three pieces
//    cut anywhere, or (for short inputs) one byte at a time, give the same outcome, request and
//    leftover bytes (only an error may show later, or as another of the request's faults);
//  - a complete request has a method and a target, no empty header name, a header block of at
//    most 8 KiB, a body within the limit, and consumed exactly the bytes before its leftover;
//  - a complete request, written out again with a Content-Length, parses to the same method,
//    target, headers and body.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "http/request_parser.h"

namespace {

using gatehouse::HttpRequest;
using gatehouse::HttpRequestReader;
using gatehouse::RequestParse;

void Check(bool ok, const char* what, std::string_view detail = {}) {
  if (ok) return;
  std::fprintf(stderr, "http_request_fuzz_test: invariant broken: %s\n%.*s\n", what,
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

struct Reading {
  RequestParse outcome = RequestParse::kNeedMore;
  HttpRequest request;
  bool keep_alive = false;
  std::string leftover;  // rest() plus whatever was not fed once the outcome was final
};

Reading Read(size_t limit, std::string_view bytes, const std::vector<size_t>& cuts) {
  HttpRequestReader reader(limit);
  Reading r;
  size_t at = 0;
  std::vector<size_t> ends = cuts;
  ends.push_back(bytes.size());
  for (size_t end : ends) {
    if (end < at) continue;
    r.outcome = reader.Feed(bytes.substr(at, end - at));
    at = end;
    if (r.outcome != RequestParse::kNeedMore) break;
  }
  if (r.outcome == RequestParse::kComplete) {
    r.request = reader.TakeRequest();
    r.keep_alive = reader.keep_alive();
    r.leftover = std::string(reader.rest()) + std::string(bytes.substr(at));
  }
  return r;
}

// Beast finds some errors as soon as the bytes show them, and others only once the whole
// header is there, so a malformed request may still be kNeedMore when it arrives in other
// pieces, or be refused for another of its faults (a header both too large and malformed is
// 431 in one piece, 400 in small ones). What must not depend on the pieces: whether the
// request completes, and then what it is.
bool Same(const Reading& a, const Reading& b) {
  const bool a_error = a.outcome != RequestParse::kNeedMore && a.outcome != RequestParse::kComplete;
  const bool b_error = b.outcome != RequestParse::kNeedMore && b.outcome != RequestParse::kComplete;
  if ((a_error && b.outcome != RequestParse::kComplete) ||
      (b_error && a.outcome != RequestParse::kComplete)) {
    return true;
  }
  return a.outcome == b.outcome && a.request.method == b.request.method &&
         a.request.target == b.request.target && a.request.headers == b.request.headers &&
         a.request.body == b.request.body && a.keep_alive == b.keep_alive &&
         a.leftover == b.leftover;
}

bool Framing(const std::string& name) {
  std::string lower;
  for (char c : name) lower.push_back((c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c);
  return lower == "content-length" || lower == "transfer-encoding";
}

// The header block of `bytes` (start line to the blank line, included) as far as a CRLF CRLF
// ends it; npos when none does.
size_t HeaderSize(std::string_view bytes) {
  const size_t end = bytes.find("\r\n\r\n");
  return end == std::string_view::npos ? end : end + 4;
}
constexpr size_t kHeaderLimit = 8 * 1024;  // http/beast_request.h

std::string Rewrite(const HttpRequest& request) {
  std::string out = request.method + " " + request.target + " HTTP/1.1\r\n";
  for (const auto& [name, value] : request.headers) {
    if (!Framing(name)) out += name + ": " + value + "\r\n";
  }
  out += "Content-Length: " + std::to_string(request.body.size()) + "\r\n\r\n" + request.body;
  return out;
}

std::vector<std::pair<std::string, std::string>> WithoutFraming(const HttpRequest& request) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& header : request.headers) {
    if (!Framing(header.first)) out.push_back(header);
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 3) return 0;
  constexpr size_t kLimits[] = {0, 16, 1024, size_t{25} * 1024 * 1024};
  const size_t limit = kLimits[data[0] % 4];
  const std::string_view bytes(reinterpret_cast<const char*>(data + 3), size - 3);
  const size_t cut = bytes.empty() ? 0 : (size_t{data[1]} << 8 | data[2]) % (bytes.size() + 1);

  // A second cut after the first, from the same two bytes: three pieces.
  const uint32_t mixed = (uint32_t{data[1]} << 8 | data[2]) * 2654435761u;
  const size_t cut2 = cut + (mixed >> 16) % (bytes.size() - cut + 1);

  const Reading whole = Read(limit, bytes, {});
  Check(Same(whole, Read(limit, bytes, {cut})), "two pieces read differently from one");
  Check(Same(whole, Read(limit, bytes, {cut, cut2})), "three pieces read differently from one");
  // Byte by byte only for short inputs: it is the slowest reading by far (a parser call per
  // byte), and the pieces above already vary where the cuts fall.
  if (bytes.size() <= 256) {
    std::vector<size_t> every;
    for (size_t i = 1; i < bytes.size(); ++i) every.push_back(i);
    Check(Same(whole, Read(limit, bytes, every)), "byte by byte reads differently");
  }
  if (whole.outcome != RequestParse::kComplete) return 0;

  const HttpRequest& request = whole.request;
  Check(!request.method.empty() && !request.target.empty(), "no method or target");
  for (const auto& header : request.headers) Check(!header.first.empty(), "empty header name");
  const size_t header_size = HeaderSize(bytes);
  Check(header_size == std::string_view::npos || header_size <= kHeaderLimit,
        "a header block over 8 KiB was accepted");
  Check(request.body.size() <= limit, "a body over the limit was accepted");
  Check(whole.leftover.size() <= bytes.size() &&
            bytes.substr(bytes.size() - whole.leftover.size()) == whole.leftover,
        "the leftover is not the end of the input");

  const std::string again = Rewrite(request);
  // Written out again, a header within the limit may grow past it (a Content-Length for a
  // chunked body, a space after each colon): then 431 is the right answer.
  if (HeaderSize(again) > kHeaderLimit) return 0;
  const Reading reread = Read(limit, again, {});
  Check(reread.outcome == RequestParse::kComplete, "the rewritten request does not parse", again);
  Check(reread.request.method == request.method && reread.request.target == request.target &&
            reread.request.body == request.body &&
            WithoutFraming(reread.request) == WithoutFraming(request),
        "the rewritten request reads differently", again);
  return 0;
}
