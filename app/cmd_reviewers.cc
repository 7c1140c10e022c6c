// gatehouse reviewers ls|pause|resume: the reviewers' pause state and busy slots, as every
// process sharing the store sees them (docs/REVIEWERS.md, "Pause and resume").
#include <boost/json.hpp>
#include <cstdio>

#include "act/review_pass.h"
#include "app/commands.h"
#include "app/common.h"
#include "base/clock.h"
#include "base/log.h"

namespace gatehouse::app {
namespace {

constexpr const char kReviewersUsage[] = R"(Usage: gatehouse reviewers ls [--json] [--db URL]
       gatehouse reviewers pause NAME [--db URL]
       gatehouse reviewers resume NAME [--db URL]

The reviewers every `gatehouse serve --reviewers` on this store has registered, whether each is
paused, and how many of its slots are busy right now.

A paused reviewer gets no new runs: its runs wait (unavailable, not failed: no attempt is
spent) until it is resumed or their availability budget runs out. The pause is kept in the
store, so it holds for every process sharing it and across restarts; `resume` wakes the
waiting runs at once.

Options:
  --db URL       a SQLite file (sqlite:PATH or PATH; default ./gatehouse.db)
                 or postgresql://USER@HOST:PORT/DB; default $GATEHOUSE_DATABASE_URL
  --json         ls: one JSON array instead of the table
  -h, --help     this text
)";

int List(Store& store, bool json) {
  auto reviewers = store.reviews().ListReviewers(RealClock().Now());
  if (!reviewers.ok()) {
    PrintError("reviewers", reviewers.status().ToString());
    return kExitFailure;
  }
  if (json) {
    boost::json::array a;
    for (const ReviewerState& r : *reviewers) {
      a.push_back(boost::json::object{{"name", r.name}, {"paused", r.paused}, {"busy", r.busy}});
    }
    std::printf("%s\n", boost::json::serialize(a).c_str());
    return kExitOk;
  }
  std::printf("%-24s %-8s %s\n", "REVIEWER", "STATE", "BUSY");
  for (const ReviewerState& r : *reviewers) {
    std::printf("%-24s %-8s %d\n", r.name.c_str(), r.paused ? "paused" : "active", r.busy);
  }
  return kExitOk;
}

int SetPaused(Store& store, const std::string& name, bool paused) {
  const Time now = RealClock().Now();
  Status s = store.reviews().SetPaused(name, paused, now);
  if (!s.ok()) {
    PrintError("reviewers", s.code() == StatusCode::kNotFound
                                ? "no reviewer " + name + " in this store (gatehouse reviewers ls)"
                                : s.ToString());
    return kExitFailure;
  }
  if (!paused) act::WakeWaitingRuns(store, now);
  std::printf("%s %s\n", name.c_str(), paused ? "paused" : "resumed");
  return kExitOk;
}

}  // namespace

int RunReviewers(int argc, char** argv) {
  Flags flags({"db", "log-level"}, {"json"});
  Status parsed = flags.Parse(argc, argv, 1);
  if (!parsed.ok()) {
    PrintError("reviewers", parsed.message());
    std::fputs(kReviewersUsage, stderr);
    return kExitUsage;
  }
  if (flags.Has("help")) {
    std::fputs(kReviewersUsage, stdout);
    return kExitOk;
  }
  const auto& args = flags.positional();
  const bool ls = args.size() == 1 && args[0] == "ls";
  const bool toggle = args.size() == 2 && (args[0] == "pause" || args[0] == "resume");
  if (!ls && !toggle) {
    std::fputs(kReviewersUsage, stderr);
    return kExitUsage;
  }
  SetLogLevel(LogLevel::kWarn);
  if (flags.Has("log-level") && !ApplyLogLevel(flags)) return kExitUsage;
  auto store = OpenStoreFromFlags(flags, /*must_exist=*/true);
  if (!store.ok()) {
    PrintError("reviewers", store.status().ToString());
    return kExitFailure;
  }
  if (ls) return List(**store, flags.Has("json"));
  return SetPaused(**store, args[1], args[0] == "pause");
}

}  // namespace gatehouse::app
