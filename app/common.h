// Pieces every subcommand shares: opening the store, the log level flag, error output.
#pragma once

#include <string>

#include "base/flags.h"
#include "store/store.h"

namespace gatehouse::app {

constexpr const char kDefaultDb[] = "./gatehouse.db";

// Applies --log-level; prints a usage error and returns false when it is invalid.
bool ApplyLogLevel(const Flags& flags);

// Opens the SQLite store at --db (default ./gatehouse.db) and migrates it. With
// `must_exist`, a missing file is an error (so a mistyped path does not list an empty store).
Result<StorePtr> OpenStoreFromFlags(const Flags& flags, bool must_exist);

// "gatehouse <cmd>: <message>" on stderr.
void PrintError(const std::string& cmd, const std::string& message);

}  // namespace gatehouse::app
