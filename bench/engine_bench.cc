// engine_bench: what the work-item engine (DESIGN.md §2) sustains on this machine's disk,
// measured against the rate at which that disk makes a plain SQLite commit durable.
//
//   engine_bench [--dir DIR] [--quick]
//
// Phases, each on a fresh SQLite file in DIR:
//   raw      plain sqlite3, one single-row INSERT per transaction, WAL + synchronous=FULL:
//            one fsync per commit. Every other figure is reported as a multiple of this one.
//            Measured in rounds before and after the engine phases; the median is used, and
//            the spread is printed, because on a shared disk this rate moves with other I/O.
//   enqueue  16 client threads call Enqueuer::Enqueue (group commit) for signals spread over
//            500 keys, no debounce; once with kRecoverable (the router's durability) and once
//            with kAcknowledged.
//   passes   a WorkerPool of 1, 2 and 8 workers completes no-op passes over keys enqueued
//            beforehand; timed from Start() to the last recorded completion.
//   bursts   8 workers run 2 ms passes while 16 clients send bursts of signals (5 ms
//            debounce) to 200 keys; reports how many signals one pass absorbs.
//
// A benchmark, not a test: nothing about speed is asserted. It exits non-zero only when the
// engine reports an error or a phase does not drain.
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "base/log.h"
#include "base/status.h"
#include "bench/bench_format.h"
#include "bench/engine_phases.h"
#include "bench/sqlite_disk.h"

namespace gatehouse {
namespace {

using bench::BurstResult;
using bench::CallStats;
using bench::EngineBenchConfig;
using bench::EnqueueResult;
using bench::FilesystemName;
using bench::Fixed;
using bench::Grouped;
using bench::MeasureBursts;
using bench::MeasureEnqueue;
using bench::MeasureNoopPasses;
using bench::MeasureRawCommitRate;
using bench::Median;
using bench::PoolResult;
using bench::Progress;
using bench::RemoveDbFiles;
using bench::SyncFilesystem;

// ---------------------------------------------------------------------------------------------

void PrintUsage(FILE* out) {
  std::fprintf(
      out,
      "usage: engine_bench [--dir DIR] [--quick]\n"
      "  --dir DIR  where the SQLite files go (default: a fresh temporary directory under\n"
      "             $TMPDIR or /tmp, removed at the end). Put it on the disk you care about:\n"
      "             on tmpfs fsync costs nothing and the raw baseline means nothing.\n"
      "  --quick    smaller counts, for a smoke run\n");
}

void PrintRow(const std::string& figure, const std::string& value, const std::string& vs_raw) {
  std::printf("  %-46s %22s  %s\n", figure.c_str(), value.c_str(), vs_raw.c_str());
}

std::string Ratio(double ratio) { return Fixed(ratio, ratio < 1 ? 2 : 1) + "x"; }
std::string VsRaw(double rate, double raw) { return Ratio(rate / raw) + " raw"; }

// Every phase's figures.
struct Figures {
  std::vector<double> raw_rates;  // synchronous=FULL: 3 rounds before the engine, 2 after
  double raw_normal = 0;          // synchronous=NORMAL, for reference
  EnqueueResult enqueue[2];       // recoverable, acknowledged
  CallStats enqueue_stats[2];
  std::vector<PoolResult> pools;  // 1, 2 and 8 workers
  BurstResult bursts;

  double base() const { return Median(raw_rates); }  // the raw FULL rate: 1.0x
};

constexpr Durability kDurabilities[2] = {Durability::kRecoverable, Durability::kAcknowledged};
constexpr const char* kDurabilityNames[2] = {"recoverable", "acknowledged"};

Status MeasureRaw(const EngineBenchConfig& cfg, const std::string& db, int rounds, const char* when,
                  Figures* f) {
  for (int r = 0; r < rounds; ++r) {
    Progress(std::string("raw baseline ") + when + ", round " + std::to_string(r + 1) + ": " +
             std::to_string(cfg.raw_commits) + " single-row commits, WAL + synchronous=FULL");
    SyncFilesystem(cfg.dir);
    GH_ASSIGN_OR_RETURN(double rate, MeasureRawCommitRate(db, "FULL", cfg.raw_commits));
    f->raw_rates.push_back(rate);
  }
  return Status::Ok();
}

// Runs every phase in order on `db`, each after flushing the filesystem's writeback.
Status Measure(const EngineBenchConfig& cfg, const std::string& db, Figures* f) {
  GH_RETURN_IF_ERROR(MeasureRaw(cfg, db, 3, "before", f));
  Progress("raw reference: " + std::to_string(cfg.raw_commits * 5) +
           " single-row commits, WAL + synchronous=NORMAL");
  SyncFilesystem(cfg.dir);
  GH_ASSIGN_OR_RETURN(f->raw_normal, MeasureRawCommitRate(db, "NORMAL", cfg.raw_commits * 5));

  for (int d = 0; d < 2; ++d) {
    Progress(std::string("enqueue (") + kDurabilityNames[d] +
             "): " + std::to_string(cfg.enqueue_clients) + " clients x " +
             std::to_string(cfg.enqueue_signals_per_client) + " signals over " +
             std::to_string(cfg.enqueue_keys) + " keys");
    SyncFilesystem(cfg.dir);
    GH_ASSIGN_OR_RETURN(f->enqueue[d],
                        MeasureEnqueue(db, kDurabilities[d], cfg, f->enqueue_stats[d]));
  }

  for (size_t workers : {size_t{1}, size_t{2}, size_t{8}}) {
    Progress("no-op passes: pool of " + std::to_string(workers) + " over " +
             std::to_string(cfg.pool_keys) + " keys");
    SyncFilesystem(cfg.dir);
    GH_ASSIGN_OR_RETURN(PoolResult pool, MeasureNoopPasses(db, workers, cfg));
    f->pools.push_back(pool);
  }

  Progress("bursts: 8 workers, 2 ms passes, " + std::to_string(cfg.burst_clients) + " clients, " +
           std::to_string(cfg.burst_keys) + " keys x " + std::to_string(cfg.burst_signals_per_key) +
           " signals, 5 ms debounce");
  SyncFilesystem(cfg.dir);
  GH_ASSIGN_OR_RETURN(f->bursts, MeasureBursts(db, cfg));
  return MeasureRaw(cfg, db, 2, "after", f);
}

// The machine, then one row per figure with its multiple of the raw rate.
void PrintSummary(const EngineBenchConfig& cfg, const Figures& f) {
  const double base = f.base();
  std::printf("gatehouse engine_bench (%s)\n", cfg.quick ? "quick" : "full");
  std::printf("  nproc %ld, sqlite %s, %s build\n", sysconf(_SC_NPROCESSORS_ONLN),
              sqlite3_libversion(),
#ifdef NDEBUG
              "optimized (NDEBUG)"
#else
              "debug (assertions on)"
#endif
  );
  std::printf("  dir %s (%s)\n\n", cfg.dir.c_str(), FilesystemName(cfg.dir).c_str());

  PrintRow("raw commit, WAL + synchronous=FULL (median)", Grouped(base) + " commits/s",
           "= 1.0x raw");
  PrintRow("raw commit, WAL + synchronous=NORMAL (ref.)", Grouped(f.raw_normal) + " commits/s",
           VsRaw(f.raw_normal, base));
  for (int d = 0; d < 2; ++d) {
    PrintRow(std::string("enqueue (") + kDurabilityNames[d] + ", " +
                 std::to_string(cfg.enqueue_clients) + " clients)",
             Grouped(f.enqueue[d].rate()) + " signals/s", VsRaw(f.enqueue[d].rate(), base));
  }
  for (const PoolResult& p : f.pools) {
    PrintRow("no-op passes, pool of " + std::to_string(p.workers) +
                 (p.workers == 1 ? " worker" : " workers"),
             Grouped(p.rate()) + " passes/s", VsRaw(p.rate(), base));
  }
  PrintRow("bursts: signals per completed pass", Fixed(f.bursts.ratio(), 1) + " signals/pass",
           "(" + Grouped(static_cast<double>(f.bursts.signals)) + " signals, " +
               Grouped(static_cast<double>(f.bursts.passes)) + " passes)");
}

// Where each phase's time went: commits per signal, transactions per pass, store time.
void PrintDetails(const EngineBenchConfig& cfg, const Figures& f) {
  const double base = f.base();
  std::printf("\ndetails\n");
  std::printf("  raw: %zu rounds of %d commits, 3 before the engine phases and %zu after:",
              f.raw_rates.size(), cfg.raw_commits, f.raw_rates.size() - 3);
  for (double r : f.raw_rates) std::printf(" %s", Grouped(r).c_str());
  std::printf(" commits/s; median %.0f us per commit\n", 1e6 / base);
  for (int d = 0; d < 2; ++d) {
    const EnqueueResult& e = f.enqueue[d];
    const CallStats& stats = f.enqueue_stats[d];
    std::printf(
        "  enqueue %-12s %s signals in %.2f s, %zu commits, %.1f signals/commit, "
        "%.0f us per commit (store time %.0f%% of wall)\n",
        kDurabilityNames[d], Grouped(static_cast<double>(e.signals)).c_str(), e.seconds, e.commits,
        static_cast<double>(e.signals) / static_cast<double>(e.commits),
        stats.seconds() / static_cast<double>(stats.calls.load()) * 1e6,
        stats.seconds() / e.seconds * 100);
  }
  for (const PoolResult& p : f.pools) {
    std::printf(
        "  pool of %zu: %s passes in %.2f s; %lld finish+claim txns (%lld claimed nothing, "
        "%.1f passes recorded each, %.0f us each); store time %.0f%% of wall\n",
        p.workers, Grouped(static_cast<double>(p.passes)).c_str(), p.seconds,
        static_cast<long long>(p.claim_calls), static_cast<long long>(p.claim_empty),
        static_cast<double>(p.step_finishes) /
            static_cast<double>(std::max<int64_t>(1, p.claim_calls)),
        p.claim_seconds / static_cast<double>(std::max<int64_t>(1, p.claim_calls)) * 1e6,
        (p.claim_seconds + p.finish_seconds) / p.seconds * 100);
  }
  const BurstResult& b = f.bursts;
  std::printf(
      "  bursts: sent in %.2f s over %zu enqueue commits, drained %.3f s after the last "
      "signal; passes per key min %d, mean %.1f, max %d\n",
      b.send_seconds, b.enqueue_commits, b.drain_seconds, b.min_per_key,
      static_cast<double>(b.passes) / cfg.burst_keys, b.max_per_key);
}

// DESIGN.md's engine targets, each met or MISSED with its multiple of the raw rate.
void PrintTargets(const Figures& f) {
  const double base = f.base();
  auto verdict = [&](double rate, double target) {
    return std::string(rate >= target * base ? "met" : "MISSED") + " (" + Ratio(rate / base) + ")";
  };
  std::printf("\ntargets\n");
  std::printf("  enqueue >= 5x raw: recoverable %s, acknowledged %s\n",
              verdict(f.enqueue[0].rate(), 5).c_str(), verdict(f.enqueue[1].rate(), 5).c_str());
  std::printf("  no-op passes >= 2x raw: 1 worker %s, 2 workers %s, 8 workers %s\n",
              verdict(f.pools[0].rate(), 2).c_str(), verdict(f.pools[1].rate(), 2).c_str(),
              verdict(f.pools[2].rate(), 2).c_str());
}

int Run(EngineBenchConfig cfg, bool own_dir) {
  SetLogLevel(LogLevel::kWarn);
  if (cfg.quick) {
    cfg.raw_commits = 300;
    cfg.enqueue_signals_per_client = 250;
    cfg.pool_keys = 3000;
    cfg.burst_signals_per_key = 15;
  }
  const std::string db = (std::filesystem::path(cfg.dir) / "engine_bench.db").string();
  Figures figures;
  const Status measured = Measure(cfg, db, &figures);
  RemoveDbFiles(db);
  if (measured.ok()) {  // before the directory goes: the summary names its filesystem
    PrintSummary(cfg, figures);
    PrintDetails(cfg, figures);
    PrintTargets(figures);
  } else {
    std::fprintf(stderr, "engine_bench: %s\n", measured.ToString().c_str());
  }
  if (own_dir) {
    std::error_code ec;
    std::filesystem::remove_all(cfg.dir, ec);
  }
  return measured.ok() ? 0 : 1;
}

}  // namespace
}  // namespace gatehouse

int main(int argc, char** argv) {
  gatehouse::EngineBenchConfig cfg;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      gatehouse::PrintUsage(stdout);
      return 0;
    } else if (arg == "--quick") {
      cfg.quick = true;
    } else if (arg == "--dir" && i + 1 < argc) {
      cfg.dir = argv[++i];
    } else if (arg.starts_with("--dir=")) {
      cfg.dir = std::string(arg.substr(6));
    } else {
      std::fprintf(stderr, "engine_bench: unknown argument '%s'\n", argv[i]);
      gatehouse::PrintUsage(stderr);
      return 2;
    }
  }
  bool own_dir = false;
  if (cfg.dir.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern =
        std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/engine_bench.XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      std::fprintf(stderr, "engine_bench: mkdtemp %s: %s\n", pattern.c_str(), std::strerror(errno));
      return 1;
    }
    cfg.dir = pattern;
    own_dir = true;
  } else {
    std::error_code ec;
    std::filesystem::create_directories(cfg.dir, ec);
    if (ec) {
      std::fprintf(stderr, "engine_bench: creating %s: %s\n", cfg.dir.c_str(),
                   ec.message().c_str());
      return 1;
    }
  }
  return gatehouse::Run(cfg, own_dir);
}
