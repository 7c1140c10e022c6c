// PgStore: the action ledger (DESIGN.md §3, store/action_ledger.h) on PostgreSQL.
//
// Exactly once by the unique key (subject, kind, head_sha, head_occurrence, detail): an intent
// is an INSERT ... ON CONFLICT DO NOTHING, never a read first, so concurrent holders (or a
// holder racing its own retry) make one row. A conflicting insert waits for the transaction
// that holds the key, so the row it then reads is committed. Every write share-locks the
// subject's work item (CheckFenceInTx) before anything else, so no claim can move the fence
// under it.
#include <algorithm>
#include <string>

#include "store/postgres/pg_store.h"

namespace gatehouse::postgres {
namespace {

#define GH_ACTION_COLUMNS                                                             \
  "id, subject, kind, head_sha, detail, state, fence, attempts, result, created_at, " \
  "updated_at, head_occurrence"

ActionRecord ReadAction(const PgResult& r, int row) {
  ActionRecord a;
  a.id = r.Int(row, 0);
  a.key = ActionKey{r.Text(row, 1), r.Text(row, 2), r.Text(row, 3), r.Text(row, 4), r.Int(row, 11)};
  a.state = ParseActionState(r.Text(row, 5));
  a.fence = r.Int(row, 6);
  a.attempts = static_cast<int>(r.Int(row, 7));
  a.result = r.Text(row, 8);
  a.created_at = r.TimeAt(row, 9);
  a.updated_at = r.TimeAt(row, 10);
  return a;
}

// The existing row of `key` (it conflicted with an insert), locked: a failed one may be
// retried here, and two retries must not both become the new attempt.
Status ResolveExistingIntent(PgStore& store, PgConn& c, const ActionKey& key, int64_t fence,
                             Time now, IntentResult* out) {
  GH_ASSIGN_OR_RETURN(
      PgResult r,
      c.ExecPrepared(
          "ledger_intent_existing",
          "SELECT " GH_ACTION_COLUMNS
          " FROM actions WHERE subject = $1 AND kind = $2 AND head_sha = $3 AND "
          "detail = $4 AND head_occurrence = $5 FOR UPDATE",
          {PgParam::Text(key.subject), PgParam::Text(key.kind), PgParam::Text(key.head_sha),
           PgParam::Text(key.detail), PgParam::Int(key.head_occurrence)}));
  if (r.rows() != 1) return Internal("the conflicting action row vanished");
  out->record = ReadAction(r, 0);
  switch (out->record.state) {
    case ActionState::kDone:
      out->kind = IntentResult::Kind::kAlreadyDone;
      return Status::Ok();
    case ActionState::kSuperseded:
      out->kind = IntentResult::Kind::kSuperseded;
      return Status::Ok();
    case ActionState::kIntent:
      out->kind = IntentResult::Kind::kNeedsReconcile;
      return Status::Ok();
    case ActionState::kFailed:
      break;
  }
  // A failed action is tried again: a new attempt under this fence.
  GH_RETURN_IF_ERROR(
      c.ExecPrepared("ledger_intent_retry",
                     "UPDATE actions SET state = 'intent', fence = $2, "
                     "attempts = attempts + 1, result = '', updated_at = $3 "
                     "WHERE id = $1",
                     {PgParam::Int(out->record.id), PgParam::Int(fence), PgParam::At(now)})
          .status());
  out->record.state = ActionState::kIntent;
  out->record.fence = fence;
  out->record.attempts += 1;
  out->record.result.clear();
  out->record.updated_at = now;
  out->kind = IntentResult::Kind::kRecorded;
  return store.Bump(c, "ledger.intents", 1);
}

}  // namespace

Result<IntentResult> PgStore::RecordIntent(const ActionKey& key, int64_t fence, Time now) {
  if (key.subject.empty() || key.kind.empty() || key.head_sha.empty()) {
    return InvalidArgument("an action key needs a subject, a kind and a head SHA");
  }
  if (key.head_occurrence < 1) return InvalidArgument("a head occurrence starts at 1");
  IntentResult out;
  // Acknowledged: the external call follows, and a crash after it must find this row.
  Status s = Write(Durability::kAcknowledged, [&](PgConn& c) -> Status {
    out = IntentResult{};
    GH_RETURN_IF_ERROR(CheckFenceInTx(c, key.subject, fence));
    GH_ASSIGN_OR_RETURN(
        PgResult ins,
        c.ExecPrepared("ledger_intent_insert",
                       "INSERT INTO actions (subject, kind, head_sha, detail, state, fence, "
                       "created_at, updated_at, head_occurrence) "
                       "VALUES ($1, $2, $3, $4, 'intent', $5, $6, $6, $7) "
                       "ON CONFLICT DO NOTHING RETURNING id",
                       {PgParam::Text(key.subject), PgParam::Text(key.kind),
                        PgParam::Text(key.head_sha), PgParam::Text(key.detail), PgParam::Int(fence),
                        PgParam::At(now), PgParam::Int(key.head_occurrence)}));
    if (ins.rows() == 0) return ResolveExistingIntent(*this, c, key, fence, now, &out);
    out.kind = IntentResult::Kind::kRecorded;
    out.record.id = ins.Int(0, 0);
    out.record.key = key;
    out.record.state = ActionState::kIntent;
    out.record.fence = fence;
    out.record.attempts = 1;
    out.record.created_at = now;
    out.record.updated_at = now;
    return Bump(c, "ledger.intents", 1);
  });
  if (!s.ok()) return s.WithContext("recording intent " + key.kind + " on " + key.subject);
  return out;
}

Status PgStore::RecordOutcome(int64_t id, int64_t fence, ActionState outcome,
                              std::string_view result, Time now) {
  if (outcome == ActionState::kIntent) {
    return InvalidArgument("an outcome is done, failed or superseded");
  }
  // Recoverable: if this is lost, the intent stays open and the next pass reconciles it with
  // GitHub before acting; the next acknowledged commit makes it durable anyway.
  Status s = Write(Durability::kRecoverable, [&](PgConn& c) -> Status {
    GH_ASSIGN_OR_RETURN(PgResult r, c.ExecPrepared("ledger_outcome_subject",
                                                   "SELECT subject FROM actions WHERE id = $1",
                                                   {PgParam::Int(id)}));
    if (r.rows() == 0) return NotFound("no action " + std::to_string(id));
    GH_RETURN_IF_ERROR(CheckFenceInTx(c, r.Text(0, 0), fence));
    // Only an open intent takes an outcome; the state is tested in the UPDATE itself, so two
    // outcomes racing for one intent record one (the other waits for the row, then sees it
    // closed).
    GH_ASSIGN_OR_RETURN(
        PgResult u, c.ExecPrepared("ledger_outcome_update",
                                   "UPDATE actions SET state = $2, fence = $3, result = $4, "
                                   "updated_at = $5 WHERE id = $1 AND state = 'intent'",
                                   {PgParam::Int(id), PgParam::Text(ActionStateName(outcome)),
                                    PgParam::Int(fence), PgParam::Text(result), PgParam::At(now)}));
    if (u.affected() != 1) {
      GH_ASSIGN_OR_RETURN(PgResult st, c.ExecPrepared("ledger_outcome_state",
                                                      "SELECT state FROM actions WHERE id = $1",
                                                      {PgParam::Int(id)}));
      const std::string state = st.rows() == 1 ? st.Text(0, 0) : "gone";
      return FailedPrecondition("action " + std::to_string(id) + " is " + state +
                                ", not an open intent");
    }
    return Bump(c, std::string("ledger.") + std::string(ActionStateName(outcome)), 1);
  });
  return s.WithContext("recording the outcome of action " + std::to_string(id));
}

Result<std::vector<ActionRecord>> PgStore::ListActions(std::string_view subject) {
  std::vector<ActionRecord> out;
  Status s = Read([&](PgConn& c) -> Status {
    GH_ASSIGN_OR_RETURN(PgResult r, c.ExecPrepared("ledger_list",
                                                   "SELECT " GH_ACTION_COLUMNS
                                                   " FROM actions WHERE subject = $1 ORDER BY id",
                                                   {PgParam::Text(subject)}));
    out.clear();
    for (int i = 0; i < r.rows(); ++i) out.push_back(ReadAction(r, i));
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("listing the actions of " + std::string(subject));
  return out;
}

Result<std::vector<ActionRecord>> PgStore::ListOpenIntents(size_t limit) {
  std::vector<ActionRecord> out;
  Status s = Read([&](PgConn& c) -> Status {
    GH_ASSIGN_OR_RETURN(
        PgResult r,
        c.ExecPrepared("ledger_open_intents",
                       "SELECT " GH_ACTION_COLUMNS
                       " FROM actions WHERE state = 'intent' ORDER BY id LIMIT $1::bigint",
                       {PgParam::Int(static_cast<int64_t>(
                           std::min<size_t>(limit, static_cast<size_t>(INT64_MAX))))}));
    out.clear();
    for (int i = 0; i < r.rows(); ++i) out.push_back(ReadAction(r, i));
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("listing open intents");
  return out;
}

Result<std::vector<ActionLedger::KindCount>> PgStore::CountActions() {
  std::vector<KindCount> out;
  Status s = Read([&](PgConn& c) -> Status {
    GH_ASSIGN_OR_RETURN(
        PgResult r,
        c.ExecPrepared("ledger_count",
                       "SELECT kind, state, COUNT(*) FROM actions GROUP BY kind, state"));
    out.clear();
    for (int i = 0; i < r.rows(); ++i) {
      KindCount k;
      k.kind = r.Text(i, 0);
      k.state = ParseActionState(r.Text(i, 1));
      k.count = r.Int(i, 2);
      out.push_back(std::move(k));
    }
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("counting the ledger");
  return out;
}

#undef GH_ACTION_COLUMNS

}  // namespace gatehouse::postgres
