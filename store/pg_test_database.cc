#include "store/pg_test_database.h"

#include <libpq-fe.h>

#include <algorithm>
#include <memory>
#include <random>

namespace gatehouse::testing {
namespace {

struct ConnCloser {
  void operator()(PGconn* c) const { PQfinish(c); }
};
struct ResultClearer {
  void operator()(PGresult* r) const { PQclear(r); }
};
using Conn = std::unique_ptr<PGconn, ConnCloser>;
using PgResult = std::unique_ptr<PGresult, ResultClearer>;

// libpq's messages end with a newline; ours do not.
std::string Trimmed(const char* message) {
  std::string s = message == nullptr ? "" : message;
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

Result<Conn> Connect(const std::string& url) {
  Conn conn(PQconnectdb(url.c_str()));
  if (conn == nullptr) return Unavailable("connecting to " + url + ": out of memory");
  if (PQstatus(conn.get()) != CONNECTION_OK) {
    return Unavailable("connecting to " + url + ": " + Trimmed(PQerrorMessage(conn.get())));
  }
  return conn;
}

Result<PgResult> Run(PGconn* conn, const std::string& sql) {
  PgResult r(PQexec(conn, sql.c_str()));
  ExecStatusType st = r == nullptr ? PGRES_FATAL_ERROR : PQresultStatus(r.get());
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
    return Internal("running `" + sql + "`: " + Trimmed(PQerrorMessage(conn)));
  }
  return r;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

Result<std::string> PgUrlWithDatabase(std::string_view url, std::string_view database) {
  std::string_view scheme;
  if (StartsWith(url, "postgresql://")) {
    scheme = "postgresql://";
  } else if (StartsWith(url, "postgres://")) {
    scheme = "postgres://";
  } else {
    return InvalidArgument("not a PostgreSQL URL (postgresql://...): " + std::string(url));
  }
  std::string_view rest = url.substr(scheme.size());
  size_t query = rest.find('?');
  std::string_view params = query == std::string_view::npos ? "" : rest.substr(query);
  std::string_view authority = rest.substr(0, std::min(rest.find('/'), query));
  return std::string(scheme) + std::string(authority) + "/" + std::string(database) +
         std::string(params);
}

Status PgExec(const std::string& url, const std::string& sql) {
  auto conn = Connect(url);
  if (!conn.ok()) return conn.status();
  auto r = Run(conn->get(), sql);
  return r.ok() ? Status::Ok() : r.status();
}

Result<std::string> PgQueryValue(const std::string& url, const std::string& sql) {
  auto conn = Connect(url);
  if (!conn.ok()) return conn.status();
  auto r = Run(conn->get(), sql);
  if (!r.ok()) return r.status();
  if (PQntuples(r->get()) < 1 || PQnfields(r->get()) < 1)
    return NotFound("no row from `" + sql + "`");
  return std::string(PQgetvalue(r->get(), 0, 0));
}

Result<PgTestDatabase> CreatePgTestDatabase(const std::string& cluster_url) {
  static thread_local std::mt19937_64 random{std::random_device{}()};
  std::string name = "gh_";
  for (int i = 0; i < 16; ++i) name += "0123456789abcdef"[random() % 16];
  // The names are ours (gh_ and hex digits), so they need no quoting.
  Status s = PgExec(cluster_url, "CREATE DATABASE " + name);
  if (!s.ok()) return s;
  auto url = PgUrlWithDatabase(cluster_url, name);
  if (!url.ok()) return url.status();
  return PgTestDatabase{std::move(name), std::move(url).value()};
}

Status DropPgTestDatabase(const std::string& cluster_url, const std::string& name) {
  return PgExec(cluster_url, "DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
}

}  // namespace gatehouse::testing
