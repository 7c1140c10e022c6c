// Test support: a fresh store per test, from whichever backend a suite is instantiated for.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "store/open_store.h"
#include "store/pg_test_database.h"
#include "store/sqlite/sqlite_store.h"
#include "store/store.h"

namespace gatehouse::testing {

// The instant the contract suites start their clocks at.
inline const Time kT0 = FromMicros(1'800'000'000'000'000);

// A temporary directory removed when the object goes out of scope, together with whatever was
// made for the test that owns it (AtRemoval), such as its PostgreSQL database.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "gatehouse-XXXXXX").string();
    char* p = mkdtemp(tmpl.data());
    if (p == nullptr) std::abort();
    path_ = p;
  }
  ~TempDir() {
    for (auto it = at_removal_.rbegin(); it != at_removal_.rend(); ++it) (*it)();
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

  // Runs `undo` when the directory is removed, before it is (last registered first). Const
  // because backends receive the directory as `const TempDir&`: the directory stands for the
  // test's database, and undoing is part of removing it.
  void AtRemoval(std::function<void()> undo) const { at_removal_.push_back(std::move(undo)); }

 private:
  std::string path_;
  mutable std::vector<std::function<void()>> at_removal_;
};

// Opens a second (third, ...) store on the same database as `first`, as another process or
// node would. Backends name the database however they like; the factory knows.
struct StoreBackend {
  std::string name;
  // Creates a fresh, empty database for one test and returns a store on it.
  std::function<StorePtr(const TempDir&)> open_fresh;
  // Opens another store on the database that open_fresh made in this TempDir.
  std::function<StorePtr(const TempDir&)> open_again;
  // The URL of that database, for OpenStore in another process (`--db`).
  std::function<std::string(const TempDir&)> url;
};

// The embedded backend: a fresh SQLite file per test.
inline StoreBackend SqliteTestBackend() {
  auto open = [](const TempDir& dir) {
    auto s = OpenSqliteStore(dir.File("gatehouse.db"));
    if (!s.ok()) std::abort();
    return std::move(s).value();
  };
  auto url = [](const TempDir& dir) { return dir.File("gatehouse.db"); };
  return StoreBackend{"sqlite", open, open, url};
}

// A backend's store on `url`, or the test binary stops with the reason: a contract suite whose
// backend cannot open is not a result.
inline StorePtr OpenTestStoreOrDie(const std::string& url) {
  auto s = OpenStore(url);
  if (!s.ok()) {
    std::fprintf(stderr, "cannot open a test store on %s: %s\n", url.c_str(),
                 s.status().ToString().c_str());
    std::abort();
  }
  return std::move(s).value();
}

// The PostgreSQL backend on the test cluster at `cluster_url`: a fresh database per test
// (gh_<random>, dropped with the test's TempDir), opened through OpenStore(url). The
// database's URL is kept in the TempDir, where open_again finds it.
inline StoreBackend PostgresTestBackend(std::string cluster_url) {
  auto fresh = [cluster_url](const TempDir& dir) {
    auto db = CreatePgTestDatabase(cluster_url);
    if (!db.ok()) {
      std::fprintf(stderr, "cannot create a test database on %s: %s\n", cluster_url.c_str(),
                   db.status().ToString().c_str());
      std::abort();
    }
    auto store = OpenStore(db->url);
    if (!store.ok()) {
      (void)DropPgTestDatabase(cluster_url, db->name);
      std::fprintf(stderr, "cannot open a test store on %s: %s\n", db->url.c_str(),
                   store.status().ToString().c_str());
      std::abort();
    }
    dir.AtRemoval([cluster_url, name = db->name] {
      Status s = DropPgTestDatabase(cluster_url, name);
      if (!s.ok()) {
        std::fprintf(stderr, "leaving database %s: %s\n", name.c_str(), s.ToString().c_str());
      }
    });
    std::ofstream(dir.File("postgres.url")) << db->url;
    return std::move(store).value();
  };
  auto url = [](const TempDir& dir) {
    std::string u;
    std::ifstream(dir.File("postgres.url")) >> u;
    if (u.empty()) {
      std::fprintf(stderr, "open_again before open_fresh in %s\n", dir.path().c_str());
      std::abort();
    }
    return u;
  };
  auto again = [url](const TempDir& dir) { return OpenTestStoreOrDie(url(dir)); };
  return StoreBackend{"postgres", fresh, again, url};
}

// The backends every contract suite runs on: SQLite always; PostgreSQL when the build has it
// (GATEHOUSE_HAVE_POSTGRES, CMake option GATEHOUSE_POSTGRES) and a test cluster is running
// ($GATEHOUSE_TEST_PG_URL, which scripts/test.sh exports). A build with the backend but no
// cluster runs SQLite only and says so.
inline std::vector<StoreBackend> ContractBackends() {
  std::vector<StoreBackend> backends{SqliteTestBackend()};
#ifdef GATEHOUSE_HAVE_POSTGRES
  const char* url = std::getenv(kTestPgUrlEnv);
  if (url != nullptr && *url != '\0') {
    backends.push_back(PostgresTestBackend(url));
  } else {
    static bool said = false;
    if (!said) {
      std::fprintf(stderr, "%s is not set: the contract suites skip PostgreSQL\n", kTestPgUrlEnv);
      said = true;
    }
  }
#endif
  return backends;
}

inline std::string BackendName(const ::testing::TestParamInfo<StoreBackend>& p) {
  return p.param.name;
}

}  // namespace gatehouse::testing
