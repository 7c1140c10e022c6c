// PgStore: WorkQueue::Wake, "a freed resource or an operator says: retry now", as
// SqliteStore::Wake (store/sqlite/sqlite_wake.cc) in one statement for the whole batch.
#include <string>
#include <vector>

#include "store/postgres/pg_array.h"
#include "store/postgres/pg_store.h"

namespace gatehouse::postgres {
namespace {

// $1 the keys, $2 now. A pending item that waits for availability is made due now and loses
// its backoff; a running item is marked woken; nothing else is touched. RETURNING gives the
// state the row had (this statement does not change it); as SQLite, which wakes key by key, a
// key named twice counts twice.
//
// One UPDATE for both cases, not one per state: under READ COMMITTED a row that a concurrent
// transaction changes after this statement's snapshot is re-checked against its newest
// version (and SET computed from that one). So a pass that finishes with an unavailable retry
// while the wake runs (the race a freed slot meets: running in the snapshot, pending when
// locked) is made due now, as either serial order would have it; two updates, one for
// running and one for pending rows, would each have skipped it. A row that matches only in
// its newest version (a transient backoff claimed meanwhile) is not seen: that wake is lost,
// which Wake's contract allows (the item keeps its own retry time).
constexpr const char kWakeSql[] =
    "WITH woken AS ("
    " UPDATE work_items SET"
    "  due_at = CASE WHEN state = 'pending' THEN LEAST(due_at, $2::bigint) ELSE due_at END,"
    "  backoff_until = CASE WHEN state = 'pending' THEN NULL ELSE backoff_until END,"
    "  woken = woken OR state = 'running',"
    "  updated_at = $2::bigint"
    " WHERE key = ANY($1::text[])"
    "  AND ((state = 'pending' AND availability_since IS NOT NULL) OR state = 'running')"
    " RETURNING key, state"
    ") "
    "SELECT count(*) FILTER (WHERE w.state = 'pending'),"
    " count(*) FILTER (WHERE w.state = 'running') "
    "FROM unnest($1::text[]) AS k(key) JOIN woken w USING (key)";

}  // namespace

Status PgStore::Wake(std::span<const std::string> keys, Time now) {
  for (const std::string& key : keys) {
    if (key.empty() || key.size() > 512) {
      return InvalidArgument("a work key to wake must be 1..512 bytes, got " +
                             std::to_string(key.size()));
    }
  }
  if (keys.empty()) return Status::Ok();
  BinaryArray key_array(BinaryArray::kText);
  for (const std::string& key : keys) key_array.Add(key);
  int64_t made_due = 0;
  // Recoverable: if lost, the item only waits for the retry_at its last pass chose.
  Status s = Write(Durability::kRecoverable, [&](PgConn& c) -> Status {
    made_due = 0;
    GH_ASSIGN_OR_RETURN(
        PgResult r, c.ExecPrepared("work.wake", kWakeSql, {key_array.Param(), PgParam::At(now)}));
    made_due = r.Int(0, 0);
    const int64_t marked = r.Int(0, 1);
    GH_RETURN_IF_ERROR(Bump(c, "work.woken", made_due + marked));
    return Status::Ok();
  });
  if (s.ok() && made_due > 0) NotifyCommitted(Wakeups::Topic::kWork);
  return s.WithContext("waking work items");
}

}  // namespace gatehouse::postgres
