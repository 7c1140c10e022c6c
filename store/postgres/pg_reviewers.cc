// PgStore: reviewers, their pause state, and the assignment of runs to reviewers with their
// slots (store/review_runs.h) on PostgreSQL. A slot row counts only while its holder's work
// item is running under the slot's fence with an unexpired lease; other rows are free and are
// deleted when an assignment looks at their reviewer.
//
// A reviewer's `concurrency` holds across every process on the database: an assignment takes a
// transaction-scoped advisory lock per candidate reviewer before it counts their slots (see
// LockCandidatesInTx), so two assignments to one reviewer count and take slots one after the
// other.
#include <algorithm>
#include <string>
#include <vector>

#include "store/reviewer_choice.h"
#include "store/postgres/pg_reviews_internal.h"

namespace gatehouse::postgres {
namespace {

// The slot row `slot` is live at `now` (an SQL parameter): its holder's work item is running
// under the slot's fence with an unexpired lease.
#define GH_SLOT_LIVE(slot, now)                            \
  "EXISTS (SELECT 1 FROM work_items w WHERE w.key = " slot \
  ".holder_key AND"                                        \
  " w.state = 'running' AND w.fence = " slot ".fence AND w.lease_until > " now ")"

// The first key of the advisory locks that serialize assignments per reviewer ("ghrv"); the
// second is hashtext(reviewer). The two-key form never meets the one-key (bigint) locks the
// schema migration takes.
constexpr int64_t kReviewerLockSpace = 0x67687276;

// Serializes this assignment with every other one that may take a slot of these candidates,
// in any process. Unlike SQLite, PostgreSQL at READ COMMITTED lets two transactions count a
// reviewer's free slots at once and both take the last one; so each candidate's slots are
// counted only under pg_advisory_xact_lock(space, hashtext(name)), held until commit, which
// makes the second transaction count after the first has committed its slot. A row lock on
// `reviewers` would not do: a candidate the store has never seen has no row. The locks are
// taken in ascending key order (hash collisions included), so two assignments with
// overlapping candidates cannot deadlock. Every candidate is locked, not only the chosen one,
// because the choice compares their free slots.
Status LockCandidatesInTx(PgConn& c, std::span<const ReviewerSlotSpec> candidates) {
  std::vector<int64_t> keys;
  for (const ReviewerSlotSpec& spec : candidates) {
    GH_ASSIGN_OR_RETURN(PgResult h, c.ExecPrepared("reviewers_lock_hash", "SELECT hashtext($1)",
                                                   {PgParam::Text(spec.name)}));
    keys.push_back(h.Int(0, 0));
  }
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  for (int64_t key : keys) {
    GH_RETURN_IF_ERROR(c.ExecPrepared("reviewers_lock",
                                      "SELECT pg_advisory_xact_lock($1::integer, $2::integer)",
                                      {PgParam::Int(kReviewerLockSpace), PgParam::Int(key)})
                           .status());
  }
  return Status::Ok();
}

struct ReviewerLoad {
  bool paused = false;
  int busy = 0;            // live slots
  bool held_here = false;  // one of them is held by the work item assigning
};

// Frees `reviewer`'s dead slots and counts the live ones. Call under LockCandidatesInTx.
Result<ReviewerLoad> ReviewerLoadInTx(PgConn& c, std::string_view reviewer,
                                      std::string_view holder_key, Time now) {
  GH_RETURN_IF_ERROR(c.ExecPrepared("reviewers_gc_slots",
                                    "DELETE FROM reviewer_slots WHERE reviewer = $1 AND "
                                    "NOT " GH_SLOT_LIVE("reviewer_slots", "$2"),
                                    {PgParam::Text(reviewer), PgParam::At(now)})
                         .status());
  // Every row left is live. A reviewer never seen (no row) is not paused.
  GH_ASSIGN_OR_RETURN(
      PgResult r,
      c.ExecPrepared("reviewers_load",
                     "SELECT COALESCE((SELECT paused FROM reviewers WHERE name = $1), false),"
                     " COUNT(*), COUNT(*) FILTER (WHERE holder_key = $2) "
                     "FROM reviewer_slots WHERE reviewer = $1",
                     {PgParam::Text(reviewer), PgParam::Text(holder_key)}));
  if (r.rows() != 1) return Internal("counting the slots of " + std::string(reviewer));
  ReviewerLoad load;
  load.paused = r.Bool(0, 0);
  load.busy = static_cast<int>(r.Int(0, 1));
  load.held_here = r.Int(0, 2) != 0;
  return load;
}

// Records `reviewer` on run `id` and takes one of its slots for (holder_key, fence).
Status RecordAssignmentInTx(PgStore& store, PgConn& c, int64_t id, std::string_view holder_key,
                            std::string_view reviewer, int64_t fence, Time now) {
  GH_RETURN_IF_ERROR(c.ExecPrepared("reviewers_record_assignment",
                                    "UPDATE review_runs SET reviewer = $2, assigned_at = $3,"
                                    " assigned_fence = $4, state = 'running',"
                                    " starts = starts + 1, updated_at = $3 WHERE id = $1",
                                    {PgParam::Int(id), PgParam::Text(reviewer), PgParam::At(now),
                                     PgParam::Int(fence)})
                         .status());
  GH_RETURN_IF_ERROR(c.ExecPrepared("reviewers_take_slot",
                                    "INSERT INTO reviewer_slots (reviewer, holder_key, fence, "
                                    "run_id, acquired_at) VALUES ($1, $2, $3, $4, $5)",
                                    {PgParam::Text(reviewer), PgParam::Text(holder_key),
                                     PgParam::Int(fence), PgParam::Int(id), PgParam::At(now)})
                         .status());
  return store.Bump(c, "reviews.assigned", 1);
}

}  // namespace

Result<Assignment> PgStore::AssignAndClaimSlot(int64_t id,
                                               std::span<const ReviewerSlotSpec> candidates,
                                               int64_t fence, Time now) {
  GH_RETURN_IF_ERROR(ValidateReviewerCandidates(candidates));
  Assignment out;
  // Acknowledged: the assignment is recorded durably before the executor starts.
  Status s = Write(Durability::kAcknowledged, [&](PgConn& c) -> Status {
    constexpr RunState kAllowed[] = {RunState::kQueued, RunState::kRunning};
    GH_ASSIGN_OR_RETURN(ReviewRun run, FencedRunInTx(*this, c, id, fence, kAllowed));
    const std::string key = ReviewWorkKey(run.key.subject, run.key.role);
    GH_ASSIGN_OR_RETURN(
        PgResult aff,
        c.ExecPrepared("reviewers_affinity",
                       "SELECT reviewer FROM review_runs WHERE subject = $1 AND "
                       "role = $2 AND assigned_at IS NOT NULL "
                       "ORDER BY assigned_at DESC, id DESC LIMIT 1",
                       {PgParam::Text(run.key.subject), PgParam::Text(run.key.role)}));
    const std::string affinity = aff.rows() == 1 ? aff.Text(0, 0) : "";
    // Idempotent: this claim already holds a slot for this run. Only this fence's holder
    // writes such a row, and it is fenced, so reading it unlocked is exact.
    GH_ASSIGN_OR_RETURN(
        PgResult held, c.ExecPrepared("reviewers_held_slot",
                                      "SELECT reviewer FROM reviewer_slots WHERE "
                                      "holder_key = $1 AND fence = $2 AND run_id = $3",
                                      {PgParam::Text(key), PgParam::Int(fence), PgParam::Int(id)}));
    if (held.rows() > 0 && run.state == RunState::kRunning) {
      const std::string reviewer = held.Text(0, 0);
      out = Assignment{Assignment::Kind::kAssigned, reviewer, reviewer == affinity};
      return Status::Ok();
    }
    GH_RETURN_IF_ERROR(LockCandidatesInTx(c, candidates));
    std::vector<ReviewerCandidate> states;
    for (const ReviewerSlotSpec& spec : candidates) {
      GH_ASSIGN_OR_RETURN(ReviewerLoad load, ReviewerLoadInTx(c, spec.name, key, now));
      states.push_back(ReviewerCandidate{&spec, load.paused, load.busy, load.held_here});
    }
    bool by_affinity = false;
    const ReviewerCandidate* chosen = ChooseReviewer(states, affinity, &by_affinity);
    if (chosen == nullptr) {
      out = Assignment{Assignment::Kind::kPaused, "", false};
      return Bump(c, "reviews.assign_paused", 1);
    }
    const bool free = chosen->Free() > 0;
    out = Assignment{free ? Assignment::Kind::kAssigned : Assignment::Kind::kAtCapacity,
                     chosen->spec->name, by_affinity};
    // Only an assignment that took a slot is recorded: a choice made while every reviewer was
    // busy must not become the PR's affinity and pin its runs to one queue.
    if (!free) return Bump(c, "reviews.at_capacity", 1);
    return RecordAssignmentInTx(*this, c, run.id, key, chosen->spec->name, fence, now);
  });
  if (!s.ok()) return s.WithContext("assigning review run " + std::to_string(id));
  return out;
}

Status PgStore::ReleaseSlot(std::string_view work_key, int64_t fence, Time /*now*/) {
  // Recoverable: a lost release frees itself when the holder's pass ends.
  Status s = Write(Durability::kRecoverable, [&](PgConn& c) -> Status {
    GH_RETURN_IF_ERROR(CheckFenceInTx(c, work_key, fence));
    return c
        .ExecPrepared("reviewers_release_slot", "DELETE FROM reviewer_slots WHERE holder_key = $1",
                      {PgParam::Text(work_key)})
        .status();
  });
  return s.WithContext("releasing the slot of " + std::string(work_key));
}

Status PgStore::EnsureReviewers(std::span<const std::pair<std::string, bool>> initial, Time now) {
  for (const auto& [name, paused] : initial) {
    if (name.empty()) return InvalidArgument("a reviewer needs a name");
  }
  if (initial.empty()) return Status::Ok();
  // Recoverable: every start ensures them again. ON CONFLICT: an existing reviewer keeps its
  // pause state, also against a process ensuring it at the same time.
  Status s = Write(Durability::kRecoverable, [&](PgConn& c) -> Status {
    for (const auto& [name, paused] : initial) {
      GH_RETURN_IF_ERROR(
          c.ExecPrepared(
               "reviewers_ensure",
               "INSERT INTO reviewers (name, paused, updated_at) "
               "VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
               {PgParam::Text(name), PgParam::Text(paused ? "true" : "false"), PgParam::At(now)})
              .status());
    }
    return Status::Ok();
  });
  return s.WithContext("recording reviewers");
}

Status PgStore::SetPaused(std::string_view reviewer, bool paused, Time now) {
  // Acknowledged: the operator is told it is done.
  Status s = Write(Durability::kAcknowledged, [&](PgConn& c) -> Status {
    GH_ASSIGN_OR_RETURN(
        PgResult u, c.ExecPrepared("reviewers_set_paused",
                                   "UPDATE reviewers SET paused = $2, "
                                   "updated_at = $3 WHERE name = $1",
                                   {PgParam::Text(reviewer),
                                    PgParam::Text(paused ? "true" : "false"), PgParam::At(now)}));
    if (u.affected() != 1) {
      return NotFound("no reviewer " + std::string(reviewer) +
                      " (known reviewers come from the reviewers file)");
    }
    return Bump(c, paused ? "reviews.paused" : "reviews.resumed", 1);
  });
  return s.WithContext(std::string(paused ? "pausing " : "resuming ") + std::string(reviewer));
}

Result<std::vector<ReviewerState>> PgStore::ListReviewers(Time now) {
  std::vector<ReviewerState> out;
  Status s = Read([&](PgConn& c) -> Status {
    // COLLATE "C": by name in std::string order, as SQLite lists them.
    GH_ASSIGN_OR_RETURN(
        PgResult r,
        c.ExecPrepared("reviewers_list",
                       "SELECT r.name, r.paused, r.updated_at, (SELECT COUNT(*) FROM "
                       "reviewer_slots s WHERE s.reviewer = r.name AND " GH_SLOT_LIVE(
                           "s", "$1") ") FROM reviewers r ORDER BY r.name COLLATE \"C\"",
                       {PgParam::At(now)}));
    out.clear();
    for (int i = 0; i < r.rows(); ++i) {
      out.push_back(
          ReviewerState{r.Text(i, 0), r.Bool(i, 1), static_cast<int>(r.Int(i, 3)), r.TimeAt(i, 2)});
    }
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("listing reviewers");
  return out;
}

#undef GH_SLOT_LIVE

}  // namespace gatehouse::postgres
