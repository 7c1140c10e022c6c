// A thin RAII layer over one sqlite3 connection: prepared-statement cache, typed binding,
// write transactions with BEGIN IMMEDIATE and per-transaction durability.
//
// Not thread-safe: SqliteStore guards its SqliteDb with a mutex.
#pragma once

#include <sqlite3.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "base/metrics.h"
#include "base/status.h"
#include "store/store.h"

namespace gatehouse::sqlite {

// A cached prepared statement, reset and unbound when the Stmt handle goes out of scope.
class Stmt {
 public:
  explicit Stmt(sqlite3_stmt* stmt) : stmt_(stmt) {}
  ~Stmt();
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  // Binding is 1-based, as in SQLite.
  Stmt& Bind(int i, int64_t v);
  Stmt& Bind(int i, std::string_view v);
  Stmt& BindBlob(int i, std::string_view v);
  Stmt& Bind(int i, std::optional<Time> v);
  Stmt& Bind(int i, Time v) { return Bind(i, ToMicros(v)); }
  Stmt& BindNull(int i);

  // Returns true while a row is available, false when done. Errors become a Status.
  Result<bool> Step();
  // Steps to completion; for statements that return no rows (or whose rows are ignored).
  Status Run();

  int64_t Int(int col) const { return sqlite3_column_int64(stmt_, col); }
  bool IsNull(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
  std::string Text(int col) const;
  std::optional<Time> OptTime(int col) const;
  Time TimeAt(int col) const { return FromMicros(Int(col)); }

 private:
  sqlite3_stmt* stmt_;
};

class SqliteDb {
 public:
  struct Options {
    int busy_timeout_ms = 10000;
  };

  static Result<std::unique_ptr<SqliteDb>> Open(const std::string& path, const Options& options);
  ~SqliteDb();

  // Returns the cached prepared statement for `sql` (prepared on first use).
  Result<std::unique_ptr<Stmt>> Prepare(const char* sql);
  // Runs one or more statements without results (schema, pragmas).
  Status Exec(const char* sql);
  // Runs one statement without results through the statement cache (BEGIN, COMMIT, ...).
  Status RunCached(const char* sql);

  // Runs `body` inside BEGIN IMMEDIATE ... COMMIT with the requested durability; rolls back
  // if `body` returns an error. SQLITE_BUSY after the busy timeout becomes kUnavailable.
  Status WriteTransaction(Durability durability, const std::function<Status()>& body);
  // Runs `body` inside a read transaction (a consistent snapshot).
  Status ReadTransaction(const std::function<Status()>& body);

  sqlite3* raw() { return db_; }
  // Times every WriteTransaction into `h` from now on (store/tx_timer.h); null stops it.
  void SetWriteTimer(metrics::Histogram* h) { write_timer_.store(h, std::memory_order_release); }
  Status Error(int rc, std::string_view what) const;

 private:
  explicit SqliteDb(sqlite3* db) : db_(db) {}
  Status SetDurability(Durability durability);
  Status EnableWal(int busy_timeout_ms);

  sqlite3* db_;
  std::atomic<metrics::Histogram*> write_timer_{nullptr};
  std::unordered_map<const char*, sqlite3_stmt*> cache_;  // keyed by the literal's address
  std::optional<Durability> current_durability_;
};

}  // namespace gatehouse::sqlite
