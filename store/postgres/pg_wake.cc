// PgStore: WorkQueue::Wake, "a freed resource or an operator says: retry now", as
// SqliteStore::Wake (store/sqlite/sqlite_wake.cc) in one statement for the whole batch.
#include <string>
#include <vector>

#include "store/postgres/pg_store.h"

namespace gatehouse::postgres {
namespace {

std::string TextArray(std::span<const std::string> values) {
  std::string out = "{";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out.push_back(',');
    out.push_back('"');
    for (char c : values[i]) {
      if (c == '"' || c == '\\') out.push_back('\\');
      out.push_back(c);
    }
    out.push_back('"');
  }
  out.push_back('}');
  return out;
}

// $1 the keys, $2 now. A pending item that waits for availability is made due now and loses
// its backoff; a running item is marked woken; nothing else is touched (the two updates see
// disjoint rows: pending ones and running ones). As SQLite, which wakes key by key, a key
// named twice counts twice.
constexpr const char kWakeSql[] =
    "WITH due AS ("
    " UPDATE work_items SET due_at = LEAST(due_at, $2::bigint), backoff_until = NULL,"
    "  updated_at = $2::bigint"
    " WHERE key = ANY($1::text[]) AND state = 'pending' AND availability_since IS NOT NULL"
    " RETURNING key"
    "), marked AS ("
    " UPDATE work_items SET woken = true, updated_at = $2::bigint"
    " WHERE key = ANY($1::text[]) AND state = 'running'"
    " RETURNING key"
    ") "
    "SELECT (SELECT count(*) FROM unnest($1::text[]) AS k(key) JOIN due USING (key)),"
    " (SELECT count(*) FROM unnest($1::text[]) AS k(key) JOIN marked USING (key))";

}  // namespace

Status PgStore::Wake(std::span<const std::string> keys, Time now) {
  for (const std::string& key : keys) {
    if (key.empty() || key.size() > 512) {
      return InvalidArgument("a work key to wake must be 1..512 bytes, got " +
                             std::to_string(key.size()));
    }
  }
  if (keys.empty()) return Status::Ok();
  int64_t made_due = 0;
  // Recoverable: if lost, the item only waits for the retry_at its last pass chose.
  Status s = Write(Durability::kRecoverable, [&](PgConn& c) -> Status {
    made_due = 0;
    GH_ASSIGN_OR_RETURN(PgResult r, c.ExecPrepared("work.wake", kWakeSql,
                                                   {PgParam::Text(TextArray(keys)),
                                                    PgParam::At(now)}));
    made_due = r.Int(0, 0);
    const int64_t marked = r.Int(0, 1);
    GH_RETURN_IF_ERROR(Bump(c, "work.woken", made_due + marked));
    if (made_due > 0) return NotifyInTx(c, Wakeups::Topic::kWork);
    return Status::Ok();
  });
  if (s.ok() && made_due > 0) NotifyLocal(Wakeups::Topic::kWork);
  return s.WithContext("waking work items");
}

}  // namespace gatehouse::postgres
