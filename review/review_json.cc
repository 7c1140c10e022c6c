#include "review/review_json.h"

#include <boost/json.hpp>
#include <cstddef>
#include <string>

namespace gatehouse::review {
namespace {

namespace json = boost::json;
using decide::ReviewFinding;
using decide::ReviewResult;

constexpr size_t kMaxMessageBytes = 4096;

json::object FindingObject(const ReviewFinding& f) {
  json::object o;
  o["path"] = f.path;
  o["line"] = f.line;
  o["severity"] = std::string(decide::SeverityName(f.severity));
  o["message"] = f.message;
  return o;
}

json::array FindingsArray(const std::vector<ReviewFinding>& findings) {
  json::array a;
  a.reserve(findings.size());
  for (const auto& f : findings) a.emplace_back(FindingObject(f));
  return a;
}

std::string_view KindName(const json::value& v) {
  switch (v.kind()) {
    case json::kind::null:
      return "null";
    case json::kind::bool_:
      return "a boolean";
    case json::kind::int64:
    case json::kind::uint64:
    case json::kind::double_:
      return "a number";
    case json::kind::string:
      return "a string";
    case json::kind::array:
      return "an array";
    case json::kind::object:
      return "an object";
  }
  return "a value";
}

Status Expected(std::string_view where, std::string_view what, const json::value& got) {
  return InvalidArgument(std::string(where) + ": expected " + std::string(what) + ", got " +
                         std::string(KindName(got)));
}

// `s` cut to at most `max` bytes, never inside a UTF-8 sequence.
std::string ClipUtf8(std::string_view s, size_t max) {
  if (s.size() <= max) return std::string(s);
  size_t end = max;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
  return std::string(s.substr(0, end));
}

Result<std::string> NonEmptyString(const json::object& o, std::string_view key,
                                   const std::string& where) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr) return InvalidArgument(where + ": missing");
  if (!v->is_string()) return Expected(where, "a non-empty string", *v);
  if (v->as_string().empty()) return InvalidArgument(where + ": expected a non-empty string");
  return std::string(v->as_string());
}

Result<int64_t> OptionalLine(const json::object& o, const std::string& where) {
  const json::value* v = o.if_contains("line");
  if (v == nullptr) return int64_t{0};
  if (v->is_int64()) {
    if (v->as_int64() < 0) {
      return InvalidArgument(where + ": expected an integer >= 0, got " +
                             std::to_string(v->as_int64()));
    }
    return v->as_int64();
  }
  if (v->is_uint64()) return InvalidArgument(where + ": line number too large");
  return Expected(where, "an integer >= 0", *v);
}

Result<decide::Severity> OptionalSeverity(const json::object& o, const std::string& where) {
  const json::value* v = o.if_contains("severity");
  if (v == nullptr) return decide::Severity::kInfo;
  if (!v->is_string()) return Expected(where, "one of info, warning, blocking", *v);
  auto severity = decide::ParseSeverity(v->as_string());
  if (!severity) {
    return InvalidArgument(where + ": expected one of info, warning, blocking, got " +
                           json::serialize(*v));
  }
  return *severity;
}

Result<ReviewFinding> ParseFinding(const json::value& v, size_t index) {
  const std::string where = "findings[" + std::to_string(index) + "]";
  if (!v.is_object()) return Expected(where, "an object", v);
  const json::object& o = v.as_object();
  ReviewFinding f;
  auto path = NonEmptyString(o, "path", where + ".path");
  if (!path.ok()) return path.status();
  f.path = std::move(path).value();
  auto line = OptionalLine(o, where + ".line");
  if (!line.ok()) return line.status();
  f.line = *line;
  auto severity = OptionalSeverity(o, where + ".severity");
  if (!severity.ok()) return severity.status();
  f.severity = *severity;
  auto message = NonEmptyString(o, "message", where + ".message");
  if (!message.ok()) return message.status();
  f.message = ClipUtf8(*message, kMaxMessageBytes);
  return f;
}

Status ParseFindings(const json::object& o, std::vector<ReviewFinding>* out) {
  const json::value* v = o.if_contains("findings");
  if (v == nullptr) return Status::Ok();
  if (!v->is_array()) return Expected("findings", "an array", *v);
  const json::array& a = v->as_array();
  if (a.size() > kMaxFindings) {
    return InvalidArgument("findings: at most " + std::to_string(kMaxFindings) + " allowed, got " +
                           std::to_string(a.size()));
  }
  for (size_t i = 0; i < a.size(); ++i) {
    auto f = ParseFinding(a[i], i);
    if (!f.ok()) return f.status();
    out->push_back(std::move(f).value());
  }
  return Status::Ok();
}

Result<decide::ReviewVerdict> ParseVerdict(const json::object& o) {
  const json::value* v = o.if_contains("verdict");
  if (v == nullptr) return InvalidArgument("verdict: missing");
  if (!v->is_string()) return Expected("verdict", "one of approve, comment, request_changes", *v);
  auto verdict = decide::ParseReviewVerdict(v->as_string());
  if (!verdict) {
    return InvalidArgument("verdict: expected one of approve, comment, request_changes, got " +
                           json::serialize(*v));
  }
  return *verdict;
}

}  // namespace

std::string EncodeReviewRequest(const decide::ReviewRequest& request) {
  json::object o;
  o["repo"] = request.repo;
  o["number"] = request.number;
  o["role"] = request.role;
  o["head_sha"] = request.head_sha;
  o["base_sha"] = request.base_sha;
  o["title"] = request.title;
  o["body"] = request.body;
  o["author"] = request.author;
  json::array files;
  files.reserve(request.files.size());
  for (const auto& f : request.files) {
    json::object file;
    file["path"] = f.path;
    file["status"] = f.status;
    file["additions"] = f.additions;
    file["deletions"] = f.deletions;
    file["patch"] = f.patch;
    files.emplace_back(std::move(file));
  }
  o["files"] = std::move(files);
  o["prior_findings"] = FindingsArray(request.prior_findings);
  o["prior_head_sha"] = request.prior_head_sha;
  return json::serialize(o);
}

std::string EncodeReviewResult(const decide::ReviewResult& result) {
  json::object o;
  o["verdict"] = std::string(decide::ReviewVerdictName(result.verdict));
  o["summary"] = result.summary;
  o["findings"] = FindingsArray(result.findings);
  return json::serialize(o);
}

Result<decide::ReviewResult> ParseReviewResult(std::string_view text) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  if (ec) return InvalidArgument("not JSON: " + ec.message());
  if (!v.is_object()) return Expected("result", "a JSON object", v);
  const json::object& o = v.as_object();

  ReviewResult result;
  auto verdict = ParseVerdict(o);
  if (!verdict.ok()) return verdict.status();
  result.verdict = *verdict;

  const json::value* summary = o.if_contains("summary");
  if (summary == nullptr) return InvalidArgument("summary: missing");
  if (!summary->is_string()) return Expected("summary", "a string", *summary);
  result.summary = std::string(summary->as_string());

  GH_RETURN_IF_ERROR(ParseFindings(o, &result.findings));
  return result;
}

}  // namespace gatehouse::review
