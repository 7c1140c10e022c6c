// gatehouse status: the ingress funnel and the engine's counters.
#include <boost/json.hpp>
#include <cstdio>

#include "app/admin_client.h"
#include "app/commands.h"
#include "app/common.h"
#include "app/json_fields.h"
#include "base/log.h"

namespace gatehouse::app {
namespace {

constexpr const char kStatusUsage[] = R"(Usage: gatehouse status [--json] [--db URL | --server URL]

The webhook funnel: every delivery received ends routed, ignored, duplicate, rejected or dead,
or is still in flight (accepted or unresolved, not yet routed):

  received = routed + ignored + duplicate + rejected + dead + in_flight

the review-request funnel: every review run requested ends posted (done), cancelled,
superseded or dead, or is still in flight (queued, running, or finished and not yet posted):

  requested = done + cancelled + superseded + dead + in_flight

the engine's counters (signals, passes) and the work items by state. Read from the database
(--db) or from a running server's admin API (--server). Exits 1 if the database does not
exist or the server cannot be reached.

Options:
  --json         the admin API's status document (docs/ADMIN_API.md) instead of the table
  -h, --help     this text
)";

void Line(const char* label, int64_t n, const char* suffix = "") {
  std::printf("%-20s %lld%s\n", label, static_cast<long long>(n), suffix);
}

// The table, from the status document.
void PrintStatus(const boost::json::value& s) {
  const auto n = [&](const char* name) { return IntOf(s, name); };
  std::printf("deliveries received  %lld  (recovered %lld)\n",
              static_cast<long long>(n("received")), static_cast<long long>(n("recovered")));
  Line("  routed", n("routed"));
  Line("  ignored", n("ignored"));
  Line("  duplicate", n("duplicate"));
  std::printf("  rejected           %lld  (conflicts %lld)\n",
              static_cast<long long>(n("rejected")), static_cast<long long>(n("conflicts")));
  Line("  dead", n("dead"));
  std::printf("  in flight          %lld  (unresolved %lld)\n",
              static_cast<long long>(n("in_flight")), static_cast<long long>(n("unresolved")));
  std::printf("funnel balanced      %s\n", BoolOf(s, "balanced") ? "yes" : "NO");
  const boost::json::value empty;
  const boost::json::value* reviews = FieldOf(s, "reviews");
  const boost::json::value& rf = reviews ? *reviews : empty;
  Line("review runs requested", IntOf(rf, "requested"));
  Line("  posted", IntOf(rf, "done"));
  Line("  cancelled", IntOf(rf, "cancelled"));
  Line("  superseded", IntOf(rf, "superseded"));
  Line("  dead", IntOf(rf, "dead"));
  Line("  in flight", IntOf(rf, "in_flight"));
  std::printf("reviews balanced     %s\n", BoolOf(rf, "balanced") ? "yes" : "NO");
  const boost::json::value* counters = FieldOf(s, "counters");
  const boost::json::value& c = counters ? *counters : empty;
  Line("signals routed", IntOf(c, "work.signals"));
  Line("passes completed", IntOf(c, "work.passes_completed"));
  const boost::json::value* work = FieldOf(s, "work");
  const boost::json::value& w = work ? *work : empty;
  std::printf("work items           idle %lld, pending %lld, running %lld\n",
              static_cast<long long>(IntOf(w, "idle")), static_cast<long long>(IntOf(w, "pending")),
              static_cast<long long>(IntOf(w, "running")));
  Line("work items dead", IntOf(w, "dead"), " (gatehouse work ls --state dead)");
}

}  // namespace

int RunStatus(int argc, char** argv) {
  Flags flags({"db", "log-level", "server", "token-file"}, {"json"});
  Status parsed = flags.Parse(argc, argv, 1);
  if (!parsed.ok() || !flags.positional().empty()) {
    PrintError("status",
               parsed.ok() ? "unexpected argument " + flags.positional()[0] : parsed.message());
    std::fprintf(stderr, "%s%s", kStatusUsage, kAdminClientOptions);
    return kExitUsage;
  }
  if (flags.Has("help")) {
    std::printf("%s%s", kStatusUsage, kAdminClientOptions);
    return kExitOk;
  }
  SetLogLevel(LogLevel::kWarn);
  if (flags.Has("log-level") && !ApplyLogLevel(flags)) return kExitUsage;
  auto client = OpenAdminClient(flags, /*must_exist=*/true);
  if (!client.ok()) {
    PrintError("status", client.status().ToString());
    return client.status().code() == StatusCode::kInvalidArgument ? kExitUsage : kExitFailure;
  }
  // The admin API's status document (admin/views.h), from the server or the database.
  auto status = (*client)->Call("GET", "/api/v1/status");
  if (!status.ok()) {
    PrintError("status", status.status().ToString());
    return kExitFailure;
  }
  if (flags.Has("json")) {
    std::printf("%s\n", boost::json::serialize(*status).c_str());
    return kExitOk;
  }
  PrintStatus(*status);
  return kExitOk;
}

}  // namespace gatehouse::app
