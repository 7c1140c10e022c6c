// gatehouse serve: runs the work-item engine on the SQLite store until SIGINT/SIGTERM.
//
// Until the webhook ingress and the decision layer land, the pass run for each PR only
// records what it would decide on (the key, the generation and the reasons) in the log;
// the engine around it (claims, leases, heartbeats, fences, retries) is the real one.
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <memory>
#include <string>
#include <thread>

#include "app/commands.h"
#include "app/common.h"
#include "base/clock.h"
#include "base/log.h"
#include "engine/worker_pool.h"

namespace gatehouse::app {
namespace {

constexpr const char kServeUsage[] = R"(Usage: gatehouse serve [options]

Runs the per-PR work-item engine on an embedded SQLite file until SIGINT or SIGTERM, then
stops claiming, lets running passes finish, and records them.

Options:
  --db PATH              SQLite database file (default ./gatehouse.db; created if absent)
  --workers N            passes run in parallel (default 4)
  --lease-seconds S      lease length; renewed at half-life while a pass runs (default 60)
  --max-attempts N       failed attempts (transient errors, expired leases) before an item
                         is dead (default 8)
  --shutdown-grace-seconds S
                         on SIGINT/SIGTERM, wait this long for running passes to finish
                         and be recorded, then exit 1 anyway (default 30)
  --log-level L          debug|info|warn|error|off (default info); JSON lines on stderr
  -h, --help             this text

Several `gatehouse serve` processes may share one --db file.
)";

}  // namespace

int RunServe(int argc, char** argv) {
  Flags flags(
      {"db", "workers", "lease-seconds", "max-attempts", "shutdown-grace-seconds", "log-level"},
      {});
  Status parsed = flags.Parse(argc, argv, 1);
  if (!parsed.ok() || !flags.positional().empty()) {
    PrintError("serve",
               parsed.ok() ? "unexpected argument " + flags.positional()[0] : parsed.message());
    std::fputs(kServeUsage, stderr);
    return kExitUsage;
  }
  if (flags.Has("help")) {
    std::fputs(kServeUsage, stdout);
    return kExitOk;
  }
  if (!ApplyLogLevel(flags)) return kExitUsage;

  EngineOptions options;
  auto workers = flags.GetInt("workers", 4, 1, 1024);
  auto lease = flags.GetInt("lease-seconds", 60, 1, 3600);
  auto attempts = flags.GetInt("max-attempts", 8, 1, 1000);
  auto grace = flags.GetInt("shutdown-grace-seconds", 30, 0, 3600);
  for (const auto* r : {&workers, &lease, &attempts, &grace}) {
    if (!r->ok()) {
      PrintError("serve", r->status().message());
      return kExitUsage;
    }
  }
  options.workers = static_cast<size_t>(*workers);
  options.lease = std::chrono::seconds(*lease);
  options.retry.max_attempts = static_cast<int>(*attempts);

  auto store = OpenStoreFromFlags(flags, /*must_exist=*/false);
  if (!store.ok()) {
    PrintError("serve", store.status().ToString());
    return kExitFailure;
  }

  // Block the stop signals before any thread starts, so that only sigwait() below sees them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  auto clock = std::make_shared<RealClock>();
  PassFn pass = [](PassContext& ctx) {
    const Lease& l = ctx.lease();
    Log(LogLevel::kInfo, "pass.run")
        .Field("key", l.key)
        .Field("fence", l.fence)
        .Field("gen", l.claimed_gen)
        .Field("reasons", JoinReasons(l.reasons));
    return PassOutcome::Done();
  };
  WorkerPool pool(**store, clock, pass, options);
  Status started = pool.Start();
  if (!started.ok()) {
    PrintError("serve", started.ToString());
    return kExitFailure;
  }
  Log(LogLevel::kInfo, "serve.ready").Field("db", flags.Get("db", kDefaultDb));

  int sig = 0;
  sigwait(&stop_signals, &sig);
  Log(LogLevel::kInfo, "serve.stopping")
      .Field("signal", sig)
      .Field("grace_s", static_cast<int64_t>(*grace));
  // Let running passes finish and be recorded, but not forever: a hung pass cannot be
  // interrupted, and its lease will run out and another process will take the item over.
  std::promise<void> stopped;
  std::future<void> stopped_future = stopped.get_future();
  std::thread stopper([&] {
    pool.Stop();
    stopped.set_value();
  });
  if (stopped_future.wait_for(std::chrono::seconds(*grace)) != std::future_status::ready) {
    Log(LogLevel::kError, "serve.stop_timeout")
        .Field("grace_s", static_cast<int64_t>(*grace))
        .Field("note", "passes still running; their leases will expire");
    std::_Exit(kExitFailure);
  }
  stopper.join();
  Log(LogLevel::kInfo, "serve.stopped");
  return kExitOk;
}

}  // namespace gatehouse::app
