// gatehouse status: the ingress funnel and the engine's counters.
#include <boost/json.hpp>
#include <cstdio>

#include "admin/views.h"
#include "app/commands.h"
#include "app/common.h"
#include "base/clock.h"
#include "base/log.h"

namespace gatehouse::app {
namespace {

constexpr const char kStatusUsage[] = R"(Usage: gatehouse status [--json] [--db URL]

The webhook funnel: every delivery received ends routed, ignored, duplicate, rejected or dead,
or is still in flight (accepted or unresolved, not yet routed):

  received = routed + ignored + duplicate + rejected + dead + in_flight

the review-request funnel: every review run requested ends posted (done), cancelled,
superseded or dead, or is still in flight (queued, running, or finished and not yet posted):

  requested = done + cancelled + superseded + dead + in_flight

and the engine's counters (signals, passes). Exits 1 if the database does not exist.

Options:
  --db URL       a SQLite file (sqlite:PATH or PATH; default ./gatehouse.db)
                 or postgresql://USER@HOST:PORT/DB; default $GATEHOUSE_DATABASE_URL
  --json         one JSON object instead of the table
  -h, --help     this text
)";

}  // namespace

int RunStatus(int argc, char** argv) {
  Flags flags({"db", "log-level"}, {"json"});
  Status parsed = flags.Parse(argc, argv, 1);
  if (!parsed.ok() || !flags.positional().empty()) {
    PrintError("status",
               parsed.ok() ? "unexpected argument " + flags.positional()[0] : parsed.message());
    std::fputs(kStatusUsage, stderr);
    return kExitUsage;
  }
  if (flags.Has("help")) {
    std::fputs(kStatusUsage, stdout);
    return kExitOk;
  }
  SetLogLevel(LogLevel::kWarn);
  if (flags.Has("log-level") && !ApplyLogLevel(flags)) return kExitUsage;
  auto store = OpenStoreFromFlags(flags, /*must_exist=*/true);
  if (!store.ok()) {
    PrintError("status", store.status().ToString());
    return kExitFailure;
  }
  auto funnel = (*store)->inbox().GetFunnel();
  auto counters = (*store)->GetCounters();
  auto reviews = (*store)->reviews().GetReviewFunnel();
  if (!funnel.ok() || !counters.ok() || !reviews.ok()) {
    const Status bad = !funnel.ok()     ? funnel.status()
                       : !counters.ok() ? counters.status()
                                        : reviews.status();
    PrintError("status", bad.ToString());
    return kExitFailure;
  }
  const ReviewFunnel& rf = *reviews;
  const bool reviews_balanced =
      rf.requested == rf.done + rf.cancelled + rf.superseded + rf.dead + rf.in_flight;
  const Funnel& f = *funnel;
  const bool balanced =
      f.received == f.routed + f.ignored + f.duplicate + f.rejected + f.dead + f.in_flight;
  auto counter = [&](const char* name) {
    auto it = counters->find(name);
    return it == counters->end() ? int64_t{0} : it->second;
  };
  if (flags.Has("json")) {
    // The admin API's status document (admin/views.h).
    auto status = admin::StatusView(**store, RealClock().Now());
    if (!status.ok()) {
      PrintError("status", status.status().ToString());
      return kExitFailure;
    }
    std::printf("%s\n", boost::json::serialize(*status).c_str());
    return kExitOk;
  }
  std::printf("deliveries received  %lld  (recovered %lld)\n", static_cast<long long>(f.received),
              static_cast<long long>(f.recovered));
  std::printf("  routed             %lld\n", static_cast<long long>(f.routed));
  std::printf("  ignored            %lld\n", static_cast<long long>(f.ignored));
  std::printf("  duplicate          %lld\n", static_cast<long long>(f.duplicate));
  std::printf("  rejected           %lld  (conflicts %lld)\n", static_cast<long long>(f.rejected),
              static_cast<long long>(f.conflicts));
  std::printf("  dead               %lld\n", static_cast<long long>(f.dead));
  std::printf("  in flight          %lld  (unresolved %lld)\n", static_cast<long long>(f.in_flight),
              static_cast<long long>(f.unresolved));
  std::printf("funnel balanced      %s\n", balanced ? "yes" : "NO");
  std::printf("review runs requested %lld\n", static_cast<long long>(rf.requested));
  std::printf("  posted             %lld\n", static_cast<long long>(rf.done));
  std::printf("  cancelled          %lld\n", static_cast<long long>(rf.cancelled));
  std::printf("  superseded         %lld\n", static_cast<long long>(rf.superseded));
  std::printf("  dead               %lld\n", static_cast<long long>(rf.dead));
  std::printf("  in flight          %lld\n", static_cast<long long>(rf.in_flight));
  std::printf("reviews balanced     %s\n", reviews_balanced ? "yes" : "NO");
  std::printf("signals routed       %lld\n", static_cast<long long>(counter("work.signals")));
  std::printf("passes completed     %lld\n",
              static_cast<long long>(counter("work.passes_completed")));
  std::printf("work items dead      %lld (gatehouse work ls --state dead)\n",
              static_cast<long long>(counter("work.dead") - counter("work.rearmed")));
  return kExitOk;
}

}  // namespace gatehouse::app
