// SQLite-specific behaviour beyond the Store contract: file settings, migrations, durability.
#include "store/sqlite/sqlite_store.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <thread>
#include <vector>

#include "store/sqlite/schema.h"
#include "store/sqlite/sqlite_db.h"
#include "store/store_test_util.h"

namespace gatehouse {
namespace {

using testing::TempDir;

std::string PragmaText(const std::string& path, const char* pragma) {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, pragma, -1, &st, nullptr), SQLITE_OK);
  std::string out;
  if (sqlite3_step(st) == SQLITE_ROW) {
    out = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return out;
}

TEST(SqliteStoreTest, OpensInWalModeWithTheLatestSchema) {
  TempDir dir;
  auto store = OpenSqliteStore(dir.File("g.db"));
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  EXPECT_EQ(PragmaText(dir.File("g.db"), "PRAGMA journal_mode"), "wal");
  auto* sqlite = dynamic_cast<SqliteStore*>(store->get());
  ASSERT_NE(sqlite, nullptr);
  auto v = sqlite->SchemaVersion();
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, sqlite::Migrations().back().version);
}

TEST(SqliteStoreTest, MigrationsApplyOnceEvenWhenManyProcessesStartTogether) {
  TempDir dir;
  const std::string path = dir.File("g.db");
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int i = 0; i < 6; ++i) {
    threads.emplace_back([&] {
      auto s = OpenSqliteStore(path);
      if (!s.ok()) failures.fetch_add(1);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(PragmaText(path, "SELECT COUNT(*) FROM schema_migrations"),
            std::to_string(sqlite::Migrations().size()));
  // Reopening an up-to-date file changes nothing.
  ASSERT_TRUE(OpenSqliteStore(path).ok());
  EXPECT_EQ(PragmaText(path, "SELECT COUNT(*) FROM schema_migrations"),
            std::to_string(sqlite::Migrations().size()));
}

// Switching a fresh file to WAL needs an exclusive lock and SQLite does not wait for it;
// several processes opening a new file at once must all succeed anyway.
TEST(SqliteStoreTest, ManyProcessesOpenAFreshFileAtOnce) {
  for (int round = 0; round < 30; ++round) {
    TempDir dir;
    const std::string path = dir.File("g.db");
    int gate[2];
    ASSERT_EQ(pipe(gate), 0);
    std::vector<pid_t> children;
    for (int i = 0; i < 8; ++i) {
      const pid_t pid = fork();
      ASSERT_GE(pid, 0);
      if (pid == 0) {
        close(gate[1]);
        char c;
        (void)!read(gate[0], &c, 1);  // all children start opening at the same moment
        auto s = OpenSqliteStore(path);
        _exit(s.ok() ? 0 : 1);
      }
      children.push_back(pid);
    }
    close(gate[0]);
    close(gate[1]);  // EOF releases every child at once
    int failures = 0;
    for (pid_t pid : children) {
      int status = 0;
      waitpid(pid, &status, 0);
      if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failures;
    }
    ASSERT_EQ(failures, 0) << "round " << round;
  }
}

TEST(SqliteStoreTest, InboxTableIsReadyForIngress) {
  TempDir dir;
  ASSERT_TRUE(OpenSqliteStore(dir.File("g.db")).ok());
  EXPECT_EQ(PragmaText(dir.File("g.db"),
                       "SELECT COUNT(*) FROM sqlite_master WHERE name IN "
                       "('inbox', 'inbox_conflicts', 'counter_shards', 'work_items')"),
            "4");
}

// Acknowledged writes run with synchronous=FULL, recoverable ones with NORMAL.
TEST(SqliteStoreTest, DurabilitySelectsSynchronousMode) {
  TempDir dir;
  auto db = sqlite::SqliteDb::Open(dir.File("g.db"), {});
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE((*db)->Exec("CREATE TABLE t (x INTEGER)").ok());
  auto synchronous = [&]() {
    auto q = (*db)->Prepare("PRAGMA synchronous");
    EXPECT_TRUE(q.ok());
    auto row = (*q)->Step();
    EXPECT_TRUE(row.ok() && *row);
    return (*q)->Int(0);
  };
  int64_t inside = -1;
  ASSERT_TRUE((*db)
                  ->WriteTransaction(Durability::kAcknowledged,
                                     [&] {
                                       inside = synchronous();
                                       return (*db)->Exec("INSERT INTO t VALUES (1)");
                                     })
                  .ok());
  EXPECT_EQ(inside, 2);  // FULL
  ASSERT_TRUE((*db)
                  ->WriteTransaction(Durability::kRecoverable,
                                     [&] {
                                       inside = synchronous();
                                       return (*db)->Exec("INSERT INTO t VALUES (2)");
                                     })
                  .ok());
  EXPECT_EQ(inside, 1);  // NORMAL
}

TEST(SqliteStoreTest, FailedTransactionRollsBack) {
  TempDir dir;
  auto db = sqlite::SqliteDb::Open(dir.File("g.db"), {});
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE((*db)->Exec("CREATE TABLE t (x INTEGER)").ok());
  Status s = (*db)->WriteTransaction(Durability::kRecoverable, [&] {
    EXPECT_TRUE((*db)->Exec("INSERT INTO t VALUES (1)").ok());
    return Internal("pass failed");
  });
  EXPECT_EQ(s.code(), StatusCode::kInternal);
  EXPECT_EQ(PragmaText(dir.File("g.db"), "SELECT COUNT(*) FROM t"), "0");
}

// A database written before head occurrences (migration 5) keeps its ledger: every row becomes
// occurrence 1 of its SHA, and the rebuilt table still refuses a second row for one key.
TEST(SqliteStoreTest, TheLedgerOfAnOlderDatabaseBecomesOccurrenceOne) {
  TempDir dir;
  const std::string path = dir.File("g.db");
  {
    auto db = sqlite::SqliteDb::Open(path, {});
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE((*db)
                    ->Exec("CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, "
                           "name TEXT NOT NULL, applied_at INTEGER NOT NULL)")
                    .ok());
    for (const sqlite::Migration& m : sqlite::Migrations()) {
      if (m.version > 4) break;
      ASSERT_TRUE((*db)->Exec(m.sql).ok()) << m.name;
      const std::string row =
          "INSERT INTO schema_migrations VALUES (" + std::to_string(m.version) + ", 'old', 0)";
      ASSERT_TRUE((*db)->Exec(row.c_str()).ok());
    }
    // A PR in flight: its merge of aaa was superseded when xxx was pushed; bbb is the head.
    ASSERT_TRUE((*db)
                    ->Exec("INSERT INTO actions (subject, kind, head_sha, detail, state, fence, "
                           "result, created_at, updated_at) VALUES ('acme/app#1', 'merge', "
                           "'aaa', 'squash', 'superseded', 3, '409', 10, 20), ('acme/app#1', "
                           "'label', 'xxx', 'ready', 'done', 4, '', 30, 30)")
                    .ok());
    ASSERT_TRUE((*db)
                    ->Exec("INSERT INTO pr_facts VALUES ('acme/app#1', 'head_seen:aaa', 'aaa', 5), "
                           "('acme/app#1', 'head_seen:xxx', 'xxx', 25), ('acme/app#1', "
                           "'head_seen:bbb', 'bbb', 27), ('acme/app#1', 'reopened', 'alice', 8)")
                    .ok());
  }
  auto store = OpenSqliteStore(path);
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto list = (*store)->ledger().ListActions("acme/app#1");
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 2u);
  EXPECT_EQ((*list)[0].key.head_occurrence, 1);
  EXPECT_EQ((*list)[0].key.detail, "squash");
  EXPECT_EQ((*list)[0].state, ActionState::kSuperseded);
  EXPECT_EQ((*list)[0].result, "409");
  EXPECT_EQ((*list)[1].key.head_occurrence, 1);
  // The heads it had are its first occurrences, in the order gatehouse first saw them (a
  // head_seen fact or, without one, its first ledger row); the facts they came from are gone.
  EXPECT_EQ(PragmaText(path,
                       "SELECT group_concat(head_sha || '@' || observed_at, ' ') FROM "
                       "(SELECT * FROM head_occurrences ORDER BY seq)"),
            "aaa@5 xxx@25 bbb@27");
  EXPECT_EQ(PragmaText(path, "SELECT group_concat(name) FROM pr_facts"), "reopened");
  Signal s{"acme/app#1", "pushed", {}};
  ASSERT_TRUE((*store)->work().Enqueue({&s, 1}, FromMicros(100), Durability::kRecoverable).ok());
  auto leases = (*store)->work().Claim("w", 1, std::chrono::seconds(30), FromMicros(100));
  ASSERT_TRUE(leases.ok() && leases->size() == 1u);
  auto latest = (*store)->ledger().LatestHeadOccurrence("acme/app#1");
  ASSERT_TRUE(latest.ok() && latest->has_value());
  EXPECT_EQ((*latest)->head_sha, "bbb");
  // aaa comes back: its second occurrence, whose merge key the superseded one does not block.
  auto back = (*store)->ledger().StartHeadOccurrence("acme/app#1", "aaa", FromMicros(100),
                                                     (*leases)[0].fence, FromMicros(100));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->occurrence, 2);
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  EXPECT_NE(sqlite3_exec(raw,
                         "INSERT INTO actions (subject, kind, head_sha, head_occurrence, detail, "
                         "state, fence, created_at, updated_at) VALUES ('acme/app#1', 'merge', "
                         "'aaa', 1, 'squash', 'intent', 4, 30, 30)",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(raw,
                         "INSERT INTO actions (subject, kind, head_sha, head_occurrence, detail, "
                         "state, fence, created_at, updated_at) VALUES ('acme/app#1', 'merge', "
                         "'aaa', 2, 'squash', 'intent', 4, 30, 30)",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(raw);
}

TEST(SqliteStoreTest, UnwritablePathIsAClearError) {
  auto s = OpenSqliteStore("/nonexistent-dir/g.db");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("/nonexistent-dir/g.db"), std::string::npos);
}

}  // namespace
}  // namespace gatehouse
