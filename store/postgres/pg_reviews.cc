// PgStore: review runs (store/review_runs.h) on PostgreSQL — creation exactly once, reads with
// the dead state derived from the run's work item, results, ends, cancellation and the funnel.
//
// Locking (READ COMMITTED, several processes): a run is written either under its own work
// item's fence (RecordResult, EndRun, AssignAndClaimSlot) or under its PR's (CancelRuns, a
// revival in RequestRun), so two holders can write one run at once. A fenced write therefore
// share-locks the work item first (CheckFenceInTx) and then re-reads the run FOR UPDATE, so
// its check of the run's state and its write see the same row; CancelRuns' UPDATE locks the
// same rows. Work items are always locked before runs, never the other way round.
#include <algorithm>
#include <string>

#include "store/postgres/pg_reviews_internal.h"
#include "store/work_queue.h"

namespace gatehouse::postgres {
namespace {

// A run that is not terminal while its work item is dead reads as dead, with the item's last
// error as its reason.
#define GH_RUN_OPEN "r.state IN ('queued', 'running', 'finished')"
#define GH_RUN_DEAD "(" GH_RUN_OPEN " AND w.state = 'dead')"
#define GH_RUN_JOIN \
  " FROM review_runs r LEFT JOIN work_items w ON w.key = r.subject || '/review/' || r.role"

#define GH_RUN_SELECT                                                      \
  "SELECT r.id, r.subject, r.role, r.head_sha, r.\"trigger\","             \
  " CASE WHEN " GH_RUN_DEAD                                                \
  " THEN 'dead' ELSE r.state END,"                                         \
  " r.reviewer, r.assigned_at, r.assigned_fence, r.starts, r.result_json," \
  " CASE WHEN " GH_RUN_DEAD                                                \
  " THEN w.last_error ELSE r.reason END,"                                  \
  " r.review_id, r.created_at, r.updated_at" GH_RUN_JOIN

ReviewRun ReadRun(const PgResult& r, int row) {
  ReviewRun run;
  run.id = r.Int(row, 0);
  run.key = ReviewRunKey{r.Text(row, 1), r.Text(row, 2), r.Text(row, 3), r.Text(row, 4)};
  ParseRunState(r.Text(row, 5), &run.state);
  run.reviewer = r.Text(row, 6);
  run.assigned_at = r.OptTime(row, 7);
  run.assigned_fence = r.Int(row, 8);
  run.starts = static_cast<int>(r.Int(row, 9));
  run.result_json = r.Text(row, 10);
  run.reason = r.Text(row, 11);
  run.review_id = r.Int(row, 12);
  run.created_at = r.TimeAt(row, 13);
  run.updated_at = r.TimeAt(row, 14);
  return run;
}

// A new run in a mailbox that died (its earlier run used up its budget) is a new request, not
// the old failure: the mailbox comes back (pending, budgets reset), and the runs that died in it
// end `cancelled`, so that the new run is not dead at birth and the old one is not revived
// behind the operator's back. Only `gatehouse work rearm` revives a dead run itself.
// The mailbox row is locked FOR UPDATE, so a concurrent Rearm or revival sees it pending.
Status ReviveDeadMailboxInTx(PgStore& store, PgConn& c, const std::string& work_key,
                             const ReviewRunKey& key, Time now) {
  GH_ASSIGN_OR_RETURN(PgResult r,
                      c.ExecPrepared("reviews_mailbox_state",
                                     "SELECT state, last_error FROM work_items WHERE key = $1 "
                                     "FOR UPDATE",
                                     {PgParam::Text(work_key)}));
  if (r.rows() == 0 || r.Text(0, 0) != "dead") return Status::Ok();
  const std::string why =
      "a new request revived its dead mailbox (it had died: " + r.Text(0, 1) + ")";
  GH_RETURN_IF_ERROR(c.ExecPrepared("reviews_mailbox_cancel",
                                    "UPDATE review_runs SET state = 'cancelled', reason = $4,"
                                    " updated_at = $5 WHERE subject = $1 AND role = $2 AND"
                                    " state IN ('queued', 'running', 'finished') AND NOT"
                                    " (head_sha = $3 AND \"trigger\" = $6)",
                                    {PgParam::Text(key.subject), PgParam::Text(key.role),
                                     PgParam::Text(key.head_sha), PgParam::Text(why),
                                     PgParam::At(now), PgParam::Text(key.trigger)})
                         .status());
  GH_RETURN_IF_ERROR(c.ExecPrepared("reviews_mailbox_revive",
                                    "UPDATE work_items SET state = 'pending', due_at = $2,"
                                    " attempts = 0, availability_since = NULL,"
                                    " backoff_until = NULL, last_error = '', updated_at = $2"
                                    " WHERE key = $1 AND state = 'dead'",
                                    {PgParam::Text(work_key), PgParam::At(now)})
                         .status());
  return store.Bump(c, "reviews.revived", 1);
}

// Deletes the slot run `id` holds (its holder is the run's work item).
Status ReleaseRunSlotInTx(PgConn& c, const ReviewRun& run) {
  return c
      .ExecPrepared(
          "reviews_release_run_slot",
          "DELETE FROM reviewer_slots WHERE holder_key = $1 AND run_id = $2",
          {PgParam::Text(ReviewWorkKey(run.key.subject, run.key.role)), PgParam::Int(run.id)})
      .status();
}

}  // namespace

Result<std::optional<ReviewRun>> GetRunInTx(PgConn& c, int64_t id, bool lock) {
  // FOR UPDATE OF r: the run's row only (the work item is the nullable side of the join).
  Result<PgResult> r =
      lock
          ? c.ExecPrepared("reviews_get_run_locked",
                           GH_RUN_SELECT " WHERE r.id = $1 FOR UPDATE OF r", {PgParam::Int(id)})
          : c.ExecPrepared("reviews_get_run", GH_RUN_SELECT " WHERE r.id = $1", {PgParam::Int(id)});
  if (!r.ok()) return r.status();
  if (r->rows() == 0) return std::optional<ReviewRun>();
  return std::optional<ReviewRun>(ReadRun(*r, 0));
}

Result<ReviewRun> FencedRunInTx(PgStore& store, PgConn& c, int64_t id, int64_t fence,
                                std::span<const RunState> allowed) {
  GH_ASSIGN_OR_RETURN(std::optional<ReviewRun> run, GetRunInTx(c, id, /*lock=*/false));
  if (!run) return NotFound("no review run " + std::to_string(id));
  GH_RETURN_IF_ERROR(
      store.CheckFenceInTx(c, ReviewWorkKey(run->key.subject, run->key.role), fence));
  // Now that the work item is locked, lock the run and read it again: a PR's CancelRuns may
  // have ended it meanwhile.
  GH_ASSIGN_OR_RETURN(run, GetRunInTx(c, id, /*lock=*/true));
  if (!run) return NotFound("no review run " + std::to_string(id));
  if (std::find(allowed.begin(), allowed.end(), run->state) == allowed.end()) {
    return FailedPrecondition("review run " + std::to_string(id) + " is " +
                              std::string(RunStateName(run->state)));
  }
  return *std::move(run);
}

Result<ReviewRuns::Requested> PgStore::RequestRun(const ReviewRunKey& key,
                                                  std::string_view fence_key, int64_t fence,
                                                  Time now) {
  GH_RETURN_IF_ERROR(ValidateReviewRunKey(key));
  const Signal signal{ReviewWorkKey(key.subject, key.role), "review-run", Duration(0)};
  GH_RETURN_IF_ERROR(ValidateSignal(signal));
  Requested out;
  // Acknowledged: the pass that asked goes on to tell the PR (and its funnel) it is queued.
  Status s = Write(Durability::kAcknowledged, [&](PgConn& c) -> Status {
    out = Requested{};
    GH_RETURN_IF_ERROR(CheckFenceInTx(c, fence_key, fence));
    // The unique key decides, never a read first: concurrent requests make one row (a
    // conflicting insert waits for the other transaction, then does nothing).
    GH_ASSIGN_OR_RETURN(
        PgResult ins,
        c.ExecPrepared(
            "reviews_request_insert",
            "INSERT INTO review_runs (subject, role, head_sha, \"trigger\", state, "
            "created_at, updated_at) VALUES ($1, $2, $3, $4, 'queued', $5, $5) "
            "ON CONFLICT DO NOTHING RETURNING id",
            {PgParam::Text(key.subject), PgParam::Text(key.role), PgParam::Text(key.head_sha),
             PgParam::Text(key.trigger), PgParam::At(now)}));
    out.created = ins.rows() == 1;
    int64_t id = 0;
    if (out.created) {
      id = ins.Int(0, 0);
      GH_RETURN_IF_ERROR(ReviveDeadMailboxInTx(*this, c, signal.key, key, now));
      GH_RETURN_IF_ERROR(EnqueueInTx(c, {&signal, 1}, now));
      GH_RETURN_IF_ERROR(Bump(c, "reviews.requested", 1));
    } else {
      GH_ASSIGN_OR_RETURN(
          PgResult q, c.ExecPrepared("reviews_request_existing",
                                     "SELECT id FROM review_runs WHERE subject = $1 AND "
                                     "role = $2 AND head_sha = $3 AND \"trigger\" = $4",
                                     {PgParam::Text(key.subject), PgParam::Text(key.role),
                                      PgParam::Text(key.head_sha), PgParam::Text(key.trigger)}));
      if (q.rows() != 1) return Internal("review run vanished after a conflicting insert");
      id = q.Int(0, 0);
    }
    GH_ASSIGN_OR_RETURN(std::optional<ReviewRun> run, GetRunInTx(c, id, /*lock=*/false));
    if (!run) return Internal("review run " + std::to_string(id) + " vanished");
    out.run = *std::move(run);
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("requesting review " + key.role + " of " + key.subject);
  if (out.created) NotifyCommitted(Wakeups::Topic::kWork);
  return out;
}

Result<std::vector<ReviewRun>> PgStore::ListRuns(std::string_view subject, std::string_view role) {
  std::vector<ReviewRun> out;
  Status s = Read([&](PgConn& c) -> Status {
    GH_ASSIGN_OR_RETURN(
        PgResult r,
        c.ExecPrepared("reviews_list_runs",
                       GH_RUN_SELECT
                       " WHERE r.subject = $1 AND ($2 = '' OR r.role = $2) ORDER BY r.id",
                       {PgParam::Text(subject), PgParam::Text(role)}));
    out.clear();
    for (int i = 0; i < r.rows(); ++i) out.push_back(ReadRun(r, i));
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("listing the review runs of " + std::string(subject));
  return out;
}

Result<std::optional<ReviewRun>> PgStore::GetRun(int64_t id) {
  std::optional<ReviewRun> out;
  Status s = Read([&](PgConn& c) -> Status {
    GH_ASSIGN_OR_RETURN(out, GetRunInTx(c, id, /*lock=*/false));
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("reading review run " + std::to_string(id));
  return out;
}

Status PgStore::RecordResult(int64_t id, std::string_view result_json, int64_t fence, Time now) {
  if (result_json.empty()) return InvalidArgument("a review result must not be empty");
  // Acknowledged: the result is what gets posted; an executor run is not repeated for it.
  Status s = Write(Durability::kAcknowledged, [&](PgConn& c) -> Status {
    constexpr RunState kAllowed[] = {RunState::kRunning};
    GH_ASSIGN_OR_RETURN(ReviewRun run, FencedRunInTx(*this, c, id, fence, kAllowed));
    GH_RETURN_IF_ERROR(
        c.ExecPrepared("reviews_record_result",
                       "UPDATE review_runs SET state = 'finished', "
                       "result_json = $2, updated_at = $3 WHERE id = $1",
                       {PgParam::Int(id), PgParam::Text(result_json), PgParam::At(now)})
            .status());
    GH_RETURN_IF_ERROR(ReleaseRunSlotInTx(c, run));
    return Bump(c, "reviews.finished", 1);
  });
  return s.WithContext("recording the result of review run " + std::to_string(id));
}

Status PgStore::EndRun(int64_t id, RunState end, std::string_view reason, int64_t review_id,
                       int64_t fence, Time now) {
  if (!IsTerminal(end)) {
    return InvalidArgument("a run ends done, cancelled or superseded, not " +
                           std::string(RunStateName(end)));
  }
  if (review_id < 0) return InvalidArgument("a review id is not negative");
  // Acknowledged: `done` says the review is on the PR; nothing may post it again.
  Status s = Write(Durability::kAcknowledged, [&](PgConn& c) -> Status {
    const RunState allowed[] = {RunState::kQueued, RunState::kRunning, RunState::kFinished, end};
    GH_ASSIGN_OR_RETURN(ReviewRun run, FencedRunInTx(*this, c, id, fence, allowed));
    if (run.state == end) return Status::Ok();  // ended so already (a repeated pass)
    GH_RETURN_IF_ERROR(
        c.ExecPrepared("reviews_end_run",
                       "UPDATE review_runs SET state = $2, reason = $3, "
                       "review_id = $4, updated_at = $5 WHERE id = $1",
                       {PgParam::Int(id), PgParam::Text(RunStateName(end)), PgParam::Text(reason),
                        PgParam::Int(review_id), PgParam::At(now)})
            .status());
    GH_RETURN_IF_ERROR(ReleaseRunSlotInTx(c, run));
    return Bump(c, "reviews." + std::string(RunStateName(end)), 1);
  });
  return s.WithContext("ending review run " + std::to_string(id));
}

Result<std::vector<std::string>> PgStore::CancelRuns(std::string_view subject,
                                                     std::string_view keep_head,
                                                     std::string_view reason,
                                                     std::string_view fence_key, int64_t fence,
                                                     Time now) {
  std::vector<std::string> keys;
  // Recoverable: a lost cancel is caught when the run's result is about to be posted (its head
  // is no longer the PR's), and any later acknowledged commit makes it durable.
  Status s = Write(Durability::kRecoverable, [&](PgConn& c) -> Status {
    keys.clear();
    GH_RETURN_IF_ERROR(CheckFenceInTx(c, fence_key, fence));
    // One statement: a run a concurrent holder is ending is waited for and re-checked.
    GH_ASSIGN_OR_RETURN(PgResult u,
                        c.ExecPrepared("reviews_cancel_runs",
                                       "UPDATE review_runs SET state = 'cancelled', reason = $3, "
                                       "updated_at = $4 WHERE subject = $1 "
                                       "AND state IN ('queued', 'running', 'finished') "
                                       "AND ($2 = '' OR head_sha <> $2) RETURNING role",
                                       {PgParam::Text(subject), PgParam::Text(keep_head),
                                        PgParam::Text(reason), PgParam::At(now)}));
    for (int i = 0; i < u.rows(); ++i) keys.push_back(ReviewWorkKey(subject, u.Text(i, 0)));
    GH_RETURN_IF_ERROR(Bump(c, "reviews.cancelled", static_cast<int64_t>(keys.size())));
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("cancelling the review runs of " + std::string(subject));
  return keys;
}

Result<std::vector<std::string>> PgStore::WaitingWorkKeys() {
  std::vector<std::string> out;
  Status s = Read([&](PgConn& c) -> Status {
    // COLLATE "C": the keys come out in std::string order, as SQLite sorts them.
    GH_ASSIGN_OR_RETURN(
        PgResult r,
        c.ExecPrepared(
            "reviews_waiting_keys",
            "SELECT DISTINCT (r.subject || '/review/' || r.role) COLLATE \"C\" AS k" GH_RUN_JOIN
            " WHERE " GH_RUN_OPEN " AND NOT " GH_RUN_DEAD " ORDER BY k"));
    out.clear();
    for (int i = 0; i < r.rows(); ++i) out.push_back(r.Text(i, 0));
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("listing the waiting review work keys");
  return out;
}

Result<ReviewFunnel> PgStore::GetReviewFunnel() {
  ReviewFunnel f;
  Status s = Read([&](PgConn& c) -> Status {
    GH_ASSIGN_OR_RETURN(
        PgResult r,
        c.ExecPrepared("reviews_funnel",
                       "SELECT CASE WHEN " GH_RUN_DEAD
                       " THEN 'dead' ELSE r.state END AS s, COUNT(*)" GH_RUN_JOIN " GROUP BY 1"));
    f = ReviewFunnel{};
    for (int i = 0; i < r.rows(); ++i) {
      RunState state = RunState::kQueued;
      if (!ParseRunState(r.Text(i, 0), &state)) return Internal("review run state " + r.Text(i, 0));
      const int64_t n = r.Int(i, 1);
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
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("reading the review funnel");
  return f;
}

Result<std::vector<ReviewRuns::RunCount>> PgStore::CountRuns() {
  std::vector<RunCount> out;
  Status s = Read([&](PgConn& c) -> Status {
    GH_ASSIGN_OR_RETURN(
        PgResult r,
        c.ExecPrepared("reviews_count",
                       "SELECT r.role, r.reviewer, CASE WHEN " GH_RUN_DEAD
                       " THEN 'dead' ELSE r.state END, COUNT(*)" GH_RUN_JOIN " GROUP BY 1, 2, 3"));
    out.clear();
    for (int i = 0; i < r.rows(); ++i) {
      RunCount k;
      k.role = r.Text(i, 0);
      k.reviewer = r.Text(i, 1);
      if (!ParseRunState(r.Text(i, 2), &k.state))
        return Internal("review run state " + r.Text(i, 2));
      k.count = r.Int(i, 3);
      out.push_back(std::move(k));
    }
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("counting review runs");
  return out;
}

#undef GH_RUN_SELECT
#undef GH_RUN_JOIN
#undef GH_RUN_DEAD
#undef GH_RUN_OPEN

}  // namespace gatehouse::postgres
