// gatehouse route --event EVENT FILE: explains how a webhook payload is routed, using the same
// RouteWebhook the server runs, without a database or a network.
#include <boost/json.hpp>
#include <cerrno>
#include <cstdio>
#include <string>
#include <system_error>

#include "app/commands.h"
#include "app/common.h"
#include "engine/router.h"

namespace gatehouse::app {
namespace {

constexpr const char kRouteUsage[] = R"(Usage:
  gatehouse route --event EVENT FILE
      Print, as one JSON object on stdout, how a webhook payload would be routed:
        {"keys": [...], "reasons": [...]}       the work items it signals, and why
        {"ignored": "<why>"}                    an event or action gatehouse does not use
        {"keys": [], "reasons": [...], "resolve_by_head_sha": {"repo": ..., "sha": ...}}
                                                a check or status without a PR list
      plus "heads": [{"key": ..., "sha": ...}] when the payload tells a PR's head commit
      (an empty sha: the PR is closed), and "note" for events that are only recorded.
      EVENT is the X-GitHub-Event header (pull_request, check_run, ...); FILE is the body,
      or - for stdin.

Options:
  --event EVENT    the X-GitHub-Event value (required)
  -h, --help       this text

Exit codes: 0 explained (routed or ignored), 1 unreadable file or invalid JSON, 2 usage.
)";

// strerror's thread-safe equivalent.
std::string ErrnoMessage(int err) { return std::generic_category().message(err); }

Result<std::string> ReadAll(const std::string& path) {
  const bool is_stdin = path == "-";
  FILE* f = is_stdin ? stdin : std::fopen(path.c_str(), "rb");
  if (f == nullptr) return NotFound("cannot open " + path + ": " + ErrnoMessage(errno));
  std::string data;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0) data.append(buf, n);
  const bool failed = std::ferror(f) != 0;
  const int err = errno;
  if (!is_stdin) std::fclose(f);
  if (failed) return Unavailable("cannot read " + path + ": " + ErrnoMessage(err));
  return data;
}

// Parses `text`; on failure the message carries the parser's error and a line:column, which
// is what someone fixing a hand-edited payload needs.
Result<boost::json::value> ParseJson(const std::string& name, const std::string& text) {
  boost::json::stream_parser parser;
  boost::json::error_code ec;
  const size_t consumed = parser.write(text.data(), text.size(), ec);
  if (!ec) parser.finish(ec);
  if (ec) {
    size_t line = 1, column = 1;
    for (size_t i = 0; i < consumed && i < text.size(); ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    return InvalidArgument(name + ": invalid JSON at line " + std::to_string(line) + ", column " +
                           std::to_string(column) + ": " + ec.message());
  }
  return parser.release();
}

boost::json::object ToJson(const RouteResult& r) {
  boost::json::object out;
  if (r.kind == RouteResult::Kind::kIgnore) {
    out["ignored"] = r.why;
  } else {
    boost::json::array keys;
    boost::json::array reasons;
    for (const auto& t : r.signals) {
      keys.emplace_back(t.key);
      reasons.emplace_back(t.reason);
    }
    if (r.kind == RouteResult::Kind::kResolveBySha) reasons.emplace_back(r.reason);
    out["keys"] = std::move(keys);
    out["reasons"] = std::move(reasons);
    if (r.kind == RouteResult::Kind::kResolveBySha) {
      out["resolve_by_head_sha"] = {{"repo", r.repo}, {"sha", r.sha}};
    } else if (r.signals.empty()) {
      out["note"] = r.why;
    }
  }
  if (!r.heads.empty()) {
    boost::json::array heads;
    for (const auto& [key, sha] : r.heads) heads.push_back({{"key", key}, {"sha", sha}});
    out["heads"] = std::move(heads);
  }
  return out;
}

}  // namespace

int RunRoute(int argc, char** argv) {
  Flags flags({"event"}, {});
  Status parsed = flags.Parse(argc, argv, 1);
  if (!parsed.ok()) {
    PrintError("route", parsed.message());
    std::fputs(kRouteUsage, stderr);
    return kExitUsage;
  }
  if (flags.Has("help")) {
    std::fputs(kRouteUsage, stdout);
    return kExitOk;
  }
  const std::string event = flags.Get("event", "");
  if (event.empty()) {
    PrintError("route", "--event EVENT is required (the X-GitHub-Event header value)");
    std::fputs(kRouteUsage, stderr);
    return kExitUsage;
  }
  if (flags.positional().size() != 1) {
    PrintError("route", flags.positional().empty() ? "expected a FILE (or - for stdin)"
                                                   : "expected exactly one FILE, got " +
                                                         std::to_string(flags.positional().size()));
    std::fputs(kRouteUsage, stderr);
    return kExitUsage;
  }
  const std::string path = flags.positional()[0];
  auto text = ReadAll(path);
  if (!text.ok()) {
    PrintError("route", text.status().message());
    return kExitFailure;
  }
  auto payload = ParseJson(path == "-" ? std::string("<stdin>") : path, *text);
  if (!payload.ok()) {
    PrintError("route", payload.status().message());
    return kExitFailure;
  }
  const RouteResult result = RouteWebhook(event, *payload);
  std::printf("%s\n", boost::json::serialize(ToJson(result)).c_str());
  return kExitOk;
}

}  // namespace gatehouse::app
