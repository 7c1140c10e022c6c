// SqliteStore: the action ledger (DESIGN.md §3).
#include <sqlite3.h>

#include <string>

#include "store/sqlite/sqlite_store.h"

namespace gatehouse {
namespace {

constexpr const char kActionColumns[] =
    "id, subject, kind, head_sha, detail, state, fence, attempts, result, created_at, "
    "updated_at, head_occurrence";

ActionRecord ReadAction(const sqlite::Stmt& q) {
  ActionRecord a;
  a.id = q.Int(0);
  a.key = ActionKey{q.Text(1), q.Text(2), q.Text(3), q.Text(4), q.Int(11)};
  a.state = ParseActionState(q.Text(5));
  a.fence = q.Int(6);
  a.attempts = static_cast<int>(q.Int(7));
  a.result = q.Text(8);
  a.created_at = q.TimeAt(9);
  a.updated_at = q.TimeAt(10);
  return a;
}

}  // namespace

Status SqliteStore::CheckFenceInTx(std::string_view subject, int64_t fence) {
  GH_ASSIGN_OR_RETURN(auto q, db_->Prepare("SELECT 1 FROM work_items WHERE key = ?1 AND "
                                           "fence = ?2 AND state = 'running'"));
  q->Bind(1, subject).Bind(2, fence);
  GH_ASSIGN_OR_RETURN(bool held, q->Step());
  if (!held) {
    return FenceLost("ledger write for " + std::string(subject) + " with stale fence " +
                     std::to_string(fence));
  }
  return Status::Ok();
}

Result<IntentResult> SqliteStore::RecordIntent(const ActionKey& key, int64_t fence, Time now) {
  if (key.subject.empty() || key.kind.empty() || key.head_sha.empty()) {
    return InvalidArgument("an action key needs a subject, a kind and a head SHA");
  }
  if (key.head_occurrence < 1) return InvalidArgument("a head occurrence starts at 1");
  static const std::string select_sql =
      std::string("SELECT ") + kActionColumns +
      " FROM actions WHERE subject = ?1 AND kind = ?2 AND head_sha = ?3 AND detail = ?4"
      " AND head_occurrence = ?5";
  IntentResult out;
  MutexLock lock(&mu_);
  // Acknowledged: the external call follows, and a crash after it must find this row.
  Status s = db_->WriteTransaction(Durability::kAcknowledged, [&]() REQUIRES(mu_) -> Status {
    GH_RETURN_IF_ERROR(CheckFenceInTx(key.subject, fence));
    GH_ASSIGN_OR_RETURN(auto q, db_->Prepare(select_sql.c_str()));
    q->Bind(1, key.subject).Bind(2, key.kind).Bind(3, key.head_sha).Bind(4, key.detail);
    q->Bind(5, key.head_occurrence);
    GH_ASSIGN_OR_RETURN(bool exists, q->Step());
    if (exists) {
      out.record = ReadAction(*q);
      q.reset();
      switch (out.record.state) {
        case ActionState::kDone:
          out.kind = IntentResult::Kind::kAlreadyDone;
          return Status::Ok();
        case ActionState::kSuperseded:
          out.kind = IntentResult::Kind::kSuperseded;
          return Status::Ok();
        case ActionState::kIntent:
          out.kind = IntentResult::Kind::kNeedsReconcile;
          return Status::Ok();
        case ActionState::kFailed: {
          GH_ASSIGN_OR_RETURN(auto u,
                              db_->Prepare("UPDATE actions SET state = 'intent', fence = ?2, "
                                           "attempts = attempts + 1, result = '', updated_at = ?3 "
                                           "WHERE id = ?1"));
          u->Bind(1, out.record.id).Bind(2, fence).Bind(3, now);
          GH_RETURN_IF_ERROR(u->Run());
          out.record.state = ActionState::kIntent;
          out.record.fence = fence;
          out.record.attempts += 1;
          out.record.result.clear();
          out.record.updated_at = now;
          out.kind = IntentResult::Kind::kRecorded;
          return Bump("ledger.intents", 1);
        }
      }
    }
    q.reset();
    GH_ASSIGN_OR_RETURN(auto ins,
                        db_->Prepare("INSERT INTO actions (subject, kind, head_sha, detail, state, "
                                     "fence, created_at, updated_at, head_occurrence) "
                                     "VALUES (?1, ?2, ?3, ?4, 'intent', ?5, ?6, ?6, ?7)"));
    ins->Bind(1, key.subject).Bind(2, key.kind).Bind(3, key.head_sha).Bind(4, key.detail);
    ins->Bind(5, fence).Bind(6, now).Bind(7, key.head_occurrence);
    GH_RETURN_IF_ERROR(ins->Run());
    out.kind = IntentResult::Kind::kRecorded;
    out.record.id = sqlite3_last_insert_rowid(db_->raw());
    out.record.key = key;
    out.record.state = ActionState::kIntent;
    out.record.fence = fence;
    out.record.attempts = 1;
    out.record.created_at = now;
    out.record.updated_at = now;
    return Bump("ledger.intents", 1);
  });
  if (!s.ok()) return s.WithContext("recording intent " + key.kind + " on " + key.subject);
  return out;
}

Status SqliteStore::RecordOutcome(int64_t id, int64_t fence, ActionState outcome,
                                  std::string_view result, Time now) {
  if (outcome == ActionState::kIntent) {
    return InvalidArgument("an outcome is done, failed or superseded");
  }
  MutexLock lock(&mu_);
  // Recoverable: if this is lost, the intent stays open and the next pass reconciles it with
  // GitHub before acting; the next acknowledged commit makes it durable anyway.
  Status s = db_->WriteTransaction(Durability::kRecoverable, [&]() REQUIRES(mu_) -> Status {
    GH_ASSIGN_OR_RETURN(auto q, db_->Prepare("SELECT subject, state FROM actions WHERE id = ?1"));
    q->Bind(1, id);
    GH_ASSIGN_OR_RETURN(bool exists, q->Step());
    if (!exists) return NotFound("no action " + std::to_string(id));
    const std::string subject = q->Text(0);
    const std::string state = q->Text(1);
    q.reset();
    GH_RETURN_IF_ERROR(CheckFenceInTx(subject, fence));
    if (state != "intent") {
      return FailedPrecondition("action " + std::to_string(id) + " is " + state +
                                ", not an open intent");
    }
    GH_ASSIGN_OR_RETURN(auto u, db_->Prepare("UPDATE actions SET state = ?2, fence = ?3, "
                                             "result = ?4, updated_at = ?5 WHERE id = ?1"));
    u->Bind(1, id).Bind(2, ActionStateName(outcome)).Bind(3, fence).Bind(4, result).Bind(5, now);
    GH_RETURN_IF_ERROR(u->Run());
    return Bump(std::string("ledger.") + std::string(ActionStateName(outcome)), 1);
  });
  return s.WithContext("recording the outcome of action " + std::to_string(id));
}

Result<std::vector<ActionRecord>> SqliteStore::ListActions(std::string_view subject) {
  static const std::string sql =
      std::string("SELECT ") + kActionColumns + " FROM actions WHERE subject = ?1 ORDER BY id";
  MutexLock lock(&mu_);
  GH_ASSIGN_OR_RETURN(auto q, db_->Prepare(sql.c_str()));
  q->Bind(1, subject);
  std::vector<ActionRecord> out;
  while (true) {
    GH_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    out.push_back(ReadAction(*q));
  }
  return out;
}

Result<std::vector<ActionRecord>> SqliteStore::ListOpenIntents(size_t limit) {
  static const std::string sql = std::string("SELECT ") + kActionColumns +
                                 " FROM actions WHERE state = 'intent' ORDER BY id LIMIT ?1";
  MutexLock lock(&mu_);
  GH_ASSIGN_OR_RETURN(auto q, db_->Prepare(sql.c_str()));
  q->Bind(1, static_cast<int64_t>(limit));
  std::vector<ActionRecord> out;
  while (true) {
    GH_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    out.push_back(ReadAction(*q));
  }
  return out;
}

Result<std::vector<ActionLedger::KindCount>> SqliteStore::CountActions() {
  MutexLock lock(&mu_);
  GH_ASSIGN_OR_RETURN(
      auto q, db_->Prepare("SELECT kind, state, COUNT(*) FROM actions GROUP BY kind, state"));
  std::vector<KindCount> out;
  while (true) {
    GH_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    KindCount c;
    c.kind = q->Text(0);
    c.state = ParseActionState(q->Text(1));
    c.count = q->Int(2);
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace gatehouse
