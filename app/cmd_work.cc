// gatehouse work ls | rearm | signal
#include <algorithm>
#include <boost/json.hpp>
#include <cstdio>
#include <optional>
#include <string>

#include "app/admin_client.h"
#include "app/commands.h"
#include "app/common.h"
#include "app/json_fields.h"
#include "base/clock.h"
#include "base/log.h"
#include "base/subject.h"
#include "decide/reasons.h"
#include "store/review_runs.h"

namespace gatehouse::app {
namespace {

constexpr const char kWorkUsage[] = R"(Usage:
  gatehouse work ls [--state idle|pending|running|dead] [--json] [--limit N]
                    [--db URL | --server URL]
      List work items (one per pull request), ordered by key.
  gatehouse work rearm KEY [--db URL | --server URL]
      Bring a dead work item back: pending, due now, retry budgets reset. KEY is
      owner/repo#number (case-insensitive), or a review mailbox owner/repo#number/review/ROLE.
      Exits 1 if the item is unknown or not dead.
  gatehouse work signal KEY [--reason REASON] [--debounce-ms MS] [--db URL]
      Route one signal to KEY by hand (reason default "manual", debounce default 0), as a
      webhook would: the pass runs once the debounce has passed, together with any other
      signal for KEY that arrived meanwhile.

  gatehouse work counters [--json] [--db URL | --server URL]
      The engine's counters: signals, passes claimed/completed/retried, dead items, leases
      that expired mid-pass, stale writes rejected by a fence, re-arms.

Options:
  --log-level L  debug|info|warn|error|off (default warn for these commands)
  -h, --help     this text
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

// Up to `limit` items in key order, page by page (the API's pages are at most 500).
Result<boost::json::array> ListItems(AdminClient& client, const std::string& state, size_t limit) {
  boost::json::array items;
  std::string after;
  while (items.size() < limit) {
    const size_t want = std::min<size_t>(limit - items.size(), 500);
    std::string target = "/api/v1/work?limit=" + std::to_string(want);
    if (!state.empty()) target += "&state=" + Encode(state);
    if (!after.empty()) target += "&after=" + Encode(after);
    GH_ASSIGN_OR_RETURN(boost::json::value page, client.Call("GET", target));
    for (const boost::json::value& w : ArrayOf(page, "items")) items.push_back(w);
    after = TextOf(page, "next");
    if (after.empty() || ArrayOf(page, "items").empty()) break;
  }
  return items;
}

int List(const Flags& flags, AdminClient& client) {
  std::string state = flags.Get("state", "");
  WorkState parsed_state;
  if (flags.Has("state") && !ParseWorkState(state, &parsed_state)) {
    PrintError("work ls", "--state must be one of idle, pending, running, dead");
    return kExitUsage;
  }
  auto limit = flags.GetInt("limit", 1000, 1, 1'000'000);
  if (!limit.ok()) {
    PrintError("work ls", limit.status().message());
    return kExitUsage;
  }
  auto items = ListItems(client, state, static_cast<size_t>(*limit));
  if (!items.ok()) {
    PrintError("work ls", items.status().ToString());
    return kExitFailure;
  }
  if (flags.Has("json")) {
    std::printf("%s\n", boost::json::serialize(*items).c_str());
    return kExitOk;
  }
  std::printf("%-32s %-8s %6s %6s %6s %5s %4s  %-24s %s\n", "KEY", "STATE", "REQ", "CLAIM", "DONE",
              "FENCE", "TRY", "DUE", "LAST ERROR / REASONS");
  for (const boost::json::value& w : *items) {
    std::string tail = TextOf(w, "last_error");
    if (tail.empty()) {
      for (const boost::json::value& r : ArrayOf(w, "reasons")) {
        if (!tail.empty()) tail += ",";
        tail += r.is_string() ? std::string(r.as_string()) : boost::json::serialize(r);
      }
    }
    std::printf("%-32s %-8s %6lld %6lld %6lld %5lld %4lld  %-24s %s\n", TextOf(w, "key").c_str(),
                TextOf(w, "state").c_str(), static_cast<long long>(IntOf(w, "requested_gen")),
                static_cast<long long>(IntOf(w, "claimed_gen")),
                static_cast<long long>(IntOf(w, "done_gen")),
                static_cast<long long>(IntOf(w, "fence")),
                static_cast<long long>(IntOf(w, "attempts")), TextOf(w, "due_at", "-").c_str(),
                tail.c_str());
  }
  std::printf("(%zu item%s)\n", items->size(), items->size() == 1 ? "" : "s");
  return kExitOk;
}

int Rearm(const Flags& flags, AdminClient& client) {
  if (flags.positional().size() != 2) {
    PrintError("work rearm", "expected exactly one KEY (owner/repo#number)");
    return kExitUsage;
  }
  // A PR, or one of its review mailboxes (owner/repo#N/review/ROLE).
  const std::string& text = flags.positional()[1];
  std::string subject_part, role;
  const bool review = ParseReviewWorkKey(text, &subject_part, &role);
  const std::optional<std::string> subject = SubjectArg("work rearm", review ? subject_part : text);
  if (!subject) return kExitUsage;
  const std::string key = review ? ReviewWorkKey(*subject, role) : *subject;
  auto answer = client.Call("POST", "/api/v1/work/rearm?key=" + Encode(key));
  if (!answer.ok()) {
    PrintError("work rearm", answer.status().ToString());
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

int ShowCounters(const Flags& flags, AdminClient& client) {
  auto status = client.Call("GET", "/api/v1/status");
  if (!status.ok()) {
    PrintError("work counters", status.status().ToString());
    return kExitFailure;
  }
  const boost::json::value* counters = FieldOf(*status, "counters");
  const boost::json::value empty = boost::json::object{};
  const boost::json::value& c = counters != nullptr ? *counters : empty;
  if (flags.Has("json")) {
    std::printf("%s\n", boost::json::serialize(c).c_str());
    return kExitOk;
  }
  if (!c.is_object()) return kExitOk;
  for (const auto& [name, value] : c.as_object()) {
    std::printf("%-28s %lld\n", std::string(name).c_str(), static_cast<long long>(IntOf(c, name)));
  }
  return kExitOk;
}

}  // namespace

int RunWork(int argc, char** argv) {
  Flags flags(
      {"db", "state", "limit", "reason", "debounce-ms", "log-level", "server", "token-file"},
      {"json"});
  Status parsed = flags.Parse(argc, argv, 1);
  if (!parsed.ok()) {
    PrintError("work", parsed.message());
    std::fprintf(stderr, "%s%s", kWorkUsage, kAdminClientOptions);
    return kExitUsage;
  }
  if (flags.Has("help")) {
    std::printf("%s%s", kWorkUsage, kAdminClientOptions);
    return kExitOk;
  }
  if (flags.positional().empty()) {
    std::fprintf(stderr, "%s%s", kWorkUsage, kAdminClientOptions);
    return kExitUsage;
  }
  SetLogLevel(LogLevel::kWarn);
  if (flags.Has("log-level") && !ApplyLogLevel(flags)) return kExitUsage;
  const std::string sub = flags.positional()[0];
  if (sub != "ls" && sub != "rearm" && sub != "signal" && sub != "counters") {
    PrintError("work", "unknown subcommand '" + sub + "'");
    std::fprintf(stderr, "%s%s", kWorkUsage, kAdminClientOptions);
    return kExitUsage;
  }
  if (sub == "signal") {
    if (flags.Has("server")) {
      PrintError("work signal", "routes a signal in the database: --db only, not --server");
      return kExitUsage;
    }
    auto store = OpenStoreFromFlags(flags, /*must_exist=*/false);
    if (!store.ok()) {
      PrintError("work", store.status().ToString());
      return kExitFailure;
    }
    return SignalByHand(flags, **store);
  }
  auto client = OpenAdminClient(flags, /*must_exist=*/true);
  if (!client.ok()) {
    PrintError("work", client.status().ToString());
    return client.status().code() == StatusCode::kInvalidArgument ? kExitUsage : kExitFailure;
  }
  if (sub == "ls") return List(flags, **client);
  if (sub == "rearm") return Rearm(flags, **client);
  return ShowCounters(flags, **client);
}

}  // namespace gatehouse::app
