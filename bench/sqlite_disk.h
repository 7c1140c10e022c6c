// The disk under a SQLite benchmark: the rate at which it makes a plain SQLite commit durable
// (the baseline every engine figure is a multiple of), what filesystem it is, and the
// housekeeping between phases (flushing other writeback, removing a database's files).
#pragma once

#include <string>

#include "base/status.h"

namespace gatehouse::bench {

// Removes a database and its WAL, shared-memory and journal files.
void RemoveDbFiles(const std::string& path);

// The filesystem holding `dir`, by name ("ext2/3/4", "tmpfs (fsync is free: ...)", ...).
std::string FilesystemName(const std::string& dir);

// Flushes dirty data of the filesystem holding `dir` (ours and other processes'), so that a
// phase's fsyncs do not wait behind writeback it did not cause.
void SyncFilesystem(const std::string& dir);

// Plain sqlite3 on a fresh file at `path` (removed after): one single-row INSERT per
// transaction, WAL and `PRAGMA synchronous=<synchronous>` (FULL: one fsync per commit), 20
// warm-up commits, then `commits` timed ones. Returns commits/s.
Result<double> MeasureRawCommitRate(const std::string& path, const char* synchronous, int commits);

}  // namespace gatehouse::bench
