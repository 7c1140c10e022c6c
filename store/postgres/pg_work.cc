// PgStore: the work queue (store/work_queue.h) on PostgreSQL; Wake is in pg_wake.cc.
//
// The same rules as SqliteStore (store/sqlite/sqlite_work.cc), statement for statement where
// they can be, with what PostgreSQL adds for many processes on one database:
//  - Enqueue folds a whole batch in one upsert (INSERT ... SELECT FROM unnest(...) ON CONFLICT
//    DO UPDATE): the batch is first folded per key in memory (a key may appear once per
//    statement), then applied in key order, so two batches lock their rows in the same order.
//  - Claim is one statement: the expired leases, then the due items, each from its partial
//    index (work_items_lease, work_items_due) in lease/due order and locked FOR UPDATE SKIP
//    LOCKED, so concurrent claimers take disjoint items without waiting for each other; the
//    same statement updates them, returns the leases and adds to the counters.
//  - Every fenced write (Renew, Finish) is conditional on the fence in its WHERE clause: the row
//    lock the UPDATE takes orders it against a concurrent claim.
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "store/fence_outcomes.h"
#include "store/postgres/pg_array.h"
#include "store/postgres/pg_store.h"

namespace gatehouse::postgres {
namespace {

// A count for LIMIT: size_t beyond INT64_MAX means "no limit", never a negative LIMIT.
PgParam Limit(size_t n) {
  return PgParam::Int(static_cast<int64_t>(std::min<size_t>(n, static_cast<size_t>(INT64_MAX))));
}

constexpr const char kWorkItemColumns[] =
    "key, state, requested_gen, claimed_gen, done_gen, reasons, claimed_reasons, due_at, "
    "backoff_until, lease_owner, lease_until, fence, attempts, availability_since, last_error, "
    "created_at, updated_at";

WorkItem ReadWorkItem(const PgResult& r, int row) {
  WorkItem w;
  w.key = r.Text(row, 0);
  ParseWorkState(r.Text(row, 1), &w.state);
  w.requested_gen = r.Int(row, 2);
  w.claimed_gen = r.Int(row, 3);
  w.done_gen = r.Int(row, 4);
  w.reasons = SplitReasons(r.Text(row, 5));
  w.claimed_reasons = SplitReasons(r.Text(row, 6));
  w.due_at = r.OptTime(row, 7);
  w.backoff_until = r.OptTime(row, 8);
  w.lease_owner = r.Text(row, 9);  // NULL reads as ""
  w.lease_until = r.OptTime(row, 10);
  w.fence = r.Int(row, 11);
  w.attempts = static_cast<int>(r.Int(row, 12));
  w.availability_since = r.OptTime(row, 13);
  w.last_error = r.Text(row, 14);
  w.created_at = r.TimeAt(row, 15);
  w.updated_at = r.TimeAt(row, 16);
  return w;
}

// Rule 1 for a batch folded per key ($1 keys, $2 signal counts, $3 joined reasons, $4 the
// earliest due time of the key's signals, $5 now). Applying a key's n signals one by one, as
// SQLite does, gives requested_gen + n, the union of their reasons and
// max(min(due_at, d1, ..., dn), backoff_until): the same as one step with min(d). Every column
// reference on the right of SET sees the row as it was before. LEAST and GREATEST ignore
// NULLs: a NULL due_at takes the new one, a NULL backoff_until is no floor.
constexpr const char kEnqueueSql[] =
    "INSERT INTO work_items AS w (key, state, requested_gen, reasons, due_at, created_at, "
    "updated_at, signalled_at) "
    "SELECT s.k, 'pending', s.n, s.r, s.d, $5::bigint, $5::bigint, $5::bigint "
    "FROM unnest($1::text[], $2::bigint[], $3::text[], $4::bigint[]) AS s(k, n, r, d) "
    "ORDER BY s.k COLLATE \"C\" "
    "ON CONFLICT (key) DO UPDATE SET"
    " requested_gen = w.requested_gen + excluded.requested_gen,"
    " reasons = reason_union(w.reasons, excluded.reasons),"
    " state = CASE w.state WHEN 'idle' THEN 'pending' ELSE w.state END,"
    " due_at = CASE w.state WHEN 'dead' THEN NULL ELSE"
    "   GREATEST(LEAST(w.due_at, excluded.due_at), w.backoff_until) END,"
    " signalled_at = CASE w.state WHEN 'dead' THEN NULL"
    "   ELSE COALESCE(w.signalled_at, excluded.signalled_at) END,"
    " updated_at = excluded.updated_at";

// Rule 2 for up to $2 items in one statement ($1 now, $3 owner, $4 lease_until, $5 the
// counter shard). Expired leases first, as in SQLite: those passes were already under way.
// Each of `expired` and `due` reads its partial index in order and locks what it returns,
// skipping rows another transaction holds (FOR UPDATE is not allowed in a UNION branch, so
// each is a CTE of its own). A WITH query runs only as far as its reader fetches, and the
// LIMIT of `picked` stops fetching once it has $2: `due` runs (and locks) only as far as
// `expired` left room. `picked` carries the state before the update: RETURNING sees the new
// row, and `reclaimed` is about the old one.
//
// Reclaiming an expired lease is a failed attempt (attempts + 1, last_error names the lost
// holder): otherwise a pass that always crashes would be reclaimed forever.
constexpr const char kClaimSql[] =
    "WITH expired AS ("
    " SELECT key, state AS old_state, lease_until AS old_at, signalled_at AS old_signalled"
    "  FROM work_items"
    "  WHERE state = 'running' AND lease_until <= $1::bigint"
    "  ORDER BY lease_until LIMIT $2::bigint FOR UPDATE SKIP LOCKED"
    "), due AS ("
    " SELECT key, state AS old_state, due_at AS old_at, signalled_at AS old_signalled"
    "  FROM work_items"
    "  WHERE state = 'pending' AND due_at <= $1::bigint"
    "  ORDER BY due_at LIMIT $2::bigint FOR UPDATE SKIP LOCKED"
    "), picked AS MATERIALIZED ("
    " SELECT c.key, c.old_state, c.old_at, c.old_signalled FROM ("
    "  SELECT key, old_state, old_at, old_signalled FROM expired"
    "  UNION ALL"
    "  SELECT key, old_state, old_at, old_signalled FROM due"
    " ) c LIMIT $2::bigint"
    "), claimed AS ("
    " UPDATE work_items w SET state = 'running', fence = w.fence + 1,"
    "  claimed_gen = w.requested_gen,"
    "  claimed_reasons = reason_union(w.claimed_reasons, w.reasons),"
    "  reasons = '', due_at = NULL, lease_owner = $3::text, lease_until = $4::bigint,"
    "  updated_at = $1::bigint, woken = false, signalled_at = NULL,"
    "  attempts = w.attempts + CASE WHEN p.old_state = 'running' THEN 1 ELSE 0 END,"
    "  last_error = CASE WHEN p.old_state = 'running' THEN"
    "   'lease expired mid-pass (held by ' || COALESCE(w.lease_owner, '?') || ')'"
    "   ELSE w.last_error END"
    " FROM picked p WHERE w.key = p.key"
    " RETURNING w.key, p.old_state = 'running' AS reclaimed, p.old_at, w.fence, w.claimed_gen,"
    "  w.claimed_reasons, w.attempts, w.availability_since, p.old_signalled"
    "), counted AS ("
    " INSERT INTO counter_shards AS cs (name, shard, value)"
    " SELECT t.name, $5::bigint, t.value FROM ("
    "  SELECT 'work.passes_claimed' AS name, count(*) AS value FROM claimed"
    "  UNION ALL"
    "  SELECT 'work.leases_expired', count(*) FILTER (WHERE reclaimed) FROM claimed"
    " ) t WHERE t.value > 0"
    " ON CONFLICT (name, shard) DO UPDATE SET value = cs.value + excluded.value"
    ") "
    "SELECT key, reclaimed, fence, claimed_gen, claimed_reasons, attempts, availability_since,"
    " old_signalled FROM claimed ORDER BY reclaimed DESC, old_at, key COLLATE \"C\"";

// Rule 3 (and rule 5's fence): a completed pass. Dirty (signals arrived meanwhile): pending,
// due when its signals asked or now; otherwise idle. Budgets and backoff reset.
// Every completed finish of a batch in one statement (keys distinct, sorted, so that
// concurrent batches lock rows in one order); RETURNING names the ones whose fence held.
constexpr const char kFinishCompletedSql[] =
    "UPDATE work_items w SET done_gen = w.claimed_gen, claimed_reasons = '',"
    " state = CASE WHEN w.requested_gen > w.claimed_gen THEN 'pending' ELSE 'idle' END,"
    " due_at = CASE WHEN w.requested_gen > w.claimed_gen THEN COALESCE(w.due_at, $3::bigint)"
    "  ELSE NULL END,"
    " lease_owner = NULL, lease_until = NULL, attempts = 0,"
    " availability_since = NULL, backoff_until = NULL, last_error = '',"
    " woken = false, updated_at = $3::bigint "
    "FROM unnest($1::text[], $2::bigint[]) AS f(key, fence) "
    "WHERE w.key = f.key AND w.fence = f.fence AND w.state = 'running' "
    "RETURNING w.key";

// Rule 6: a retry. Woken while running (Wake): the resource it waited for is back, so it is
// due at once instead of at retry_at. Only an unavailable retry ($8) is hurried: a transient or
// rate-limit backoff holds.
constexpr const char kFinishRetrySql[] =
    "UPDATE work_items SET state = 'pending',"
    " due_at = CASE WHEN woken AND $8::boolean THEN LEAST($3::bigint, $7::bigint)"
    "  ELSE $3::bigint END,"
    " backoff_until = CASE WHEN woken AND $8::boolean THEN NULL ELSE $3::bigint END,"
    " attempts = $4::bigint, availability_since = $5::bigint,"
    " last_error = $6::text, lease_owner = NULL, lease_until = NULL,"
    " woken = false, updated_at = $7::bigint "
    "WHERE key = $1::text AND fence = $2::bigint AND state = 'running'";

constexpr const char kFinishDeadSql[] =
    "UPDATE work_items SET state = 'dead', due_at = NULL,"
    " backoff_until = NULL, attempts = $3::bigint, availability_since = $4::bigint,"
    " last_error = $5::text, lease_owner = NULL, lease_until = NULL,"
    " woken = false, updated_at = $6::bigint "
    "WHERE key = $1::text AND fence = $2::bigint AND state = 'running'";

Status ClaimInTx(PgConn& c, int64_t counter_shard, std::string_view owner, size_t max_items,
                 Duration lease, Time now, std::vector<Lease>* out) {
  if (max_items == 0) return Status::Ok();
  const Time until = now + lease;
  GH_ASSIGN_OR_RETURN(PgResult r,
                      c.ExecPrepared("work.claim", kClaimSql,
                                     {PgParam::At(now), Limit(max_items), PgParam::Text(owner),
                                      PgParam::At(until), PgParam::Int(counter_shard)}));
  for (int i = 0; i < r.rows(); ++i) {
    Lease l;
    l.key = r.Text(i, 0);
    l.reclaimed = r.Bool(i, 1);
    l.fence = r.Int(i, 2);
    l.claimed_gen = r.Int(i, 3);
    l.reasons = SplitReasons(r.Text(i, 4));
    l.attempts = static_cast<int>(r.Int(i, 5));
    l.availability_since = r.OptTime(i, 6);
    l.signalled_at = r.OptTime(i, 7);
    l.owner = std::string(owner);
    l.lease_until = until;
    out->push_back(std::move(l));
  }
  return Status::Ok();
}

// The body of Finish and FinishAndClaim, as SqliteStore::FinishInTx.
Status FinishInTx(PgStore& store, PgConn& c, std::span<const PassFinish> finishes, Time now,
                  std::vector<Status>* out) {
  FinishTally tally;
  // The completed finishes first, together: the steady state of a busy pool. Each key appears
  // once per batch (a pool holds one lease per item), so their order relative to the retries
  // and deaths of other keys does not matter.
  std::map<std::string, int64_t> done;  // key -> fence, sorted
  for (const PassFinish& f : finishes) {
    if (f.kind == PassFinish::Kind::kCompleted) done.emplace(f.key, f.fence);
  }
  std::set<std::string> held;  // completed keys whose fence held
  if (!done.empty()) {
    BinaryArray keys(BinaryArray::kText), fences(BinaryArray::kInt8);
    for (const auto& [key, fence] : done) {
      keys.Add(key);
      fences.AddInt(fence);
    }
    GH_ASSIGN_OR_RETURN(PgResult r,
                        c.ExecPrepared("work.finish_completed", kFinishCompletedSql,
                                       {keys.Param(), fences.Param(), PgParam::At(now)}));
    for (int i = 0; i < r.rows(); ++i) held.insert(r.Text(i, 0));
  }
  for (const PassFinish& f : finishes) {
    bool ok = false;
    switch (f.kind) {
      case PassFinish::Kind::kCompleted: {
        // A key finished twice in one batch: only the finish the statement applied counts.
        auto it = done.find(f.key);
        ok = it != done.end() && it->second == f.fence && held.erase(f.key) == 1;
        break;
      }
      case PassFinish::Kind::kRetry: {
        GH_ASSIGN_OR_RETURN(
            PgResult u,
            c.ExecPrepared("work.finish_retry", kFinishRetrySql,
                           {PgParam::Text(f.key), PgParam::Int(f.fence), PgParam::At(f.retry_at),
                            PgParam::Int(f.attempts), PgParam::At(f.availability_since),
                            PgParam::Text(f.error), PgParam::At(now),
                            PgParam::Text(f.unavailable ? "true" : "false")}));
        ok = u.affected() == 1;
        break;
      }
      case PassFinish::Kind::kDead: {
        GH_ASSIGN_OR_RETURN(
            PgResult u, c.ExecPrepared("work.finish_dead", kFinishDeadSql,
                                       {PgParam::Text(f.key), PgParam::Int(f.fence),
                                        PgParam::Int(f.attempts), PgParam::At(f.availability_since),
                                        PgParam::Text(f.error), PgParam::At(now)}));
        ok = u.affected() == 1;
        break;
      }
    }
    tally.Record(f, ok, out);
  }
  return store.Bumps(c, tally.Counters());
}

}  // namespace

Status PgStore::Enqueue(std::span<const Signal> signals, Time now, Durability durability) {
  for (const Signal& sig : signals) GH_RETURN_IF_ERROR(ValidateSignal(sig));
  if (signals.empty()) return Status::Ok();
  Status s = Write(durability, [&](PgConn& c) -> Status { return EnqueueInTx(c, signals, now); });
  if (s.ok()) NotifyCommitted(Wakeups::Topic::kWork);
  return s;
}

Status PgStore::EnqueueInTx(PgConn& c, std::span<const Signal> signals, Time now) {
  if (signals.empty()) return Status::Ok();
  // Fold the batch per key (ON CONFLICT may touch a row once per statement): every duplicate
  // still counts as one more requested generation. std::map keeps the keys in byte order.
  struct Folded {
    int64_t count = 0;
    std::vector<std::string> reasons;
    Time due;
  };
  std::map<std::string, Folded> by_key;
  for (const Signal& sig : signals) {
    const Time due = now + sig.debounce;
    auto [it, inserted] = by_key.try_emplace(sig.key);
    Folded& f = it->second;
    f.count += 1;
    f.reasons.push_back(sig.reason);
    f.due = inserted ? due : std::min(f.due, due);
  }
  BinaryArray keys(BinaryArray::kText), counts(BinaryArray::kInt8), reasons(BinaryArray::kText),
      dues(BinaryArray::kInt8);
  for (const auto& [key, f] : by_key) {
    keys.Add(key);
    counts.AddInt(f.count);
    reasons.Add(JoinReasons(f.reasons));
    dues.AddInt(ToMicros(f.due));
  }
  Result<PgResult> r = c.ExecPrepared(
      "work.enqueue", kEnqueueSql,
      {keys.Param(), counts.Param(), reasons.Param(), dues.Param(), PgParam::At(now)});
  if (!r.ok()) {
    return r.status().WithContext(by_key.size() == 1
                                      ? "enqueue " + by_key.begin()->first
                                      : "enqueue " + std::to_string(by_key.size()) + " keys");
  }
  return Bump(c, "work.signals", static_cast<int64_t>(signals.size()));
}

// A claim raises fences, and a fence must never be handed out twice. SQLite may commit a claim
// recoverably because what loses it (power) also stops every process that saw it. Here the
// database server can lose an unflushed commit (its own crash, `-m immediate`, a failover to
// an asynchronous standby) while the gatehouse processes that saw the commit keep running:
// the pass that holds fence N+1 would meet a second claim of N+1. So claims are flushed
// (synchronous_commit=on). A claim that finds nothing writes nothing and flushes nothing, and
// concurrent flushes share one WAL write (group commit).
constexpr Durability kClaimDurability = Durability::kAcknowledged;

Result<std::vector<Lease>> PgStore::Claim(std::string_view owner, size_t max_items, Duration lease,
                                          Time now) {
  std::vector<Lease> leases;
  if (max_items == 0) return leases;
  Status s = Write(kClaimDurability, [&](PgConn& c) -> Status {
    leases.clear();
    return ClaimInTx(c, counter_shard_, owner, max_items, lease, now, &leases);
  });
  if (!s.ok()) return s.WithContext("claiming work items");
  return leases;
}

Result<std::vector<Status>> PgStore::Renew(std::span<const LeaseRenewal> renewals, Time now) {
  std::vector<Status> out;
  if (renewals.empty()) return out;
  Status s = Write(Durability::kRecoverable, [&](PgConn& c) -> Status {
    out.clear();
    for (const LeaseRenewal& r : renewals) {
      GH_ASSIGN_OR_RETURN(
          PgResult u,
          c.ExecPrepared("work.renew",
                         "UPDATE work_items SET lease_until = $3::bigint, updated_at = $4::bigint "
                         "WHERE key = $1::text AND fence = $2::bigint AND state = 'running'",
                         {PgParam::Text(r.key), PgParam::Int(r.fence), PgParam::At(r.lease_until),
                          PgParam::At(now)}));
      out.push_back(RenewOutcome(r, u.affected() == 1));
    }
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("renewing leases");
  return out;
}

Result<std::vector<Status>> PgStore::Finish(std::span<const PassFinish> finishes, Time now) {
  std::vector<Status> out;
  if (finishes.empty()) return out;
  Status s = Write(Durability::kRecoverable, [&](PgConn& c) -> Status {
    out.clear();
    return FinishInTx(*this, c, finishes, now, &out);
  });
  if (!s.ok()) return s.WithContext("finishing passes");
  return out;
}

Result<WorkQueue::Cycle> PgStore::FinishAndClaim(std::span<const PassFinish> finishes,
                                                 std::string_view owner, size_t max_items,
                                                 Duration lease, Time now) {
  Cycle cycle;
  if (finishes.empty() && max_items == 0) return cycle;
  Status s =
      Write(max_items > 0 ? kClaimDurability : Durability::kRecoverable, [&](PgConn& c) -> Status {
        cycle.finished.clear();
        cycle.claimed.clear();
        cycle.next_due.reset();
        GH_RETURN_IF_ERROR(FinishInTx(*this, c, finishes, now, &cycle.finished));
        GH_RETURN_IF_ERROR(
            ClaimInTx(c, counter_shard_, owner, max_items, lease, now, &cycle.claimed));
        if (max_items == 0 || cycle.claimed.size() == max_items) return Status::Ok();
        GH_ASSIGN_OR_RETURN(PgResult r, c.ExecPrepared("work.next_due",
                                                       "SELECT min(due_at) FROM work_items "
                                                       "WHERE state = 'pending'"));
        if (r.rows() > 0) cycle.next_due = r.OptTime(0, 0);
        return Status::Ok();
      });
  if (!s.ok()) return s.WithContext("finishing and claiming");
  return cycle;
}

Status PgStore::Rearm(std::string_view key, Time now) {
  Status s = Write(Durability::kAcknowledged, [&](PgConn& c) -> Status {
    GH_ASSIGN_OR_RETURN(PgResult q,
                        c.ExecPrepared("work.rearm_state",
                                       "SELECT state FROM work_items WHERE key = $1::text "
                                       "FOR UPDATE",
                                       {PgParam::Text(key)}));
    if (q.rows() == 0) return NotFound("no work item " + std::string(key));
    const std::string state = q.Text(0, 0);
    if (state != "dead") {
      return FailedPrecondition("work item " + std::string(key) + " is " + state +
                                ", not dead; only dead items can be re-armed");
    }
    GH_RETURN_IF_ERROR(
        c.ExecPrepared("work.rearm",
                       "UPDATE work_items SET state = 'pending', due_at = $2::bigint,"
                       " requested_gen = requested_gen + 1,"
                       " reasons = reason_union(reasons, 'rearmed'), attempts = 0,"
                       " availability_since = NULL, backoff_until = NULL,"
                       " last_error = '', updated_at = $2::bigint, signalled_at = $2::bigint"
                       " WHERE key = $1::text",
                       {PgParam::Text(key), PgParam::At(now)})
            .status());
    return Bump(c, "work.rearmed", 1);
  });
  if (s.ok()) NotifyCommitted(Wakeups::Topic::kWork);
  return s;
}

Result<std::optional<WorkItem>> PgStore::GetWorkItem(std::string_view key) {
  static const std::string sql =
      std::string("SELECT ") + kWorkItemColumns + " FROM work_items WHERE key = $1::text";
  std::optional<WorkItem> out;
  Status s = Read([&](PgConn& c) -> Status {
    GH_ASSIGN_OR_RETURN(PgResult r, c.ExecPrepared("work.get", sql, {PgParam::Text(key)}));
    if (r.rows() > 0) out = ReadWorkItem(r, 0);
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("reading work item " + std::string(key));
  return out;
}

Result<std::vector<WorkItem>> PgStore::ListWorkItems(const WorkFilter& filter) {
  // Ordered by key bytes ("C"), as SQLite's BINARY, whatever the database's collation.
  static const std::string sql =
      std::string("SELECT ") + kWorkItemColumns +
      " FROM work_items WHERE ($2::text IS NULL OR state = $2::text) "
      "AND key COLLATE \"C\" > $3::text COLLATE \"C\" ORDER BY key COLLATE \"C\" LIMIT $1::bigint";
  std::vector<WorkItem> out;
  Status s = Read([&](PgConn& c) -> Status {
    GH_ASSIGN_OR_RETURN(PgResult r,
                        c.ExecPrepared("work.list", sql,
                                       {Limit(filter.limit),
                                        filter.state ? PgParam::Text(WorkStateName(*filter.state))
                                                     : PgParam::Null(),
                                        PgParam::Text(filter.after)}));
    out.clear();
    out.reserve(static_cast<size_t>(r.rows()));
    for (int i = 0; i < r.rows(); ++i) out.push_back(ReadWorkItem(r, i));
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("listing work items");
  return out;
}

Result<WorkSummary> PgStore::SummarizeWork() {
  WorkSummary out;
  Status s = Read([&](PgConn& c) -> Status {
    GH_ASSIGN_OR_RETURN(PgResult r, c.ExecPrepared("work.summary",
                                                   "SELECT state, COUNT(*), MIN(due_at) FROM "
                                                   "work_items GROUP BY state",
                                                   {}));
    out = WorkSummary{};
    for (int i = 0; i < r.rows(); ++i) {
      WorkState state;
      if (!ParseWorkState(r.Text(i, 0), &state)) continue;
      const int64_t n = r.Int(i, 1);
      switch (state) {
        case WorkState::kIdle:
          out.idle = n;
          break;
        case WorkState::kPending:
          out.pending = n;
          if (!r.IsNull(i, 2)) out.oldest_due = r.TimeAt(i, 2);
          break;
        case WorkState::kRunning:
          out.running = n;
          break;
        case WorkState::kDead:
          out.dead = n;
          break;
      }
    }
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("summarizing work items");
  return out;
}

}  // namespace gatehouse::postgres
