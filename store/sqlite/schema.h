// The SQLite schema as an ordered list of migrations. Migration N is applied exactly once,
// inside one BEGIN IMMEDIATE transaction together with its row in schema_migrations, so
// several processes starting on one file at the same time agree on the result.
// Never edit a released migration; append a new one.
#pragma once

#include <span>

namespace gatehouse::sqlite {

struct Migration {
  int version;
  const char* name;
  const char* sql;
};

std::span<const Migration> Migrations();

}  // namespace gatehouse::sqlite
