// The PostgreSQL schema as an ordered list of migrations, and the one function that applies
// them. Migration N is applied exactly once, inside one transaction together with its row in
// schema_migrations, under a transaction-scoped advisory lock (pg_advisory_xact_lock), so that
// several processes starting on one database at once apply each migration once and agree on
// the resulting version: the second waits for the lock, then sees the row.
//
// Migration 1 is the SQLite schema as it stands after its migration 7 (store/sqlite/schema.cc),
// table for table, index for index, with the same keys. Never edit a released migration;
// append a new one, and keep the two backends' schemas in step.
#pragma once

#include <span>

#include "base/status.h"
#include "store/postgres/pg_conn.h"

namespace gatehouse::postgres {

struct PgMigration {
  int version;
  const char* name;
  const char* sql;  // constant DDL, run with PgConn::ExecScript
};

std::span<const PgMigration> PgMigrations();

struct PgSchemaReport {
  int version = 0;  // the database's schema version afterwards
  int applied = 0;  // migrations this call applied (0 when another process had done them)
};

// Brings the database `conn` is connected to up to the newest migration. Each migration's
// transaction is kAcknowledged. kFailedPrecondition when the database is newer than this
// binary knows; connection errors as PgConn reports them.
Result<PgSchemaReport> MigrateSchema(PgConn& conn);

// The highest applied migration; 0 for a database that has none.
Result<int> PgSchemaVersion(PgConn& conn);

}  // namespace gatehouse::postgres
