#include "store/postgres/pg_conn.h"

#include <poll.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <cerrno>
#include <cstring>

#include "base/log.h"

namespace gatehouse::postgres {
namespace {

// A "cannot happen": a caller broke the contract. Crash loudly rather than guess.
[[noreturn]] void Fatal(const std::string& what) {
  std::fprintf(stderr, "gatehouse: fatal: %s\n", what.c_str());
  std::abort();
}

std::string Trimmed(const char* text) {
  std::string s = text ? text : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// One round trip opens the transaction and sets its durability (simple protocol, constant
// text). Why these values:
//  - kAcknowledged -> `on`: COMMIT returns once the WAL is flushed to the server's disk, and
//    to every synchronous standby's disk when synchronous replication is configured, so an
//    acknowledged delivery or a ledger intent survives power loss and a failover.
//  - kRecoverable -> `off`: COMMIT returns before the WAL is flushed, as SQLite's NORMAL
//    does in WAL mode. The commit survives a crash of the gatehouse process (the server has
//    it); a crash of the server may lose the last fraction of a second of such commits, which
//    DURABILITY.md allows: a recoverable write (claim, finish, routing) is repaired by running
//    a pass again. A lost recoverable commit cannot reuse a fence: the WAL is sequential, so
//    the next `on` commit (an acknowledged delivery, a ledger intent) flushes every earlier
//    commit with it, and no external effect happens before such a commit.
const char* BeginSql(PgIsolation isolation, Durability durability) {
  const bool ack = durability == Durability::kAcknowledged;
  switch (isolation) {
    case PgIsolation::kReadCommitted:
      return ack ? "BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL synchronous_commit = on"
                 : "BEGIN ISOLATION LEVEL READ COMMITTED; SET LOCAL synchronous_commit = off";
    case PgIsolation::kRepeatableRead:
      return ack ? "BEGIN ISOLATION LEVEL REPEATABLE READ; SET LOCAL synchronous_commit = on"
                 : "BEGIN ISOLATION LEVEL REPEATABLE READ; SET LOCAL synchronous_commit = off";
    case PgIsolation::kSerializable:
      return ack ? "BEGIN ISOLATION LEVEL SERIALIZABLE; SET LOCAL synchronous_commit = on"
                 : "BEGIN ISOLATION LEVEL SERIALIZABLE; SET LOCAL synchronous_commit = off";
  }
  Fatal("unknown isolation level");
}

}  // namespace

PgErrorKind ClassifySqlState(std::string_view sqlstate) {
  if (sqlstate.size() != 5) return PgErrorKind::kOther;
  // Class 08: connection exception. 57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot
  // connect now (starting up or shutting down): the server is going away or not there yet.
  if (sqlstate.substr(0, 2) == "08" || sqlstate == "57P01" || sqlstate == "57P02" ||
      sqlstate == "57P03") {
    return PgErrorKind::kConnectionLost;
  }
  if (sqlstate == "40001" || sqlstate == "40P01") return PgErrorKind::kSerialization;
  if (sqlstate == "23505") return PgErrorKind::kUniqueViolation;
  // 55P03 lock_timeout, 57014 statement_timeout (or a cancel), 25P03 idle in transaction too
  // long: a peer held a lock too long or the server was slow; nothing was written.
  if (sqlstate == "55P03" || sqlstate == "57014" || sqlstate == "25P03") {
    return PgErrorKind::kTimeout;
  }
  return PgErrorKind::kOther;
}

std::string RedactPgUrl(std::string_view url) {
  std::string out(url);
  // postgresql://user:password@host -> postgresql://user:***@host
  const size_t scheme = out.find("://");
  if (scheme != std::string::npos) {
    const size_t start = scheme + 3;
    const size_t at = out.find('@', start);
    const size_t slash = out.find('/', start);
    if (at != std::string::npos && (slash == std::string::npos || at < slash)) {
      const size_t colon = out.find(':', start);
      if (colon != std::string::npos && colon < at) out.replace(colon + 1, at - colon - 1, "***");
    }
  }
  // ?password=... or &password=... (URL) and password=... (key/value conninfo).
  for (size_t pos = out.find("password="); pos != std::string::npos;
       pos = out.find("password=", pos + 1)) {
    const size_t value = pos + std::strlen("password=");
    size_t end = out.find_first_of("& ", value);
    if (end == std::string::npos) end = out.size();
    out.replace(value, end - value, "***");
  }
  return out;
}

// --- PgResult ---

int64_t PgResult::affected() const {
  const char* n = PQcmdTuples(res_.get());
  return (n && *n) ? std::strtoll(n, nullptr, 10) : 0;
}

void PgResult::CheckCell(int row, int col) const {
  if (row < 0 || row >= rows() || col < 0 || col >= columns()) {
    Fatal("PgResult: cell (" + std::to_string(row) + ", " + std::to_string(col) + ") out of range");
  }
}

bool PgResult::IsNull(int row, int col) const {
  CheckCell(row, col);
  return PQgetisnull(res_.get(), row, col) != 0;
}

std::string PgResult::Text(int row, int col) const {
  CheckCell(row, col);
  return std::string(PQgetvalue(res_.get(), row, col),
                     static_cast<size_t>(PQgetlength(res_.get(), row, col)));
}

int64_t PgResult::Int(int row, int col) const {
  CheckCell(row, col);
  const char* begin = PQgetvalue(res_.get(), row, col);
  const char* end = begin + PQgetlength(res_.get(), row, col);
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(begin, end, v);
  if (ec != std::errc() || ptr != end || begin == end) {
    Fatal("PgResult: column " + std::string(PQfname(res_.get(), col)) + " is not an integer");
  }
  return v;
}

bool PgResult::Bool(int row, int col) const {
  CheckCell(row, col);
  const std::string_view v = PQgetvalue(res_.get(), row, col);
  if (v == "t") return true;
  if (v == "f") return false;
  Fatal("PgResult: column " + std::string(PQfname(res_.get(), col)) + " is not a boolean");
}

std::string PgResult::Bytes(int row, int col) const {
  CheckCell(row, col);
  size_t n = 0;
  unsigned char* raw =
      PQunescapeBytea(reinterpret_cast<const unsigned char*>(PQgetvalue(res_.get(), row, col)), &n);
  if (!raw) Fatal("PgResult: out of memory unescaping a bytea");
  std::string out(reinterpret_cast<const char*>(raw), n);
  PQfreemem(raw);
  return out;
}

std::optional<Time> PgResult::OptTime(int row, int col) const {
  if (IsNull(row, col)) return std::nullopt;
  return TimeAt(row, col);
}

// --- PgConn ---

namespace {

// Session settings for every connection (libpq `options`; a URL's own `options` replaces
// them): a statement over 60 s, a lock wait over 20 s, or a transaction left idle for 30 s
// (its client hung or vanished) is ended by the server.
constexpr const char kSessionOptions[] =
    "-c statement_timeout=60000 -c lock_timeout=20000 "
    "-c idle_in_transaction_session_timeout=30000";

}  // namespace

Result<std::unique_ptr<PgConn>> PgConn::Connect(const std::string& url,
                                                const PgConnectOptions& options) {
  const std::string timeout = std::to_string(options.connect_timeout_seconds);
  // Later keywords win, and only the first dbname is expanded as a URL: the defaults come
  // first so that the URL overrides them, and the database override comes last.
  // Bounded waits, so that no call hangs on a dead peer and no dead peer holds locks for
  // long: TCP keepalives and a user timeout notice a vanished server (or client, on the
  // server's side) within about half a minute, and the session's timeouts end a statement or
  // a lock wait that runs far longer than any of gatehouse's (which never wait on anything
  // outside the database inside a transaction). Each ends as a transient kUnavailable.
  std::vector<const char*> keys = {"connect_timeout",  "application_name",    "keepalives",
                                   "keepalives_idle",  "keepalives_interval", "keepalives_count",
                                   "tcp_user_timeout", "options",             "dbname"};
  std::vector<const char*> values = {timeout.c_str(),
                                     options.application_name.c_str(),
                                     "1",
                                     "15",
                                     "5",
                                     "3",
                                     "30000",
                                     kSessionOptions,
                                     url.c_str()};
  if (!options.database.empty()) {
    keys.push_back("dbname");
    values.push_back(options.database.c_str());
  }
  keys.push_back(nullptr);
  values.push_back(nullptr);

  std::string redacted = RedactPgUrl(url);
  if (!options.database.empty()) redacted += " (database " + options.database + ")";
  PGconn* conn = PQconnectdbParams(keys.data(), values.data(), /*expand_dbname=*/1);
  if (!conn) return Unavailable("connecting to " + redacted + ": out of memory");
  if (PQstatus(conn) != CONNECTION_OK) {
    // libpq's message names host and user, never the password.
    std::string msg = Trimmed(PQerrorMessage(conn));
    PQfinish(conn);
    return Unavailable("connecting to " + redacted + ": " + msg);
  }
  // NOTICEs ("relation already exists, skipping") are not errors; keep them off stderr.
  PQsetNoticeProcessor(
      conn, [](void*, const char*) {}, nullptr);
  return std::unique_ptr<PgConn>(new PgConn(conn, std::move(redacted)));
}

PgConn::PgConn(PGconn* conn, std::string redacted_url)
    : conn_(conn), redacted_url_(std::move(redacted_url)) {}

PgConn::~PgConn() { PQfinish(conn_); }

Status PgConn::WaitForNotifications(std::chrono::milliseconds timeout,
                                    std::vector<Notification>* out, int interrupt_fd) {
  auto drain = [&] {
    size_t n = 0;
    while (PGnotify* note = PQnotifies(conn_)) {
      out->push_back({note->relname ? note->relname : "", note->extra ? note->extra : ""});
      PQfreemem(note);
      ++n;
    }
    return n;
  };
  auto lost = [&](const char* what) {
    lost_ = true;
    last_error_kind_ = PgErrorKind::kConnectionLost;
    return Unavailable(std::string("waiting for notifications on ") + redacted_url_ + ": " +
                       what + ": " + Trimmed(PQerrorMessage(conn_)));
  };
  if (broken()) return lost("connection is broken");
  if (drain() > 0) return Status::Ok();
  const int fd = PQsocket(conn_);
  if (fd < 0) return lost("no socket");
  pollfd p[2] = {{fd, POLLIN, 0}, {interrupt_fd, POLLIN, 0}};
  const int rc = ::poll(p, interrupt_fd >= 0 ? 2 : 1, static_cast<int>(timeout.count()));
  if (rc < 0) {
    if (errno == EINTR) return Status::Ok();
    return lost("poll failed");
  }
  if (rc == 0 || (p[0].revents == 0)) return Status::Ok();
  if (PQconsumeInput(conn_) == 0) return lost("reading");
  drain();
  if (PQstatus(conn_) != CONNECTION_OK) return lost("connection closed");
  return Status::Ok();
}

bool PgConn::broken() const { return lost_ || PQstatus(conn_) != CONNECTION_OK; }

bool PgConn::CheckAtRest() {
  if (broken()) return false;
  const int fd = PQsocket(conn_);
  pollfd p{fd, POLLIN, 0};
  if (fd >= 0 && ::poll(&p, 1, 0) == 0) return true;  // nothing arrived: usable as far as known
  // Readable (a termination notice, EOF, a reset) or unpollable: not worth a statement to find
  // out which; a new connection is cheap.
  lost_ = true;
  last_error_kind_ = PgErrorKind::kConnectionLost;
  return false;
}

Result<PgResult> PgConn::Finish(PGresult* res, std::string_view what) {
  const ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
  if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) {
    last_error_kind_ = PgErrorKind::kNone;
    return PgResult(res);
  }
  const char* state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : nullptr;
  const std::string sqlstate = state ? state : "";
  std::string msg = Trimmed(res ? PQresultErrorMessage(res) : PQerrorMessage(conn_));
  if (msg.empty()) msg = Trimmed(PQerrorMessage(conn_));
  if (res) PQclear(res);

  PgErrorKind kind = ClassifySqlState(sqlstate);
  if (PQstatus(conn_) != CONNECTION_OK) kind = PgErrorKind::kConnectionLost;
  last_error_kind_ = kind;
  const std::string where = std::string(what) + ": SQLSTATE " +
                            (sqlstate.empty() ? std::string("none") : sqlstate) + ": " + msg;
  switch (kind) {
    case PgErrorKind::kConnectionLost:
      lost_ = true;
      return Unavailable("postgres connection to " + redacted_url_ + " lost: " + where);
    case PgErrorKind::kSerialization:
      return Unavailable("postgres serialization failure: " + where);
    case PgErrorKind::kUniqueViolation:
      return AlreadyExists("postgres unique violation: " + where);
    case PgErrorKind::kTimeout:
      return Unavailable("postgres timeout: " + where);
    case PgErrorKind::kNone:
    case PgErrorKind::kOther:
      break;
  }
  last_error_kind_ = PgErrorKind::kOther;
  return Internal("postgres: " + where);
}

namespace {

// The arrays PQexecParams and PQexecPrepared take, pointing into `params`.
struct WireParams {
  explicit WireParams(std::span<const PgParam> params) {
    for (const PgParam& p : params) {
      values.push_back(p.value() ? p.value()->data() : nullptr);
      lengths.push_back(p.value() ? static_cast<int>(p.value()->size()) : 0);
      formats.push_back(p.binary() ? 1 : 0);
    }
  }
  int count() const { return static_cast<int>(values.size()); }
  std::vector<const char*> values;
  std::vector<int> lengths;
  std::vector<int> formats;
};

}  // namespace

Result<PgResult> PgConn::Exec(std::string_view sql, std::span<const PgParam> params) {
  const std::string text(sql);
  const WireParams wire(params);
  PGresult* res = PQexecParams(conn_, text.c_str(), wire.count(), /*paramTypes=*/nullptr,
                               wire.values.data(), wire.lengths.data(), wire.formats.data(),
                               /*resultFormat=*/0);
  return Finish(res, text.substr(0, text.find_first_of("\n(")));
}

Status PgConn::Prepare(const std::string& name, std::string_view sql) {
  auto it = prepared_.find(name);
  if (it != prepared_.end()) {
    if (it->second != sql) Fatal("prepared statement '" + name + "' reused with another SQL text");
    return Status::Ok();
  }
  const std::string text(sql);
  PGresult* res = PQprepare(conn_, name.c_str(), text.c_str(), 0, /*paramTypes=*/nullptr);
  Result<PgResult> r = Finish(res, "preparing " + name);
  if (!r.ok()) return r.status();
  prepared_.emplace(name, text);
  return Status::Ok();
}

Result<PgResult> PgConn::ExecPrepared(const std::string& name, std::string_view sql,
                                      std::span<const PgParam> params) {
  GH_RETURN_IF_ERROR(Prepare(name, sql));
  const WireParams wire(params);
  PGresult* res = PQexecPrepared(conn_, name.c_str(), wire.count(), wire.values.data(),
                                 wire.lengths.data(), wire.formats.data(), /*resultFormat=*/0);
  return Finish(res, name);
}

Status PgConn::ExecScript(const char* sql) {
  Result<PgResult> r = Finish(PQexec(conn_, sql), "script");
  return r.ok() ? Status::Ok() : r.status();
}

Status PgConn::RunTransaction(Durability durability, const std::function<Status(PgConn&)>& body,
                              const PgTransactionOptions& options) {
  if (in_transaction_) Fatal("PgConn::RunTransaction called inside a transaction");
  const int attempts = options.max_attempts < 1 ? 1 : options.max_attempts;
  Status s;
  for (int attempt = 1; attempt <= attempts; ++attempt) {
    s = RunOnce(durability, body, options.isolation);
    if (s.ok() || last_error_kind_ != PgErrorKind::kSerialization) return s;
    Log(LogLevel::kDebug, "postgres.transaction_retry")
        .Field("attempt", attempt)
        .Field("error", s.message());
  }
  return s.WithContext("gave up after " + std::to_string(attempts) + " attempts");
}

Status PgConn::RunOnce(Durability durability, const std::function<Status(PgConn&)>& body,
                       PgIsolation isolation) {
  commit_outcome_unknown_ = false;
  Result<PgResult> begun = Finish(PQexec(conn_, BeginSql(isolation, durability)), "BEGIN");
  if (!begun.ok()) {
    if (!broken()) Rollback();
    return begun.status();
  }
  in_transaction_ = true;
  Status s = body(*this);
  if (!s.ok()) {
    Rollback();
    in_transaction_ = false;
    return s;
  }
  s = Commit();
  in_transaction_ = false;
  return s;
}

Status PgConn::Commit() {
  PGresult* res = PQexec(conn_, "COMMIT");
  // An aborted transaction "commits" as ROLLBACK without an error: a statement of the body
  // failed and the body went on regardless.
  const bool rolled_back = res && PQresultStatus(res) == PGRES_COMMAND_OK &&
                           std::strcmp(PQcmdStatus(res), "COMMIT") != 0;
  Result<PgResult> r = Finish(res, "COMMIT");
  if (!r.ok()) {
    if (last_error_kind_ == PgErrorKind::kConnectionLost) {
      commit_outcome_unknown_ = true;
      return r.status().WithContext("commit outcome unknown");
    }
    return r.status();
  }
  if (rolled_back) {
    last_error_kind_ = PgErrorKind::kOther;
    return Internal("postgres: transaction rolled back at COMMIT: a statement failed earlier");
  }
  return Status::Ok();
}

void PgConn::Rollback() {
  if (broken()) return;
  PGresult* res = PQexec(conn_, "ROLLBACK");
  // A session that cannot roll back is in an unknown state: make the pool drop it. The
  // caller's error (last_error_kind_) stays what the body met.
  if (!res || PQresultStatus(res) != PGRES_COMMAND_OK) lost_ = true;
  if (res) PQclear(res);
}

}  // namespace gatehouse::postgres
