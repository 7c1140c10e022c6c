// Pieces every subcommand shares: opening the store, the log level flag, error output.
#pragma once

#include <string>

#include "base/flags.h"
#include "store/store.h"

namespace gatehouse::app {

constexpr const char kDefaultDb[] = "./gatehouse.db";

// Applies --log-level; prints a usage error and returns false when it is invalid.
bool ApplyLogLevel(const Flags& flags);

// The database the command uses: --db, else $GATEHOUSE_DATABASE_URL, else ./gatehouse.db.
std::string DatabaseUrl(const Flags& flags);

// Opens the store DatabaseUrl names (store/open_store.h) and migrates it. With `must_exist`, a
// missing SQLite file is an error (so a mistyped path does not list an empty store).
// `pool_size` and `listen` matter for PostgreSQL only: one-shot commands take the defaults
// (two connections, no listener); `gatehouse serve` sizes its pool (--db-pool) and listens.
Result<StorePtr> OpenStoreFromFlags(const Flags& flags, bool must_exist, int pool_size = 2,
                                    bool listen = false);

// "gatehouse <cmd>: <message>" on stderr.
void PrintError(const std::string& cmd, const std::string& message);

}  // namespace gatehouse::app
