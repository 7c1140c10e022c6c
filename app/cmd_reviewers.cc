// gatehouse reviewers ls|pause|resume: the reviewers' pause state and busy slots, as every
// process sharing the store sees them (docs/REVIEWERS.md, "Pause and resume").
#include <boost/json.hpp>
#include <cstdio>
#include <string>

#include "app/admin_client.h"
#include "app/commands.h"
#include "app/common.h"
#include "app/json_fields.h"
#include "base/log.h"

namespace gatehouse::app {
namespace {

constexpr const char kReviewersUsage[] =
    R"(Usage: gatehouse reviewers ls [--json] [--db URL | --server URL]
       gatehouse reviewers pause NAME [--db URL | --server URL]
       gatehouse reviewers resume NAME [--db URL | --server URL]

The reviewers every `gatehouse serve --reviewers` on this store has registered, whether each is
paused, and how many of its slots are busy right now.

A paused reviewer gets no new runs: its runs wait (unavailable, not failed: no attempt is
spent) until it is resumed or their availability budget runs out. The pause is kept in the
store, so it holds for every process sharing it and across restarts; `resume` wakes the
waiting runs at once.

Options:
  --json         ls: the admin API's reviewers document {"reviewers": [...], "waiting": [...]}
  -h, --help     this text
)";

int List(AdminClient& client, bool json) {
  auto doc = client.Call("GET", "/api/v1/reviewers");
  if (!doc.ok()) {
    PrintError("reviewers", doc.status().ToString());
    return kExitFailure;
  }
  if (json) {
    std::printf("%s\n", boost::json::serialize(*doc).c_str());
    return kExitOk;
  }
  std::printf("%-24s %-8s %5s %5s %7s %6s  %s\n", "REVIEWER", "STATE", "BUSY", "SLOTS", "RUNNING",
              "QUEUED", "ROLES");
  for (const boost::json::value& r : ArrayOf(*doc, "reviewers")) {
    std::string roles;
    for (const boost::json::value& role : ArrayOf(r, "roles")) {
      if (role.is_string()) roles += (roles.empty() ? "" : ",") + std::string(role.as_string());
    }
    std::printf("%-24s %-8s %5lld %5s %7lld %6lld  %s\n", TextOf(r, "name").c_str(),
                BoolOf(r, "paused") ? "paused" : "active", static_cast<long long>(IntOf(r, "busy")),
                TextOf(r, "slots", "-").c_str(), static_cast<long long>(IntOf(r, "running")),
                static_cast<long long>(IntOf(r, "queued")), roles.empty() ? "-" : roles.c_str());
  }
  const boost::json::array& waiting = ArrayOf(*doc, "waiting");
  if (!waiting.empty()) std::printf("(%zu review mailboxes wait for a reviewer)\n", waiting.size());
  return kExitOk;
}

int SetPaused(AdminClient& client, const std::string& name, bool paused) {
  auto answer =
      client.Call("POST", "/api/v1/reviewers/" + Encode(name) + (paused ? "/pause" : "/resume"));
  if (!answer.ok()) {
    PrintError("reviewers", answer.status().code() == StatusCode::kNotFound
                                ? "no reviewer " + name + " in " + client.Describe() +
                                      " (gatehouse reviewers ls)"
                                : answer.status().ToString());
    return kExitFailure;
  }
  std::printf("%s %s\n", name.c_str(), paused ? "paused" : "resumed");
  return kExitOk;
}

}  // namespace

int RunReviewers(int argc, char** argv) {
  Flags flags({"db", "log-level", "server", "token-file"}, {"json"});
  Status parsed = flags.Parse(argc, argv, 1);
  if (!parsed.ok()) {
    PrintError("reviewers", parsed.message());
    std::fprintf(stderr, "%s%s", kReviewersUsage, kAdminClientOptions);
    return kExitUsage;
  }
  if (flags.Has("help")) {
    std::printf("%s%s", kReviewersUsage, kAdminClientOptions);
    return kExitOk;
  }
  const auto& args = flags.positional();
  const bool ls = args.size() == 1 && args[0] == "ls";
  const bool toggle = args.size() == 2 && (args[0] == "pause" || args[0] == "resume");
  if (!ls && !toggle) {
    std::fprintf(stderr, "%s%s", kReviewersUsage, kAdminClientOptions);
    return kExitUsage;
  }
  SetLogLevel(LogLevel::kWarn);
  if (flags.Has("log-level") && !ApplyLogLevel(flags)) return kExitUsage;
  auto client = OpenAdminClient(flags, /*must_exist=*/true);
  if (!client.ok()) {
    PrintError("reviewers", client.status().ToString());
    return client.status().code() == StatusCode::kInvalidArgument ? kExitUsage : kExitFailure;
  }
  if (ls) return List(**client, flags.Has("json"));
  return SetPaused(**client, args[1], args[0] == "pause");
}

}  // namespace gatehouse::app
