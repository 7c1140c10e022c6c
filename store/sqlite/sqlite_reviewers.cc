// SqliteStore: reviewers, their pause state, and the assignment of runs to reviewers with their
// slots (store/review_runs.h). A slot row counts only while its holder's work item is running
// under the slot's fence with an unexpired lease; other rows are free and are deleted when an
// assignment looks at their reviewer.
#include <sqlite3.h>

#include <string>
#include <vector>

#include "store/reviewer_choice.h"
#include "store/sqlite/sqlite_store.h"

namespace gatehouse {
namespace {

// The slot row `slot` is live at `now` (an SQL parameter): its holder's work item is running
// under the slot's fence with an unexpired lease.
#define GH_SLOT_LIVE(slot, now)                            \
  "EXISTS (SELECT 1 FROM work_items w WHERE w.key = " slot \
  ".holder_key AND"                                        \
  " w.state = 'running' AND w.fence = " slot ".fence AND w.lease_until > " now ")"

}  // namespace

Result<Assignment> SqliteStore::AssignAndClaimSlot(int64_t id,
                                                   std::span<const ReviewerSlotSpec> candidates,
                                                   int64_t fence, Time now) {
  GH_RETURN_IF_ERROR(ValidateReviewerCandidates(candidates));
  Assignment out;
  MutexLock lock(&mu_);
  // Acknowledged: the assignment is recorded durably before the executor starts.
  Status s = db_->WriteTransaction(Durability::kAcknowledged, [&]() REQUIRES(mu_) -> Status {
    constexpr RunState kAllowed[] = {RunState::kQueued, RunState::kRunning};
    GH_ASSIGN_OR_RETURN(ReviewRun run, FencedRunInTx(id, fence, kAllowed));
    const std::string key = ReviewWorkKey(run.key.subject, run.key.role);
    GH_ASSIGN_OR_RETURN(auto aff, db_->Prepare("SELECT reviewer FROM review_runs WHERE subject = ?1"
                                               " AND role = ?2 AND assigned_at IS NOT NULL "
                                               "ORDER BY assigned_at DESC, id DESC LIMIT 1"));
    aff->Bind(1, run.key.subject).Bind(2, run.key.role);
    GH_ASSIGN_OR_RETURN(bool has_affinity, aff->Step());
    const std::string affinity = has_affinity ? aff->Text(0) : "";
    aff.reset();
    // Idempotent: this claim already holds a slot for this run.
    GH_ASSIGN_OR_RETURN(auto held, db_->Prepare("SELECT reviewer FROM reviewer_slots WHERE "
                                                "holder_key = ?1 AND fence = ?2 AND run_id = ?3"));
    held->Bind(1, key).Bind(2, fence).Bind(3, id);
    GH_ASSIGN_OR_RETURN(bool holds, held->Step());
    if (holds && run.state == RunState::kRunning) {
      out = Assignment{Assignment::Kind::kAssigned, held->Text(0), held->Text(0) == affinity};
      return Status::Ok();
    }
    held.reset();
    std::vector<ReviewerCandidate> states;
    for (const ReviewerSlotSpec& spec : candidates) {
      GH_ASSIGN_OR_RETURN(ReviewerLoad load, ReviewerLoadInTx(spec.name, key, now));
      states.push_back(ReviewerCandidate{&spec, load.paused, load.busy, load.held_here});
    }
    bool by_affinity = false;
    const ReviewerCandidate* chosen = ChooseReviewer(states, affinity, &by_affinity);
    if (chosen == nullptr) {
      out = Assignment{Assignment::Kind::kPaused, "", false};
      return Bump("reviews.assign_paused", 1);
    }
    const bool free = chosen->Free() > 0;
    out = Assignment{free ? Assignment::Kind::kAssigned : Assignment::Kind::kAtCapacity,
                     chosen->spec->name, by_affinity};
    // Only an assignment that took a slot is recorded: a choice made while every reviewer was
    // busy must not become the PR's affinity and pin its runs to one queue.
    if (!free) return Bump("reviews.at_capacity", 1);
    return RecordAssignmentInTx(run.id, key, chosen->spec->name, free, fence, now);
  });
  if (!s.ok()) return s.WithContext("assigning review run " + std::to_string(id));
  return out;
}

Result<SqliteStore::ReviewerLoad> SqliteStore::ReviewerLoadInTx(std::string_view reviewer,
                                                                std::string_view holder_key,
                                                                Time now) {
  GH_ASSIGN_OR_RETURN(
      auto gc, db_->Prepare("DELETE FROM reviewer_slots WHERE reviewer = ?1 AND NOT " GH_SLOT_LIVE(
                   "reviewer_slots", "?2")));
  gc->Bind(1, reviewer).Bind(2, now);
  GH_RETURN_IF_ERROR(gc->Run());
  gc.reset();
  // Every row left is live.
  GH_ASSIGN_OR_RETURN(auto q, db_->Prepare("SELECT (SELECT paused FROM reviewers WHERE name = ?1),"
                                           " COUNT(*), COALESCE(SUM(holder_key = ?2), 0) "
                                           "FROM reviewer_slots WHERE reviewer = ?1"));
  q->Bind(1, reviewer).Bind(2, holder_key);
  GH_ASSIGN_OR_RETURN(bool row, q->Step());
  if (!row) return Internal("counting the slots of " + std::string(reviewer));
  ReviewerLoad load;
  load.paused = q->Int(0) != 0;  // NULL (never seen) reads as 0
  load.busy = static_cast<int>(q->Int(1));
  load.held_here = q->Int(2) != 0;
  return load;
}

Status SqliteStore::RecordAssignmentInTx(int64_t id, std::string_view holder_key,
                                         std::string_view reviewer, bool take_slot, int64_t fence,
                                         Time now) {
  GH_ASSIGN_OR_RETURN(auto u, db_->Prepare("UPDATE review_runs SET reviewer = ?2, assigned_at = ?3,"
                                           " assigned_fence = ?4,"
                                           " state = CASE WHEN ?5 THEN 'running' ELSE state END,"
                                           " starts = starts + ?5, updated_at = ?3 WHERE id = ?1"));
  u->Bind(1, id).Bind(2, reviewer).Bind(3, now).Bind(4, fence);
  u->Bind(5, static_cast<int64_t>(take_slot ? 1 : 0));
  GH_RETURN_IF_ERROR(u->Run());
  u.reset();
  if (!take_slot) return Bump("reviews.at_capacity", 1);
  GH_ASSIGN_OR_RETURN(auto ins, db_->Prepare("INSERT INTO reviewer_slots (reviewer, holder_key, "
                                             "fence, run_id, acquired_at) "
                                             "VALUES (?1, ?2, ?3, ?4, ?5)"));
  ins->Bind(1, reviewer).Bind(2, holder_key).Bind(3, fence).Bind(4, id).Bind(5, now);
  GH_RETURN_IF_ERROR(ins->Run());
  return Bump("reviews.assigned", 1);
}

Status SqliteStore::ReleaseSlot(std::string_view work_key, int64_t fence, Time /*now*/) {
  MutexLock lock(&mu_);
  // Recoverable: a lost release frees itself when the holder's pass ends.
  Status s = db_->WriteTransaction(Durability::kRecoverable, [&]() REQUIRES(mu_) -> Status {
    GH_RETURN_IF_ERROR(CheckFenceInTx(work_key, fence));
    GH_ASSIGN_OR_RETURN(auto d, db_->Prepare("DELETE FROM reviewer_slots WHERE holder_key = ?1"));
    d->Bind(1, work_key);
    return d->Run();
  });
  return s.WithContext("releasing the slot of " + std::string(work_key));
}

Status SqliteStore::EnsureReviewers(std::span<const std::pair<std::string, bool>> initial,
                                    Time now) {
  for (const auto& [name, paused] : initial) {
    if (name.empty()) return InvalidArgument("a reviewer needs a name");
  }
  if (initial.empty()) return Status::Ok();
  MutexLock lock(&mu_);
  // Recoverable: every start ensures them again.
  Status s = db_->WriteTransaction(Durability::kRecoverable, [&]() REQUIRES(mu_) -> Status {
    for (const auto& [name, paused] : initial) {
      GH_ASSIGN_OR_RETURN(auto ins, db_->Prepare("INSERT INTO reviewers (name, paused, updated_at)"
                                                 " VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING"));
      ins->Bind(1, name).Bind(2, static_cast<int64_t>(paused ? 1 : 0)).Bind(3, now);
      GH_RETURN_IF_ERROR(ins->Run());
    }
    return Status::Ok();
  });
  return s.WithContext("recording reviewers");
}

Status SqliteStore::SetPaused(std::string_view reviewer, bool paused, Time now) {
  MutexLock lock(&mu_);
  // Acknowledged: the operator is told it is done.
  Status s = db_->WriteTransaction(Durability::kAcknowledged, [&]() REQUIRES(mu_) -> Status {
    GH_ASSIGN_OR_RETURN(auto u, db_->Prepare("UPDATE reviewers SET paused = ?2, updated_at = ?3 "
                                             "WHERE name = ?1"));
    u->Bind(1, reviewer).Bind(2, static_cast<int64_t>(paused ? 1 : 0)).Bind(3, now);
    GH_RETURN_IF_ERROR(u->Run());
    if (sqlite3_changes(db_->raw()) != 1) {
      return NotFound("no reviewer " + std::string(reviewer) +
                      " (known reviewers come from the "
                      "reviewers file)");
    }
    return Bump(paused ? "reviews.paused" : "reviews.resumed", 1);
  });
  return s.WithContext(std::string(paused ? "pausing " : "resuming ") + std::string(reviewer));
}

Result<std::vector<ReviewerState>> SqliteStore::ListReviewers(Time now) {
  MutexLock lock(&mu_);
  GH_ASSIGN_OR_RETURN(auto q, db_->Prepare("SELECT r.name, r.paused, r.updated_at, "
                                           "(SELECT COUNT(*) FROM reviewer_slots s WHERE "
                                           "s.reviewer = r.name AND " GH_SLOT_LIVE(
                                               "s", "?1") ") "
                                                          "FROM reviewers r ORDER BY r.name"));
  q->Bind(1, now);
  std::vector<ReviewerState> out;
  while (true) {
    GH_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    out.push_back(
        ReviewerState{q->Text(0), q->Int(1) != 0, static_cast<int>(q->Int(3)), q->TimeAt(2)});
  }
  return out;
}

#undef GH_SLOT_LIVE

}  // namespace gatehouse
