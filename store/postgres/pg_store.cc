#include "store/postgres/pg_store.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <random>

#include "base/log.h"
#include "store/postgres/pg_array.h"
#include "store/postgres/pg_schema.h"
#include "store/tx_timer.h"

namespace gatehouse::postgres {
namespace {

constexpr int64_t kCounterShards = 8;
constexpr const char kWorkChannel[] = "gatehouse_work";
constexpr const char kDeliveriesChannel[] = "gatehouse_deliveries";

std::string RandomToken() {
  std::random_device rd;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 16; ++i) out.push_back(kHex[rd() % 16]);
  return out;
}

int64_t PickCounterShard() {
  std::random_device rd;
  return static_cast<int64_t>(rd() % kCounterShards);
}

// The pool must fit the server: max_connections less the superuser reserve is the most any
// role can open, across every node. A pool that can never fit is an error at start; one that
// does not fit beside the connections open now (other nodes) is a warning, since they may
// close. The listener counts as one more connection.
Status CheckServerRoom(PgPool& pool, const PgStoreOptions& options) {
  GH_ASSIGN_OR_RETURN(auto handle, pool.Acquire());
  GH_ASSIGN_OR_RETURN(
      PgResult r,
      handle->Exec("SELECT current_setting('max_connections')::int - "
                   "current_setting('superuser_reserved_connections')::int, "
                   "(SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'client backend')"));
  const int64_t limit = r.Int(0, 0);
  const int64_t open_now = r.Int(0, 1);
  const int64_t want = options.pool_size + (options.listen ? 1 : 0);
  if (want > limit) {
    return FailedPrecondition(
        "a pool of " + std::to_string(options.pool_size) + " connections" +
        (options.listen ? " plus the listener" : "") + " can never fit: the server allows " +
        std::to_string(limit) +
        " (max_connections less superuser_reserved_connections); lower --db-pool or raise "
        "max_connections");
  }
  if (want > limit - open_now + 1) {  // + 1: the connection asking is already counted
    Log(LogLevel::kWarn, "store.pool_may_not_fit")
        .Field("pool", static_cast<int64_t>(options.pool_size))
        .Field("server_limit", limit)
        .Field("open_now", open_now)
        .Field("note", "other clients hold connections; this node's may be refused");
  }
  return Status::Ok();
}

}  // namespace

Result<std::unique_ptr<PgStore>> OpenPgStore(const std::string& url, const PgStoreOptions& options) {
  PgPool::Options pool_options;
  pool_options.url = url;
  pool_options.size = options.pool_size;
  pool_options.acquire_timeout = options.acquire_timeout;
  pool_options.connect.application_name = options.application_name;
  GH_ASSIGN_OR_RETURN(auto pool, PgPool::Create(pool_options));
  {
    GH_ASSIGN_OR_RETURN(auto handle, pool->Acquire());
    GH_RETURN_IF_ERROR(MigrateSchema(handle.conn()).status());  // it logs what it applied
  }
  GH_RETURN_IF_ERROR(CheckServerRoom(*pool, options));
  std::unique_ptr<PgStore> store(new PgStore(url, options, std::move(pool)));
  if (options.listen) store->StartListener();
  return store;
}

PgStore::PgStore(std::string url, PgStoreOptions options, std::unique_ptr<PgPool> pool)
    : url_(std::move(url)),
      options_(std::move(options)),
      pool_(std::move(pool)),
      counter_shard_(PickCounterShard()),
      instance_token_(RandomToken()) {}

PgStore::~PgStore() {
  stopping_.store(true);
  if (listener_.joinable()) {
    const uint64_t one = 1;
    (void)!::write(kick_fd_, &one, sizeof(one));
    listener_.join();
  }
  if (kick_fd_ >= 0) ::close(kick_fd_);
}

Status PgStore::Write(Durability durability, const std::function<Status(PgConn&)>& body,
                      const PgTransactionOptions& options) {
  // A pooled connection can have died while it was idle (a server restart, a failover, an
  // idle timeout): the first statement on it fails. When the connection was lost before the
  // COMMIT went out, the server rolled the transaction back and nothing of it exists, so it
  // runs again on a fresh connection (the broken one is dropped as its handle goes back)
  // instead of failing a call — a 503 to GitHub — for a connection nobody was using. A loss
  // during COMMIT leaves the outcome unknown and is the caller's to handle (kUnavailable).
  constexpr int kAttempts = 3;
  TxTimer timer(write_timer_);
  for (int attempt = 1;; ++attempt) {
    GH_ASSIGN_OR_RETURN(auto handle, pool_->Acquire());
    Status s = handle->RunTransaction(durability, body, options);
    if (s.ok() || attempt == kAttempts || !handle->broken() || handle->commit_outcome_unknown()) {
      return s;
    }
    Log(LogLevel::kInfo, "store.reconnect")
        .Field("attempt", attempt)
        .Field("error", s.message());
  }
}

Status PgStore::Read(const std::function<Status(PgConn&)>& body) {
  // As Write: a read that met a connection that died while idle runs again on a fresh one
  // (reads are safe to repeat).
  constexpr int kAttempts = 3;
  TxTimer timer(read_timer_);
  for (int attempt = 1;; ++attempt) {
    GH_ASSIGN_OR_RETURN(auto handle, pool_->Acquire());
    Status s = body(handle.conn());
    if (s.ok() || attempt == kAttempts || !handle->broken()) return s;
  }
}

void PgStore::RegisterMetrics(metrics::Registry& registry) {
  auto& family = TransactionFamily(registry);
  write_timer_.store(&family.With({"postgres", "write"}), std::memory_order_release);
  read_timer_.store(&family.With({"postgres", "read"}), std::memory_order_release);
}

Status PgStore::Bump(PgConn& c, std::string_view name, int64_t delta) {
  if (delta == 0) return Status::Ok();
  return c.ExecPrepared("counter_bump",
                        "INSERT INTO counter_shards (name, shard, value) VALUES ($1, $2, $3) "
                        "ON CONFLICT (name, shard) DO UPDATE SET value = counter_shards.value + $3",
                        {PgParam::Text(name), PgParam::Int(counter_shard_), PgParam::Int(delta)})
      .status();
}

Status PgStore::Bumps(PgConn& c, std::span<const CounterDelta> deltas) {
  BinaryArray names(BinaryArray::kText), values(BinaryArray::kInt8);
  const CounterDelta* only = nullptr;
  for (const CounterDelta& d : deltas) {
    if (d.delta == 0) continue;
    only = &d;
    names.Add(d.name);
    values.AddInt(d.delta);
  }
  if (names.size() == 0) return Status::Ok();
  if (names.size() == 1) return Bump(c, only->name, only->delta);
  // Names in byte order: every writer locks its shard's rows in one order.
  return c
      .ExecPrepared("counter_bumps",
                    "INSERT INTO counter_shards (name, shard, value) "
                    "SELECT t.name, $3::BIGINT, t.value "
                    "FROM unnest($1::text[], $2::int8[]) AS t(name, value) "
                    "ORDER BY t.name COLLATE \"C\" "
                    "ON CONFLICT (name, shard) DO UPDATE SET "
                    "value = counter_shards.value + excluded.value",
                    {names.Param(), values.Param(), PgParam::Int(counter_shard_)})
      .status();
}

void PgStore::NotifyCommitted(Wakeups::Topic topic) {
  wakeups_.Notify(topic);
  std::atomic<bool>& pending =
      topic == Wakeups::Topic::kWork ? pending_work_ : pending_deliveries_;
  if (pending.exchange(true)) return;  // the listener has not sent the last one yet
  if (kick_fd_ >= 0) {
    const uint64_t one = 1;
    (void)!::write(kick_fd_, &one, sizeof(one));
    return;
  }
  // No listener (a one-shot command): send it now, in autocommit, on a pooled connection. The
  // caller's transaction is over, so this is not a nested acquire.
  Status s = Read([this](PgConn& c) { return SendPendingNotifies(c); });
  if (!s.ok()) Log(LogLevel::kDebug, "store.notify_failed").Field("error", s.ToString());
}

Status PgStore::SendPendingNotifies(PgConn& conn) {
  for (auto [pending, channel] : {std::pair{&pending_work_, kWorkChannel},
                                  std::pair{&pending_deliveries_, kDeliveriesChannel}}) {
    if (!pending->exchange(false)) continue;
    Status s = conn.ExecPrepared("notify", "SELECT pg_notify($1, $2)",
                                 {PgParam::Text(channel), PgParam::Text(instance_token_)})
                   .status();
    if (!s.ok()) {
      pending->store(true);  // send it after the reconnect
      return s;
    }
  }
  return Status::Ok();
}

Status PgStore::CheckFenceInTx(PgConn& c, std::string_view subject, int64_t fence) {
  // FOR SHARE: a claim's UPDATE of this row waits until the caller's transaction ends, so the
  // fence cannot move between this check and the caller's write.
  GH_ASSIGN_OR_RETURN(PgResult r, c.ExecPrepared("fence_check",
                                                 "SELECT 1 FROM work_items WHERE key = $1 AND "
                                                 "fence = $2 AND state = 'running' FOR SHARE",
                                                 {PgParam::Text(subject), PgParam::Int(fence)}));
  if (r.rows() == 0) {
    return FenceLost("write for " + std::string(subject) + " with stale fence " +
                     std::to_string(fence));
  }
  return Status::Ok();
}

Result<Counters> PgStore::GetCounters() {
  Counters out;
  Status s = Read([&](PgConn& c) -> Status {
    GH_ASSIGN_OR_RETURN(PgResult r, c.ExecPrepared("counters_all",
                                                   "SELECT name, SUM(value)::BIGINT FROM "
                                                   "counter_shards GROUP BY name"));
    for (int i = 0; i < r.rows(); ++i) out[r.Text(i, 0)] = r.Int(i, 1);
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("reading counters");
  return out;
}

Status PgStore::CheckWritable() {
  // A write transaction that writes nothing: proves a connection, and that the server accepts
  // writes (a read-only standby refuses txid_current()).
  return Write(Durability::kRecoverable, [](PgConn& c) -> Status {
    return c.ExecPrepared("check_writable", "SELECT txid_current()").status();
  });
}

Result<int> PgStore::SchemaVersion() {
  GH_ASSIGN_OR_RETURN(auto handle, pool_->Acquire());
  return PgSchemaVersion(handle.conn());
}

Result<std::optional<Time>> PgStore::DatabaseTime() {
  std::optional<Time> out;
  Status s = Read([&](PgConn& c) -> Status {
    GH_ASSIGN_OR_RETURN(
        PgResult r,
        c.ExecPrepared("database_time",
                       "SELECT (EXTRACT(EPOCH FROM clock_timestamp()) * 1000000)::BIGINT"));
    out = r.TimeAt(0, 0);
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("reading the database's clock");
  return out;
}

void PgStore::StartListener() {
  kick_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (kick_fd_ < 0) {
    Log(LogLevel::kWarn, "store.listen_failed").Field("reason", "eventfd failed");
    return;
  }
  listener_ = std::thread([this] { ListenLoop(); });
}

namespace {

// How long the listener waits between looks, and after how much silence it pings its
// connection, so that one that died without a word (a partition) is noticed and replaced.
constexpr std::chrono::milliseconds kListenWait{1000};
constexpr std::chrono::seconds kPingAfterSilence{10};

}  // namespace

void PgStore::ListenLoop() {
  std::chrono::milliseconds backoff{100};
  bool lost_once = false;
  while (!stopping_.load()) {
    PgConnectOptions connect;
    connect.application_name = options_.application_name + "-listen";
    connect.connect_timeout_seconds = 3;  // the destructor may be waiting to join
    auto conn = PgConn::Connect(url_, connect);
    Status s = conn.ok() ? (*conn)->Exec("SET synchronous_commit = off").status() : conn.status();
    if (s.ok()) s = (*conn)->Exec("LISTEN gatehouse_work").status();
    if (s.ok()) s = (*conn)->Exec("LISTEN gatehouse_deliveries").status();
    if (s.ok()) {
      backoff = std::chrono::milliseconds{100};
      // After a lost connection, whatever was notified while no one listened is gone: look
      // once. (Before the first connection, polling covers the moments since the store opened.)
      if (lost_once) {
        wakeups_.Notify(Wakeups::Topic::kWork);
        wakeups_.Notify(Wakeups::Topic::kDeliveries);
      }
      std::vector<PgConn::Notification> notes;
      auto heard = std::chrono::steady_clock::now();
      while (!stopping_.load() && s.ok()) {
        uint64_t kicks = 0;
        (void)!::read(kick_fd_, &kicks, sizeof(kicks));  // reset the eventfd
        s = SendPendingNotifies(**conn);
        if (!s.ok()) break;
        notes.clear();
        s = (*conn)->WaitForNotifications(kListenWait, &notes, kick_fd_);
        if (!s.ok()) break;
        bool work = false, deliveries = false;
        for (const auto& n : notes) {
          if (n.payload == instance_token_) continue;  // ours: this process knew at once
          work = work || n.channel == kWorkChannel;
          deliveries = deliveries || n.channel == kDeliveriesChannel;
        }
        if (work) wakeups_.Notify(Wakeups::Topic::kWork);
        if (deliveries) wakeups_.Notify(Wakeups::Topic::kDeliveries);
        const auto now = std::chrono::steady_clock::now();
        if (!notes.empty()) heard = now;
        if (now - heard >= kPingAfterSilence) {
          heard = now;
          s = (*conn)->ExecPrepared("listen_ping", "SELECT 1").status();
        }
      }
    }
    if (stopping_.load()) break;
    lost_once = true;
    Log(LogLevel::kWarn, "store.listen_lost")
        .Field("url", RedactPgUrl(url_))
        .Field("error", s.ToString())
        .Field("retry_ms", static_cast<int64_t>(backoff.count()));
    // Wait for the backoff, or for the store to close. Kicks (commits wanting a NOTIFY) wake
    // the wait too; their NOTIFYs stay pending until the next connection.
    const auto until = std::chrono::steady_clock::now() + backoff;
    while (!stopping_.load()) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          until - std::chrono::steady_clock::now());
      if (left.count() <= 0) break;
      uint64_t kicks = 0;
      (void)!::read(kick_fd_, &kicks, sizeof(kicks));
      pollfd p{kick_fd_, POLLIN, 0};
      (void)::poll(&p, 1, static_cast<int>(left.count()));
    }
    backoff = std::min(backoff * 2, std::chrono::milliseconds{5000});
  }
}

}  // namespace gatehouse::postgres
