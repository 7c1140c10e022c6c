// gatehouse work ls | rearm | signal
#include <boost/json.hpp>
#include <cstdio>
#include <optional>
#include <string>

#include "admin/views.h"
#include "app/commands.h"
#include "app/common.h"
#include "base/clock.h"
#include "base/log.h"
#include "base/subject.h"
#include "decide/reasons.h"

namespace gatehouse::app {
namespace {

constexpr const char kWorkUsage[] = R"(Usage:
  gatehouse work ls [--state idle|pending|running|dead] [--json] [--limit N] [--db URL]
      List work items (one per pull request), ordered by key.
  gatehouse work rearm KEY [--db URL]
      Bring a dead work item back: pending, due now, retry budgets reset. KEY is
      owner/repo#number (case-insensitive). Exits 1 if the item is unknown or not dead.
  gatehouse work signal KEY [--reason REASON] [--debounce-ms MS] [--db URL]
      Route one signal to KEY by hand (reason default "manual", debounce default 0), as a
      webhook would: the pass runs once the debounce has passed, together with any other
      signal for KEY that arrived meanwhile.

  gatehouse work counters [--json] [--db URL]
      The engine's counters: signals, passes claimed/completed/retried, dead items, leases
      that expired mid-pass, stale writes rejected by a fence, re-arms.

Options:
  --db URL         a SQLite file (sqlite:PATH or PATH; default ./gatehouse.db)
                   or postgresql://USER@HOST:PORT/DB; default $GATEHOUSE_DATABASE_URL
  --log-level L    debug|info|warn|error|off (default warn for these commands)
  -h, --help       this text
)";

// The KEY argument as a subject key (case-insensitive); nullopt, with the error printed, when
// it is not OWNER/REPO#N.
std::optional<std::string> SubjectArg(const char* command, const std::string& text) {
  const std::optional<Subject> subject = Subject::Parse(text);
  if (!subject) {
    PrintError(command, "'" + text + "' is not OWNER/REPO#N");
    return std::nullopt;
  }
  return subject->key();
}

std::string OptTime(const std::optional<Time>& t) { return t ? FormatTime(*t) : "-"; }

int List(const Flags& flags, Store& store) {
  WorkFilter filter;
  if (flags.Has("state")) {
    WorkState state;
    if (!ParseWorkState(flags.Get("state", ""), &state)) {
      PrintError("work ls", "--state must be one of idle, pending, running, dead");
      return kExitUsage;
    }
    filter.state = state;
  }
  auto limit = flags.GetInt("limit", 1000, 1, 1'000'000);
  if (!limit.ok()) {
    PrintError("work ls", limit.status().message());
    return kExitUsage;
  }
  filter.limit = static_cast<size_t>(*limit);
  auto items = store.work().ListWorkItems(filter);
  if (!items.ok()) {
    PrintError("work ls", items.status().ToString());
    return kExitFailure;
  }
  if (flags.Has("json")) {
    boost::json::array out;
    for (const auto& w : *items) out.push_back(admin::WorkItemJson(w));
    std::printf("%s\n", boost::json::serialize(out).c_str());
    return kExitOk;
  }
  std::printf("%-32s %-8s %6s %6s %6s %5s %4s  %-24s %s\n", "KEY", "STATE", "REQ", "CLAIM", "DONE",
              "FENCE", "TRY", "DUE", "LAST ERROR / REASONS");
  for (const auto& w : *items) {
    std::string tail = w.last_error;
    if (tail.empty()) tail = JoinReasons(w.reasons);
    std::printf("%-32s %-8s %6lld %6lld %6lld %5lld %4d  %-24s %s\n", w.key.c_str(),
                std::string(WorkStateName(w.state)).c_str(),
                static_cast<long long>(w.requested_gen), static_cast<long long>(w.claimed_gen),
                static_cast<long long>(w.done_gen), static_cast<long long>(w.fence), w.attempts,
                OptTime(w.due_at).c_str(), tail.c_str());
  }
  std::printf("(%zu item%s)\n", items->size(), items->size() == 1 ? "" : "s");
  return kExitOk;
}

int Rearm(const Flags& flags, Store& store) {
  if (flags.positional().size() != 2) {
    PrintError("work rearm", "expected exactly one KEY (owner/repo#number)");
    return kExitUsage;
  }
  const std::optional<std::string> subject = SubjectArg("work rearm", flags.positional()[1]);
  if (!subject) return kExitUsage;
  const std::string& key = *subject;
  Status s = store.work().Rearm(key, RealClock().Now());
  if (!s.ok()) {
    PrintError("work rearm", s.ToString());
    return kExitFailure;
  }
  std::printf("re-armed %s: pending, due now\n", key.c_str());
  return kExitOk;
}

int SignalByHand(const Flags& flags, Store& store) {
  if (flags.positional().size() != 2) {
    PrintError("work signal", "expected exactly one KEY (owner/repo#number)");
    return kExitUsage;
  }
  const std::optional<std::string> subject = SubjectArg("work signal", flags.positional()[1]);
  if (!subject) return kExitUsage;
  auto debounce = flags.GetInt("debounce-ms", 0, 0, 24LL * 3600 * 1000);
  if (!debounce.ok()) {
    PrintError("work signal", debounce.status().message());
    return kExitUsage;
  }
  Signal sig{*subject, flags.Get("reason", std::string(decide::kReasonManual)),
             std::chrono::milliseconds(*debounce)};
  Status s = store.work().Enqueue({&sig, 1}, RealClock().Now(), Durability::kAcknowledged);
  if (!s.ok()) {
    PrintError("work signal", s.ToString());
    return s.code() == StatusCode::kInvalidArgument ? kExitUsage : kExitFailure;
  }
  std::printf("signalled %s (%s)\n", sig.key.c_str(), sig.reason.c_str());
  return kExitOk;
}

int ShowCounters(const Flags& flags, Store& store) {
  auto counters = store.GetCounters();
  if (!counters.ok()) {
    PrintError("work counters", counters.status().ToString());
    return kExitFailure;
  }
  if (flags.Has("json")) {
    boost::json::object o;
    for (const auto& [name, value] : *counters) o[name] = value;
    std::printf("%s\n", boost::json::serialize(o).c_str());
    return kExitOk;
  }
  for (const auto& [name, value] : *counters) {
    std::printf("%-28s %lld\n", name.c_str(), static_cast<long long>(value));
  }
  return kExitOk;
}

}  // namespace

int RunWork(int argc, char** argv) {
  Flags flags({"db", "state", "limit", "reason", "debounce-ms", "log-level"}, {"json"});
  Status parsed = flags.Parse(argc, argv, 1);
  if (!parsed.ok()) {
    PrintError("work", parsed.message());
    std::fputs(kWorkUsage, stderr);
    return kExitUsage;
  }
  if (flags.Has("help")) {
    std::fputs(kWorkUsage, stdout);
    return kExitOk;
  }
  if (flags.positional().empty()) {
    std::fputs(kWorkUsage, stderr);
    return kExitUsage;
  }
  SetLogLevel(LogLevel::kWarn);
  if (flags.Has("log-level") && !ApplyLogLevel(flags)) return kExitUsage;
  const std::string sub = flags.positional()[0];
  if (sub != "ls" && sub != "rearm" && sub != "signal" && sub != "counters") {
    PrintError("work", "unknown subcommand '" + sub + "'");
    std::fputs(kWorkUsage, stderr);
    return kExitUsage;
  }
  auto store = OpenStoreFromFlags(flags, /*must_exist=*/sub != "signal");
  if (!store.ok()) {
    PrintError("work", store.status().ToString());
    return kExitFailure;
  }
  if (sub == "ls") return List(flags, **store);
  if (sub == "rearm") return Rearm(flags, **store);
  if (sub == "counters") return ShowCounters(flags, **store);
  return SignalByHand(flags, **store);
}

}  // namespace gatehouse::app
