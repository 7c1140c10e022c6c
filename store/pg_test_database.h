// Test support for the PostgreSQL tests: a fresh, uniquely named database per test on the
// throw-away cluster that scripts/pg-cluster.sh starts (scripts/test.sh exports its URL as
// GATEHOUSE_TEST_PG_URL). Talks to the server with libpq directly, never through psql, so a
// test that needs a database needs nothing but the server.
//
// Every function opens its own connection and closes it before returning: safe to call from
// several threads at once. Errors are kUnavailable (no connection) or kInternal (a statement
// the server refused), with libpq's message.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace gatehouse::testing {

// The environment variable that carries the test cluster's URL.
inline constexpr const char* kTestPgUrlEnv = "GATEHOUSE_TEST_PG_URL";

// `url` with its database (the path after host:port) replaced by `database`, keeping user,
// host, port and any ?parameters: ("postgresql://u@h:1/a?x=y", "b") -> "postgresql://u@h:1/b?x=y".
// kInvalidArgument unless `url` starts with postgresql:// or postgres://.
Result<std::string> PgUrlWithDatabase(std::string_view url, std::string_view database);

// Runs `sql` (one or more statements, no parameters) on the database `url` names.
Status PgExec(const std::string& url, const std::string& sql);

// Runs `sql` and returns the first column of its first row; kNotFound if there is no row.
Result<std::string> PgQueryValue(const std::string& url, const std::string& sql);

// A database made for one test.
struct PgTestDatabase {
  std::string name;  // gh_<16 hex digits>
  std::string url;   // the cluster URL with that database
};

// Creates a new, empty database on the cluster `cluster_url` points at (any database of it),
// named gh_ and 16 random hex digits, so that tests and processes never share one.
Result<PgTestDatabase> CreatePgTestDatabase(const std::string& cluster_url);

// Drops the database `name` on that cluster, ending its open connections first (WITH FORCE),
// so a store a test forgot to close cannot keep it alive. OK if it does not exist.
Status DropPgTestDatabase(const std::string& cluster_url, const std::string& name);

}  // namespace gatehouse::testing
