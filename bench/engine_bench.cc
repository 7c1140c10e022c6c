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
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <latch>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "base/clock.h"
#include "base/log.h"
#include "base/mutex.h"
#include "base/status.h"
#include "base/thread_annotations.h"
#include "engine/enqueuer.h"
#include "engine/worker_pool.h"
#include "store/sqlite/sqlite_store.h"
#include "store/store.h"
#include "store/store_wrapper.h"

namespace gatehouse {
namespace {

using Steady = std::chrono::steady_clock;

double SecondsSince(Steady::time_point start) {
  return std::chrono::duration<double>(Steady::now() - start).count();
}

struct Config {
  std::string dir;
  bool quick = false;
  int raw_commits = 2000;
  int enqueue_clients = 16;
  int enqueue_signals_per_client = 2000;
  int enqueue_keys = 500;
  int pool_keys = 20000;
  int burst_clients = 16;
  int burst_keys = 200;
  int burst_signals_per_key = 50;
};

void Progress(const std::string& line) {
  std::fprintf(stderr, "[engine_bench] %s\n", line.c_str());
}

// "12,345" for a rate or a count; rates are rounded to integers.
std::string Grouped(double value) {
  std::string digits = std::to_string(static_cast<int64_t>(value + 0.5));
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

std::string Fixed(double value, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, value);
  return buf;
}

std::string RepoKey(int n) { return "acme/repo#" + std::to_string(n); }

// Removes a database and its WAL and shared-memory files.
void RemoveDbFiles(const std::string& path) {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    std::filesystem::remove(path + suffix, ec);
  }
}

std::string FilesystemName(const std::string& dir) {
  struct statfs fs;
  if (statfs(dir.c_str(), &fs) != 0) return "unknown";
  switch (static_cast<uint64_t>(fs.f_type)) {
    case 0xEF53:
      return "ext2/3/4";
    case 0x01021994:
      return "tmpfs (fsync is free: not a disk measurement)";
    case 0x58465342:
      return "xfs";
    case 0x9123683E:
      return "btrfs";
    case 0x794C7630:
      return "overlayfs";
    case 0x65735546:
      return "fuse";
    default: {
      char buf[32];
      std::snprintf(buf, sizeof(buf), "type 0x%llx", static_cast<unsigned long long>(fs.f_type));
      return buf;
    }
  }
}

// Flushes dirty data of the filesystem holding `dir` (ours and other processes'), so that a
// phase's fsyncs do not wait behind writeback it did not cause.
void SyncFilesystem(const std::string& dir) {
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)syncfs(fd);
  close(fd);
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

// ---------------------------------------------------------------------------------------------
// A Store that forwards to another and counts each method's transactions, items and time, so
// that the report can say where the engine spends its store time.

struct CallStats {
  std::atomic<int64_t> calls{0};
  std::atomic<int64_t> items{0};  // signals, leases or finishes handled
  std::atomic<int64_t> empty{0};  // calls that handled nothing (a Claim that found nothing due)
  std::atomic<int64_t> nanos{0};

  void Add(int64_t n, Steady::duration took) {
    calls.fetch_add(1, std::memory_order_relaxed);
    items.fetch_add(n, std::memory_order_relaxed);
    if (n == 0) empty.fetch_add(1, std::memory_order_relaxed);
    nanos.fetch_add(std::chrono::duration_cast<std::chrono::nanoseconds>(took).count(),
                    std::memory_order_relaxed);
  }
  double seconds() const { return static_cast<double>(nanos.load()) / 1e9; }
};

// Counts the work queue's transactions; everything else is forwarded (store/store_wrapper.h).
class CountingQueue final : public WorkQueueWrapper {
 public:
  explicit CountingQueue(WorkQueue& target) : WorkQueueWrapper(target) {}

  Status Enqueue(std::span<const Signal> signals, Time now, Durability durability) override {
    const auto start = Steady::now();
    Status s = WorkQueueWrapper::Enqueue(signals, now, durability);
    enqueue.Add(s.ok() ? static_cast<int64_t>(signals.size()) : 0, Steady::now() - start);
    return s;
  }
  Result<std::vector<Lease>> Claim(std::string_view owner, size_t max_items, Duration lease,
                                   Time now) override {
    const auto start = Steady::now();
    auto r = WorkQueueWrapper::Claim(owner, max_items, lease, now);
    claim.Add(r.ok() ? static_cast<int64_t>(r->size()) : 0, Steady::now() - start);
    return r;
  }
  Result<std::vector<Status>> Renew(std::span<const LeaseRenewal> renewals, Time now) override {
    const auto start = Steady::now();
    auto r = WorkQueueWrapper::Renew(renewals, now);
    renew.Add(static_cast<int64_t>(renewals.size()), Steady::now() - start);
    return r;
  }
  Result<std::vector<Status>> Finish(std::span<const PassFinish> finishes, Time now) override {
    const auto start = Steady::now();
    auto r = WorkQueueWrapper::Finish(finishes, now);
    finish.Add(static_cast<int64_t>(finishes.size()), Steady::now() - start);
    return r;
  }
  Result<Cycle> FinishAndClaim(std::span<const PassFinish> finishes, std::string_view owner,
                               size_t max_items, Duration lease, Time now) override {
    const auto start = Steady::now();
    auto r = WorkQueueWrapper::FinishAndClaim(finishes, owner, max_items, lease, now);
    step.Add(r.ok() ? static_cast<int64_t>(r->claimed.size()) : 0, Steady::now() - start);
    step_finishes.fetch_add(static_cast<int64_t>(finishes.size()), std::memory_order_relaxed);
    return r;
  }

  CallStats enqueue;
  CallStats claim;
  CallStats renew;
  CallStats finish;
  CallStats step;  // FinishAndClaim: items are the leases claimed
  std::atomic<int64_t> step_finishes{0};
};

// A Store whose work queue counts; the other concepts are the target's.
class CountingStore final : public StoreWrapper {
 public:
  explicit CountingStore(Store& target) : StoreWrapper(target), queue_(target.work()) {}
  WorkQueue& work() override { return queue_; }
  CountingQueue& counts() { return queue_; }

 private:
  CountingQueue queue_;
};

// The first error seen by any thread of a phase; later ones are only counted.
class ErrorSink {
 public:
  void Record(const Status& s) {
    MutexLock lock(&mu_);
    if (count_++ == 0) first_ = s;
  }
  Status Summary(std::string_view phase) const {
    MutexLock lock(&mu_);
    if (count_ == 0) return Status::Ok();
    return Status(first_.code(), std::string(phase) + ": " + std::to_string(count_) +
                                     " errors, first: " + first_.message());
  }

 private:
  mutable Mutex mu_;
  int64_t count_ GUARDED_BY(mu_) = 0;
  Status first_ GUARDED_BY(mu_);
};

// ---------------------------------------------------------------------------------------------
// raw: the disk's durable commit rate through plain sqlite3.

Status SqliteError(sqlite3* db, std::string_view what) {
  return Internal(std::string(what) + ": " + sqlite3_errmsg(db));
}

// Returns commits/s.
Result<double> MeasureRawCommitRate(const std::string& path, const char* synchronous, int commits) {
  RemoveDbFiles(path);
  sqlite3* raw = nullptr;
  const int open_rc =
      sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  std::unique_ptr<sqlite3, int (*)(sqlite3*)> db(raw, &sqlite3_close_v2);
  if (open_rc != SQLITE_OK) return Unavailable("opening " + path + ": " + sqlite3_errstr(open_rc));
  const std::string setup = std::string("PRAGMA journal_mode=WAL; PRAGMA synchronous=") +
                            synchronous +
                            "; CREATE TABLE signals (id INTEGER PRIMARY KEY, key TEXT NOT NULL,"
                            " at INTEGER NOT NULL);";
  if (sqlite3_exec(db.get(), setup.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
    return SqliteError(db.get(), "setting up " + path);
  }
  sqlite3_stmt* stmts[3] = {nullptr, nullptr, nullptr};
  const char* sql[3] = {"BEGIN IMMEDIATE", "INSERT INTO signals (key, at) VALUES (?1, ?2)",
                        "COMMIT"};
  for (int i = 0; i < 3; ++i) {
    if (sqlite3_prepare_v2(db.get(), sql[i], -1, &stmts[i], nullptr) != SQLITE_OK) {
      return SqliteError(db.get(), sql[i]);
    }
  }
  auto commit_one = [&](int i) -> Status {
    const std::string key = RepoKey(i % 500);
    sqlite3_bind_text(stmts[1], 1, key.data(), static_cast<int>(key.size()), SQLITE_TRANSIENT);
    sqlite3_bind_int64(stmts[1], 2, i);
    for (sqlite3_stmt* s : stmts) {
      const int rc = sqlite3_step(s);
      sqlite3_reset(s);
      if (rc != SQLITE_DONE) return SqliteError(db.get(), "raw commit");
    }
    return Status::Ok();
  };
  Status status;
  for (int i = 0; i < 20 && status.ok(); ++i) status = commit_one(i);  // warm-up
  const auto start = Steady::now();
  for (int i = 0; i < commits && status.ok(); ++i) status = commit_one(i);
  const double seconds = SecondsSince(start);
  for (sqlite3_stmt* s : stmts) sqlite3_finalize(s);
  db.reset();
  RemoveDbFiles(path);
  if (!status.ok()) return status;
  return commits / seconds;
}

// ---------------------------------------------------------------------------------------------
// enqueue: signals/s through the group-committing Enqueuer.

struct EnqueueResult {
  int64_t signals = 0;
  size_t commits = 0;
  double seconds = 0;
  double rate() const { return static_cast<double>(signals) / seconds; }
};

Result<EnqueueResult> MeasureEnqueue(const std::string& path, Durability durability,
                                     const Config& cfg, CallStats& stats_out) {
  RemoveDbFiles(path);
  GH_ASSIGN_OR_RETURN(StorePtr sqlite_store, OpenSqliteStore(path));
  CountingStore store(*sqlite_store);
  Enqueuer enqueuer(store, std::make_shared<RealClock>(), durability);
  ErrorSink errors;
  std::latch ready(cfg.enqueue_clients + 1);
  std::vector<std::thread> clients;
  for (int c = 0; c < cfg.enqueue_clients; ++c) {
    clients.emplace_back([&, c] {
      std::mt19937 rng(static_cast<uint32_t>(1000 + c));
      std::uniform_int_distribution<int> pick(0, cfg.enqueue_keys - 1);
      ready.arrive_and_wait();
      for (int i = 0; i < cfg.enqueue_signals_per_client; ++i) {
        Status s = enqueuer.Enqueue(Signal{RepoKey(pick(rng)), "pushed", Duration(0)});
        if (!s.ok()) errors.Record(s);
      }
    });
  }
  ready.arrive_and_wait();
  const auto start = Steady::now();
  for (auto& t : clients) t.join();
  EnqueueResult result;
  result.seconds = SecondsSince(start);
  result.signals = static_cast<int64_t>(cfg.enqueue_clients) * cfg.enqueue_signals_per_client;
  result.commits = enqueuer.commits();
  GH_RETURN_IF_ERROR(errors.Summary("enqueue"));
  GH_ASSIGN_OR_RETURN(Counters counters, store.GetCounters());
  if (counters["work.signals"] != result.signals) {
    return Internal("enqueue: counter work.signals is " + std::to_string(counters["work.signals"]) +
                    ", expected " + std::to_string(result.signals));
  }
  stats_out.calls = store.counts().enqueue.calls.load();
  stats_out.items = store.counts().enqueue.items.load();
  stats_out.nanos = store.counts().enqueue.nanos.load();
  return result;
}

// ---------------------------------------------------------------------------------------------
// passes and bursts: the WorkerPool.

// Counts completed passes as the pool records them; wakes a waiter when `target` is reached.
class CompletionCounter {
 public:
  explicit CompletionCounter(int64_t target) : target_(target) {}

  void Observe(const PassReport& r) {
    MutexLock lock(&mu_);
    if (!r.recorded.ok() || r.finish.kind != PassFinish::Kind::kCompleted) {
      ++not_completed_;
      return;
    }
    ++completed_;
    ++per_key_[r.lease.key];
    last_ = Steady::now();
    if (completed_ == target_) cv_.SignalAll();
  }

  // False on timeout (real time: the benchmark measures real time).
  bool WaitForTarget(std::chrono::seconds timeout) {
    const auto deadline = CondVar::Steady::now() + timeout;
    MutexLock lock(&mu_);
    while (completed_ < target_) {
      if (!cv_.WaitUntil(&mu_, deadline)) return completed_ >= target_;
    }
    return true;
  }

  int64_t completed() const {
    MutexLock lock(&mu_);
    return completed_;
  }
  int64_t not_completed() const {
    MutexLock lock(&mu_);
    return not_completed_;
  }
  Steady::time_point last() const {
    MutexLock lock(&mu_);
    return last_;
  }
  std::map<std::string, int> per_key() const {
    MutexLock lock(&mu_);
    return per_key_;
  }

 private:
  const int64_t target_;
  mutable Mutex mu_;
  CondVar cv_;
  int64_t completed_ GUARDED_BY(mu_) = 0;
  int64_t not_completed_ GUARDED_BY(mu_) = 0;
  Steady::time_point last_ GUARDED_BY(mu_);
  std::map<std::string, int> per_key_ GUARDED_BY(mu_);
};

EngineOptions PoolOptions(size_t workers) {
  EngineOptions options;
  options.workers = workers;
  options.lease = std::chrono::seconds(30);
  options.poll_interval = std::chrono::milliseconds(5);
  return options;
}

struct PoolResult {
  size_t workers = 0;
  int64_t passes = 0;
  double seconds = 0;
  int64_t claim_calls = 0;
  int64_t claim_empty = 0;
  double claim_seconds = 0;
  int64_t finish_calls = 0;
  double finish_seconds = 0;
  int64_t step_finishes = 0;
  double rate() const { return static_cast<double>(passes) / seconds; }
};

Result<PoolResult> MeasureNoopPasses(const std::string& path, size_t workers, const Config& cfg) {
  RemoveDbFiles(path);
  GH_ASSIGN_OR_RETURN(StorePtr sqlite_store, OpenSqliteStore(path));
  CountingStore store(*sqlite_store);
  auto clock = std::make_shared<RealClock>();
  constexpr int kBatch = 1000;
  for (int first = 0; first < cfg.pool_keys; first += kBatch) {
    std::vector<Signal> batch;
    for (int k = first; k < std::min(first + kBatch, cfg.pool_keys); ++k) {
      batch.push_back(Signal{RepoKey(k), "pushed", Duration(0)});
    }
    GH_RETURN_IF_ERROR(store.work().Enqueue(batch, clock->Now(), Durability::kRecoverable));
  }
  CompletionCounter counter(cfg.pool_keys);
  WorkerPool pool(
      store, clock, [](PassContext&) { return PassOutcome::Done(); }, PoolOptions(workers),
      [&counter](const PassReport& r) { counter.Observe(r); });
  const auto start = Steady::now();
  GH_RETURN_IF_ERROR(pool.Start());
  const bool drained = counter.WaitForTarget(std::chrono::seconds(600));
  pool.Stop();
  if (!drained) {
    return Internal("passes: " + std::to_string(counter.completed()) + " of " +
                    std::to_string(cfg.pool_keys) + " completed before the timeout");
  }
  if (counter.not_completed() != 0) {
    return Internal("passes: " + std::to_string(counter.not_completed()) +
                    " passes were not recorded as completed");
  }
  PoolResult result;
  result.workers = workers;
  result.passes = counter.completed();
  result.seconds = std::chrono::duration<double>(counter.last() - start).count();
  result.claim_calls = store.counts().claim.calls.load() + store.counts().step.calls.load();
  result.claim_empty = store.counts().claim.empty.load() + store.counts().step.empty.load();
  result.claim_seconds = store.counts().claim.seconds() + store.counts().step.seconds();
  result.finish_calls = store.counts().finish.calls.load() + store.counts().step.calls.load();
  result.finish_seconds = store.counts().finish.seconds();
  result.step_finishes = store.counts().step_finishes.load();
  return result;
}

struct BurstResult {
  int64_t signals = 0;
  int64_t passes = 0;
  int min_per_key = 0;
  int max_per_key = 0;
  double send_seconds = 0;   // first signal to last acknowledged signal
  double drain_seconds = 0;  // last signal to every item idle and done
  size_t enqueue_commits = 0;
  double ratio() const { return static_cast<double>(signals) / static_cast<double>(passes); }
};

// True when every key has an item, each idle with everything requested done.
Result<bool> AllDone(Store& store, int keys) {
  WorkFilter filter;
  filter.limit = static_cast<size_t>(keys) + 1;
  GH_ASSIGN_OR_RETURN(std::vector<WorkItem> items, store.work().ListWorkItems(filter));
  if (items.size() != static_cast<size_t>(keys)) return false;
  for (const WorkItem& w : items) {
    if (w.state != WorkState::kIdle || w.done_gen != w.requested_gen) return false;
  }
  return true;
}

Result<BurstResult> MeasureBursts(const std::string& path, const Config& cfg) {
  RemoveDbFiles(path);
  GH_ASSIGN_OR_RETURN(StorePtr store, OpenSqliteStore(path));
  auto clock = std::make_shared<RealClock>();
  CompletionCounter counter(-1);
  WorkerPool pool(
      *store, clock,
      [](PassContext&) {
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
        return PassOutcome::Done();
      },
      PoolOptions(8), [&counter](const PassReport& r) { counter.Observe(r); });
  Enqueuer enqueuer(*store, clock, Durability::kRecoverable, [&pool] { pool.Wake(); });
  GH_RETURN_IF_ERROR(pool.Start());

  // Every key gets the same number of signals, in one random order split across the clients.
  std::vector<int> order;
  for (int k = 0; k < cfg.burst_keys; ++k) {
    for (int i = 0; i < cfg.burst_signals_per_key; ++i) order.push_back(k);
  }
  std::mt19937 shuffle_rng(42);
  std::shuffle(order.begin(), order.end(), shuffle_rng);
  const size_t per_client = (order.size() + static_cast<size_t>(cfg.burst_clients) - 1) /
                            static_cast<size_t>(cfg.burst_clients);

  ErrorSink errors;
  std::latch ready(cfg.burst_clients + 1);
  std::vector<std::thread> clients;
  for (int c = 0; c < cfg.burst_clients; ++c) {
    clients.emplace_back([&, c] {
      std::mt19937 rng(static_cast<uint32_t>(2000 + c));
      std::uniform_int_distribution<int> burst_len(1, 8);
      std::uniform_int_distribution<int> gap_us(0, 2000);
      const size_t begin = std::min(order.size(), static_cast<size_t>(c) * per_client);
      const size_t end = std::min(order.size(), begin + per_client);
      ready.arrive_and_wait();
      size_t i = begin;
      while (i < end) {
        // A burst: a few signals back to back, then a short pause.
        for (int n = burst_len(rng); n > 0 && i < end; --n, ++i) {
          Status s =
              enqueuer.Enqueue(Signal{RepoKey(order[i]), "pushed", std::chrono::milliseconds(5)});
          if (!s.ok()) errors.Record(s);
        }
        std::this_thread::sleep_for(std::chrono::microseconds(gap_us(rng)));
      }
    });
  }
  ready.arrive_and_wait();
  const auto start = Steady::now();
  for (auto& t : clients) t.join();
  BurstResult result;
  result.send_seconds = SecondsSince(start);
  const auto sent = Steady::now();
  bool drained = false;
  while (SecondsSince(sent) < 120) {
    GH_ASSIGN_OR_RETURN(drained, AllDone(*store, cfg.burst_keys));
    if (drained) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  result.drain_seconds = SecondsSince(sent);
  pool.Stop();
  GH_RETURN_IF_ERROR(errors.Summary("bursts"));
  if (!drained) return Internal("bursts: work items did not drain within 120 s");

  result.signals = static_cast<int64_t>(order.size());
  result.passes = counter.completed();
  result.enqueue_commits = enqueuer.commits();
  const auto per_key = counter.per_key();
  result.min_per_key = per_key.empty() ? 0 : per_key.begin()->second;
  for (const auto& [key, n] : per_key) {
    result.min_per_key = std::min(result.min_per_key, n);
    result.max_per_key = std::max(result.max_per_key, n);
  }
  GH_ASSIGN_OR_RETURN(Counters counters, store->GetCounters());
  if (counters["work.passes_completed"] != result.passes ||
      counters["work.signals"] != result.signals) {
    return Internal("bursts: counters disagree with the observer: passes_completed=" +
                    std::to_string(counters["work.passes_completed"]) + " observed " +
                    std::to_string(result.passes) +
                    ", signals=" + std::to_string(counters["work.signals"]));
  }
  return result;
}

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

int Run(Config cfg, bool own_dir) {
  SetLogLevel(LogLevel::kWarn);
  if (cfg.quick) {
    cfg.raw_commits = 300;
    cfg.enqueue_signals_per_client = 250;
    cfg.pool_keys = 3000;
    cfg.burst_signals_per_key = 15;
  }
  const std::string db = (std::filesystem::path(cfg.dir) / "engine_bench.db").string();
  auto fail = [&](const Status& s) {
    std::fprintf(stderr, "engine_bench: %s\n", s.ToString().c_str());
    RemoveDbFiles(db);
    if (own_dir) {
      std::error_code ec;
      std::filesystem::remove_all(cfg.dir, ec);
    }
    return 1;
  };

  std::vector<double> raw_rates;
  auto measure_raw = [&](int rounds, const char* when) -> Status {
    for (int r = 0; r < rounds; ++r) {
      Progress(std::string("raw baseline ") + when + ", round " + std::to_string(r + 1) + ": " +
               std::to_string(cfg.raw_commits) + " single-row commits, WAL + synchronous=FULL");
      SyncFilesystem(cfg.dir);
      GH_ASSIGN_OR_RETURN(double rate, MeasureRawCommitRate(db, "FULL", cfg.raw_commits));
      raw_rates.push_back(rate);
    }
    return Status::Ok();
  };
  if (Status s = measure_raw(3, "before"); !s.ok()) return fail(s);
  Progress("raw reference: " + std::to_string(cfg.raw_commits * 5) +
           " single-row commits, WAL + synchronous=NORMAL");
  SyncFilesystem(cfg.dir);
  auto raw_normal = MeasureRawCommitRate(db, "NORMAL", cfg.raw_commits * 5);
  if (!raw_normal.ok()) return fail(raw_normal.status());

  EnqueueResult enqueue[2];
  CallStats enqueue_stats[2];
  const Durability durabilities[2] = {Durability::kRecoverable, Durability::kAcknowledged};
  const char* durability_names[2] = {"recoverable", "acknowledged"};
  for (int d = 0; d < 2; ++d) {
    Progress(std::string("enqueue (") + durability_names[d] +
             "): " + std::to_string(cfg.enqueue_clients) + " clients x " +
             std::to_string(cfg.enqueue_signals_per_client) + " signals over " +
             std::to_string(cfg.enqueue_keys) + " keys");
    SyncFilesystem(cfg.dir);
    auto r = MeasureEnqueue(db, durabilities[d], cfg, enqueue_stats[d]);
    if (!r.ok()) return fail(r.status());
    enqueue[d] = *r;
  }

  std::vector<PoolResult> pools;
  for (size_t workers : {size_t{1}, size_t{2}, size_t{8}}) {
    Progress("no-op passes: pool of " + std::to_string(workers) + " over " +
             std::to_string(cfg.pool_keys) + " keys");
    SyncFilesystem(cfg.dir);
    auto r = MeasureNoopPasses(db, workers, cfg);
    if (!r.ok()) return fail(r.status());
    pools.push_back(*r);
  }

  Progress("bursts: 8 workers, 2 ms passes, " + std::to_string(cfg.burst_clients) + " clients, " +
           std::to_string(cfg.burst_keys) + " keys x " + std::to_string(cfg.burst_signals_per_key) +
           " signals, 5 ms debounce");
  SyncFilesystem(cfg.dir);
  auto bursts = MeasureBursts(db, cfg);
  if (!bursts.ok()) return fail(bursts.status());
  if (Status s = measure_raw(2, "after"); !s.ok()) return fail(s);
  RemoveDbFiles(db);

  const double base = Median(raw_rates);
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
  PrintRow("raw commit, WAL + synchronous=NORMAL (ref.)", Grouped(*raw_normal) + " commits/s",
           VsRaw(*raw_normal, base));
  for (int d = 0; d < 2; ++d) {
    PrintRow(std::string("enqueue (") + durability_names[d] + ", " +
                 std::to_string(cfg.enqueue_clients) + " clients)",
             Grouped(enqueue[d].rate()) + " signals/s", VsRaw(enqueue[d].rate(), base));
  }
  for (const PoolResult& p : pools) {
    PrintRow("no-op passes, pool of " + std::to_string(p.workers) +
                 (p.workers == 1 ? " worker" : " workers"),
             Grouped(p.rate()) + " passes/s", VsRaw(p.rate(), base));
  }
  PrintRow("bursts: signals per completed pass", Fixed(bursts->ratio(), 1) + " signals/pass",
           "(" + Grouped(static_cast<double>(bursts->signals)) + " signals, " +
               Grouped(static_cast<double>(bursts->passes)) + " passes)");

  std::printf("\ndetails\n");
  std::printf("  raw: %zu rounds of %d commits, 3 before the engine phases and %zu after:",
              raw_rates.size(), cfg.raw_commits, raw_rates.size() - 3);
  for (double r : raw_rates) std::printf(" %s", Grouped(r).c_str());
  std::printf(" commits/s; median %.0f us per commit\n", 1e6 / base);
  for (int d = 0; d < 2; ++d) {
    const EnqueueResult& e = enqueue[d];
    std::printf(
        "  enqueue %-12s %s signals in %.2f s, %zu commits, %.1f signals/commit, "
        "%.0f us per commit (store time %.0f%% of wall)\n",
        durability_names[d], Grouped(static_cast<double>(e.signals)).c_str(), e.seconds, e.commits,
        static_cast<double>(e.signals) / static_cast<double>(e.commits),
        enqueue_stats[d].seconds() / static_cast<double>(enqueue_stats[d].calls.load()) * 1e6,
        enqueue_stats[d].seconds() / e.seconds * 100);
  }
  for (const PoolResult& p : pools) {
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
  std::printf(
      "  bursts: sent in %.2f s over %zu enqueue commits, drained %.3f s after the last "
      "signal; passes per key min %d, mean %.1f, max %d\n",
      bursts->send_seconds, bursts->enqueue_commits, bursts->drain_seconds, bursts->min_per_key,
      static_cast<double>(bursts->passes) / cfg.burst_keys, bursts->max_per_key);

  auto verdict = [&](double rate, double target) {
    return std::string(rate >= target * base ? "met" : "MISSED") + " (" + Ratio(rate / base) + ")";
  };
  std::printf("\ntargets\n");
  std::printf("  enqueue >= 5x raw: recoverable %s, acknowledged %s\n",
              verdict(enqueue[0].rate(), 5).c_str(), verdict(enqueue[1].rate(), 5).c_str());
  std::printf("  no-op passes >= 2x raw: 1 worker %s, 2 workers %s, 8 workers %s\n",
              verdict(pools[0].rate(), 2).c_str(), verdict(pools[1].rate(), 2).c_str(),
              verdict(pools[2].rate(), 2).c_str());

  if (own_dir) {
    std::error_code ec;
    std::filesystem::remove_all(cfg.dir, ec);
  }
  return 0;
}

}  // namespace
}  // namespace gatehouse

int main(int argc, char** argv) {
  gatehouse::Config cfg;
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
