// storm_child: one gatehouse engine process for the multi-process storm and the crash test.
//
//   storm_child --mode storm|crash|recover --db PATH --log PATH [--heal PATH]
//               [--workers N] [--lease-ms MS] [--seed N]
//
// storm:   runs a WorkerPool with the storm pass until SIGTERM, then stops gracefully.
// crash:   the first pass announces "in-pass KEY FENCE" on stdout and then hangs (with its
//          heartbeat still renewing), waiting to be killed with SIGKILL.
// recover: a normal pool; each recorded pass is announced as "finished KEY FENCE ok|rejected
//          GEN" on stdout. Runs until SIGTERM.
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "base/log.h"
#include "engine/worker_pool.h"
#include "store/open_store.h"
#include "tests/storm_log.h"

using namespace gatehouse;

int main(int argc, char** argv) {
  std::string mode = "storm", db, log_path, heal;
  int workers = 4, lease_ms = 200;
  uint64_t seed = 1;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--mode")
      mode = value;
    else if (flag == "--db")
      db = value;
    else if (flag == "--log")
      log_path = value;
    else if (flag == "--heal")
      heal = value;
    else if (flag == "--workers")
      workers = std::atoi(value.c_str());
    else if (flag == "--lease-ms")
      lease_ms = std::atoi(value.c_str());
    else if (flag == "--seed")
      seed = std::strtoull(value.c_str(), nullptr, 10);
    else {
      std::fprintf(stderr, "storm_child: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  if (db.empty() || log_path.empty()) {
    std::fprintf(stderr, "storm_child: --db and --log are required\n");
    return 2;
  }
  SetLogLevel(LogLevel::kError);
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);

  auto store = OpenStore(db);
  if (!store.ok()) {
    std::fprintf(stderr, "storm_child: %s\n", store.status().ToString().c_str());
    return 1;
  }
  storm::StormLog log(log_path);
  auto stalls = std::make_shared<storm::StallSet>();
  EngineOptions options;
  options.workers = static_cast<size_t>(workers);
  options.lease = std::chrono::milliseconds(lease_ms);
  options.poll_interval = std::chrono::milliseconds(5);
  options.retry.max_attempts = 4;
  options.retry.transient_base = std::chrono::milliseconds(20);
  options.retry.transient_cap = std::chrono::milliseconds(200);
  options.seed = seed;
  options.skip_renewal = [stalls](const Lease& l) { return stalls->Contains(l); };

  PassFn pass;
  PassObserver observer = [&log](const PassReport& r) { log.Recorded(r); };
  if (mode == "storm") {
    storm::StormPassConfig config;
    config.lease = options.lease;
    config.heal_file = heal;
    config.seed = seed;
    pass = storm::MakeStormPass(&log, config, stalls);
  } else if (mode == "crash") {
    pass = [&log](PassContext& ctx) -> PassOutcome {
      log.Started(ctx.lease(), RealClock().Now());
      std::printf("in-pass %s %lld\n", ctx.lease().key.c_str(),
                  static_cast<long long>(ctx.lease().fence));
      std::fflush(stdout);
      while (true) pause();  // the parent kills us here, mid-pass
    };
  } else if (mode == "recover") {
    pass = [&log](PassContext& ctx) {
      log.Started(ctx.lease(), RealClock().Now());
      PassOutcome done = PassOutcome::Done();
      log.Ended(ctx.lease(), done, RealClock().Now());
      return done;
    };
    observer = [&log](const PassReport& r) {
      log.Recorded(r);
      std::printf("finished %s %lld %s %lld\n", r.lease.key.c_str(),
                  static_cast<long long>(r.lease.fence), r.recorded.ok() ? "ok" : "rejected",
                  static_cast<long long>(r.lease.claimed_gen));
      std::fflush(stdout);
    };
  } else {
    std::fprintf(stderr, "storm_child: unknown mode %s\n", mode.c_str());
    return 2;
  }

  WorkerPool pool(**store, std::make_shared<RealClock>(), pass, options, observer);
  // Announced before the pool starts, so it is always the first line the parent reads.
  std::printf("ready %d\n", static_cast<int>(getpid()));
  std::fflush(stdout);
  Status s = pool.Start();
  if (!s.ok()) {
    std::fprintf(stderr, "storm_child: %s\n", s.ToString().c_str());
    return 1;
  }
  int sig = 0;
  sigwait(&stop, &sig);
  pool.Stop();
  return 0;
}
