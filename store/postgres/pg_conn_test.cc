// Tests for the PostgreSQL connection, pool and schema against a real server, named by
// GATEHOUSE_TEST_PG_URL (postgresql://user@127.0.0.1:port/postgres); skipped when it is unset.
// Each test that writes gets a fresh database of its own, dropped at the end.
#include "store/postgres/pg_conn.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <latch>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "store/postgres/pg_pool.h"
#include "store/postgres/pg_schema.h"
#include "store/sqlite/schema.h"

namespace gatehouse::postgres {
namespace {

using namespace std::chrono_literals;

// --- without a server ---

TEST(PgSqlStateTest, ClassifiesTheKindsCallersActOn) {
  EXPECT_EQ(ClassifySqlState("08006"), PgErrorKind::kConnectionLost);
  EXPECT_EQ(ClassifySqlState("08P01"), PgErrorKind::kConnectionLost);
  EXPECT_EQ(ClassifySqlState("57P01"), PgErrorKind::kConnectionLost);
  EXPECT_EQ(ClassifySqlState("40001"), PgErrorKind::kSerialization);
  EXPECT_EQ(ClassifySqlState("40P01"), PgErrorKind::kSerialization);
  EXPECT_EQ(ClassifySqlState("23505"), PgErrorKind::kUniqueViolation);
  EXPECT_EQ(ClassifySqlState("23503"), PgErrorKind::kOther);
  EXPECT_EQ(ClassifySqlState("42601"), PgErrorKind::kOther);
  EXPECT_EQ(ClassifySqlState(""), PgErrorKind::kOther);
}

TEST(PgUrlTest, RedactsPasswords) {
  EXPECT_EQ(RedactPgUrl("postgresql://gh:s3cret@db:5432/gatehouse"),
            "postgresql://gh:***@db:5432/gatehouse");
  EXPECT_EQ(RedactPgUrl("postgres://gh@db/gatehouse?sslmode=require&password=s3cret"),
            "postgres://gh@db/gatehouse?sslmode=require&password=***");
  EXPECT_EQ(RedactPgUrl("host=db user=gh password=s3cret dbname=g"),
            "host=db user=gh password=*** dbname=g");
  EXPECT_EQ(RedactPgUrl("postgresql://gh@127.0.0.1:5432/x"), "postgresql://gh@127.0.0.1:5432/x");
}

TEST(PgConnTest, ConnectFailureIsUnavailableAndNeverShowsThePassword) {
  // Port 1 on loopback refuses at once.
  auto conn = PgConn::Connect("postgresql://postgres:hunter2@127.0.0.1:1/postgres");
  ASSERT_FALSE(conn.ok());
  EXPECT_EQ(conn.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(conn.status().message().find("hunter2"), std::string::npos) << conn.status().message();
  EXPECT_NE(conn.status().message().find("postgres:***@"), std::string::npos);
}

// --- with a server ---

std::string ServerUrl() {
  const char* url = std::getenv("GATEHOUSE_TEST_PG_URL");
  return url ? url : "";
}

std::unique_ptr<PgConn> MustConnect(const std::string& url, const PgConnectOptions& o = {}) {
  auto conn = PgConn::Connect(url, o);
  EXPECT_TRUE(conn.ok()) << conn.status().ToString();
  return conn.ok() ? std::move(conn).value() : nullptr;
}

int64_t SelectInt(PgConn& conn, const std::string& sql, std::initializer_list<PgParam> p = {}) {
  auto r = conn.Exec(sql, p);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? r->Int(0, 0) : -1;
}

class PgServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    url_ = ServerUrl();
    if (url_.empty()) GTEST_SKIP() << "GATEHOUSE_TEST_PG_URL is not set";
    admin_ = MustConnect(url_);
    ASSERT_NE(admin_, nullptr);
    static std::atomic<int> counter{0};
    // A name of digits only, made here: identifiers cannot be statement parameters.
    db_ = "gh_pgtest_" + std::to_string(getpid()) + "_" + std::to_string(counter++);
    ASSERT_TRUE(admin_->ExecScript(("CREATE DATABASE " + db_).c_str()).ok());
  }
  void TearDown() override {
    if (admin_) {
      Status s = admin_->ExecScript(("DROP DATABASE IF EXISTS " + db_ + " WITH (FORCE)").c_str());
      EXPECT_TRUE(s.ok()) << s.ToString();
    }
  }

  PgConnectOptions Fresh() const {
    PgConnectOptions o;
    o.database = db_;
    return o;
  }
  std::unique_ptr<PgConn> Connect() { return MustConnect(url_, Fresh()); }
  std::unique_ptr<PgPool> Pool(int size, std::chrono::milliseconds timeout = 10s) {
    PgPool::Options o;
    o.url = url_;
    o.connect = Fresh();
    o.size = size;
    o.acquire_timeout = timeout;
    auto pool = PgPool::Create(o);
    EXPECT_TRUE(pool.ok());
    return std::move(pool).value();
  }

  std::string url_;
  std::string db_;
  std::unique_ptr<PgConn> admin_;
};

TEST_F(PgServerTest, TypedParametersAndResults) {
  auto conn = Connect();
  ASSERT_NE(conn, nullptr);
  const std::string bytes("a\0b\xff", 4);
  auto r = conn->Exec("SELECT $1::bigint + 1, $2::text, $3::text IS NULL, $4::bytea, $5::bigint",
                      {PgParam::Int(41), PgParam::Text("it's \"quoted\""), PgParam::Null(),
                       PgParam::Bytes(bytes), PgParam::At(std::optional<Time>())});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->rows(), 1);
  EXPECT_EQ(r->Int(0, 0), 42);
  EXPECT_EQ(r->Text(0, 1), "it's \"quoted\"");
  EXPECT_TRUE(r->Bool(0, 2));
  EXPECT_EQ(r->Bytes(0, 3), bytes);
  EXPECT_EQ(r->OptTime(0, 4), std::nullopt);
  EXPECT_EQ(conn->last_error_kind(), PgErrorKind::kNone);
}

TEST_F(PgServerTest, PreparesEachStatementOncePerConnection) {
  auto conn = Connect();
  ASSERT_NE(conn, nullptr);
  const char* sql = "SELECT $1::bigint * $2::bigint";
  for (int i = 1; i <= 5; ++i) {
    auto r = conn->ExecPrepared("test.mul", sql, {PgParam::Int(i), PgParam::Int(10)});
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->Int(0, 0), i * 10);
  }
  EXPECT_EQ(conn->prepared_count(), 1u);
  // The server agrees: one prepared statement by that name in this session.
  EXPECT_EQ(SelectInt(*conn, "SELECT count(*) FROM pg_prepared_statements WHERE name = $1",
                      {PgParam::Text("test.mul")}),
            1);
}

TEST_F(PgServerTest, UniqueViolationIsAlreadyExists) {
  auto conn = Connect();
  ASSERT_NE(conn, nullptr);
  ASSERT_TRUE(conn->ExecScript("CREATE TABLE t (k TEXT PRIMARY KEY)").ok());
  const char* ins = "INSERT INTO t (k) VALUES ($1)";
  ASSERT_TRUE(conn->ExecPrepared("t.ins", ins, {PgParam::Text("a")}).ok());
  auto dup = conn->ExecPrepared("t.ins", ins, {PgParam::Text("a")});
  ASSERT_FALSE(dup.ok());
  EXPECT_EQ(dup.status().code(), StatusCode::kAlreadyExists);
  EXPECT_NE(dup.status().message().find("23505"), std::string::npos);
  EXPECT_EQ(conn->last_error_kind(), PgErrorKind::kUniqueViolation);
  EXPECT_FALSE(conn->broken());
  EXPECT_EQ(SelectInt(*conn, "SELECT count(*) FROM t"), 1);
}

TEST_F(PgServerTest, SyntaxErrorIsInternalWithItsSqlState) {
  auto conn = Connect();
  ASSERT_NE(conn, nullptr);
  auto r = conn->Exec("SELEC 1");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInternal);
  EXPECT_NE(r.status().message().find("42601"), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("syntax error"), std::string::npos);
  EXPECT_EQ(conn->last_error_kind(), PgErrorKind::kOther);
  EXPECT_FALSE(conn->broken());
  EXPECT_EQ(SelectInt(*conn, "SELECT 7"), 7);
}

TEST_F(PgServerTest, TerminatedBackendIsUnavailableAndThePoolReconnects) {
  auto pool = Pool(1);
  int old_pid = 0;
  {
    auto h = pool->Acquire();
    ASSERT_TRUE(h.ok()) << h.status().ToString();
    old_pid = (*h)->backend_pid();
    // From a second connection; the timeout makes it wait until the backend has exited.
    auto killed = admin_->Exec("SELECT pg_terminate_backend($1, 10000)", {PgParam::Int(old_pid)});
    ASSERT_TRUE(killed.ok()) << killed.status().ToString();
    ASSERT_TRUE(killed->Bool(0, 0));

    auto r = (*h)->Exec("SELECT 1");
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kUnavailable) << r.status().ToString();
    EXPECT_EQ((*h)->last_error_kind(), PgErrorKind::kConnectionLost);
    EXPECT_TRUE((*h)->broken());
  }
  EXPECT_EQ(pool->idle(), 0);  // the broken connection was dropped, not kept
  auto h = pool->Acquire();
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_NE((*h)->backend_pid(), old_pid);
  EXPECT_EQ(SelectInt(h->conn(), "SELECT 1"), 1);
}

// What a database restart does to a pool: every idle connection's backend ends while the
// connection rests. The pool replaces such a connection when it is next taken, so the caller's
// first statement works instead of failing with "server closed the connection".
TEST_F(PgServerTest, IdleConnectionTheServerClosedIsReplacedBeforeItIsLent) {
  auto pool = Pool(1);
  int old_pid = 0;
  {
    auto h = pool->Acquire();
    ASSERT_TRUE(h.ok()) << h.status().ToString();
    old_pid = (*h)->backend_pid();
    EXPECT_TRUE((*h)->CheckAtRest());  // nothing arrived on a healthy connection
  }
  ASSERT_EQ(pool->idle(), 1);
  // Waits until the backend has exited, so its FATAL and EOF are on the idle socket.
  auto killed = admin_->Exec("SELECT pg_terminate_backend($1, 10000)", {PgParam::Int(old_pid)});
  ASSERT_TRUE(killed.ok()) << killed.status().ToString();
  ASSERT_TRUE(killed->Bool(0, 0));

  auto h = pool->Acquire();
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_NE((*h)->backend_pid(), old_pid);
  EXPECT_EQ(SelectInt(h->conn(), "SELECT 1"), 1);
  EXPECT_TRUE((*h)->CheckAtRest());
}

TEST_F(PgServerTest, TransactionSetsSynchronousCommitFromDurability) {
  auto conn = Connect();
  ASSERT_NE(conn, nullptr);
  auto show = [&](Durability d) {
    std::string value;
    Status s = conn->RunTransaction(d, [&](PgConn& c) -> Status {
      GH_ASSIGN_OR_RETURN(PgResult r, c.Exec("SHOW synchronous_commit"));
      value = r.Text(0, 0);
      return Status::Ok();
    });
    EXPECT_TRUE(s.ok()) << s.ToString();
    return value;
  };
  EXPECT_EQ(show(Durability::kAcknowledged), "on");
  EXPECT_EQ(show(Durability::kRecoverable), "off");
  // SET LOCAL ends with the transaction: the session keeps the server's default.
  auto r = conn->Exec("SHOW synchronous_commit");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->Text(0, 0), "on");
}

TEST_F(PgServerTest, TransactionRollsBackWhenTheBodyFails) {
  auto conn = Connect();
  ASSERT_NE(conn, nullptr);
  ASSERT_TRUE(conn->ExecScript("CREATE TABLE t (k TEXT PRIMARY KEY)").ok());
  Status s = conn->RunTransaction(Durability::kAcknowledged, [](PgConn& c) -> Status {
    auto r = c.Exec("INSERT INTO t (k) VALUES ($1)", {PgParam::Text("a")});
    if (!r.ok()) return r.status();
    return FailedPrecondition("the body changed its mind");
  });
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(SelectInt(*conn, "SELECT count(*) FROM t"), 0);

  // A failed statement the body ignores still aborts the transaction: COMMIT says so.
  s = conn->RunTransaction(Durability::kAcknowledged, [](PgConn& c) -> Status {
    (void)c.Exec("INSERT INTO t (k) VALUES ($1)", {PgParam::Text("b")});
    (void)c.Exec("SELEC 1");
    return Status::Ok();
  });
  EXPECT_EQ(s.code(), StatusCode::kInternal) << s.ToString();
  EXPECT_EQ(SelectInt(*conn, "SELECT count(*) FROM t"), 0);
}

// A deterministic serialization failure: the body reads a row under REPEATABLE READ, another
// connection updates and commits it, and the body's own update then fails with 40001.
TEST_F(PgServerTest, SerializationFailureRunsTheBodyAgain) {
  auto conn = Connect();
  auto other = Connect();
  ASSERT_NE(conn, nullptr);
  ASSERT_NE(other, nullptr);
  ASSERT_TRUE(conn->ExecScript("CREATE TABLE c (id INT PRIMARY KEY, n BIGINT NOT NULL);"
                               "INSERT INTO c VALUES (1, 0)")
                  .ok());
  auto conflicting_body = [&](int* runs, int conflicts) {
    return [&, runs, conflicts](PgConn& c) -> Status {
      ++*runs;
      GH_ASSIGN_OR_RETURN(PgResult r, c.Exec("SELECT n FROM c WHERE id = 1"));
      if (*runs <= conflicts) {
        auto u = other->Exec("UPDATE c SET n = n + 100 WHERE id = 1");
        if (!u.ok()) return u.status();
      }
      auto u = c.Exec("UPDATE c SET n = $1 WHERE id = 1", {PgParam::Int(r.Int(0, 0) + 1)});
      return u.ok() ? Status::Ok() : u.status();
    };
  };
  PgTransactionOptions rr;
  rr.isolation = PgIsolation::kRepeatableRead;

  int runs = 0;
  Status s = conn->RunTransaction(Durability::kRecoverable, conflicting_body(&runs, 1), rr);
  EXPECT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(runs, 2);
  EXPECT_EQ(SelectInt(*conn, "SELECT n FROM c"), 101);  // no lost update

  runs = 0;
  rr.max_attempts = 3;
  s = conn->RunTransaction(Durability::kRecoverable, conflicting_body(&runs, 100), rr);
  EXPECT_EQ(s.code(), StatusCode::kUnavailable) << s.ToString();
  EXPECT_EQ(conn->last_error_kind(), PgErrorKind::kSerialization);
  EXPECT_EQ(runs, 3);
  EXPECT_FALSE(conn->broken());
  EXPECT_EQ(SelectInt(*conn, "SELECT n FROM c"), 401);  // only the other connection's updates
}

TEST_F(PgServerTest, PoolExhaustionWaitsUntilTheDeadline) {
  auto pool = Pool(2, 50ms);
  auto a = pool->Acquire();
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  // A thread holds one handle at a time: the second is held by a thread of its own until
  // `give_back`.
  std::latch held(1), give_back(1);
  int b_pid = 0;
  std::thread b_holder([&] {
    auto b = pool->Acquire();
    if (b.ok()) b_pid = (*b)->backend_pid();
    held.count_down();
    give_back.wait();
  });
  held.wait();
  ASSERT_NE(b_pid, 0);
  EXPECT_EQ(pool->in_use(), 2);

  // A third thread finds the pool exhausted.
  Status third;
  std::thread([&] {
    auto c = pool->Acquire();
    third = c.ok() ? Status::Ok() : c.status();
  }).join();
  EXPECT_EQ(third.code(), StatusCode::kUnavailable);
  EXPECT_NE(third.message().find("pool exhausted"), std::string::npos) << third.message();

  // A waiter with time to spare gets the connection given back.
  std::latch waiting(1);
  Status fourth = Internal("not run");
  int fourth_pid = 0;
  std::thread waiter([&] {
    waiting.count_down();
    auto c = pool->AcquireUntil(CondVar::Steady::now() + 60s);
    fourth = c.ok() ? Status::Ok() : c.status();
    if (c.ok()) fourth_pid = (*c)->backend_pid();
  });
  waiting.wait();
  give_back.count_down();
  b_holder.join();
  waiter.join();
  EXPECT_TRUE(fourth.ok()) << fourth.ToString();
  EXPECT_EQ(fourth_pid, b_pid);  // the same connection, reused
  EXPECT_EQ(pool->in_use(), 1);
}

TEST_F(PgServerTest, PoolNeverLendsMoreThanItsSize) {
  constexpr int kSize = 3;
  auto pool = Pool(kSize, 60s);
  std::atomic<int> out{0};
  std::atomic<int> most{0};
  std::atomic<int> failures{0};
  std::mutex pids_mu;
  std::set<int> pids;
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 25; ++i) {
        auto h = pool->Acquire();
        if (!h.ok()) {
          ++failures;
          continue;
        }
        const int now_out = ++out;
        int prev = most.load();
        while (now_out > prev && !most.compare_exchange_weak(prev, now_out)) {
        }
        auto r = (*h)->ExecPrepared("pool.one", "SELECT $1::int", {PgParam::Int(i)});
        if (!r.ok() || r->Int(0, 0) != i) ++failures;
        {
          std::lock_guard<std::mutex> lock(pids_mu);
          pids.insert((*h)->backend_pid());
        }
        --out;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_LE(most.load(), kSize);
  EXPECT_LE(static_cast<int>(pids.size()), kSize);
  EXPECT_EQ(pool->in_use(), 0);
}

TEST_F(PgServerTest, NestedAcquireIsCaught) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  auto pool = Pool(4);
  EXPECT_DEATH(
      {
        auto outer = pool->Acquire();
        auto inner = pool->Acquire();
      },
      "nested acquire");
}

TEST_F(PgServerTest, RacingMigrationsApplyOnce) {
  constexpr int kThreads = 8;
  std::vector<std::unique_ptr<PgConn>> conns;
  for (int i = 0; i < kThreads; ++i) {
    conns.push_back(Connect());
    ASSERT_NE(conns.back(), nullptr);
  }
  std::vector<Result<PgSchemaReport>> reports(kThreads, Internal("not run"));
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      reports[i] = MigrateSchema(*conns[i]);
    });
  }
  for (auto& t : threads) t.join();

  const int newest = PgMigrations().back().version;
  int applied = 0;
  for (const auto& r : reports) {
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ(r->version, newest);
    applied += r->applied;
  }
  EXPECT_EQ(applied, static_cast<int>(PgMigrations().size()));
  EXPECT_EQ(SelectInt(*conns[0], "SELECT count(*) FROM schema_migrations"),
            static_cast<int64_t>(PgMigrations().size()));

  // Again: nothing to do.
  auto again = MigrateSchema(*conns[0]);
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_EQ(again->applied, 0);
  EXPECT_EQ(again->version, newest);
}

TEST_F(PgServerTest, SchemaVersionOfAnEmptyDatabaseIsZero) {
  auto conn = Connect();
  ASSERT_NE(conn, nullptr);
  auto v = PgSchemaVersion(*conn);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(*v, 0);
}

// The tables, columns and named indexes SQLite has after all its migrations.
std::map<std::string, std::set<std::string>> SqliteShape() {
  std::map<std::string, std::set<std::string>> shape;
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
  for (const auto& m : sqlite::Migrations()) {
    EXPECT_EQ(sqlite3_exec(db, m.sql, nullptr, nullptr, nullptr), SQLITE_OK) << m.version;
  }
  auto each = [&](const std::string& sql, auto&& fn) {
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sql;
    while (sqlite3_step(st) == SQLITE_ROW) {
      fn(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
    }
    sqlite3_finalize(st);
  };
  std::vector<std::string> tables;
  each("SELECT name FROM sqlite_master WHERE type = 'table'",
       [&](const char* t) { tables.push_back(t); });
  for (const std::string& t : tables) {
    each("SELECT name FROM pragma_table_info('" + t + "')",
         [&](const char* c) { shape[t].insert(c); });
  }
  each("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL",
       [&](const char* i) { shape["(indexes)"].insert(i); });
  sqlite3_close(db);
  return shape;
}

TEST_F(PgServerTest, MigrationOneHasEveryTableColumnAndIndexOfSqlite) {
  auto conn = Connect();
  ASSERT_NE(conn, nullptr);
  ASSERT_TRUE(MigrateSchema(*conn).ok());
  std::map<std::string, std::set<std::string>> pg;
  auto cols = conn->Exec(
      "SELECT table_name, column_name FROM information_schema.columns "
      "WHERE table_schema = 'public' AND table_name <> 'schema_migrations'");
  ASSERT_TRUE(cols.ok()) << cols.status().ToString();
  for (int i = 0; i < cols->rows(); ++i) pg[cols->Text(i, 0)].insert(cols->Text(i, 1));
  // Named indexes only: SQLite names the ones behind keys itself (sql IS NULL), PostgreSQL
  // calls them *_pkey and *_key.
  auto idx = conn->Exec(
      "SELECT indexname FROM pg_indexes WHERE schemaname = 'public' "
      "AND indexname NOT LIKE '%\\_pkey' AND indexname NOT LIKE '%\\_key'");
  ASSERT_TRUE(idx.ok()) << idx.status().ToString();
  for (int i = 0; i < idx->rows(); ++i) pg["(indexes)"].insert(idx->Text(i, 0));
  EXPECT_EQ(pg, SqliteShape());
}

}  // namespace
}  // namespace gatehouse::postgres
