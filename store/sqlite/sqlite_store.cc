// SqliteStore: opening the file (the reason_union() SQL function the work queue's UPSERT uses,
// the migrations), its metrics and the sharded counters. Each concept's methods live in their
// own file: sqlite_work.cc, sqlite_inbox.cc, sqlite_ledger.cc, and so on (sqlite_store.h).
#include "store/sqlite/sqlite_store.h"

#include <sqlite3.h>

#include <random>
#include <string>

#include "base/log.h"
#include "store/sqlite/schema.h"
#include "store/tx_timer.h"

namespace gatehouse {
namespace {

// True when every reason in `b` is already in `a` (both comma-joined).
bool ContainsAllReasons(std::string_view a, std::string_view b) {
  size_t start = 0;
  while (start < b.size()) {
    size_t comma = b.find(',', start);
    if (comma == std::string_view::npos) comma = b.size();
    const std::string_view r = b.substr(start, comma - start);
    bool found = false;
    size_t pos = 0;
    while (!found && (pos = a.find(r, pos)) != std::string_view::npos) {
      const bool left = pos == 0 || a[pos - 1] == ',';
      const bool right = pos + r.size() == a.size() || a[pos + r.size()] == ',';
      found = left && right;
      pos += 1;
    }
    if (!found) return false;
    start = comma + 1;
  }
  return true;
}

// reason_union(a, b): the sorted union of two comma-joined reason sets, so that merging
// reasons is part of the single UPSERT statement instead of a read-modify-write.
void ReasonUnionFn(sqlite3_context* ctx, int argc, sqlite3_value** argv) {
  if (argc != 2) {
    sqlite3_result_error(ctx, "reason_union takes 2 arguments", -1);
    return;
  }
  auto text = [](sqlite3_value* v) -> std::string_view {
    const auto* p = reinterpret_cast<const char*>(sqlite3_value_text(v));
    if (p == nullptr) return {};
    return {p, static_cast<size_t>(sqlite3_value_bytes(v))};
  };
  const std::string_view a = text(argv[0]), b = text(argv[1]);
  if (ContainsAllReasons(a, b)) {  // the common case: nothing new, no allocation
    sqlite3_result_value(ctx, argv[0]);
    return;
  }
  try {
    const std::string merged = UnionReasons(a, b);
    sqlite3_result_text(ctx, merged.data(), static_cast<int>(merged.size()), SQLITE_TRANSIENT);
  } catch (const std::bad_alloc&) {
    sqlite3_result_error_nomem(ctx);  // exceptions must not unwind through SQLite's C code
  }
}

}  // namespace

Result<StorePtr> OpenSqliteStore(const std::string& path, const SqliteStoreOptions& options) {
  sqlite::SqliteDb::Options db_options;
  db_options.busy_timeout_ms = options.busy_timeout_ms;
  GH_ASSIGN_OR_RETURN(auto db, sqlite::SqliteDb::Open(path, db_options));
  const int rc =
      sqlite3_create_function_v2(db->raw(), "reason_union", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                 nullptr, &ReasonUnionFn, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) return db->Error(rc, "registering reason_union");
  std::unique_ptr<SqliteStore> store(new SqliteStore(std::move(db)));
  GH_RETURN_IF_ERROR(store->Migrate().WithContext("migrating " + path));
  return StorePtr(std::move(store));
}

namespace {

constexpr int64_t kCounterShards = 8;

int64_t PickCounterShard() {
  std::random_device rd;
  return static_cast<int64_t>(rd() % kCounterShards);
}

}  // namespace

SqliteStore::SqliteStore(std::unique_ptr<sqlite::SqliteDb> db)
    : db_(std::move(db)), counter_shard_(PickCounterShard()) {}

Status SqliteStore::Migrate() {
  MutexLock lock(&mu_);
  GH_RETURN_IF_ERROR(
      db_->Exec("CREATE TABLE IF NOT EXISTS schema_migrations ("
                " version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)"));
  for (const sqlite::Migration& m : sqlite::Migrations()) {
    Status s = db_->WriteTransaction(Durability::kAcknowledged, [&]() REQUIRES(mu_) -> Status {
      GH_ASSIGN_OR_RETURN(auto q,
                          db_->Prepare("SELECT 1 FROM schema_migrations WHERE version = ?1"));
      q->Bind(1, static_cast<int64_t>(m.version));
      GH_ASSIGN_OR_RETURN(bool applied, q->Step());
      if (applied) return Status::Ok();  // another process got here first
      GH_RETURN_IF_ERROR(db_->Exec(m.sql));
      GH_ASSIGN_OR_RETURN(auto ins, db_->Prepare("INSERT INTO schema_migrations (version, name, "
                                                 "applied_at) VALUES (?1, ?2, ?3)"));
      ins->Bind(1, static_cast<int64_t>(m.version)).Bind(2, m.name).Bind(3, RealClock().Now());
      GH_RETURN_IF_ERROR(ins->Run());
      Log(LogLevel::kInfo, "store.migrated").Field("version", m.version).Field("name", m.name);
      return Status::Ok();
    });
    GH_RETURN_IF_ERROR(s.WithContext("migration " + std::to_string(m.version)));
  }
  return Status::Ok();
}

void SqliteStore::RegisterMetrics(metrics::Registry& registry) {
  MutexLock lock(&mu_);
  db_->SetWriteTimer(&TransactionFamily(registry).With({"sqlite", "write"}));
}

Result<int> SqliteStore::SchemaVersion() {
  MutexLock lock(&mu_);
  GH_ASSIGN_OR_RETURN(auto q, db_->Prepare("SELECT COALESCE(MAX(version), 0) FROM "
                                           "schema_migrations"));
  GH_ASSIGN_OR_RETURN(bool row, q->Step());
  if (!row) return Internal("schema_migrations: no row");
  return static_cast<int>(q->Int(0));
}

Status SqliteStore::Bump(std::string_view name, int64_t delta) {
  if (delta == 0) return Status::Ok();
  GH_ASSIGN_OR_RETURN(auto q, db_->Prepare("INSERT INTO counter_shards (name, shard, value) "
                                           "VALUES (?1, ?3, ?2) ON CONFLICT (name, shard) "
                                           "DO UPDATE SET value = value + ?2"));
  q->Bind(1, name).Bind(2, delta).Bind(3, counter_shard_);
  return q->Run();
}

Result<Counters> SqliteStore::GetCounters() {
  MutexLock lock(&mu_);
  GH_ASSIGN_OR_RETURN(auto q, db_->Prepare("SELECT name, SUM(value) FROM counter_shards "
                                           "GROUP BY name"));
  Counters out;
  while (true) {
    GH_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    out[q->Text(0)] = q->Int(1);
  }
  return out;
}

}  // namespace gatehouse
