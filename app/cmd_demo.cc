// gatehouse demo: the whole product on one machine, in about a minute.
//
// Starts `gatehouse-sim serve` (a GitHub simulator) and `gatehouse serve` (this binary, as a
// child process, on a fresh SQLite file in a new directory, or on an empty database --db
// names; --nodes N starts N of them on that one database, the simulator's webhooks spread over
// them round-robin, and --kill-node-after-seconds kills one mid-play and starts a
// replacement: app/demo_nodes.h), wires them to each other with a
// real GitHub App key pair and a webhook secret, plays the built-in world (app/demo_world.h,
// played by app/demo_sim.h: several repositories, dozens of PRs, CI storms, pushes in the
// middle of decisions, reviews, a draft-dodge and a reopen; duplicated and reordered
// webhooks) with a live progress line, waits until gatehouse is quiet, then prints what
// happened and checks (app/demo_checks.h) — the first two and the end states by the
// simulator's own invariant checker, the rest from gatehouse's database:
//   - no action twice       (no two accepted App effects with the same kind, PR, SHA, detail;
//                           one summary comment per PR)
//   - nothing on a stale head (no accepted SHA-bound App effect whose SHA was not the head)
//   - every delivery terminal (nothing accepted is left in flight or dead)
//   - every PR ended where its story says (merged, closed, or left open), by its story's
//     action
// The last line is machine-readable: `verdict: ok|FAIL deliveries= passes= actions=
// duplicate_effects= stale_effects= lost= review_runs= duplicate_reviews= nodes= kills=`.
// Exit status 0 only for `verdict: ok`. The world's first repository also has reviewers
// (app/demo_reviews.h): one paused at the start and resumed mid-play, and a planted
// credential the secrets scanner blocks.
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <boost/json.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "act/review_pass.h"
#include "app/commands.h"
#include "app/common.h"
#include "app/demo_checks.h"
#include "app/demo_nodes.h"
#include "app/demo_reviews.h"
#include "app/demo_rig.h"
#include "app/demo_serve_after.h"
#include "app/demo_sim.h"
#include "app/demo_world.h"
#include "base/child_process.h"
#include "base/flags.h"
#include "base/log.h"
#include "decide/reasons.h"
#include "store/open_store.h"

namespace gatehouse::app {
namespace {

namespace json = boost::json;
namespace fs = std::filesystem;

constexpr const char kDemoUsage[] = R"(Usage: gatehouse demo [options]

Runs gatehouse end to end against a GitHub simulator on this machine: starts gatehouse-sim and
gatehouse serve on a fresh SQLite file (or an empty database, --db; several nodes, --nodes),
plays a built-in scenario (four repositories, dozens of pull requests, CI storms, pushes in
the middle of decisions, reviews, a draft-dodge and a reopen, duplicated and reordered
webhooks, and a strict repository whose ready PRs merge through the merge queue in tested
batches), shows a live progress line, and ends with a table of deliveries, passes, actions,
the merge queue (merges, batches, CI runs saved by batching) and the invariant verdict. The last line is
machine-readable:
  verdict: ok|FAIL deliveries=N passes=N actions=N duplicate_effects=N stale_effects=N lost=N
           review_runs=N duplicate_reviews=N nodes=N kills=N
Exit status 0 only for `verdict: ok`.

Options:
  --dir DIR          where the database, keys and logs go (default: a new directory
                     /tmp/gatehouse-demo.XXXXXX; kept afterwards for inspection)
  --db URL           the database every node uses: a SQLite path or a postgresql:// URL
                     (default DIR/gatehouse.db, which must not exist yet); it must hold no
                     work items and no deliveries, or the demo refuses to start
  --nodes N          gatehouse serve processes on that one database (default 1; logs
                     DIR/gatehouse-<i>.log when N > 1); the simulator's webhooks go to them
                     round-robin, skipping a node that refuses the connection
  --kill-node-after-seconds S
                     S seconds into the play, SIGKILL one node (never the first) and start a
                     replacement on the same database at once (needs --nodes 2 or more)
  --prs N            pull requests per repository (default 12; 4 repositories)
  --seed N           randomness of the CI storms (default 1)
  --sim PATH         the gatehouse-sim binary (default: next to this binary)
  --timeout-seconds S
                     give up waiting for gatehouse to settle after S seconds (default 120)
  --max-attempts N   every node's --max-attempts: failed attempts before a work item is
                     dead (default 8, as serve's)
  --github-reads HOW every node's --github-reads: graphql (the default) or rest
  --report WHAT      every node's --report: progress (the default) or verdicts
  --serve-log-level L
                     every node's --log-level (default warn; the logs are DIR/gatehouse*.log)
  --serve-after      after the report, keep the simulator and gatehouse running (dashboard,
                     admin API, webhooks) until Ctrl-C; prints
                     `gatehouse demo: serving dashboard=URL token_file=PATH sim=URL ...`
  -h, --help         this text
)";

constexpr double kResumeAfterSeconds = 4.0;

// SIGKILLs the second live node, starts its replacement and points the simulator's webhooks
// at the live nodes; a replacement that does not start, or a simulator that refuses the new
// list, is a problem.
void KillOneNode(DemoRig& rig, double secs, bool tty, std::vector<std::string>* problems) {
  DemoNodes& nodes = rig.nodes();
  std::string what;
  Status replaced = nodes.KillAndReplace(1, &what);
  if (!replaced.ok()) problems->push_back(replaced.message());
  if (!rig.PointWebhooks()) {
    problems->push_back("gatehouse-sim refused the webhook URLs " + nodes.WebhookUrls());
  }
  std::fprintf(stderr, "%sgatehouse demo: [%5.1fs] %s; webhooks now to %s\n", tty ? "\n" : "", secs,
               what.c_str(), nodes.WebhookUrls().c_str());
}

}  // namespace

int RunDemo(int argc, char** argv) {
  Flags flags(
      {"dir", "prs", "seed", "sim", "timeout-seconds", "db", "nodes", "kill-node-after-seconds",
       "max-attempts", "serve-log-level", "github-reads", "report"},
      {"serve-after"});
  Status parsed = flags.Parse(argc, argv, 1);
  if (!parsed.ok() || !flags.positional().empty()) {
    PrintError("demo",
               parsed.ok() ? "unexpected argument " + flags.positional()[0] : parsed.message());
    std::fputs(kDemoUsage, stderr);
    return kExitUsage;
  }
  if (flags.Has("help")) {
    std::fputs(kDemoUsage, stdout);
    return kExitOk;
  }
  auto prs_per_repo = flags.GetInt("prs", 12, 1, 200);
  auto seed = flags.GetInt("seed", 1, 0, INT64_MAX);
  auto timeout_s = flags.GetInt("timeout-seconds", 120, 5, 3600);
  auto nodes_n = flags.GetInt("nodes", 1, 1, 16);
  auto kill_after_s = flags.GetInt("kill-node-after-seconds", 0, 0, 3600);
  auto max_attempts = flags.GetInt("max-attempts", 8, 1, 1000);
  const bool serve_after = flags.Has("serve-after");
  LogLevel serve_level;
  if (!ParseLogLevel(flags.Get("serve-log-level", "warn"), &serve_level)) {
    PrintError("demo", "--serve-log-level must be debug, info, warn, error or off");
    return kExitUsage;
  }
  for (const auto* r : {&prs_per_repo, &seed, &timeout_s, &nodes_n, &kill_after_s, &max_attempts}) {
    if (!r->ok()) {
      PrintError("demo", r->status().message());
      return kExitUsage;
    }
  }
  const bool kill_a_node = flags.Has("kill-node-after-seconds");
  if (kill_a_node && *nodes_n < 2) {
    PrintError("demo",
               "--kill-node-after-seconds needs --nodes 2 or more (the first is never "
               "killed)");
    return kExitUsage;
  }

  // Where everything goes.
  std::string dir = flags.Get("dir", "");
  if (dir.empty()) {
    char tmpl[] = "/tmp/gatehouse-demo.XXXXXX";
    if (mkdtemp(tmpl) == nullptr) {
      PrintError("demo", "cannot create a directory under /tmp");
      return kExitFailure;
    }
    dir = tmpl;
  } else {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (!flags.Has("db") && fs::exists(dir + "/gatehouse.db")) {
      PrintError("demo", dir + "/gatehouse.db exists; the demo needs a fresh database");
      return kExitUsage;
    }
  }
  const std::string db = flags.Get("db", dir + "/gatehouse.db");
  const std::string self = fs::read_symlink("/proc/self/exe").string();
  const std::string sim_bin =
      flags.Get("sim", (fs::path(self).parent_path() / "gatehouse-sim").string());
  if (::access(sim_bin.c_str(), X_OK) != 0) {
    PrintError("demo", "cannot run the simulator at " + sim_bin + " (build it, or pass --sim)");
    return kExitFailure;
  }

  std::printf("gatehouse demo: working in %s (database, keys, logs)\n", dir.c_str());
  DemoRigOptions rig_options;
  rig_options.dir = dir;
  rig_options.db = db;
  rig_options.self = self;
  rig_options.sim_bin = sim_bin;
  rig_options.nodes = *nodes_n;
  rig_options.serve_flags = {"--debounce-ms",
                             "300",
                             "--workers",
                             "4",
                             "--sweep-interval-seconds",
                             "4",
                             "--resolve-interval-seconds",
                             "2",
                             "--log-level",
                             flags.Get("serve-log-level", "warn"),
                             "--max-attempts",
                             std::to_string(*max_attempts),
                             "--github-reads",
                             flags.Get("github-reads", "graphql"),
                             "--report",
                             flags.Get("report", "progress")};
  // A killed node's leases must run out within the play, not a minute later.
  if (*nodes_n > 1)
    rig_options.serve_flags.insert(rig_options.serve_flags.end(), {"--lease-seconds", "4"});
  if (IsPostgresUrl(db))
    rig_options.serve_flags.insert(rig_options.serve_flags.end(), {"--db-pool", "4"});
  auto started = DemoRig::Start(rig_options);
  if (!started.ok()) {
    PrintError("demo", started.status().message());
    return started.status().code() == StatusCode::kFailedPrecondition ? kExitUsage : kExitFailure;
  }
  DemoRig& rig = **started;
  DemoNodes& nodes = rig.nodes();
  SimControl& control = rig.control();
  Store* store = &rig.store();
  std::printf(
      "gatehouse demo: gatehouse-sim on %s, %lld gatehouse node(s) on %s (webhooks "
      "round-robin), database %s\n",
      rig.sim_url().c_str(), static_cast<long long>(*nodes_n), nodes.WebhookUrls().c_str(),
      DescribeStoreUrl(db).c_str());
  std::fflush(stdout);

  // 3. The world: repositories with their policy files, faults, then every PR in order.
  const DemoWorld world =
      BuildDemoWorld(static_cast<int>(*prs_per_repo), static_cast<uint64_t>(*seed),
                     /*merge_queue=*/true);
  DemoPlayer player(control, world);
  player.SetUp(nodes.WebhookUrls());
  // One reviewer is paused before anything is reviewed and resumed mid-play: its runs wait
  // (unavailable, not failed) and then run once each.
  bool paused = store->reviews().SetPaused(kDemoPausedReviewer, true, RealClock().Now()).ok();
  if (paused) {
    std::printf("gatehouse demo: reviewer %s paused; it is resumed %.0f s into the play\n",
                kDemoPausedReviewer, kResumeAfterSeconds);
    std::fflush(stdout);
  }

  // 4. Every PR's script on its own thread; one poller keeps the world view fresh.
  const auto play_start = Steady::now();
  const auto deadline = play_start + std::chrono::seconds(*timeout_s);
  player.Play(play_start, deadline);

  // 5. Progress until the scripts are done and gatehouse is quiet.
  int64_t last_effects = -1;
  int quiet_polls = 0;
  bool settled = false;
  const bool tty = ::isatty(2) != 0;
  int progress_ticks = 0;
  Funnel funnel;
  Counters counters;
  std::vector<std::string> problems_seen;
  while (Steady::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    auto f = store->inbox().GetFunnel();
    auto c = store->GetCounters();
    auto busy = store->work().ListWorkItems(WorkFilter{});
    json::value effects = control.GetJson("/_sim/effects");
    const int64_t n_effects =
        effects.is_array() ? static_cast<int64_t>(effects.as_array().size()) : 0;
    if (f.ok()) funnel = *f;
    if (c.ok()) counters = *c;
    const int64_t active = busy.ok() ? ActiveItems(*busy, RealClock().Now()) : 0;
    const double secs = std::chrono::duration<double>(Steady::now() - play_start).count();
    if (kill_a_node && nodes.kills() == 0 && secs >= static_cast<double>(*kill_after_s)) {
      KillOneNode(rig, secs, tty, &problems_seen);
    }
    if (paused && secs >= kResumeAfterSeconds) {
      paused = !store->reviews().SetPaused(kDemoPausedReviewer, false, RealClock().Now()).ok();
      act::WakeWaitingRuns(*store, RealClock().Now());
      std::fprintf(stderr, "%sgatehouse demo: reviewer %s resumed\n", tty ? "\n" : "",
                   kDemoPausedReviewer);
    }
    char line[256];
    std::snprintf(line, sizeof(line),
                  "[%5.1fs] scripts %d/%zu  webhooks %lld (in flight %lld)  passes %lld  "
                  "active PRs %lld  GitHub effects %lld",
                  secs, player.scripts_done(), world.prs.size(),
                  static_cast<long long>(funnel.received), static_cast<long long>(funnel.in_flight),
                  static_cast<long long>(counters["work.passes_completed"]),
                  static_cast<long long>(active), static_cast<long long>(n_effects));
    // A live line on a terminal; one line every two seconds in a log.
    if (tty) {
      std::fprintf(stderr, "\r%s   ", line);
    } else if (progress_ticks++ % 4 == 0) {
      std::fprintf(stderr, "%s\n", line);
    }
    const bool quiet = !paused && player.scripts_done() == static_cast<int>(world.prs.size()) &&
                       funnel.in_flight == 0 && active == 0 && n_effects == last_effects;
    quiet_polls = quiet ? quiet_polls + 1 : 0;
    last_effects = n_effects;
    if (quiet_polls >= 4) {
      settled = true;
      break;
    }
  }
  if (tty) std::fprintf(stderr, "\n");
  player.Join();
  // The simulator's own checker, on the world at rest, before it stops.
  WorldChecks checks = CheckWorld(control, world);
  const SimRequestCost github = ReadRequestCost(control);
  const ReviewChecks reviews_seen = CheckReviews(*store, control, world);

  // 6. Stop both, gatehouse first (it finishes its passes), then read its database. With
  // --serve-after they keep running: the world is quiet, so what is read now is final.
  int serve_exit = serve_after ? 0 : rig.Stop();
  if (auto f = store->inbox().GetFunnel(); f.ok()) funnel = *f;
  if (auto c = store->GetCounters(); c.ok()) counters = *c;
  const LedgerSummary ledger = SummarizeLedger(*store);
  CheckStoryActions(*store, world, &checks);
  const std::vector<QueueSummary> queues = SummarizeQueues(*store, world);
  const int64_t lost = funnel.in_flight + funnel.dead;
  std::vector<std::string> problems = player.problems();
  problems.insert(problems.end(), problems_seen.begin(), problems_seen.end());
  problems.insert(problems.end(), ledger.problems.begin(), ledger.problems.end());
  problems.insert(problems.end(), checks.problems.begin(), checks.problems.end());
  problems.insert(problems.end(), reviews_seen.problems.begin(), reviews_seen.problems.end());

  // 7. The report.
  const int64_t passes = counters["work.passes_completed"];
  std::printf(
      "\n%-28s %lld (unique; %lld duplicates answered 200, %lld refused)\n",
      "webhook deliveries accepted",
      static_cast<long long>(funnel.routed + funnel.ignored + funnel.in_flight + funnel.dead),
      static_cast<long long>(funnel.duplicate), static_cast<long long>(funnel.rejected));
  std::printf("%-28s routed %lld, ignored %lld, in flight %lld, dead %lld; recovered %lld\n",
              "  of which", static_cast<long long>(funnel.routed),
              static_cast<long long>(funnel.ignored), static_cast<long long>(funnel.in_flight),
              static_cast<long long>(funnel.dead), static_cast<long long>(funnel.recovered));
  std::printf("%-28s %lld (dead work items: %lld)\n", "passes", static_cast<long long>(passes),
              static_cast<long long>(ledger.dead_items));
  std::printf("%-28s %lld done", "actions (ledger)", static_cast<long long>(ledger.actions));
  for (const auto& [kind, n] : ledger.done_by_kind)
    std::printf(", %s %lld", kind.c_str(), static_cast<long long>(n));
  std::printf(
      "\n%-28s %lld superseded (not done: a push landed first, and GitHub refused the\n"
      "%-28s stale head or gatehouse saw it; the CI bot built %d new heads), %lld open intents\n",
      "", static_cast<long long>(ledger.superseded), "", player.ci_bot_runs(),
      static_cast<long long>(ledger.open_intents));
  const int64_t webhooks = funnel.routed + funnel.ignored + funnel.in_flight + funnel.dead;
  auto per = [](int64_t n, int64_t d) { return d == 0 ? 0.0 : static_cast<double>(n) / d; };
  std::printf(
      "%-28s %lld (%lld cost rate limit, %lld were 304, %lld errors); per pass %.2f, costing "
      "%.2f per pass and %.2f per webhook (%lld passes, %lld webhooks)\n",
      "GitHub requests", static_cast<long long>(github.requests),
      static_cast<long long>(github.costing), static_cast<long long>(github.not_modified),
      static_cast<long long>(github.errors), per(github.requests, passes),
      per(github.costing, passes), per(github.costing, webhooks), static_cast<long long>(passes),
      static_cast<long long>(webhooks));
  // Reads are GETs and the pass's GraphQL queries (gatehouse sends no GraphQL mutation);
  // every other costing request is a write, the App's redelivery requests included.
  int64_t reads = 0;
  for (const auto& [endpoint, n] : github.costing_by_endpoint) {
    if (endpoint.starts_with("GET ") || endpoint == "POST /graphql") reads += n;
  }
  std::printf(
      "%-28s %lld reads, %lld writes by %lld of the %lld passes; were each pass's writes one "
      "request: %.2f per pass\n",
      "  costing, reads and writes", static_cast<long long>(reads),
      static_cast<long long>(github.costing - reads), static_cast<long long>(ledger.writing_passes),
      static_cast<long long>(passes), per(reads + ledger.writing_passes, passes));
  for (size_t i = 0; i < github.costing_by_endpoint.size(); ++i) {
    const auto& [endpoint, n] = github.costing_by_endpoint[i];
    std::printf("%-28s %5lld %s\n", i == 0 ? "  costing, by endpoint" : "",
                static_cast<long long>(n), endpoint.c_str());
  }
  std::printf("%-28s", "pull requests");
  for (const auto& [state, total] : checks.stories) {
    std::printf(" %s %d/%d", state.c_str(), checks.stories_ok[state], total);
  }
  const ReviewFunnel& rf = reviews_seen.funnel;
  std::printf(
      "\n%-28s %lld requested: posted %lld, cancelled %lld, superseded %lld, dead %lld, "
      "in flight %lld\n",
      "review runs", static_cast<long long>(rf.requested), static_cast<long long>(rf.done),
      static_cast<long long>(rf.cancelled), static_cast<long long>(rf.superseded),
      static_cast<long long>(rf.dead), static_cast<long long>(rf.in_flight));
  for (const auto& [role, states] : reviews_seen.runs) {
    std::printf("%-28s", ("  " + role).c_str());
    for (const auto& [state, n] : states)
      std::printf(" %s %lld", state.c_str(), static_cast<long long>(n));
    std::printf("\n");
  }
  for (const QueueSummary& q : queues) {
    std::printf(
        "%-28s %s: %lld merged in %lld batches, %lld dropped, %lld open; CI tested %lld states "
        "for %lld entries: %lld CI runs saved by batching (a serial queue tests each entry on "
        "its own)\n",
        "merge queue", q.queue.c_str(), static_cast<long long>(q.merged),
        static_cast<long long>(q.batches_landed), static_cast<long long>(q.dropped),
        static_cast<long long>(q.open), static_cast<long long>(q.tested_states),
        static_cast<long long>(q.entries_tested),
        static_cast<long long>(std::max<int64_t>(0, q.entries_tested - q.tested_states)));
    if (q.open > 0) {
      problems.push_back(q.queue + ": " + std::to_string(q.open) + " entries still open");
    }
  }
  std::printf("\ninvariants\n");
  std::printf("  %-26s %s (%lld duplicate effects)\n", "no action twice",
              checks.duplicate_effects == 0 ? "ok" : "FAIL",
              static_cast<long long>(checks.duplicate_effects));
  std::printf("  %-26s %s (%lld stale effects)\n", "nothing on a stale head",
              checks.stale_effects == 0 ? "ok" : "FAIL",
              static_cast<long long>(checks.stale_effects));
  std::printf("  %-26s %s (%lld untested)\n", "merged only tested states",
              checks.untested_merges == 0 ? "ok" : "FAIL",
              static_cast<long long>(checks.untested_merges));
  std::printf("  %-26s %s (%lld lost)\n", "every delivery terminal", lost == 0 ? "ok" : "FAIL",
              static_cast<long long>(lost));
  std::printf("  %-26s %s (%lld reviews, %lld duplicates)\n", "one review per role and head",
              reviews_seen.duplicate_reviews == 0 ? "ok" : "FAIL",
              static_cast<long long>(reviews_seen.reviews_posted),
              static_cast<long long>(reviews_seen.duplicate_reviews));
  if (ledger.open_intents > 0) {
    problems.push_back(std::to_string(ledger.open_intents) +
                       " ledger intents without an outcome after gatehouse stopped");
  }
  if (!settled) problems.push_back("gatehouse did not settle within the timeout");
  if (serve_exit != 0)
    problems.push_back("a gatehouse serve node exited with " + std::to_string(serve_exit));
  for (const std::string& p : problems) std::printf("  problem: %s\n", p.c_str());
  const bool ok = problems.empty() && checks.duplicate_effects == 0 && checks.stale_effects == 0 &&
                  checks.untested_merges == 0 && lost == 0 && player.step_failures() == 0 &&
                  reviews_seen.duplicate_reviews == 0;
  std::printf(
      "\nverdict: %s deliveries=%lld passes=%lld actions=%lld duplicate_effects=%lld "
      "stale_effects=%lld lost=%lld review_runs=%lld duplicate_reviews=%lld nodes=%lld "
      "kills=%d\n",
      ok ? "ok" : "FAIL",
      static_cast<long long>(funnel.routed + funnel.ignored + funnel.in_flight + funnel.dead),
      static_cast<long long>(passes), static_cast<long long>(ledger.actions),
      static_cast<long long>(checks.duplicate_effects),
      static_cast<long long>(checks.stale_effects), static_cast<long long>(lost),
      static_cast<long long>(rf.requested), static_cast<long long>(reviews_seen.duplicate_reviews),
      static_cast<long long>(*nodes_n), nodes.kills());
  std::fflush(stdout);
  if (serve_after) {
    const bool served = ServeUntilSignal(rig, dir);
    serve_exit = rig.Stop();
    if (!served || serve_exit != 0) return kExitFailure;
  }
  return ok ? kExitOk : kExitFailure;
}

}  // namespace gatehouse::app
