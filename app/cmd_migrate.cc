// gatehouse migrate: creates the database's schema, or brings it up to this binary's version.
// `gatehouse serve` migrates on start too; this command lets an operator do it first, once, on
// a shared PostgreSQL database before rolling out several nodes (docs/POSTGRES.md).
#include <cstdio>

#include "app/commands.h"
#include "app/common.h"
#include "base/log.h"
#include "store/open_store.h"

namespace gatehouse::app {
namespace {

constexpr const char kMigrateUsage[] = R"(Usage: gatehouse migrate [--db URL]

Creates the database's schema if it has none, or applies the migrations this binary knows and
the database lacks, then prints the schema version. Safe to run while other gatehouse processes
run and at the same time as others: each migration is applied once, under a lock (SQLite: the
write lock; PostgreSQL: an advisory lock). A database newer than this binary is an error.

Options:
  --db URL       a SQLite file (sqlite:PATH or PATH; default ./gatehouse.db; created if
                 absent) or postgresql://USER@HOST:PORT/DB; default $GATEHOUSE_DATABASE_URL
  --log-level L  debug|info|warn|error|off (default info)
  -h, --help     this text
)";

}  // namespace

int RunMigrate(int argc, char** argv) {
  Flags flags({"db", "log-level"}, {});
  Status parsed = flags.Parse(argc, argv, 1);
  if (!parsed.ok() || !flags.positional().empty()) {
    PrintError("migrate",
               parsed.ok() ? "unexpected argument " + flags.positional()[0] : parsed.message());
    std::fputs(kMigrateUsage, stderr);
    return kExitUsage;
  }
  if (flags.Has("help")) {
    std::fputs(kMigrateUsage, stdout);
    return kExitOk;
  }
  if (!ApplyLogLevel(flags)) return kExitUsage;
  auto store = OpenStoreFromFlags(flags, /*must_exist=*/false, /*pool_size=*/1);
  if (!store.ok()) {
    PrintError("migrate", store.status().ToString());
    return kExitFailure;
  }
  auto version = (*store)->SchemaVersion();
  if (!version.ok()) {
    PrintError("migrate", version.status().ToString());
    return kExitFailure;
  }
  std::printf("%s: schema version %d\n", DescribeStoreUrl(DatabaseUrl(flags)).c_str(), *version);
  return kExitOk;
}

}  // namespace gatehouse::app
