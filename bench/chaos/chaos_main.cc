// gatehouse-chaos: the proof under faults (docs/RELIABILITY.md, "Chaos"). Plays gatehouse
// demo's world (app/demo_world.h: several repositories, dozens of PRs, CI storms, pushes in
// the middle of decisions, reviews, closes, reopens, review runs) against `gatehouse serve`
// and gatehouse-sim (app/demo_rig.h) while it injects, at seeded times
// (bench/chaos/chaos_schedule.h): SIGKILL and restart of gatehouse, SIGSTOP past the lease,
// GitHub 5xx / resets / secondary and primary rate limits, lost answers, and webhook
// duplicates, reorders and delays. Then it lets the world settle and checks, from the
// simulator's effect log and gatehouse's store: no duplicate effect, no stale effect, every PR
// in the state its story demands, every delivery terminal, no dead work item. One verdict line
// with the counts; exit status 1 on any violation.
#include <signal.h>
#include <unistd.h>

#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "app/commands.h"
#include "app/common.h"
#include "app/demo_checks.h"
#include "app/demo_rig.h"
#include "app/demo_sim.h"
#include "app/demo_world.h"
#include "base/clock.h"
#include "base/flags.h"
#include "bench/chaos/chaos_deliveries.h"
#include "bench/chaos/chaos_schedule.h"
#include "store/open_store.h"

namespace gatehouse::chaos {
namespace {

namespace fs = std::filesystem;
using app::DemoRig;
using app::Steady;

constexpr const char kUsage[] = R"(Usage: gatehouse-chaos [options]

Plays gatehouse demo's world against gatehouse serve and gatehouse-sim while injecting seeded
faults: SIGKILL + restart of gatehouse (--kills times), SIGSTOP past the lease, GitHub 5xx,
connection resets, secondary and primary rate limits, lost answers (the call takes effect,
the answer is lost), webhook duplicates, reorders and delays. Then checks: 0 duplicate
effects, 0 stale effects, every PR in the state its story demands, every delivery terminal,
0 dead work items. Prints one verdict line; exit status 0 only for `verdict: ok`.

Options:
  --seed N           the fault schedule and the world's randomness (default 1)
  --kills N          SIGKILLs of gatehouse during the play (default 50)
  --prs N            pull requests per repository (default 10; 3 repositories)
  --play-seconds S   how long faults are injected (default: 2 s per kill, at least 20)
  --nodes N          gatehouse serve processes on one database (default 1)
  --db URL           a SQLite path or postgresql:// URL of an empty database
                     (default DIR/gatehouse.db)
  --dir DIR          where the database, keys and logs go (default: a new /tmp directory)
  --sweep-interval-seconds S
                     gatehouse's periodic sweep (default 0: off, so that what GitHub
                     failed to deliver comes back by recovery alone)
  --no-lost-answers  leave out the lost-answer faults
  --gatehouse PATH   the gatehouse binary (default: next to this binary)
  --sim PATH         the gatehouse-sim binary (default: next to this binary)
  --timeout-seconds S
                     give up waiting for the world to settle after S seconds (default 300)
  -h, --help         this text
)";

struct Run {
  int64_t kills = 0, stops = 0, rest = 0, delivery = 0, lost_answers = 0;
  std::vector<std::string> problems;
};

// One event of the schedule, now. Kills keep the simulator pointed at the dead node while it
// is down, so GitHub's deliveries fail as they would (connection refused).
void Inject(const ChaosEvent& e, DemoRig& rig, Run* run) {
  app::DemoNodes& nodes = rig.nodes();
  switch (e.kind) {
    case ChaosFault::kKill: {
      const size_t victims = e.all_nodes ? nodes.live() : 1;
      for (size_t i = 0; i < victims && nodes.live() > 0; ++i) {
        std::string what;
        const size_t at = e.all_nodes ? 0 : static_cast<size_t>(e.node) % nodes.live();
        if (Status s = nodes.Kill(at, &what); !s.ok()) run->problems.push_back(s.message());
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(e.down_ms));
      for (size_t i = 0; i < victims; ++i) {
        if (Status s = nodes.Start(); !s.ok()) run->problems.push_back(s.message());
      }
      if (!rig.PointWebhooks()) run->problems.push_back("gatehouse-sim refused the webhook URLs");
      ++run->kills;
      return;
    }
    case ChaosFault::kStop: {
      if (nodes.live() == 0) return;
      const size_t at = static_cast<size_t>(e.node) % nodes.live();
      nodes.Signal(at, SIGSTOP);
      std::this_thread::sleep_for(std::chrono::milliseconds(e.down_ms));
      nodes.Signal(at, SIGCONT);
      ++run->stops;
      return;
    }
    case ChaosFault::kRestFaults:
    case ChaosFault::kDeliveryFaults:
    case ChaosFault::kLostAnswer: {
      auto [status, body] = rig.control().Call("PUT", "/_sim/faults", e.faults_json);
      if (status != 200) {
        run->problems.push_back("PUT /_sim/faults " + e.faults_json + " answered " +
                                std::to_string(status) + ": " + body);
        return;
      }
      ++(e.kind == ChaosFault::kRestFaults       ? run->rest
         : e.kind == ChaosFault::kDeliveryFaults ? run->delivery
                                                 : run->lost_answers);
      return;
    }
  }
}

// Waits until the scripts are done and gatehouse is quiet (nothing in flight, no pass to
// come but the sweep's, no new effect for two seconds), or the deadline.
bool Settle(DemoRig& rig, const app::DemoPlayer& player, const app::DemoWorld& world,
            Steady::time_point deadline) {
  int64_t last_effects = -1;
  int quiet_polls = 0, polls = 0;
  while (Steady::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    auto f = rig.store().inbox().GetFunnel();
    auto busy = rig.store().work().ListWorkItems(WorkFilter{});
    const int64_t active = busy.ok() ? app::ActiveItems(*busy, RealClock().Now()) : -1;
    boost::json::value effects = rig.control().GetJson("/_sim/effects");
    const int64_t n_effects =
        effects.is_array() ? static_cast<int64_t>(effects.as_array().size()) : 0;
    const bool quiet = player.scripts_done() == static_cast<int>(world.prs.size()) && f.ok() &&
                       f->in_flight == 0 && active == 0 && n_effects == last_effects;
    quiet_polls = quiet ? quiet_polls + 1 : 0;
    last_effects = n_effects;
    if (quiet_polls >= 4) return true;
    if (++polls % 4 == 0) {
      std::fprintf(stderr,
                   "settling: scripts %d/%zu  in flight %lld  active PRs %lld  effects %lld\n",
                   player.scripts_done(), world.prs.size(),
                   static_cast<long long>(f.ok() ? f->in_flight : -1),
                   static_cast<long long>(active), static_cast<long long>(n_effects));
    }
  }
  return false;
}

int RunChaos(int argc, char** argv) {
  Flags flags({"seed", "kills", "prs", "play-seconds", "nodes", "db", "dir",
               "sweep-interval-seconds", "gatehouse", "sim", "timeout-seconds"},
              {"no-lost-answers"});
  Status parsed = flags.Parse(argc, argv, 1);
  if (!parsed.ok() || !flags.positional().empty()) {
    app::PrintError(
        "chaos", parsed.ok() ? "unexpected argument " + flags.positional()[0] : parsed.message());
    std::fputs(kUsage, stderr);
    return app::kExitUsage;
  }
  if (flags.Has("help")) {
    std::fputs(kUsage, stdout);
    return app::kExitOk;
  }
  auto seed = flags.GetInt("seed", 1, 0, INT64_MAX);
  auto kills = flags.GetInt("kills", 50, 0, 100'000);
  auto prs = flags.GetInt("prs", 10, 1, 200);
  auto nodes = flags.GetInt("nodes", 1, 1, 16);
  auto sweep = flags.GetInt("sweep-interval-seconds", 0, 0, 3600);
  auto timeout_s = flags.GetInt("timeout-seconds", 300, 10, 24 * 3600);
  for (const auto* r : {&seed, &kills, &prs, &nodes, &sweep, &timeout_s}) {
    if (!r->ok()) {
      app::PrintError("chaos", r->status().message());
      return app::kExitUsage;
    }
  }
  auto play_s = flags.GetInt("play-seconds", std::max<long long>(20, *kills * 2), 1, 24 * 3600);
  if (!play_s.ok()) {
    app::PrintError("chaos", play_s.status().message());
    return app::kExitUsage;
  }
  std::string dir = flags.Get("dir", "");
  if (dir.empty()) {
    char tmpl[] = "/tmp/gatehouse-chaos.XXXXXX";
    if (mkdtemp(tmpl) == nullptr) {
      app::PrintError("chaos", "cannot create a directory under /tmp");
      return app::kExitFailure;
    }
    dir = tmpl;
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  const fs::path here = fs::read_symlink("/proc/self/exe").parent_path();
  app::DemoRigOptions rig_options;
  rig_options.dir = dir;
  rig_options.db = flags.Get("db", "");
  rig_options.self = flags.Get("gatehouse", (here / "gatehouse").string());
  rig_options.sim_bin = flags.Get("sim", (here / "gatehouse-sim").string());
  rig_options.nodes = *nodes;
  constexpr int64_t kLeaseSeconds = 4;
  ChaosScheduleOptions so;
  so.seed = static_cast<uint64_t>(*seed);
  so.kills = *kills;
  so.play_ms = *play_s * 1000;
  so.nodes = *nodes;
  so.lease_ms = kLeaseSeconds * 1000;
  so.lost_answers = !flags.Has("no-lost-answers");
  const ChaosSchedule schedule = MakeChaosSchedule(so);

  rig_options.serve_flags = {"--debounce-ms",
                             "300",
                             "--workers",
                             "4",
                             "--sweep-interval-seconds",
                             std::to_string(*sweep),
                             "--resolve-interval-seconds",
                             "2",
                             "--recover-interval-seconds",
                             "2",
                             "--lease-seconds",
                             std::to_string(kLeaseSeconds),
                             "--log-level",
                             "warn"};
  // Every kill (and every stop longer than the lease) costs each item running at that instant
  // one attempt: a lease that expired mid-pass is how a poison pill shows (docs/ENGINE.md). The
  // play's own kills must not look like one, so the budget is serve's default (8) plus one per
  // kill and stop the play can make; a dead item is still a failure of the run.
  rig_options.serve_flags.insert(
      rig_options.serve_flags.end(),
      {"--max-attempts",
       std::to_string(8 + schedule.injected.at("kill") + schedule.injected.at("stop"))});
  if (IsPostgresUrl(rig_options.db)) {
    rig_options.serve_flags.insert(rig_options.serve_flags.end(), {"--db-pool", "4"});
  }
  for (const std::string& bin : {rig_options.self, rig_options.sim_bin}) {
    if (::access(bin.c_str(), X_OK) != 0) {
      app::PrintError("chaos", "cannot run " + bin + " (build it, or pass --gatehouse / --sim)");
      return app::kExitFailure;
    }
  }
  std::printf("gatehouse-chaos: seed %lld, %lld kills over %lld s, working in %s\n",
              static_cast<long long>(*seed), static_cast<long long>(*kills),
              static_cast<long long>(*play_s), dir.c_str());
  std::fflush(stdout);
  auto started = DemoRig::Start(rig_options);
  if (!started.ok()) {
    app::PrintError("chaos", started.status().message());
    return app::kExitFailure;
  }
  DemoRig& rig = **started;

  const app::DemoWorld world =
      app::BuildDemoWorld(static_cast<int>(*prs), static_cast<uint64_t>(*seed));
  app::DemoPlayer player(rig.control(), world);
  player.SetUp(rig.nodes().WebhookUrls());
  const auto start = Steady::now();
  const auto deadline = start + std::chrono::seconds(*play_s + *timeout_s);
  player.Play(start, deadline);

  Run run;
  const bool tty = ::isatty(2) != 0;
  for (const ChaosEvent& e : schedule.events) {
    const auto when = start + std::chrono::milliseconds(e.at_ms);
    if (Steady::now() < when) std::this_thread::sleep_until(when);
    Inject(e, rig, &run);
    const double secs = std::chrono::duration<double>(Steady::now() - start).count();
    std::fprintf(stderr, "%s[%6.1fs] %-11s %-40s kills %lld/%lld  scripts %d/%zu   ",
                 tty ? "\r" : "", secs, ChaosFaultName(e.kind), e.label.substr(0, 40).c_str(),
                 static_cast<long long>(run.kills), static_cast<long long>(*kills),
                 player.scripts_done(), world.prs.size());
    if (!tty) std::fprintf(stderr, "\n");
  }
  if (tty) std::fprintf(stderr, "\n");
  // The faults stop; the world must now come right by itself.
  rig.control().Call("PUT", "/_sim/faults", "{}");
  const bool settled = Settle(rig, player, world, deadline);
  player.Join();
  app::WorldChecks checks = app::CheckWorld(rig.control(), world);
  boost::json::value effects = rig.control().GetJson("/_sim/effects");
  const AttemptedDeliveries attempted =
      CheckAttemptedDeliveries(rig.sim_url(), rig.app_id(), rig.private_key_pem(), rig.store());
  const int serve_exit = rig.Stop();
  Store& store = rig.store();
  Funnel funnel;
  if (auto f = store.inbox().GetFunnel(); f.ok()) funnel = *f;
  Counters counters;
  if (auto c = store.GetCounters(); c.ok()) counters = *c;
  const app::LedgerSummary ledger = app::SummarizeLedger(store);
  app::CheckStoryActions(store, world, &checks);

  std::vector<std::string> problems = run.problems;
  const std::vector<std::string> played = player.problems();
  problems.insert(problems.end(), played.begin(), played.end());
  problems.insert(problems.end(), ledger.problems.begin(), ledger.problems.end());
  problems.insert(problems.end(), checks.problems.begin(), checks.problems.end());
  problems.insert(problems.end(), attempted.problems.begin(), attempted.problems.end());
  const int64_t lost = funnel.in_flight + funnel.dead;
  if (lost > 0) problems.push_back(std::to_string(lost) + " deliveries not terminal or dead");
  if (ledger.open_intents > 0) {
    problems.push_back(std::to_string(ledger.open_intents) + " ledger intents without an outcome");
  }
  if (!settled) problems.push_back("the world did not settle within the timeout");
  if (serve_exit != 0)
    problems.push_back("gatehouse serve exited with " + std::to_string(serve_exit));
  if (player.step_failures() > 0) {
    problems.push_back(std::to_string(player.step_failures()) + " script steps failed");
  }
  for (const std::string& p : problems) std::printf("  problem: %s\n", p.c_str());
  const bool ok = problems.empty() && checks.duplicate_effects == 0 && checks.stale_effects == 0;
  std::printf(
      "verdict: %s seed=%lld kills=%lld stops=%lld rest_faults=%lld delivery_faults=%lld "
      "lost_answers=%lld attempted=%lld failed_while_down=%lld deliveries=%lld duplicates=%lld "
      "recovered=%lld passes=%lld effects=%lld "
      "duplicate_effects=%lld stale_effects=%lld lost=%lld dead_items=%lld\n",
      ok ? "ok" : "FAIL", static_cast<long long>(*seed), static_cast<long long>(run.kills),
      static_cast<long long>(run.stops), static_cast<long long>(run.rest),
      static_cast<long long>(run.delivery), static_cast<long long>(run.lost_answers),
      static_cast<long long>(attempted.deliveries), static_cast<long long>(attempted.failed_first),
      static_cast<long long>(funnel.routed + funnel.ignored + funnel.in_flight + funnel.dead),
      static_cast<long long>(funnel.duplicate), static_cast<long long>(counters["inbox.recovered"]),
      static_cast<long long>(counters["work.passes_completed"]),
      static_cast<long long>(effects.is_array() ? effects.as_array().size() : 0),
      static_cast<long long>(checks.duplicate_effects),
      static_cast<long long>(checks.stale_effects), static_cast<long long>(lost),
      static_cast<long long>(ledger.dead_items));
  std::fflush(stdout);
  return ok ? app::kExitOk : app::kExitFailure;
}

}  // namespace
}  // namespace gatehouse::chaos

int main(int argc, char** argv) { return gatehouse::chaos::RunChaos(argc, argv); }
