// Test support: a fresh store per test, from whichever backend a suite is instantiated for.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>

#include "store/sqlite/sqlite_store.h"
#include "store/store.h"

namespace gatehouse::testing {

// A temporary directory removed when the object goes out of scope.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "gatehouse-XXXXXX").string();
    char* p = mkdtemp(tmpl.data());
    if (p == nullptr) std::abort();
    path_ = p;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Opens a second (third, ...) store on the same database as `first`, as another process or
// node would. Backends name the database however they like; the factory knows.
struct StoreBackend {
  std::string name;
  // Creates a fresh, empty database for one test and returns a store on it.
  std::function<StorePtr(const TempDir&)> open_fresh;
  // Opens another store on the database that open_fresh made in this TempDir.
  std::function<StorePtr(const TempDir&)> open_again;
};

// The embedded backend: a fresh SQLite file per test.
inline StoreBackend SqliteTestBackend() {
  auto open = [](const TempDir& dir) {
    auto s = OpenSqliteStore(dir.File("gatehouse.db"));
    if (!s.ok()) std::abort();
    return std::move(s).value();
  };
  return StoreBackend{"sqlite", open, open};
}

}  // namespace gatehouse::testing
