// SqliteStore: the work queue (store/work_queue.h) — signals coalesced into one row per key,
// claims with leases and fencing tokens, renewals, finishes, rearming, and the reads behind
// the operator surface. Every write is one transaction; the reasons of coalesced signals are
// merged inside the UPSERT by reason_union() (registered when the store opens).
#include <sqlite3.h>

#include <string>

#include "store/fence_outcomes.h"
#include "store/sqlite/sqlite_store.h"

namespace gatehouse {
namespace {

constexpr const char kWorkItemColumns[] =
    "key, state, requested_gen, claimed_gen, done_gen, reasons, claimed_reasons, due_at, "
    "backoff_until, lease_owner, lease_until, fence, attempts, availability_since, last_error, "
    "created_at, updated_at";

WorkItem ReadWorkItem(const sqlite::Stmt& s) {
  WorkItem w;
  w.key = s.Text(0);
  ParseWorkState(s.Text(1), &w.state);
  w.requested_gen = s.Int(2);
  w.claimed_gen = s.Int(3);
  w.done_gen = s.Int(4);
  w.reasons = SplitReasons(s.Text(5));
  w.claimed_reasons = SplitReasons(s.Text(6));
  w.due_at = s.OptTime(7);
  w.backoff_until = s.OptTime(8);
  w.lease_owner = s.Text(9);
  w.lease_until = s.OptTime(10);
  w.fence = s.Int(11);
  w.attempts = static_cast<int>(s.Int(12));
  w.availability_since = s.OptTime(13);
  w.last_error = s.Text(14);
  w.created_at = s.TimeAt(15);
  w.updated_at = s.TimeAt(16);
  return w;
}

}  // namespace

Status SqliteStore::Enqueue(std::span<const Signal> signals, Time now, Durability durability) {
  for (const Signal& sig : signals) GH_RETURN_IF_ERROR(ValidateSignal(sig));
  if (signals.empty()) return Status::Ok();
  Status s;
  {
    MutexLock lock(&mu_);
    s = db_->WriteTransaction(durability,
                              [&]() REQUIRES(mu_) -> Status { return EnqueueInTx(signals, now); });
  }
  if (s.ok()) wakeups_.Notify(Wakeups::Topic::kWork);
  return s;
}

Status SqliteStore::EnqueueInTx(std::span<const Signal> signals, Time now) {
  {
    for (const Signal& sig : signals) {
      const Time due = now + sig.debounce;
      // Fast path, the common case under a burst: the item already waits for a pass that is
      // due no later than this signal wants (or is dead). Only the generation and reasons
      // change; no indexed column is assigned, so no index page is rewritten.
      GH_ASSIGN_OR_RETURN(auto fast,
                          db_->Prepare("UPDATE work_items SET requested_gen = requested_gen + 1,"
                                       " reasons = reason_union(reasons, ?2), updated_at = ?4,"
                                       " signalled_at = CASE state WHEN 'dead' THEN NULL"
                                       "  ELSE COALESCE(signalled_at, ?4) END "
                                       "WHERE key = ?1 AND (state = 'dead' OR (state IN ('pending',"
                                       " 'running') AND due_at IS NOT NULL AND due_at <= ?3))"));
      fast->Bind(1, sig.key).Bind(2, sig.reason).Bind(3, due).Bind(4, now);
      GH_RETURN_IF_ERROR(fast->Run().WithContext("enqueue " + sig.key));
      if (sqlite3_changes(db_->raw()) == 1) continue;
      // General case, rule 1 in one statement. Every column reference on the right of SET
      // sees the row as it was before.
      GH_ASSIGN_OR_RETURN(
          auto q,
          db_->Prepare(
              "INSERT INTO work_items (key, state, requested_gen, reasons, due_at, created_at, "
              "updated_at, signalled_at) VALUES (?1, 'pending', 1, ?2, ?3, ?4, ?4, ?4) "
              "ON CONFLICT (key) DO UPDATE SET "
              " requested_gen = requested_gen + 1,"
              " reasons = reason_union(reasons, excluded.reasons),"
              " state = CASE state WHEN 'idle' THEN 'pending' ELSE state END,"
              " due_at = CASE state WHEN 'dead' THEN NULL ELSE"
              "   MAX(MIN(COALESCE(due_at, excluded.due_at), excluded.due_at),"
              "       COALESCE(backoff_until, 0)) END,"
              " signalled_at = CASE state WHEN 'dead' THEN NULL"
              "  ELSE COALESCE(signalled_at, excluded.signalled_at) END,"
              " updated_at = excluded.updated_at"));
      q->Bind(1, sig.key).Bind(2, sig.reason).Bind(3, due).Bind(4, now);
      GH_RETURN_IF_ERROR(q->Run().WithContext("enqueue " + sig.key));
    }
    return Bump("work.signals", static_cast<int64_t>(signals.size()));
  }
}

Result<std::vector<Lease>> SqliteStore::Claim(std::string_view owner, size_t max_items,
                                              Duration lease, Time now) {
  std::vector<Lease> leases;
  if (max_items == 0) return leases;
  MutexLock lock(&mu_);
  Status s = db_->WriteTransaction(Durability::kRecoverable, [&]() REQUIRES(mu_) -> Status {
    leases.clear();
    return ClaimInTx(owner, max_items, lease, now, &leases);
  });
  if (!s.ok()) return s.WithContext("claiming work items");
  return leases;
}

Status SqliteStore::ClaimInTx(std::string_view owner, size_t max_items, Duration lease, Time now,
                              std::vector<Lease>* out) {
  if (max_items == 0) return Status::Ok();
  // Expired leases first: those passes were already under way. INDEXED BY pins the partial
  // indexes: without statistics the planner may otherwise scan every pending row and sort.
  struct Picked {
    std::string key;
    bool reclaimed;
    std::optional<Time> signalled_at;
  };
  std::vector<Picked> keys;
  {
    GH_ASSIGN_OR_RETURN(auto q, db_->Prepare("SELECT key, signalled_at FROM work_items "
                                             "INDEXED BY work_items_lease "
                                             "WHERE state = 'running' AND lease_until <= ?1 "
                                             "ORDER BY lease_until LIMIT ?2"));
    q->Bind(1, now).Bind(2, static_cast<int64_t>(max_items));
    while (true) {
      GH_ASSIGN_OR_RETURN(bool row, q->Step());
      if (!row) break;
      keys.push_back(Picked{q->Text(0), true, q->OptTime(1)});
    }
  }
  if (keys.size() < max_items) {
    GH_ASSIGN_OR_RETURN(auto q, db_->Prepare("SELECT key, signalled_at FROM work_items "
                                             "INDEXED BY work_items_due "
                                             "WHERE state = 'pending' AND due_at <= ?1 "
                                             "ORDER BY due_at LIMIT ?2"));
    q->Bind(1, now).Bind(2, static_cast<int64_t>(max_items - keys.size()));
    while (true) {
      GH_ASSIGN_OR_RETURN(bool row, q->Step());
      if (!row) break;
      keys.push_back(Picked{q->Text(0), false, q->OptTime(1)});
    }
  }
  const Time until = now + lease;
  int64_t reclaimed = 0;
  for (const auto& [key, was_running, signalled_at] : keys) {
    GH_ASSIGN_OR_RETURN(auto u,
                        db_->Prepare("UPDATE work_items SET state = 'running', fence = fence + 1, "
                                     " claimed_gen = requested_gen,"
                                     " claimed_reasons = reason_union(claimed_reasons, reasons),"
                                     " reasons = '', due_at = NULL, lease_owner = ?2,"
                                     " lease_until = ?3, updated_at = ?4, woken = 0,"
                                     " signalled_at = NULL,"
                                     // An expired lease is a failed attempt: the pass hung or
                                     // its process died. Otherwise a pass that always crashes
                                     // would be reclaimed forever.
                                     " attempts = attempts + (state = 'running'),"
                                     " last_error = CASE state WHEN 'running' THEN"
                                     "   'lease expired mid-pass (held by ' ||"
                                     "   COALESCE(lease_owner, '?') || ')' ELSE last_error END "
                                     "WHERE key = ?1 "
                                     "RETURNING fence, claimed_gen, claimed_reasons, attempts, "
                                     " availability_since"));
    u->Bind(1, key).Bind(2, owner).Bind(3, until).Bind(4, now);
    GH_ASSIGN_OR_RETURN(bool row, u->Step());
    if (!row) return Internal("claimed key vanished: " + key);
    Lease l;
    l.key = key;
    l.fence = u->Int(0);
    l.claimed_gen = u->Int(1);
    l.reasons = SplitReasons(u->Text(2));
    l.attempts = static_cast<int>(u->Int(3));
    l.availability_since = u->OptTime(4);
    l.owner = std::string(owner);
    l.lease_until = until;
    l.reclaimed = was_running;
    l.signalled_at = signalled_at;
    reclaimed += was_running ? 1 : 0;
    GH_RETURN_IF_ERROR(u->Run());
    out->push_back(std::move(l));
  }
  GH_RETURN_IF_ERROR(Bump("work.passes_claimed", static_cast<int64_t>(out->size())));
  return Bump("work.leases_expired", reclaimed);
}

Result<std::vector<Status>> SqliteStore::Renew(std::span<const LeaseRenewal> renewals, Time now) {
  std::vector<Status> out;
  if (renewals.empty()) return out;
  MutexLock lock(&mu_);
  Status s = db_->WriteTransaction(Durability::kRecoverable, [&]() REQUIRES(mu_) -> Status {
    out.clear();
    for (const LeaseRenewal& r : renewals) {
      GH_ASSIGN_OR_RETURN(auto u, db_->Prepare("UPDATE work_items SET lease_until = ?3, "
                                               "updated_at = ?4 WHERE key = ?1 AND fence = ?2 "
                                               "AND state = 'running'"));
      u->Bind(1, r.key).Bind(2, r.fence).Bind(3, r.lease_until).Bind(4, now);
      GH_RETURN_IF_ERROR(u->Run());
      out.push_back(RenewOutcome(r, sqlite3_changes(db_->raw()) == 1));
    }
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("renewing leases");
  return out;
}

Result<std::vector<Status>> SqliteStore::Finish(std::span<const PassFinish> finishes, Time now) {
  std::vector<Status> out;
  if (finishes.empty()) return out;
  MutexLock lock(&mu_);
  Status s = db_->WriteTransaction(Durability::kRecoverable, [&]() REQUIRES(mu_) -> Status {
    out.clear();
    return FinishInTx(finishes, now, &out);
  });
  if (!s.ok()) return s.WithContext("finishing passes");
  return out;
}

Result<WorkQueue::Cycle> SqliteStore::FinishAndClaim(std::span<const PassFinish> finishes,
                                                     std::string_view owner, size_t max_items,
                                                     Duration lease, Time now) {
  Cycle cycle;
  if (finishes.empty() && max_items == 0) return cycle;
  MutexLock lock(&mu_);
  Status s = db_->WriteTransaction(Durability::kRecoverable, [&]() REQUIRES(mu_) -> Status {
    cycle.finished.clear();
    cycle.claimed.clear();
    cycle.next_due.reset();
    GH_RETURN_IF_ERROR(FinishInTx(finishes, now, &cycle.finished));
    GH_RETURN_IF_ERROR(ClaimInTx(owner, max_items, lease, now, &cycle.claimed));
    if (max_items == 0 || cycle.claimed.size() == max_items) return Status::Ok();
    GH_ASSIGN_OR_RETURN(auto q, db_->Prepare("SELECT MIN(due_at) FROM work_items "
                                             "INDEXED BY work_items_due WHERE state = 'pending'"));
    GH_ASSIGN_OR_RETURN(bool row, q->Step());
    if (row) cycle.next_due = q->OptTime(0);
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("finishing and claiming");
  return cycle;
}

Status SqliteStore::FinishInTx(std::span<const PassFinish> finishes, Time now,
                               std::vector<Status>* out) {
  FinishTally tally;
  for (const PassFinish& f : finishes) {
    std::unique_ptr<sqlite::Stmt> u;
    switch (f.kind) {
      case PassFinish::Kind::kCompleted: {
        GH_ASSIGN_OR_RETURN(
            u, db_->Prepare(
                   "UPDATE work_items SET done_gen = claimed_gen, claimed_reasons = '',"
                   " state = CASE WHEN requested_gen > claimed_gen THEN 'pending' ELSE 'idle' "
                   "END,"
                   " due_at = CASE WHEN requested_gen > claimed_gen THEN COALESCE(due_at, ?3) "
                   "ELSE NULL END,"
                   " lease_owner = NULL, lease_until = NULL, attempts = 0,"
                   " availability_since = NULL, backoff_until = NULL, last_error = '',"
                   " woken = 0, updated_at = ?3 "
                   "WHERE key = ?1 AND fence = ?2 AND state = 'running'"));
        u->Bind(1, f.key).Bind(2, f.fence).Bind(3, now);
        break;
      }
      case PassFinish::Kind::kRetry: {
        GH_ASSIGN_OR_RETURN(
            // Woken while running (Wake): the resource it waited for is back, so it is due
            // at once instead of at retry_at.
            // Only an unavailable retry (?8) is hurried: a transient or rate-limit backoff holds.
            u, db_->Prepare("UPDATE work_items SET state = 'pending',"
                            " due_at = CASE WHEN woken = 1 AND ?8 = 1 THEN MIN(?3, ?7) ELSE ?3 END,"
                            " backoff_until = CASE WHEN woken = 1 AND ?8 = 1 THEN NULL ELSE ?3 END,"
                            " attempts = ?4, availability_since = ?5,"
                            " last_error = ?6, lease_owner = NULL, lease_until = NULL,"
                            " woken = 0, updated_at = ?7 "
                            "WHERE key = ?1 AND fence = ?2 AND state = 'running'"));
        u->Bind(1, f.key).Bind(2, f.fence).Bind(3, f.retry_at);
        u->Bind(4, static_cast<int64_t>(f.attempts)).Bind(5, f.availability_since);
        u->Bind(6, f.error).Bind(7, now).Bind(8, static_cast<int64_t>(f.unavailable ? 1 : 0));
        break;
      }
      case PassFinish::Kind::kDead: {
        GH_ASSIGN_OR_RETURN(
            u, db_->Prepare("UPDATE work_items SET state = 'dead', due_at = NULL,"
                            " backoff_until = NULL, attempts = ?3, availability_since = ?4,"
                            " last_error = ?5, lease_owner = NULL, lease_until = NULL,"
                            " woken = 0, updated_at = ?6 "
                            "WHERE key = ?1 AND fence = ?2 AND state = 'running'"));
        u->Bind(1, f.key).Bind(2, f.fence).Bind(3, static_cast<int64_t>(f.attempts));
        u->Bind(4, f.availability_since).Bind(5, f.error).Bind(6, now);
        break;
      }
    }
    GH_RETURN_IF_ERROR(u->Run());
    tally.Record(f, sqlite3_changes(db_->raw()) == 1, out);
  }
  for (const CounterDelta& d : tally.Counters()) GH_RETURN_IF_ERROR(Bump(d.name, d.delta));
  return Status::Ok();
}

Status SqliteStore::Rearm(std::string_view key, Time now) {
  Status s;
  {
    MutexLock lock(&mu_);
    s = db_->WriteTransaction(Durability::kAcknowledged, [&]() REQUIRES(mu_) -> Status {
      GH_ASSIGN_OR_RETURN(auto q, db_->Prepare("SELECT state FROM work_items WHERE key = ?1"));
      q->Bind(1, key);
      GH_ASSIGN_OR_RETURN(bool row, q->Step());
      if (!row) return NotFound("no work item " + std::string(key));
      const std::string state = q->Text(0);
      if (state != "dead") {
        return FailedPrecondition("work item " + std::string(key) + " is " + state +
                                  ", not dead; only dead items can be re-armed");
      }
      GH_ASSIGN_OR_RETURN(auto u,
                          db_->Prepare("UPDATE work_items SET state = 'pending', due_at = ?2,"
                                       " requested_gen = requested_gen + 1,"
                                       " reasons = reason_union(reasons, 'rearmed'), attempts = 0,"
                                       " availability_since = NULL, backoff_until = NULL,"
                                       " last_error = '', updated_at = ?2, signalled_at = ?2"
                                       " WHERE key = ?1"));
      u->Bind(1, key).Bind(2, now);
      GH_RETURN_IF_ERROR(u->Run());
      return Bump("work.rearmed", 1);
    });
  }
  if (s.ok()) wakeups_.Notify(Wakeups::Topic::kWork);
  return s;
}

Result<std::optional<WorkItem>> SqliteStore::GetWorkItem(std::string_view key) {
  static const std::string sql =
      std::string("SELECT ") + kWorkItemColumns + " FROM work_items WHERE key = ?1";
  MutexLock lock(&mu_);
  GH_ASSIGN_OR_RETURN(auto q, db_->Prepare(sql.c_str()));
  q->Bind(1, key);
  GH_ASSIGN_OR_RETURN(bool row, q->Step());
  if (!row) return std::optional<WorkItem>();
  return std::optional<WorkItem>(ReadWorkItem(*q));
}

Result<std::vector<WorkItem>> SqliteStore::ListWorkItems(const WorkFilter& filter) {
  static const std::string sql = std::string("SELECT ") + kWorkItemColumns +
                                 " FROM work_items WHERE (?2 IS NULL OR state = ?2) AND key > ?3 "
                                 "ORDER BY key LIMIT ?1";
  MutexLock lock(&mu_);
  GH_ASSIGN_OR_RETURN(auto q, db_->Prepare(sql.c_str()));
  q->Bind(1, static_cast<int64_t>(filter.limit));
  if (filter.state) {
    q->Bind(2, WorkStateName(*filter.state));
  } else {
    q->BindNull(2);
  }
  q->Bind(3, filter.after);
  std::vector<WorkItem> out;
  while (true) {
    GH_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    out.push_back(ReadWorkItem(*q));
  }
  return out;
}

Result<WorkSummary> SqliteStore::SummarizeWork() {
  MutexLock lock(&mu_);
  GH_ASSIGN_OR_RETURN(auto q, db_->Prepare("SELECT state, COUNT(*), MIN(due_at) FROM work_items "
                                           "GROUP BY state"));
  WorkSummary out;
  while (true) {
    GH_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    WorkState state;
    if (!ParseWorkState(q->Text(0), &state)) continue;
    const int64_t n = q->Int(1);
    switch (state) {
      case WorkState::kIdle:
        out.idle = n;
        break;
      case WorkState::kPending:
        out.pending = n;
        if (!q->IsNull(2)) out.oldest_due = q->TimeAt(2);
        break;
      case WorkState::kRunning:
        out.running = n;
        break;
      case WorkState::kDead:
        out.dead = n;
        break;
    }
  }
  return out;
}

}  // namespace gatehouse
