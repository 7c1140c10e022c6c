#include "store/sqlite/sqlite_db.h"

#include <algorithm>
#include <chrono>
#include <string>
#include <thread>

#include "store/tx_timer.h"

namespace gatehouse::sqlite {

Stmt::~Stmt() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

Stmt& Stmt::Bind(int i, int64_t v) {
  sqlite3_bind_int64(stmt_, i, v);
  return *this;
}

Stmt& Stmt::Bind(int i, std::string_view v) {
  // A null data pointer would bind SQL NULL; an empty string must stay an empty string.
  sqlite3_bind_text(stmt_, i, v.data() != nullptr ? v.data() : "", static_cast<int>(v.size()),
                    SQLITE_TRANSIENT);
  return *this;
}

Stmt& Stmt::BindBlob(int i, std::string_view v) {
  sqlite3_bind_blob(stmt_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT);
  return *this;
}

Stmt& Stmt::Bind(int i, std::optional<Time> v) {
  if (v) return Bind(i, ToMicros(*v));
  return BindNull(i);
}

Stmt& Stmt::BindNull(int i) {
  sqlite3_bind_null(stmt_, i);
  return *this;
}

Result<bool> Stmt::Step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  sqlite3* db = sqlite3_db_handle(stmt_);
  const StatusCode code = (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED
                              ? StatusCode::kUnavailable
                              : StatusCode::kInternal;
  return Status(code, std::string("sqlite step: ") + sqlite3_errmsg(db));
}

Status Stmt::Run() {
  while (true) {
    auto row = Step();
    if (!row.ok()) return row.status();
    if (!*row) return Status::Ok();
  }
}

std::string Stmt::Text(int col) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, col));
  if (p == nullptr) return {};
  return std::string(p, static_cast<size_t>(sqlite3_column_bytes(stmt_, col)));
}

std::optional<Time> Stmt::OptTime(int col) const {
  if (IsNull(col)) return std::nullopt;
  return FromMicros(Int(col));
}

Result<std::unique_ptr<SqliteDb>> SqliteDb::Open(const std::string& path, const Options& options) {
  sqlite3* raw = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = "opening " + path + ": " + (raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc));
    sqlite3_close(raw);
    return Unavailable(std::move(msg));
  }
  std::unique_ptr<SqliteDb> db(new SqliteDb(raw));
  sqlite3_busy_timeout(raw, options.busy_timeout_ms);
  sqlite3_extended_result_codes(raw, 1);
  // WAL: readers never block the writer; several processes on one host may share the file.
  GH_RETURN_IF_ERROR(db->EnableWal(options.busy_timeout_ms).WithContext("enabling WAL on " + path));
  GH_RETURN_IF_ERROR(db->Exec("PRAGMA foreign_keys=ON; PRAGMA temp_store=MEMORY;"));
  return db;
}

Status SqliteDb::EnableWal(int busy_timeout_ms) {
  // Switching a new file to WAL needs an exclusive lock, and SQLite does not call the busy
  // handler for it: when several processes open a fresh file at once, all but one get
  // SQLITE_BUSY at once. Retry with a growing pause, within the busy timeout. (WAL mode is
  // persistent, so on an existing file the pragma only confirms it.)
  //
  // Real time, not the injected Clock: the wait is for another process to release its lock
  // on the file (real I/O), and its bound is SQLite's busy timeout, which SQLite's own busy
  // handler measures in real time too. A simulated clock would never let it end.
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(busy_timeout_ms);
  auto pause = std::chrono::milliseconds(1);
  while (true) {
    GH_ASSIGN_OR_RETURN(auto q, Prepare("PRAGMA journal_mode=WAL"));
    auto row = q->Step();
    if (row.ok() && *row && q->Text(0) == "wal") return Status::Ok();
    if (row.ok()) return Internal("journal_mode stayed " + (*row ? q->Text(0) : "unknown"));
    if (row.status().code() != StatusCode::kUnavailable ||
        std::chrono::steady_clock::now() >= deadline) {
      return row.status();
    }
    q.reset();  // releases the statement before sleeping
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
}

SqliteDb::~SqliteDb() {
  for (auto& [sql, stmt] : cache_) sqlite3_finalize(stmt);
  sqlite3_close_v2(db_);
}

Status SqliteDb::Error(int rc, std::string_view what) const {
  const int primary = rc & 0xff;
  const StatusCode code = primary == SQLITE_BUSY || primary == SQLITE_LOCKED
                              ? StatusCode::kUnavailable
                              : StatusCode::kInternal;
  return Status(code, std::string(what) + ": " + sqlite3_errmsg(db_));
}

Result<std::unique_ptr<Stmt>> SqliteDb::Prepare(const char* sql) {
  auto it = cache_.find(sql);
  if (it == cache_.end()) {
    sqlite3_stmt* stmt = nullptr;
    const int rc = sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt, nullptr);
    if (rc != SQLITE_OK) return Error(rc, std::string("preparing ") + sql);
    it = cache_.emplace(sql, stmt).first;
  }
  return std::make_unique<Stmt>(it->second);
}

Status SqliteDb::Exec(const char* sql) {
  char* err = nullptr;
  const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    const int primary = rc & 0xff;
    return Status(primary == SQLITE_BUSY || primary == SQLITE_LOCKED ? StatusCode::kUnavailable
                                                                     : StatusCode::kInternal,
                  std::string(sql) + ": " + msg);
  }
  return Status::Ok();
}

Status SqliteDb::SetDurability(Durability durability) {
  if (current_durability_ == durability) return Status::Ok();
  // In WAL mode, FULL fsyncs the WAL at every commit; NORMAL only at checkpoints. A FULL
  // commit also makes every earlier NORMAL commit durable, since the WAL is sequential.
  GH_RETURN_IF_ERROR(Exec(durability == Durability::kAcknowledged ? "PRAGMA synchronous=FULL"
                                                                  : "PRAGMA synchronous=NORMAL"));
  current_durability_ = durability;
  return Status::Ok();
}

Status SqliteDb::RunCached(const char* sql) {
  GH_ASSIGN_OR_RETURN(auto stmt, Prepare(sql));
  return stmt->Run().WithContext(sql);
}

Status SqliteDb::WriteTransaction(Durability durability, const std::function<Status()>& body) {
  TxTimer timer(write_timer_);
  GH_RETURN_IF_ERROR(SetDurability(durability));
  GH_RETURN_IF_ERROR(RunCached("BEGIN IMMEDIATE"));
  Status s;
  try {
    s = body();
  } catch (...) {
    // Never leave the write lock held: every other process would block behind it.
    (void)RunCached("ROLLBACK");
    throw;
  }
  if (!s.ok()) {
    (void)RunCached("ROLLBACK");
    return s;
  }
  s = RunCached("COMMIT");
  if (!s.ok()) {
    if (!sqlite3_get_autocommit(db_)) (void)RunCached("ROLLBACK");
    return s;
  }
  return Status::Ok();
}

Status SqliteDb::ReadTransaction(const std::function<Status()>& body) {
  GH_RETURN_IF_ERROR(Exec("BEGIN DEFERRED"));
  Status s = body();
  (void)Exec(s.ok() ? "COMMIT" : "ROLLBACK");
  return s;
}

}  // namespace gatehouse::sqlite
