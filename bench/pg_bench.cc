// pg_bench: what the work-item engine sustains on the PostgreSQL store backend
// (store/postgres/), on a real server, for the side-by-side run in bench/pg_sidebyside.sh.
//
//   pg_bench --db postgresql://... [--keys N] [--workers 1,2,8,16] [--procs 3]
//            [--proc-workers W] [--db-pool N] [--only enqueue|passes|procs]
//
// Each phase runs on a fresh database made on the server --db points at (any database of
// it; store/pg_test_database.h) and dropped afterwards:
//   enqueue  16 client threads call Enqueuer::Enqueue (group commit, kRecoverable, as the
//            router does) for signals spread over 500 keys, no debounce: signals/s.
//   passes   --keys distinct keys are enqueued in batches of 1000; then a WorkerPool of each
//            --workers size runs a pass that returns Done(): completed passes/s, timed from
//            Start() to the last recorded completion.
//   procs    the same backlog drained by 1 process, then by --procs processes started
//            together (this program re-executed with --drain-child), each a WorkerPool of
//            --proc-workers workers; timed from "go" to the moment the counter
//            work.passes_completed reaches --keys (polled every 2 ms).
//
// Every figure is also printed as a line "RESULT <name> <value>" for the driver script.
// A benchmark, not a test: nothing about speed is asserted. It exits non-zero only when the
// store reports an error or a phase does not drain within 10 minutes.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <latch>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "base/log.h"
#include "base/status.h"
#include "bench/bench_format.h"
#include "bench/enqueue_storm.h"
#include "bench/pool_options.h"
#include "engine/enqueuer.h"
#include "engine/worker_pool.h"
#include "store/open_store.h"
#include "store/pg_test_database.h"
#include "store/store.h"

namespace gatehouse {
namespace {

using bench::PoolOptions;
using bench::RepoKey;
using bench::SecondsSince;
using bench::Steady;

struct Config {
  std::string url;
  int keys = 20000;
  std::vector<size_t> workers = {1, 2, 8, 16};
  int procs = 3;
  size_t proc_workers = 8;
  int pool_size = 0;  // 0: max(8, workers + 2)
  int enqueue_clients = 16;
  int enqueue_signals_per_client = 1000;
  int enqueue_keys = 500;
  std::string only;
};

void Progress(const std::string& line) { std::fprintf(stderr, "[pg_bench] %s\n", line.c_str()); }

void PrintResult(const std::string& name, double value) {
  std::printf("RESULT %s %.1f\n", name.c_str(), value);
  std::fflush(stdout);
}

StoreOptions OptionsFor(const Config& cfg, size_t workers) {
  StoreOptions options;
  options.pool_size =
      cfg.pool_size > 0 ? cfg.pool_size : static_cast<int>(std::max<size_t>(8, workers + 2));
  return options;
}

// A fresh database for one phase; dropped (WITH FORCE) when this goes out of scope.
class PhaseDatabase {
 public:
  static Result<PhaseDatabase> Create(const std::string& cluster_url) {
    GH_ASSIGN_OR_RETURN(testing::PgTestDatabase db, testing::CreatePgTestDatabase(cluster_url));
    return PhaseDatabase(cluster_url, std::move(db));
  }
  PhaseDatabase(PhaseDatabase&& other) noexcept
      : cluster_url_(std::move(other.cluster_url_)), db_(std::move(other.db_)) {
    other.db_.name.clear();
  }
  ~PhaseDatabase() {
    if (db_.name.empty()) return;
    Status s = testing::DropPgTestDatabase(cluster_url_, db_.name);
    if (!s.ok()) Progress("dropping " + db_.name + ": " + s.ToString());
  }
  const std::string& url() const { return db_.url; }

 private:
  PhaseDatabase(std::string cluster_url, testing::PgTestDatabase db)
      : cluster_url_(std::move(cluster_url)), db_(std::move(db)) {}
  std::string cluster_url_;
  testing::PgTestDatabase db_;
};

// ---------------------------------------------------------------------------------------------
// enqueue

Result<double> MeasureEnqueue(const Config& cfg) {
  GH_ASSIGN_OR_RETURN(PhaseDatabase db, PhaseDatabase::Create(cfg.url));
  GH_ASSIGN_OR_RETURN(StorePtr store, OpenStore(db.url(), OptionsFor(cfg, 8)));
  Enqueuer enqueuer(*store, std::make_shared<RealClock>(), Durability::kRecoverable);
  const bench::EnqueueStorm storm{cfg.enqueue_clients, cfg.enqueue_signals_per_client,
                                  cfg.enqueue_keys};
  GH_ASSIGN_OR_RETURN(const double seconds, bench::RunEnqueueStorm(enqueuer, *store, storm));
  const int64_t signals = storm.signals();
  Progress("enqueue: " + std::to_string(signals) + " signals in " + std::to_string(seconds) +
           " s over " + std::to_string(enqueuer.commits()) + " commits");
  return static_cast<double>(signals) / seconds;
}

// ---------------------------------------------------------------------------------------------
// passes in one process

Status FillBacklog(Store& store, int keys) {
  auto clock = std::make_shared<RealClock>();
  constexpr int kBatch = 1000;
  for (int first = 0; first < keys; first += kBatch) {
    std::vector<Signal> batch;
    for (int k = first; k < std::min(first + kBatch, keys); ++k) {
      batch.push_back(Signal{RepoKey(k), "pushed", Duration(0)});
    }
    GH_RETURN_IF_ERROR(store.work().Enqueue(batch, clock->Now(), Durability::kRecoverable));
  }
  return Status::Ok();
}

// Completed passes as the pool records them, and when the last one was seen.
struct Completions {
  std::atomic<int64_t> completed{0};
  std::atomic<int64_t> not_completed{0};
  std::atomic<int64_t> last_nanos{0};  // steady clock, since its epoch
  void Observe(const PassReport& r) {
    if (!r.recorded.ok() || r.finish.kind != PassFinish::Kind::kCompleted) {
      not_completed.fetch_add(1);
      return;
    }
    last_nanos.store(Steady::now().time_since_epoch().count());
    completed.fetch_add(1);
  }
};

bool WaitUntil(const std::function<bool()>& done, std::chrono::seconds timeout) {
  const auto deadline = Steady::now() + timeout;
  while (!done()) {
    if (Steady::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  return true;
}

Result<double> MeasurePasses(const Config& cfg, size_t workers) {
  GH_ASSIGN_OR_RETURN(PhaseDatabase db, PhaseDatabase::Create(cfg.url));
  GH_ASSIGN_OR_RETURN(StorePtr store, OpenStore(db.url(), OptionsFor(cfg, workers)));
  GH_RETURN_IF_ERROR(FillBacklog(*store, cfg.keys));
  Completions done;
  WorkerPool pool(
      *store, std::make_shared<RealClock>(), [](PassContext&) { return PassOutcome::Done(); },
      PoolOptions(workers), [&done](const PassReport& r) { done.Observe(r); });
  const auto start = Steady::now();
  GH_RETURN_IF_ERROR(pool.Start());
  const bool drained =
      WaitUntil([&] { return done.completed.load() >= cfg.keys; }, std::chrono::seconds(600));
  pool.Stop();
  if (!drained || done.not_completed.load() != 0) {
    return Internal("passes: " + std::to_string(done.completed.load()) + " of " +
                    std::to_string(cfg.keys) + " completed, " +
                    std::to_string(done.not_completed.load()) + " not recorded as completed");
  }
  const double seconds = std::chrono::duration<double>(
                             Steady::time_point(Steady::duration(done.last_nanos.load())) - start)
                             .count();
  GH_ASSIGN_OR_RETURN(Counters counters, store->GetCounters());
  if (counters["work.passes_completed"] != cfg.keys) {
    return Internal("passes: counter work.passes_completed is " +
                    std::to_string(counters["work.passes_completed"]));
  }
  Progress("passes, " + std::to_string(workers) + " workers: " + std::to_string(cfg.keys) + " in " +
           std::to_string(seconds) + " s");
  return cfg.keys / seconds;
}

// ---------------------------------------------------------------------------------------------
// passes in several processes

// --drain-child: opens the store, writes "ready\n" to stdout, waits for one byte on stdin,
// runs a WorkerPool until stdin reaches EOF, then stops it and exits 0.
int RunDrainChild(const Config& cfg) {
  Result<StorePtr> store = OpenStore(cfg.url, OptionsFor(cfg, cfg.proc_workers));
  if (!store.ok()) {
    std::fprintf(stderr, "pg_bench child: %s\n", store.status().ToString().c_str());
    return 1;
  }
  WorkerPool pool(
      **store, std::make_shared<RealClock>(), [](PassContext&) { return PassOutcome::Done(); },
      PoolOptions(cfg.proc_workers));
  std::printf("ready\n");
  std::fflush(stdout);
  char byte = 0;
  if (read(STDIN_FILENO, &byte, 1) != 1) return 1;
  Status s = pool.Start();
  if (!s.ok()) {
    std::fprintf(stderr, "pg_bench child: %s\n", s.ToString().c_str());
    return 1;
  }
  while (read(STDIN_FILENO, &byte, 1) > 0) {
  }
  pool.Stop();
  return 0;
}

struct Child {
  pid_t pid = -1;
  int to_child = -1;    // its stdin
  int from_child = -1;  // its stdout
};

Result<Child> SpawnDrainChild(const Config& cfg, const std::string& url) {
  int in[2], out[2];
  if (pipe(in) != 0 || pipe(out) != 0) return Internal("pipe failed");
  const std::string workers = std::to_string(cfg.proc_workers);
  const std::string pool = std::to_string(cfg.pool_size);
  const pid_t pid = fork();
  if (pid < 0) return Internal("fork failed");
  if (pid == 0) {
    dup2(in[0], STDIN_FILENO);
    dup2(out[1], STDOUT_FILENO);
    close(in[1]);
    close(out[0]);
    execl("/proc/self/exe", "pg_bench", "--drain-child", "--db", url.c_str(), "--proc-workers",
          workers.c_str(), "--db-pool", pool.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  close(in[0]);
  close(out[1]);
  return Child{pid, in[1], out[0]};
}

Result<double> MeasureProcesses(const Config& cfg, int procs) {
  GH_ASSIGN_OR_RETURN(PhaseDatabase db, PhaseDatabase::Create(cfg.url));
  GH_ASSIGN_OR_RETURN(StorePtr store, OpenStore(db.url(), OptionsFor(cfg, 1)));
  GH_RETURN_IF_ERROR(FillBacklog(*store, cfg.keys));
  std::vector<Child> children;
  Status status;
  for (int p = 0; p < procs && status.ok(); ++p) {
    Result<Child> child = SpawnDrainChild(cfg, db.url());
    if (child.ok())
      children.push_back(*child);
    else
      status = child.status();
  }
  for (const Child& c : children) {  // wait for "ready\n"
    char buf[6];
    if (status.ok() && read(c.from_child, buf, sizeof(buf)) != 6) {
      status = Internal("a drain child did not start (see its stderr)");
    }
  }
  double seconds = 0;
  if (status.ok()) {
    const auto start = Steady::now();
    for (const Child& c : children) (void)!write(c.to_child, "g", 1);
    int64_t completed = 0;
    const bool drained = WaitUntil(
        [&] {
          Result<Counters> counters = store->GetCounters();
          if (!counters.ok()) return false;
          completed = (*counters)["work.passes_completed"];
          return completed >= cfg.keys;
        },
        std::chrono::seconds(600));
    seconds = SecondsSince(start);
    if (!drained) status = Internal("procs: only " + std::to_string(completed) + " passes");
    if (completed > cfg.keys) status = Internal("procs: " + std::to_string(completed) + " passes");
  }
  for (const Child& c : children) close(c.to_child);
  for (const Child& c : children) {
    int wstatus = 0;
    waitpid(c.pid, &wstatus, 0);
    close(c.from_child);
    if (status.ok() && !(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0)) {
      status = Internal("a drain child failed");
    }
  }
  GH_RETURN_IF_ERROR(status);
  Progress("procs, " + std::to_string(procs) + " x " + std::to_string(cfg.proc_workers) +
           " workers: " + std::to_string(cfg.keys) + " in " + std::to_string(seconds) + " s");
  return cfg.keys / seconds;
}

// ---------------------------------------------------------------------------------------------

Status Run(const Config& cfg) {
  if (cfg.only.empty() || cfg.only == "enqueue") {
    GH_ASSIGN_OR_RETURN(double rate, MeasureEnqueue(cfg));
    PrintResult("enqueue_signals_per_s", rate);
  }
  if (cfg.only.empty() || cfg.only == "passes") {
    for (size_t w : cfg.workers) {
      GH_ASSIGN_OR_RETURN(double rate, MeasurePasses(cfg, w));
      PrintResult("passes_per_s_w" + std::to_string(w), rate);
    }
  }
  if (cfg.only.empty() || cfg.only == "procs") {
    GH_ASSIGN_OR_RETURN(double one, MeasureProcesses(cfg, 1));
    PrintResult("passes_per_s_procs1", one);
    GH_ASSIGN_OR_RETURN(double many, MeasureProcesses(cfg, cfg.procs));
    PrintResult("passes_per_s_procs" + std::to_string(cfg.procs), many);
  }
  return Status::Ok();
}

void PrintUsage(FILE* out) {
  std::fprintf(out,
               "usage: pg_bench --db postgresql://USER@HOST:PORT/DB [options]\n"
               "  Benchmarks the PostgreSQL store backend; every phase on a fresh database\n"
               "  created on that server (and dropped after). Prints RESULT lines.\n"
               "  --keys N            backlog of work items for the pass phases (20000)\n"
               "  --workers LIST      pool sizes for one process, comma-separated (1,2,8,16)\n"
               "  --procs N           processes draining together, compared with 1 (3)\n"
               "  --proc-workers W    workers per process in the procs phase (8)\n"
               "  --db-pool N         connections per store (default max(8, workers + 2))\n"
               "  --only PHASE        enqueue, passes or procs\n");
}

std::vector<size_t> ParseList(std::string_view s) {
  std::vector<size_t> out;
  while (!s.empty()) {
    const size_t comma = s.find(',');
    out.push_back(std::stoul(std::string(s.substr(0, comma))));
    s = comma == std::string_view::npos ? "" : s.substr(comma + 1);
  }
  return out;
}

}  // namespace
}  // namespace gatehouse

int main(int argc, char** argv) {
  gatehouse::Config cfg;
  bool child = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    const bool has_value = i + 1 < argc;
    if (arg == "--help" || arg == "-h") {
      gatehouse::PrintUsage(stdout);
      return 0;
    } else if (arg == "--drain-child") {
      child = true;
    } else if (arg == "--db" && has_value) {
      cfg.url = argv[++i];
    } else if (arg == "--keys" && has_value) {
      cfg.keys = std::atoi(argv[++i]);
    } else if (arg == "--workers" && has_value) {
      cfg.workers = gatehouse::ParseList(argv[++i]);
    } else if (arg == "--procs" && has_value) {
      cfg.procs = std::atoi(argv[++i]);
    } else if (arg == "--proc-workers" && has_value) {
      cfg.proc_workers = static_cast<size_t>(std::atoi(argv[++i]));
    } else if (arg == "--db-pool" && has_value) {
      cfg.pool_size = std::atoi(argv[++i]);
    } else if (arg == "--only" && has_value) {
      cfg.only = argv[++i];
    } else {
      std::fprintf(stderr, "pg_bench: unknown argument '%s'\n", argv[i]);
      gatehouse::PrintUsage(stderr);
      return 2;
    }
  }
  if (!gatehouse::IsPostgresUrl(cfg.url)) {
    std::fprintf(stderr, "pg_bench: --db must be a postgresql:// URL\n");
    return 2;
  }
  gatehouse::SetLogLevel(gatehouse::LogLevel::kWarn);
  if (child) return gatehouse::RunDrainChild(cfg);
  gatehouse::Status s = gatehouse::Run(cfg);
  if (!s.ok()) {
    std::fprintf(stderr, "pg_bench: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
