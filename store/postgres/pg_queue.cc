// PgStore: the merge queues' entries (store/merge_queue.h) on PostgreSQL — entering exactly
// once per head, dropping, the queue pass's fenced steps, and the reads in the queue's order.
//
// Locking (READ COMMITTED, several processes): an entry is written under its PR's fence (Enter,
// Leave) or its queue's (Step), so two holders may write one entry at once. Step share-locks the
// queue's work item (CheckFenceInTx) and then reads the entry FOR UPDATE, so its check of the
// state and its write see the same row; Leave's UPDATE locks the rows it drops. Work items are
// always locked before entries.
#include <algorithm>
#include <string>

#include "store/postgres/pg_store.h"
#include "store/work_queue.h"

namespace gatehouse::postgres {
namespace {

#define GH_ENTRY_COLUMNS                                                                   \
  "id, queue, subject, head_sha, head_occurrence, priority, state, tested_sha, deadline, " \
  "reason, entered_at, updated_at, batch, admitted_by"
#define GH_ENTRY_OPEN "state NOT IN ('merged', 'dropped')"

QueueEntry ReadEntry(const PgResult& r, int row) {
  QueueEntry e;
  e.id = r.Int(row, 0);
  e.queue = r.Text(row, 1);
  e.key = QueueEntryKey{r.Text(row, 2), r.Text(row, 3), r.Int(row, 4), r.Int(row, 13)};
  e.priority = static_cast<int>(r.Int(row, 5));
  ParseEntryState(r.Text(row, 6), &e.state);
  e.tested_sha = r.Text(row, 7);
  e.deadline = r.OptTime(row, 8);
  e.reason = r.Text(row, 9);
  e.entered_at = r.TimeAt(row, 10);
  e.updated_at = r.TimeAt(row, 11);
  e.batch = r.Int(row, 12);
  return e;
}

std::vector<QueueEntry> ReadEntries(const PgResult& r) {
  std::vector<QueueEntry> out;
  out.reserve(static_cast<size_t>(r.rows()));
  for (int i = 0; i < r.rows(); ++i) out.push_back(ReadEntry(r, i));
  return out;
}

}  // namespace

Result<MergeQueue::Entered> PgStore::Enter(std::string_view queue, const QueueEntryKey& key,
                                           int priority, int64_t fence, Time now) {
  GH_RETURN_IF_ERROR(ValidateQueueEntry(queue, key));
  const Signal signal{std::string(queue), "queue-enter", Duration(0)};
  Entered out;
  // Acknowledged: the PR's pass goes on to show the PR as queued.
  Status s = Write(Durability::kAcknowledged, [&](PgConn& c) -> Status {
    out = Entered{};
    GH_RETURN_IF_ERROR(CheckFenceInTx(c, key.subject, fence));
    // The unique key decides, never a read first: a conflicting insert waits for the other
    // transaction, then does nothing.
    GH_ASSIGN_OR_RETURN(
        PgResult ins,
        c.ExecPrepared(
            "queue_enter_insert",
            "INSERT INTO queue_entries (queue, subject, head_sha, head_occurrence,"
            " priority, state, entered_at, updated_at, admitted_by) VALUES ($1, $2, $3, $4,"
            " $5, 'queued', $6, $6, $7) ON CONFLICT DO NOTHING RETURNING " GH_ENTRY_COLUMNS,
            {PgParam::Text(queue), PgParam::Text(key.subject), PgParam::Text(key.head_sha),
             PgParam::Int(key.head_occurrence), PgParam::Int(priority), PgParam::At(now),
             PgParam::Int(key.admitted_by)}));
    out.created = ins.rows() == 1;
    if (out.created) {
      out.entry = ReadEntry(ins, 0);
      GH_RETURN_IF_ERROR(EnqueueInTx(c, {&signal, 1}, now));
      return Bump(c, "queue.entered", 1);
    }
    GH_ASSIGN_OR_RETURN(PgResult q,
                        c.ExecPrepared("queue_enter_existing",
                                       "SELECT " GH_ENTRY_COLUMNS
                                       " FROM queue_entries WHERE subject = $1 AND head_sha = $2"
                                       " AND head_occurrence = $3 AND admitted_by = $4",
                                       {PgParam::Text(key.subject), PgParam::Text(key.head_sha),
                                        PgParam::Int(key.head_occurrence),
                                        PgParam::Int(key.admitted_by)}));
    if (q.rows() != 1) return Internal("queue entry vanished after a conflicting insert");
    out.entry = ReadEntry(q, 0);
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("entering " + key.subject + " into " + std::string(queue));
  if (out.created) NotifyCommitted(Wakeups::Topic::kWork);
  return out;
}

Result<std::vector<QueueEntry>> PgStore::Leave(std::string_view subject, std::string_view keep_sha,
                                               std::string_view reason, int64_t fence, Time now) {
  if (reason.empty()) return InvalidArgument("dropping an entry needs a reason");
  std::vector<QueueEntry> dropped;
  Status s = Write(Durability::kAcknowledged, [&](PgConn& c) -> Status {
    dropped.clear();
    GH_RETURN_IF_ERROR(CheckFenceInTx(c, subject, fence));
    GH_ASSIGN_OR_RETURN(
        PgResult u,
        c.ExecPrepared("queue_leave",
                       "UPDATE queue_entries SET state = 'dropped', reason = $3, deadline = NULL,"
                       " updated_at = $4 WHERE subject = $1 AND " GH_ENTRY_OPEN
                       " AND NOT ($2 <> '' AND (head_sha = $2 OR tested_sha = $2))"
                       " RETURNING " GH_ENTRY_COLUMNS,
                       {PgParam::Text(subject), PgParam::Text(keep_sha), PgParam::Text(reason),
                        PgParam::At(now)}));
    dropped = ReadEntries(u);
    std::vector<std::string> queues;
    for (const QueueEntry& e : dropped) queues.push_back(e.queue);
    std::sort(queues.begin(), queues.end());
    queues.erase(std::unique(queues.begin(), queues.end()), queues.end());
    std::vector<Signal> signals;
    for (std::string& q : queues) signals.push_back({std::move(q), "queue-leave", Duration(0)});
    if (!signals.empty()) GH_RETURN_IF_ERROR(EnqueueInTx(c, signals, now));
    return Bump(c, "queue.dropped", static_cast<int64_t>(dropped.size()));
  });
  if (!s.ok()) return s.WithContext("dropping the queue entries of " + std::string(subject));
  std::sort(dropped.begin(), dropped.end(),
            [](const QueueEntry& a, const QueueEntry& b) { return a.id < b.id; });
  if (!dropped.empty()) NotifyCommitted(Wakeups::Topic::kWork);
  return dropped;
}

Result<QueueEntry> PgStore::Step(int64_t id, const EntryStep& step, int64_t fence, Time now) {
  GH_RETURN_IF_ERROR(ValidateEntryStep(step));
  QueueEntry entry;
  Status s = Write(Durability::kAcknowledged, [&](PgConn& c) -> Status {
    GH_ASSIGN_OR_RETURN(PgResult q, c.ExecPrepared("queue_step_queue",
                                                   "SELECT queue FROM queue_entries WHERE id = $1",
                                                   {PgParam::Int(id)}));
    if (q.rows() == 0) return NotFound("no queue entry " + std::to_string(id));
    GH_RETURN_IF_ERROR(CheckFenceInTx(c, q.Text(0, 0), fence));
    // Now that the queue's work item is locked, lock the entry and read it again: its PR's pass
    // may have dropped it meanwhile.
    GH_ASSIGN_OR_RETURN(PgResult r, c.ExecPrepared("queue_step_lock",
                                                   "SELECT " GH_ENTRY_COLUMNS
                                                   " FROM queue_entries WHERE id = $1 FOR UPDATE",
                                                   {PgParam::Int(id)}));
    if (r.rows() == 0) return NotFound("no queue entry " + std::to_string(id));
    const QueueEntry e = ReadEntry(r, 0);
    if (e.state != step.from) {
      return FailedPrecondition("queue entry " + std::to_string(id) + " is " +
                                std::string(EntryStateName(e.state)) + ", not " +
                                std::string(EntryStateName(step.from)));
    }
    std::optional<Time> deadline = step.deadline;
    if (!deadline && step.to == EntryState::kTesting) deadline = e.deadline;
    GH_ASSIGN_OR_RETURN(
        PgResult u,
        c.ExecPrepared("queue_step_update",
                       "UPDATE queue_entries SET state = $2, tested_sha = $3, deadline = $4,"
                       " reason = $5, updated_at = $6, batch = $7 WHERE id = $1 RETURNING "
                       GH_ENTRY_COLUMNS,
                       {PgParam::Int(id), PgParam::Text(EntryStateName(step.to)),
                        PgParam::Text(step.tested_sha.value_or(e.tested_sha)),
                        PgParam::At(deadline), PgParam::Text(step.reason), PgParam::At(now),
                        PgParam::Int(step.batch.value_or(e.batch))}));
    if (u.rows() != 1) return Internal("queue entry vanished");
    entry = ReadEntry(u, 0);
    if (step.to == EntryState::kMerged) return Bump(c, "queue.merged", 1);
    if (step.to == EntryState::kDropped) return Bump(c, "queue.dropped", 1);
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("moving queue entry " + std::to_string(id));
  return entry;
}

Result<std::vector<QueueEntry>> PgStore::ListQueue(std::string_view queue, int ended) {
  std::vector<QueueEntry> out;
  // One snapshot for both reads.
  Status s = Write(Durability::kRecoverable, [&](PgConn& c) -> Status {
    GH_ASSIGN_OR_RETURN(PgResult open,
                        c.ExecPrepared("queue_list_open",
                                       "SELECT " GH_ENTRY_COLUMNS
                                       " FROM queue_entries WHERE queue = $1 AND " GH_ENTRY_OPEN
                                       " ORDER BY state = 'queued', batch = 0, priority DESC, entered_at,"
                                       " id",
                                       {PgParam::Text(queue)}));
    out = ReadEntries(open);
    if (ended <= 0) return Status::Ok();
    GH_ASSIGN_OR_RETURN(PgResult done,
                        c.ExecPrepared("queue_list_ended",
                                       "SELECT " GH_ENTRY_COLUMNS
                                       " FROM queue_entries WHERE queue = $1 AND NOT " GH_ENTRY_OPEN
                                       " ORDER BY updated_at DESC, id DESC LIMIT $2",
                                       {PgParam::Text(queue), PgParam::Int(ended)}));
    std::vector<QueueEntry> more = ReadEntries(done);
    out.insert(out.end(), more.begin(), more.end());
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("listing " + std::string(queue));
  return out;
}

Result<std::vector<QueueEntry>> PgStore::EntriesOf(std::string_view subject) {
  std::vector<QueueEntry> out;
  Status s = Read([&](PgConn& c) -> Status {
    GH_ASSIGN_OR_RETURN(PgResult r, c.ExecPrepared("queue_entries_of",
                                                   "SELECT " GH_ENTRY_COLUMNS
                                                   " FROM queue_entries WHERE subject = $1"
                                                   " ORDER BY id",
                                                   {PgParam::Text(subject)}));
    out = ReadEntries(r);
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("listing the queue entries of " + std::string(subject));
  return out;
}

Result<std::vector<QueueEntry>> PgStore::EntriesTested(std::string_view queue,
                                                       std::string_view sha) {
  std::vector<QueueEntry> out;
  if (sha.empty()) return out;
  Status s = Read([&](PgConn& c) -> Status {
    GH_ASSIGN_OR_RETURN(PgResult r, c.ExecPrepared("queue_entries_tested",
                                                   "SELECT " GH_ENTRY_COLUMNS
                                                   " FROM queue_entries WHERE queue = $1"
                                                   " AND tested_sha = $2 ORDER BY id",
                                                   {PgParam::Text(queue), PgParam::Text(sha)}));
    out = ReadEntries(r);
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("listing the entries of " + std::string(queue) + " tested at " +
                                    std::string(sha));
  return out;
}

Result<std::vector<std::string>> PgStore::QueuesWatching(std::string_view repo,
                                                         std::string_view sha) {
  std::vector<std::string> out;
  Status s = Read([&](PgConn& c) -> Status {
    GH_ASSIGN_OR_RETURN(
        PgResult r,
        c.ExecPrepared(
            "queue_watching",
            "SELECT DISTINCT queue COLLATE \"C\" AS q FROM queue_entries WHERE " GH_ENTRY_OPEN
            " AND (head_sha = $2 OR tested_sha = $2)"
            " AND left(queue, length($1) + 1) = $1 || '@' ORDER BY q",
            {PgParam::Text(repo), PgParam::Text(sha)}));
    out.clear();
    for (int i = 0; i < r.rows(); ++i) out.push_back(r.Text(i, 0));
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("the queues watching " + std::string(sha));
  return out;
}

}  // namespace gatehouse::postgres
