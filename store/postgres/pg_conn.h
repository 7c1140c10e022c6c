// PgConn: one libpq connection to PostgreSQL, the bottom of the PostgreSQL backend.
//
// - Connecting takes a URL (postgresql://user[:password]@host:port/db?...). The password is
//   passed to libpq only; messages and logs carry RedactPgUrl(url).
// - Statements are parameterized only. ExecPrepared prepares a statement once per connection,
//   under a caller-chosen name, and reuses it on every later call; Exec runs a one-off
//   parameterized statement (PQexecParams). ExecScript runs constant SQL with several
//   statements (migrations) and takes no parameters, so no input can reach it.
// - Errors are classified (PgErrorKind) and mapped to a StatusCode:
//     connection lost (PQstatus bad, SQLSTATE class 08, 57P01 admin shutdown, 57P02, 57P03)
//                                         -> kUnavailable; broken() turns true: reconnect
//     serialization failure, deadlock (40001, 40P01)
//                                         -> kUnavailable; the same connection may retry,
//                                            and RunTransaction does so itself
//     unique violation (23505)            -> kAlreadyExists
//     lock / statement / idle timeout (55P03, 57014, 25P03)
//                                         -> kUnavailable; nothing was written
//     anything else                       -> kInternal, with the SQLSTATE and the message
//   StatusCode has one "try again" code, so both transient kinds share kUnavailable;
//   last_error_kind() tells them apart where it matters (the pool drops broken connections).
//
// Not thread-safe: one thread uses a connection at a time (PgPool hands them out).
#pragma once

#include <libpq-fe.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "store/durability.h"

namespace gatehouse::postgres {

enum class PgErrorKind {
  kNone,             // the last statement succeeded
  kConnectionLost,   // reconnect; the statement may or may not have run (see RunTransaction)
  kSerialization,    // 40001 / 40P01: nothing was written; run the transaction again
  kUniqueViolation,  // 23505
  kTimeout,          // 55P03 lock, 57014 statement, 25P03 idle-in-transaction timeout
  kOther,
};

// The kind of a SQLSTATE ("40001" -> kSerialization). Empty: kOther.
PgErrorKind ClassifySqlState(std::string_view sqlstate);

// `url` with its password (userinfo or ?password=) replaced by "***", for messages and logs.
std::string RedactPgUrl(std::string_view url);

// One statement parameter, sent in text format (or binary for Bytes), as libpq takes them.
class PgParam {
 public:
  static PgParam Null() { return PgParam(std::nullopt, false); }
  static PgParam Int(int64_t v) { return PgParam(std::to_string(v), false); }
  static PgParam Text(std::string_view v) { return PgParam(std::string(v), false); }
  // A BYTEA value, sent in binary so that no escaping is involved.
  static PgParam Bytes(std::string_view v) { return PgParam(std::string(v), true); }
  // Times are BIGINT microseconds since the Unix epoch, as in the SQLite schema.
  static PgParam At(Time t) { return Int(ToMicros(t)); }
  static PgParam At(std::optional<Time> t) { return t ? At(*t) : Null(); }

  const std::optional<std::string>& value() const { return value_; }
  bool binary() const { return binary_; }

 private:
  PgParam(std::optional<std::string> value, bool binary)
      : value_(std::move(value)), binary_(binary) {}
  std::optional<std::string> value_;
  bool binary_;
};

// The rows of one statement's result (text format), owned. Row and column are 0-based.
// Reading a column as the wrong type, or out of range, is a bug and aborts.
class PgResult {
 public:
  explicit PgResult(PGresult* res) : res_(res, &PQclear) {}

  int rows() const { return PQntuples(res_.get()); }
  int columns() const { return PQnfields(res_.get()); }
  // Rows changed by INSERT/UPDATE/DELETE (PQcmdTuples); 0 for other statements.
  int64_t affected() const;

  bool IsNull(int row, int col) const;
  std::string Text(int row, int col) const;
  int64_t Int(int row, int col) const;
  bool Bool(int row, int col) const;
  // A BYTEA column, unescaped.
  std::string Bytes(int row, int col) const;
  Time TimeAt(int row, int col) const { return FromMicros(Int(row, col)); }
  std::optional<Time> OptTime(int row, int col) const;

 private:
  void CheckCell(int row, int col) const;
  std::unique_ptr<PGresult, decltype(&PQclear)> res_;
};

// Session settings for a new connection; the URL's own values win over these defaults.
struct PgConnectOptions {
  // Overrides the URL's database when not empty (tests use a fresh database per test).
  std::string database;
  int connect_timeout_seconds = 10;
  std::string application_name = "gatehouse";
};

enum class PgIsolation { kReadCommitted, kRepeatableRead, kSerializable };

struct PgTransactionOptions {
  PgIsolation isolation = PgIsolation::kReadCommitted;
  // How many times the body runs when it meets a serialization failure or a deadlock.
  int max_attempts = 5;
};

class PgConn {
 public:
  // Connects (blocking, bounded by connect_timeout_seconds). kUnavailable when the server
  // cannot be reached or refuses; the message names the redacted URL.
  static Result<std::unique_ptr<PgConn>> Connect(const std::string& url,
                                                 const PgConnectOptions& options = {});
  ~PgConn();
  PgConn(const PgConn&) = delete;
  PgConn& operator=(const PgConn&) = delete;

  // Runs `sql` (one statement, $1..$n placeholders) with `params`, unprepared.
  Result<PgResult> Exec(std::string_view sql, std::span<const PgParam> params = {});
  Result<PgResult> Exec(std::string_view sql, std::initializer_list<PgParam> params) {
    return Exec(sql, std::span<const PgParam>(params.begin(), params.size()));
  }

  // Runs the statement `name`, preparing `sql` under that name on first use on this
  // connection. A name always means one SQL text; preparing a name again with another text is
  // a bug and aborts.
  Result<PgResult> ExecPrepared(const std::string& name, std::string_view sql,
                                std::span<const PgParam> params = {});
  Result<PgResult> ExecPrepared(const std::string& name, std::string_view sql,
                                std::initializer_list<PgParam> params) {
    return ExecPrepared(name, sql, std::span<const PgParam>(params.begin(), params.size()));
  }

  // Runs constant SQL that may hold several statements and takes no parameters (schema).
  Status ExecScript(const char* sql);

  // Runs `body` inside BEGIN ... COMMIT with `SET LOCAL synchronous_commit` mapped from
  // `durability`, and rolls back when `body` fails. When a statement of the body (or the
  // COMMIT) fails with a serialization failure or a deadlock, the transaction is rolled back
  // and `body` runs again, up to options.max_attempts times in all; then kUnavailable. So the
  // body must have no effect outside the database, or one that may repeat.
  //
  // A connection lost during COMMIT leaves the outcome unknown: kUnavailable says so, and the
  // caller's write must be one that may be applied twice (every store write is fenced or
  // idempotent by key). Nested transactions are a bug and abort.
  Status RunTransaction(Durability durability, const std::function<Status(PgConn&)>& body,
                        const PgTransactionOptions& options = {});

  // One NOTIFY this connection received (after LISTEN).
  struct Notification {
    std::string channel;
    std::string payload;
  };
  // Waits up to `timeout` for notifications to arrive and appends them to `out` (those already
  // received first, without waiting). OK with none on timeout; kUnavailable when the
  // connection is lost (broken() turns true). Also returns early when `interrupt_fd` (if not
  // -1) becomes readable, so another thread can cut the wait short. Call only outside a
  // transaction.
  Status WaitForNotifications(std::chrono::milliseconds timeout, std::vector<Notification>* out,
                              int interrupt_fd = -1);

  // True when the last RunTransaction lost the connection while its COMMIT was under way, so
  // the transaction may or may not have committed. False when it was lost before: then the
  // server rolled it back.
  bool commit_outcome_unknown() const { return commit_outcome_unknown_; }

  // True when the connection cannot be used again: drop it and connect anew.
  bool broken() const;
  // For a connection at rest (outside a transaction, no statement running, not LISTENing):
  // looks, without blocking, whether the server has already given up on it. A server that
  // restarts or terminates the backend sends FATAL (57P01) and closes the socket while the
  // connection sits idle, and libpq notices only at the next statement, which would then fail.
  // Anything readable on a resting connection means that (or something unexpected), so it
  // marks the connection lost (broken() turns true) and returns false. True says only that
  // nothing has arrived: a server that vanished silently is still found by the next statement.
  bool CheckAtRest();
  PgErrorKind last_error_kind() const { return last_error_kind_; }
  // The server process serving this connection (pg_terminate_backend takes it).
  int backend_pid() const { return PQbackendPID(conn_); }
  // How many statements this connection has prepared (each once).
  size_t prepared_count() const { return prepared_.size(); }
  const std::string& redacted_url() const { return redacted_url_; }

 private:
  PgConn(PGconn* conn, std::string redacted_url);

  // Turns a finished PGresult into a Result, classifying errors; `what` names the statement.
  Result<PgResult> Finish(PGresult* res, std::string_view what);
  Status Prepare(const std::string& name, std::string_view sql);
  Status RunOnce(Durability durability, const std::function<Status(PgConn&)>& body,
                 PgIsolation isolation);
  Status Commit();
  void Rollback();

  PGconn* conn_;
  std::string redacted_url_;
  std::unordered_map<std::string, std::string> prepared_;  // name -> SQL text
  PgErrorKind last_error_kind_ = PgErrorKind::kNone;
  bool lost_ = false;  // a statement reported the connection lost
  bool in_transaction_ = false;
  bool commit_outcome_unknown_ = false;
};

}  // namespace gatehouse::postgres
