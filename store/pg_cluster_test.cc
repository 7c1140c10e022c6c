// The throw-away PostgreSQL cluster the tests run against (scripts/pg-cluster.sh, started by
// scripts/test.sh): it answers on $GATEHOUSE_TEST_PG_URL, is PostgreSQL 15, is durable, and
// gives each test a database of its own. Skipped, saying why, when no cluster is running; the
// URL helper and OpenStore's answer for a PostgreSQL URL are checked either way.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <cstdlib>
#include <string>

#include "store/open_store.h"
#include "store/pg_test_database.h"
#include "store/store_test_util.h"

namespace gatehouse {
namespace {

using testing::CreatePgTestDatabase;
using testing::DropPgTestDatabase;
using testing::PgExec;
using testing::PgQueryValue;
using testing::PgUrlWithDatabase;

TEST(PgUrlWithDatabaseTest, ReplacesOnlyTheDatabase) {
  EXPECT_EQ(*PgUrlWithDatabase("postgresql://postgres@127.0.0.1:5432/gatehouse_test", "gh_1"),
            "postgresql://postgres@127.0.0.1:5432/gh_1");
  EXPECT_EQ(*PgUrlWithDatabase("postgres://u:pw@db:1/a?sslmode=disable&x=y", "b"),
            "postgres://u:pw@db:1/b?sslmode=disable&x=y");
  EXPECT_EQ(*PgUrlWithDatabase("postgresql://db:1", "b"), "postgresql://db:1/b");
  EXPECT_EQ(*PgUrlWithDatabase("postgresql://db?connect_timeout=3", "b"),
            "postgresql://db/b?connect_timeout=3");
  auto bad = PgUrlWithDatabase("sqlite:/tmp/x.db", "b");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
}

#ifndef GATEHOUSE_HAVE_POSTGRES
// A binary built without store/postgres/ (CMake option GATEHOUSE_POSTGRES off) refuses a
// PostgreSQL URL with a reason, whether or not a server is there.
TEST(OpenStorePostgresTest, SaysTheBackendIsNotBuilt) {
  for (const char* url : {"postgresql://postgres@127.0.0.1:1/x", "postgres://h/x"}) {
    auto s = OpenStore(url);
    ASSERT_FALSE(s.ok()) << url;
    EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument) << url;
    EXPECT_NE(s.status().message().find("without the PostgreSQL backend"), std::string::npos)
        << s.status().ToString();
  }
}
#endif

class PgClusterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* url = std::getenv(testing::kTestPgUrlEnv);
    if (url == nullptr || *url == '\0') {
      GTEST_SKIP() << testing::kTestPgUrlEnv
                   << " is not set: no PostgreSQL test cluster (bash scripts/pg-cluster.sh "
                      "start, or run bash scripts/test.sh)";
    }
    url_ = url;
  }

  std::string url_;
};

TEST_F(PgClusterTest, AnswersAsPostgres15AndIsDurable) {
  auto version = PgQueryValue(url_, "SELECT version()");
  ASSERT_TRUE(version.ok()) << version.status().ToString();
  EXPECT_EQ(version->rfind("PostgreSQL 15.", 0), 0u) << *version;
  // Durability is tested against this cluster, so it must not cut corners.
  for (const char* setting : {"fsync", "synchronous_commit", "full_page_writes"}) {
    auto v = PgQueryValue(url_, std::string("SHOW ") + setting);
    ASSERT_TRUE(v.ok()) << v.status().ToString();
    EXPECT_EQ(*v, "on") << setting;
  }
  auto listen = PgQueryValue(url_, "SHOW listen_addresses");
  ASSERT_TRUE(listen.ok()) << listen.status().ToString();
  EXPECT_EQ(*listen, "127.0.0.1");
}

TEST_F(PgClusterTest, EachTestGetsAFreshDatabaseThatIsDroppedAfter) {
  auto a = CreatePgTestDatabase(url_);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  auto b = CreatePgTestDatabase(url_);
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_NE(a->name, b->name);

  // Fresh: no tables; isolated: what one holds, the other does not.
  auto tables =
      PgQueryValue(a->url,
                   "SELECT count(*) FROM pg_tables WHERE schemaname NOT IN ('pg_catalog', "
                   "'information_schema')");
  ASSERT_TRUE(tables.ok()) << tables.status().ToString();
  EXPECT_EQ(*tables, "0");
  ASSERT_TRUE(PgExec(a->url, "CREATE TABLE t (x int); INSERT INTO t VALUES (42)").ok());
  auto x = PgQueryValue(a->url, "SELECT x FROM t");
  ASSERT_TRUE(x.ok()) << x.status().ToString();
  EXPECT_EQ(*x, "42");
  EXPECT_FALSE(PgQueryValue(b->url, "SELECT x FROM t").ok());

  for (const auto& db : {*a, *b}) {
    Status dropped = DropPgTestDatabase(url_, db.name);
    ASSERT_TRUE(dropped.ok()) << dropped.ToString();
    auto gone =
        PgQueryValue(url_, "SELECT count(*) FROM pg_database WHERE datname = '" + db.name + "'");
    ASSERT_TRUE(gone.ok()) << gone.status().ToString();
    EXPECT_EQ(*gone, "0") << db.name;
    Status reconnect = PgExec(db.url, "SELECT 1");
    EXPECT_EQ(reconnect.code(), StatusCode::kUnavailable) << reconnect.ToString();
  }
  EXPECT_TRUE(DropPgTestDatabase(url_, a->name).ok()) << "dropping twice is fine";
}

// The way the contract suites get their database: the TempDir owns it, and an open connection
// does not keep it alive past the test.
TEST_F(PgClusterTest, ADatabaseGoesWithItsTempDirEvenWhileConnected) {
  std::string name;
  PGconn* left_open = nullptr;
  {
    testing::TempDir dir;
    auto db = CreatePgTestDatabase(url_);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    name = db->name;
    dir.AtRemoval([this, name] {
      Status s = DropPgTestDatabase(url_, name);
      EXPECT_TRUE(s.ok()) << s.ToString();
    });
    left_open = PQconnectdb(db->url.c_str());
    ASSERT_EQ(PQstatus(left_open), CONNECTION_OK) << PQerrorMessage(left_open);
  }
  PQfinish(left_open);
  auto gone = PgQueryValue(url_, "SELECT count(*) FROM pg_database WHERE datname = '" + name + "'");
  ASSERT_TRUE(gone.ok()) << gone.status().ToString();
  EXPECT_EQ(*gone, "0");
}

}  // namespace
}  // namespace gatehouse
