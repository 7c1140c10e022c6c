// SqliteStore: the merge queues' entries (store/merge_queue.h) — entering exactly once per
// head, dropping, the queue pass's fenced steps, and the reads in the queue's order.
#include <sqlite3.h>

#include <algorithm>
#include <string>

#include "store/sqlite/sqlite_store.h"

namespace gatehouse {
namespace {

constexpr const char kEntryColumns[] =
    "id, queue, subject, head_sha, head_occurrence, priority, state, tested_sha, deadline, "
    "reason, entered_at, updated_at, batch, admitted_by";
#define GH_ENTRY_OPEN "state NOT IN ('merged', 'dropped')"

QueueEntry ReadEntry(const sqlite::Stmt& q) {
  QueueEntry e;
  e.id = q.Int(0);
  e.queue = q.Text(1);
  e.key = QueueEntryKey{q.Text(2), q.Text(3), q.Int(4), q.Int(13)};
  e.priority = static_cast<int>(q.Int(5));
  ParseEntryState(q.Text(6), &e.state);
  e.tested_sha = q.Text(7);
  e.deadline = q.OptTime(8);
  e.reason = q.Text(9);
  e.entered_at = q.TimeAt(10);
  e.updated_at = q.TimeAt(11);
  e.batch = q.Int(12);
  return e;
}

Result<std::vector<QueueEntry>> ReadEntries(sqlite::Stmt& q) {
  std::vector<QueueEntry> out;
  while (true) {
    GH_ASSIGN_OR_RETURN(bool row, q.Step());
    if (!row) break;
    out.push_back(ReadEntry(q));
  }
  return out;
}

}  // namespace

Result<std::optional<QueueEntry>> SqliteStore::GetEntryInTx(int64_t id) {
  static const std::string sql =
      std::string("SELECT ") + kEntryColumns + " FROM queue_entries WHERE id = ?1";
  GH_ASSIGN_OR_RETURN(auto q, db_->Prepare(sql.c_str()));
  q->Bind(1, id);
  GH_ASSIGN_OR_RETURN(bool row, q->Step());
  if (!row) return std::optional<QueueEntry>();
  return std::optional<QueueEntry>(ReadEntry(*q));
}

Result<MergeQueue::Entered> SqliteStore::Enter(std::string_view queue, const QueueEntryKey& key,
                                               int priority, int64_t fence, Time now) {
  GH_RETURN_IF_ERROR(ValidateQueueEntry(queue, key));
  const Signal signal{std::string(queue), "queue-enter", Duration(0)};
  Entered out;
  Status s;
  {
    MutexLock lock(&mu_);
    // Acknowledged: the PR's pass goes on to show the PR as queued.
    s = db_->WriteTransaction(Durability::kAcknowledged, [&]() REQUIRES(mu_) -> Status {
      GH_RETURN_IF_ERROR(CheckFenceInTx(key.subject, fence));
      // The unique key decides, never a read first: concurrent passes make one entry.
      GH_ASSIGN_OR_RETURN(auto ins, db_->Prepare("INSERT INTO queue_entries (queue, subject,"
                                                 " head_sha, head_occurrence, priority, state,"
                                                 " entered_at, updated_at, admitted_by) VALUES"
                                                 " (?1, ?2, ?3, ?4, ?5, 'queued', ?6, ?6, ?7)"
                                                 " ON CONFLICT DO NOTHING"));
      ins->Bind(1, queue).Bind(2, key.subject).Bind(3, key.head_sha).Bind(4, key.head_occurrence);
      ins->Bind(5, priority).Bind(6, now).Bind(7, key.admitted_by);
      GH_RETURN_IF_ERROR(ins->Run());
      out.created = sqlite3_changes(db_->raw()) == 1;
      if (out.created) {
        GH_RETURN_IF_ERROR(EnqueueInTx({&signal, 1}, now));
        GH_RETURN_IF_ERROR(Bump("queue.entered", 1));
      }
      static const std::string sql = std::string("SELECT ") + kEntryColumns +
                                     " FROM queue_entries WHERE subject = ?1 AND head_sha = ?2"
                                     " AND head_occurrence = ?3 AND admitted_by = ?4";
      GH_ASSIGN_OR_RETURN(auto q, db_->Prepare(sql.c_str()));
      q->Bind(1, key.subject).Bind(2, key.head_sha).Bind(3, key.head_occurrence);
      q->Bind(4, key.admitted_by);
      GH_ASSIGN_OR_RETURN(bool row, q->Step());
      if (!row) return Internal("queue entry vanished after insert");
      out.entry = ReadEntry(*q);
      return Status::Ok();
    });
  }
  if (!s.ok()) return s.WithContext("entering " + key.subject + " into " + std::string(queue));
  if (out.created) wakeups_.Notify(Wakeups::Topic::kWork);
  return out;
}

Result<std::vector<QueueEntry>> SqliteStore::Leave(std::string_view subject,
                                                   std::string_view keep_sha,
                                                   std::string_view reason, int64_t fence,
                                                   Time now) {
  if (reason.empty()) return InvalidArgument("dropping an entry needs a reason");
  std::vector<QueueEntry> dropped;
  Status s;
  {
    MutexLock lock(&mu_);
    s = db_->WriteTransaction(Durability::kAcknowledged, [&]() REQUIRES(mu_) -> Status {
      dropped.clear();
      GH_RETURN_IF_ERROR(CheckFenceInTx(subject, fence));
      static const std::string sql =
          std::string(
              "UPDATE queue_entries SET state = 'dropped', reason = ?3, deadline = NULL,"
              " updated_at = ?4 WHERE subject = ?1 AND " GH_ENTRY_OPEN
              " AND NOT (?2 <> '' AND (head_sha = ?2 OR tested_sha = ?2)) RETURNING ") +
          kEntryColumns;
      GH_ASSIGN_OR_RETURN(auto u, db_->Prepare(sql.c_str()));
      u->Bind(1, subject).Bind(2, keep_sha).Bind(3, reason).Bind(4, now);
      GH_ASSIGN_OR_RETURN(dropped, ReadEntries(*u));
      u.reset();
      std::vector<Signal> signals;
      for (const QueueEntry& e : dropped) signals.push_back({e.queue, "queue-leave", Duration(0)});
      std::sort(signals.begin(), signals.end(),
                [](const Signal& a, const Signal& b) { return a.key < b.key; });
      signals.erase(std::unique(signals.begin(), signals.end(),
                                [](const Signal& a, const Signal& b) { return a.key == b.key; }),
                    signals.end());
      if (!signals.empty()) GH_RETURN_IF_ERROR(EnqueueInTx(signals, now));
      return Bump("queue.dropped", static_cast<int64_t>(dropped.size()));
    });
  }
  if (!s.ok()) return s.WithContext("dropping the queue entries of " + std::string(subject));
  std::sort(dropped.begin(), dropped.end(),
            [](const QueueEntry& a, const QueueEntry& b) { return a.id < b.id; });
  if (!dropped.empty()) wakeups_.Notify(Wakeups::Topic::kWork);
  return dropped;
}

Result<QueueEntry> SqliteStore::Step(int64_t id, const EntryStep& step, int64_t fence, Time now) {
  GH_RETURN_IF_ERROR(ValidateEntryStep(step));
  QueueEntry entry;
  Status s;
  {
    MutexLock lock(&mu_);
    s = db_->WriteTransaction(Durability::kAcknowledged, [&]() REQUIRES(mu_) -> Status {
      GH_ASSIGN_OR_RETURN(std::optional<QueueEntry> e, GetEntryInTx(id));
      if (!e) return NotFound("no queue entry " + std::to_string(id));
      GH_RETURN_IF_ERROR(CheckFenceInTx(e->queue, fence));
      if (e->state != step.from) {
        return FailedPrecondition("queue entry " + std::to_string(id) + " is " +
                                  std::string(EntryStateName(e->state)) + ", not " +
                                  std::string(EntryStateName(step.from)));
      }
      std::optional<Time> deadline = step.deadline;
      if (!deadline && step.to == EntryState::kTesting) deadline = e->deadline;
      GH_ASSIGN_OR_RETURN(auto u, db_->Prepare("UPDATE queue_entries SET state = ?2, tested_sha ="
                                               " ?3, deadline = ?4, reason = ?5, updated_at = ?6,"
                                               " batch = ?7 WHERE id = ?1"));
      u->Bind(1, id)
          .Bind(2, EntryStateName(step.to))
          .Bind(3, step.tested_sha.value_or(e->tested_sha));
      u->Bind(4, deadline).Bind(5, step.reason).Bind(6, now).Bind(7, step.batch.value_or(e->batch));
      GH_RETURN_IF_ERROR(u->Run());
      if (step.to == EntryState::kMerged) GH_RETURN_IF_ERROR(Bump("queue.merged", 1));
      if (step.to == EntryState::kDropped) GH_RETURN_IF_ERROR(Bump("queue.dropped", 1));
      GH_ASSIGN_OR_RETURN(std::optional<QueueEntry> after, GetEntryInTx(id));
      if (!after) return Internal("queue entry vanished");
      entry = *std::move(after);
      return Status::Ok();
    });
  }
  if (!s.ok()) return s.WithContext("moving queue entry " + std::to_string(id));
  return entry;
}

Result<std::vector<QueueEntry>> SqliteStore::ListQueue(std::string_view queue, int ended) {
  static const std::string open_sql =
      std::string("SELECT ") + kEntryColumns + " FROM queue_entries WHERE queue = ?1 AND " +
      GH_ENTRY_OPEN " ORDER BY state = 'queued', batch = 0, priority DESC, entered_at, id";
  static const std::string ended_sql = std::string("SELECT ") + kEntryColumns +
                                       " FROM queue_entries WHERE queue = ?1 AND NOT " +
                                       GH_ENTRY_OPEN " ORDER BY updated_at DESC, id DESC LIMIT ?2";
  MutexLock lock(&mu_);
  std::vector<QueueEntry> out;
  Status s = db_->ReadTransaction([&]() REQUIRES(mu_) -> Status {
    GH_ASSIGN_OR_RETURN(auto q, db_->Prepare(open_sql.c_str()));
    q->Bind(1, queue);
    GH_ASSIGN_OR_RETURN(out, ReadEntries(*q));
    q.reset();
    if (ended <= 0) return Status::Ok();
    GH_ASSIGN_OR_RETURN(auto e, db_->Prepare(ended_sql.c_str()));
    e->Bind(1, queue).Bind(2, ended);
    GH_ASSIGN_OR_RETURN(std::vector<QueueEntry> done, ReadEntries(*e));
    out.insert(out.end(), done.begin(), done.end());
    return Status::Ok();
  });
  if (!s.ok()) return s;
  return out;
}

Result<std::vector<QueueEntry>> SqliteStore::EntriesOf(std::string_view subject) {
  static const std::string sql =
      std::string("SELECT ") + kEntryColumns + " FROM queue_entries WHERE subject = ?1 ORDER BY id";
  MutexLock lock(&mu_);
  GH_ASSIGN_OR_RETURN(auto q, db_->Prepare(sql.c_str()));
  q->Bind(1, subject);
  return ReadEntries(*q);
}

Result<std::vector<QueueEntry>> SqliteStore::EntriesTested(std::string_view queue,
                                                           std::string_view sha) {
  static const std::string sql = std::string("SELECT ") + kEntryColumns +
                                 " FROM queue_entries WHERE queue = ?1 AND tested_sha = ?2"
                                 " ORDER BY id";
  if (sha.empty()) return std::vector<QueueEntry>();
  MutexLock lock(&mu_);
  GH_ASSIGN_OR_RETURN(auto q, db_->Prepare(sql.c_str()));
  q->Bind(1, queue).Bind(2, sha);
  return ReadEntries(*q);
}

Result<std::vector<std::string>> SqliteStore::QueuesWatching(std::string_view repo,
                                                             std::string_view sha) {
  MutexLock lock(&mu_);
  GH_ASSIGN_OR_RETURN(auto q,
                      db_->Prepare("SELECT DISTINCT queue FROM queue_entries WHERE " GH_ENTRY_OPEN
                                   " AND (head_sha = ?2 OR tested_sha = ?2)"
                                   " AND substr(queue, 1, length(?1) + 1) = ?1 || '@'"
                                   " ORDER BY queue"));
  q->Bind(1, repo).Bind(2, sha);
  std::vector<std::string> out;
  while (true) {
    GH_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    out.push_back(q->Text(0));
  }
  return out;
}

}  // namespace gatehouse
