#include "bench/sqlite_disk.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string_view>

#include "bench/bench_format.h"

namespace gatehouse::bench {

void RemoveDbFiles(const std::string& path) {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    std::filesystem::remove(path + suffix, ec);
  }
}

std::string FilesystemName(const std::string& dir) {
  struct statfs fs;
  if (statfs(dir.c_str(), &fs) != 0) return "unknown";
  switch (static_cast<uint64_t>(fs.f_type)) {
    case 0xEF53:
      return "ext2/3/4";
    case 0x01021994:
      return "tmpfs (fsync is free: not a disk measurement)";
    case 0x58465342:
      return "xfs";
    case 0x9123683E:
      return "btrfs";
    case 0x794C7630:
      return "overlayfs";
    case 0x65735546:
      return "fuse";
    default: {
      char buf[32];
      std::snprintf(buf, sizeof(buf), "type 0x%llx", static_cast<unsigned long long>(fs.f_type));
      return buf;
    }
  }
}

void SyncFilesystem(const std::string& dir) {
  const int fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  (void)syncfs(fd);
  close(fd);
}

namespace {

Status SqliteError(sqlite3* db, std::string_view what) {
  return Internal(std::string(what) + ": " + sqlite3_errmsg(db));
}

}  // namespace

Result<double> MeasureRawCommitRate(const std::string& path, const char* synchronous, int commits) {
  RemoveDbFiles(path);
  sqlite3* raw = nullptr;
  const int open_rc =
      sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  std::unique_ptr<sqlite3, int (*)(sqlite3*)> db(raw, &sqlite3_close_v2);
  if (open_rc != SQLITE_OK) return Unavailable("opening " + path + ": " + sqlite3_errstr(open_rc));
  const std::string setup = std::string("PRAGMA journal_mode=WAL; PRAGMA synchronous=") +
                            synchronous +
                            "; CREATE TABLE signals (id INTEGER PRIMARY KEY, key TEXT NOT NULL,"
                            " at INTEGER NOT NULL);";
  if (sqlite3_exec(db.get(), setup.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) {
    return SqliteError(db.get(), "setting up " + path);
  }
  sqlite3_stmt* stmts[3] = {nullptr, nullptr, nullptr};
  const char* sql[3] = {"BEGIN IMMEDIATE", "INSERT INTO signals (key, at) VALUES (?1, ?2)",
                        "COMMIT"};
  for (int i = 0; i < 3; ++i) {
    if (sqlite3_prepare_v2(db.get(), sql[i], -1, &stmts[i], nullptr) != SQLITE_OK) {
      return SqliteError(db.get(), sql[i]);
    }
  }
  auto commit_one = [&](int i) -> Status {
    const std::string key = "acme/repo#" + std::to_string(i % 500);
    sqlite3_bind_text(stmts[1], 1, key.data(), static_cast<int>(key.size()), SQLITE_TRANSIENT);
    sqlite3_bind_int64(stmts[1], 2, i);
    for (sqlite3_stmt* s : stmts) {
      const int rc = sqlite3_step(s);
      sqlite3_reset(s);
      if (rc != SQLITE_DONE) return SqliteError(db.get(), "raw commit");
    }
    return Status::Ok();
  };
  Status status;
  for (int i = 0; i < 20 && status.ok(); ++i) status = commit_one(i);  // warm-up
  const auto start = Steady::now();
  for (int i = 0; i < commits && status.ok(); ++i) status = commit_one(i);
  const double seconds = SecondsSince(start);
  for (sqlite3_stmt* s : stmts) sqlite3_finalize(s);
  db.reset();
  RemoveDbFiles(path);
  if (!status.ok()) return status;
  return commits / seconds;
}

}  // namespace gatehouse::bench
