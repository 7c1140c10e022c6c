// SqliteStore: review runs (store/review_runs.h) — creation exactly once, reads with the dead
// state derived from the run's work item, results, ends, cancellation and the funnel.
#include <sqlite3.h>

#include <algorithm>
#include <string>

#include "store/sqlite/sqlite_store.h"

namespace gatehouse {
namespace {

// The run's work item is subject || '/review/' || role (ReviewWorkKey). A run that is not
// terminal while that item is dead reads as dead, with the item's last error as its reason.
#define GH_RUN_OPEN "r.state IN ('queued', 'running', 'finished')"
#define GH_RUN_DEAD "(" GH_RUN_OPEN " AND w.state = 'dead')"
#define GH_RUN_JOIN \
  " FROM review_runs r LEFT JOIN work_items w ON w.key = r.subject || '/review/' || r.role"

constexpr const char kRunSelect[] =
    "SELECT r.id, r.subject, r.role, r.head_sha, r.\"trigger\","
    " CASE WHEN " GH_RUN_DEAD
    " THEN 'dead' ELSE r.state END,"
    " r.reviewer, r.assigned_at, r.assigned_fence, r.starts, r.result_json,"
    " CASE WHEN " GH_RUN_DEAD
    " THEN w.last_error ELSE r.reason END,"
    " r.review_id, r.created_at, r.updated_at" GH_RUN_JOIN;

ReviewRun ReadRun(const sqlite::Stmt& q) {
  ReviewRun run;
  run.id = q.Int(0);
  run.key = ReviewRunKey{q.Text(1), q.Text(2), q.Text(3), q.Text(4)};
  ParseRunState(q.Text(5), &run.state);
  run.reviewer = q.Text(6);
  run.assigned_at = q.OptTime(7);
  run.assigned_fence = q.Int(8);
  run.starts = static_cast<int>(q.Int(9));
  run.result_json = q.Text(10);
  run.reason = q.Text(11);
  run.review_id = q.Int(12);
  run.created_at = q.TimeAt(13);
  run.updated_at = q.TimeAt(14);
  return run;
}

}  // namespace

Result<std::optional<ReviewRun>> SqliteStore::GetRunInTx(int64_t id) {
  static const std::string sql = std::string(kRunSelect) + " WHERE r.id = ?1";
  GH_ASSIGN_OR_RETURN(auto q, db_->Prepare(sql.c_str()));
  q->Bind(1, id);
  GH_ASSIGN_OR_RETURN(bool row, q->Step());
  if (!row) return std::optional<ReviewRun>();
  return std::optional<ReviewRun>(ReadRun(*q));
}

Result<ReviewRun> SqliteStore::FencedRunInTx(int64_t id, int64_t fence,
                                             std::span<const RunState> allowed) {
  GH_ASSIGN_OR_RETURN(std::optional<ReviewRun> run, GetRunInTx(id));
  if (!run) return NotFound("no review run " + std::to_string(id));
  GH_RETURN_IF_ERROR(CheckFenceInTx(ReviewWorkKey(run->key.subject, run->key.role), fence));
  if (std::find(allowed.begin(), allowed.end(), run->state) == allowed.end()) {
    return FailedPrecondition("review run " + std::to_string(id) + " is " +
                              std::string(RunStateName(run->state)));
  }
  return *std::move(run);
}

// A new run in a mailbox that died (its earlier run used up its budget) is a new request, not
// the old failure: the mailbox comes back (pending, budgets reset), and the runs that died in it
// end `cancelled`, so that the new run is not dead at birth and the old one is not revived
// behind the operator's back. Only `gatehouse work rearm` revives a dead run itself.
Status SqliteStore::ReviveDeadMailboxInTx(const std::string& work_key, const ReviewRunKey& key,
                                          Time now) {
  GH_ASSIGN_OR_RETURN(auto q, db_->Prepare("SELECT state, last_error FROM work_items WHERE key = ?1"));
  q->Bind(1, work_key);
  GH_ASSIGN_OR_RETURN(bool row, q->Step());
  if (!row || q->Text(0) != "dead") return Status::Ok();
  const std::string why = "a new request revived its dead mailbox (it had died: " + q->Text(1) + ")";
  q.reset();
  GH_ASSIGN_OR_RETURN(auto c, db_->Prepare("UPDATE review_runs SET state = 'cancelled', reason = ?4,"
                                           " updated_at = ?5 WHERE subject = ?1 AND role = ?2 AND"
                                           " state IN ('queued', 'running', 'finished') AND NOT"
                                           " (head_sha = ?3 AND \"trigger\" = ?6)"));
  c->Bind(1, key.subject).Bind(2, key.role).Bind(3, key.head_sha).Bind(4, why).Bind(5, now);
  c->Bind(6, key.trigger);
  GH_RETURN_IF_ERROR(c->Run());
  GH_ASSIGN_OR_RETURN(auto u, db_->Prepare("UPDATE work_items SET state = 'pending', due_at = ?2,"
                                           " attempts = 0, availability_since = NULL,"
                                           " backoff_until = NULL, last_error = '', updated_at = ?2"
                                           " WHERE key = ?1 AND state = 'dead'"));
  u->Bind(1, work_key).Bind(2, now);
  GH_RETURN_IF_ERROR(u->Run());
  return Bump("reviews.revived", 1);
}

Result<ReviewRuns::Requested> SqliteStore::RequestRun(const ReviewRunKey& key,
                                                      std::string_view fence_key, int64_t fence,
                                                      Time now) {
  GH_RETURN_IF_ERROR(ValidateReviewRunKey(key));
  const Signal signal{ReviewWorkKey(key.subject, key.role), "review-run", Duration(0)};
  GH_RETURN_IF_ERROR(ValidateSignal(signal));
  Requested out;
  Status s;
  {
    MutexLock lock(&mu_);
    // Acknowledged: the pass that asked goes on to tell the PR (and its funnel) it is queued.
    s = db_->WriteTransaction(Durability::kAcknowledged, [&]() REQUIRES(mu_) -> Status {
      GH_RETURN_IF_ERROR(CheckFenceInTx(fence_key, fence));
      // The unique key decides, never a read first: concurrent requests make one row.
      GH_ASSIGN_OR_RETURN(auto ins, db_->Prepare("INSERT INTO review_runs (subject, role, head_sha,"
                                                 " \"trigger\", state, created_at, updated_at) "
                                                 "VALUES (?1, ?2, ?3, ?4, 'queued', ?5, ?5) "
                                                 "ON CONFLICT DO NOTHING"));
      ins->Bind(1, key.subject).Bind(2, key.role).Bind(3, key.head_sha).Bind(4, key.trigger);
      ins->Bind(5, now);
      GH_RETURN_IF_ERROR(ins->Run());
      out.created = sqlite3_changes(db_->raw()) == 1;
      if (out.created) {
        GH_RETURN_IF_ERROR(ReviveDeadMailboxInTx(signal.key, key, now));
        GH_RETURN_IF_ERROR(EnqueueInTx({&signal, 1}, now));
        GH_RETURN_IF_ERROR(Bump("reviews.requested", 1));
      }
      GH_ASSIGN_OR_RETURN(auto q, db_->Prepare("SELECT id FROM review_runs WHERE subject = ?1 AND "
                                               "role = ?2 AND head_sha = ?3 AND \"trigger\" = ?4"));
      q->Bind(1, key.subject).Bind(2, key.role).Bind(3, key.head_sha).Bind(4, key.trigger);
      GH_ASSIGN_OR_RETURN(bool row, q->Step());
      if (!row) return Internal("review run vanished after insert");
      const int64_t id = q->Int(0);
      q.reset();
      GH_ASSIGN_OR_RETURN(std::optional<ReviewRun> run, GetRunInTx(id));
      if (!run) return Internal("review run " + std::to_string(id) + " vanished");
      out.run = *std::move(run);
      return Status::Ok();
    });
  }
  if (!s.ok()) return s.WithContext("requesting review " + key.role + " of " + key.subject);
  if (out.created) wakeups_.Notify(Wakeups::Topic::kWork);
  return out;
}

Result<std::vector<ReviewRun>> SqliteStore::ListRuns(std::string_view subject,
                                                     std::string_view role) {
  static const std::string sql =
      std::string(kRunSelect) + " WHERE r.subject = ?1 AND (?2 = '' OR r.role = ?2) ORDER BY r.id";
  MutexLock lock(&mu_);
  GH_ASSIGN_OR_RETURN(auto q, db_->Prepare(sql.c_str()));
  q->Bind(1, subject).Bind(2, role);
  std::vector<ReviewRun> out;
  while (true) {
    GH_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    out.push_back(ReadRun(*q));
  }
  return out;
}

Result<std::optional<ReviewRun>> SqliteStore::GetRun(int64_t id) {
  MutexLock lock(&mu_);
  return GetRunInTx(id);
}

Status SqliteStore::RecordResult(int64_t id, std::string_view result_json, int64_t fence,
                                 Time now) {
  if (result_json.empty()) return InvalidArgument("a review result must not be empty");
  MutexLock lock(&mu_);
  // Acknowledged: the result is what gets posted; an executor run is not repeated for it.
  Status s = db_->WriteTransaction(Durability::kAcknowledged, [&]() REQUIRES(mu_) -> Status {
    constexpr RunState kAllowed[] = {RunState::kRunning};
    GH_ASSIGN_OR_RETURN(ReviewRun run, FencedRunInTx(id, fence, kAllowed));
    GH_ASSIGN_OR_RETURN(auto u, db_->Prepare("UPDATE review_runs SET state = 'finished', "
                                             "result_json = ?2, updated_at = ?3 WHERE id = ?1"));
    u->Bind(1, id).Bind(2, result_json).Bind(3, now);
    GH_RETURN_IF_ERROR(u->Run());
    GH_ASSIGN_OR_RETURN(auto d, db_->Prepare("DELETE FROM reviewer_slots WHERE holder_key = ?1 "
                                             "AND run_id = ?2"));
    d->Bind(1, ReviewWorkKey(run.key.subject, run.key.role)).Bind(2, id);
    GH_RETURN_IF_ERROR(d->Run());
    return Bump("reviews.finished", 1);
  });
  return s.WithContext("recording the result of review run " + std::to_string(id));
}

Status SqliteStore::EndRun(int64_t id, RunState end, std::string_view reason, int64_t review_id,
                           int64_t fence, Time now) {
  if (!IsTerminal(end)) {
    return InvalidArgument("a run ends done, cancelled or superseded, not " +
                           std::string(RunStateName(end)));
  }
  if (review_id < 0) return InvalidArgument("a review id is not negative");
  MutexLock lock(&mu_);
  // Acknowledged: `done` says the review is on the PR; nothing may post it again.
  Status s = db_->WriteTransaction(Durability::kAcknowledged, [&]() REQUIRES(mu_) -> Status {
    const RunState allowed[] = {RunState::kQueued, RunState::kRunning, RunState::kFinished, end};
    GH_ASSIGN_OR_RETURN(ReviewRun run, FencedRunInTx(id, fence, allowed));
    if (run.state == end) return Status::Ok();  // ended so already (a repeated pass)
    GH_ASSIGN_OR_RETURN(auto u, db_->Prepare("UPDATE review_runs SET state = ?2, reason = ?3, "
                                             "review_id = ?4, updated_at = ?5 WHERE id = ?1"));
    u->Bind(1, id).Bind(2, RunStateName(end)).Bind(3, reason).Bind(4, review_id).Bind(5, now);
    GH_RETURN_IF_ERROR(u->Run());
    GH_ASSIGN_OR_RETURN(auto d, db_->Prepare("DELETE FROM reviewer_slots WHERE holder_key = ?1 "
                                             "AND run_id = ?2"));
    d->Bind(1, ReviewWorkKey(run.key.subject, run.key.role)).Bind(2, id);
    GH_RETURN_IF_ERROR(d->Run());
    return Bump("reviews." + std::string(RunStateName(end)), 1);
  });
  return s.WithContext("ending review run " + std::to_string(id));
}

Result<std::vector<std::string>> SqliteStore::CancelRuns(std::string_view subject,
                                                         std::string_view keep_head,
                                                         std::string_view reason,
                                                         std::string_view fence_key, int64_t fence,
                                                         Time now) {
  std::vector<std::string> keys;
  MutexLock lock(&mu_);
  // Recoverable: a lost cancel is caught when the run's result is about to be posted (its head
  // is no longer the PR's), and any later acknowledged commit makes it durable.
  Status s = db_->WriteTransaction(Durability::kRecoverable, [&]() REQUIRES(mu_) -> Status {
    keys.clear();
    GH_RETURN_IF_ERROR(CheckFenceInTx(fence_key, fence));
    GH_ASSIGN_OR_RETURN(auto u, db_->Prepare("UPDATE review_runs SET state = 'cancelled', "
                                             "reason = ?3, updated_at = ?4 WHERE subject = ?1 "
                                             "AND state IN ('queued', 'running', 'finished') "
                                             "AND (?2 = '' OR head_sha <> ?2) "
                                             "RETURNING role"));
    u->Bind(1, subject).Bind(2, keep_head).Bind(3, reason).Bind(4, now);
    while (true) {
      GH_ASSIGN_OR_RETURN(bool row, u->Step());
      if (!row) break;
      keys.push_back(ReviewWorkKey(subject, u->Text(0)));
    }
    GH_RETURN_IF_ERROR(Bump("reviews.cancelled", static_cast<int64_t>(keys.size())));
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("cancelling the review runs of " + std::string(subject));
  return keys;
}

Result<std::vector<std::string>> SqliteStore::WaitingWorkKeys() {
  MutexLock lock(&mu_);
  GH_ASSIGN_OR_RETURN(
      auto q, db_->Prepare("SELECT DISTINCT r.subject || '/review/' || r.role AS k" GH_RUN_JOIN
                           " WHERE " GH_RUN_OPEN " AND NOT " GH_RUN_DEAD " ORDER BY k"));
  std::vector<std::string> out;
  while (true) {
    GH_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    out.push_back(q->Text(0));
  }
  return out;
}

Result<ReviewFunnel> SqliteStore::GetReviewFunnel() {
  MutexLock lock(&mu_);
  GH_ASSIGN_OR_RETURN(auto q, db_->Prepare("SELECT CASE WHEN " GH_RUN_DEAD " THEN 'dead' ELSE "
                                           "r.state END AS s, COUNT(*)" GH_RUN_JOIN " GROUP BY s"));
  ReviewFunnel f;
  while (true) {
    GH_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    RunState state = RunState::kQueued;
    if (!ParseRunState(q->Text(0), &state)) return Internal("review run state " + q->Text(0));
    const int64_t n = q->Int(1);
    f.requested += n;
    switch (state) {
      case RunState::kDone:
        f.done += n;
        break;
      case RunState::kCancelled:
        f.cancelled += n;
        break;
      case RunState::kSuperseded:
        f.superseded += n;
        break;
      case RunState::kDead:
        f.dead += n;
        break;
      case RunState::kQueued:
      case RunState::kRunning:
      case RunState::kFinished:
        f.in_flight += n;
        break;
    }
  }
  return f;
}

Result<std::vector<ReviewRuns::RunCount>> SqliteStore::CountRuns() {
  MutexLock lock(&mu_);
  GH_ASSIGN_OR_RETURN(auto q,
                      db_->Prepare("SELECT r.role, r.reviewer, CASE WHEN " GH_RUN_DEAD
                                   " THEN 'dead' ELSE r.state END AS s, COUNT(*)" GH_RUN_JOIN
                                   " GROUP BY r.role, r.reviewer, s"));
  std::vector<RunCount> out;
  while (true) {
    GH_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    RunCount c;
    c.role = q->Text(0);
    c.reviewer = q->Text(1);
    if (!ParseRunState(q->Text(2), &c.state)) return Internal("review run state " + q->Text(2));
    c.count = q->Int(3);
    out.push_back(std::move(c));
  }
  return out;
}

#undef GH_RUN_JOIN
#undef GH_RUN_DEAD
#undef GH_RUN_OPEN

}  // namespace gatehouse
