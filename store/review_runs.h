// ReviewRuns: review runs, their reviewer assignments, reviewer slots and reviewer pause state
// (docs/REVIEWERS.md). A review run is one review of one PR head by one role; its mailbox is the
// work item ReviewWorkKey(subject, role) ("acme/app#12/review/security"), so it is claimed
// under a lease with a fence, retried and re-armed by the engine like a PR (DESIGN.md §2, §7).
//
// Exactly once by construction: a run is identified by (subject, role, head_sha, trigger) and
// the store enforces that key (a unique index, never check-then-insert). A reviewer's
// `concurrency` is enforced here, across every process sharing the store: a slot is a row
// naming its holder's work item and fence, and it counts only while that work item is running
// under that fence with an unexpired lease — so a crashed holder's slot comes back when its
// lease runs out, with no clean-up needed. Assignment and slot claim are one transaction, so two
// runs can never be given different reviewers, or one slot, by a race.
//
// Every method is one atomic transaction; writes are fenced by the work item named. The store
// never reads a clock: callers pass `now`. Implementations are safe for concurrent use from
// several threads and processes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"

namespace gatehouse {

// Stored states. `dead` is never stored: a run that is not terminal while its work item is dead
// is reported as kDead (with the work item's last error as the reason); re-arming the work item
// revives it.
enum class RunState { kQueued, kRunning, kFinished, kDone, kCancelled, kSuperseded, kDead };
std::string_view RunStateName(RunState state);  // queued, running, finished, done, cancelled,
                                                // superseded, dead
bool IsTerminal(RunState state);                // done, cancelled, superseded
// The inverse of RunStateName; false for any other text.
bool ParseRunState(std::string_view text, RunState* out);

// "owner/repo#12/review/security": the work item of a PR's runs of one role.
std::string ReviewWorkKey(std::string_view subject, std::string_view role);
// The inverse; false when `key` is not a review work key.
bool ParseReviewWorkKey(std::string_view key, std::string* subject, std::string* role);

// What identifies a run. `trigger` is "auto" for a run the repository's `reviews:` rules asked
// for, "comment:<id>" for one an `@app review` comment asked for.
struct ReviewRunKey {
  std::string subject;  // the PR, "owner/repo#12"
  std::string role;
  std::string head_sha;
  std::string trigger = "auto";
  bool operator==(const ReviewRunKey&) const = default;
};

// Validation shared by every backend: a subject that round-trips through ReviewWorkKey (it
// holds a '#', the role holds no '/'), a head SHA and a trigger. kInvalidArgument otherwise.
Status ValidateReviewRunKey(const ReviewRunKey& key);

struct ReviewRun {
  int64_t id = 0;
  ReviewRunKey key;
  RunState state = RunState::kQueued;
  std::string reviewer;  // "" until assigned
  std::optional<Time> assigned_at;
  int64_t assigned_fence = 0;  // the claim of the run's work item that recorded the assignment
  int starts = 0;              // how many times an executor was started for it
  std::string result_json;     // the ReviewResult (review/review_json.h) once finished
  std::string reason;          // why it ended (cancelled, superseded, dead), or the last error
  int64_t review_id = 0;       // the PR review posted for it (done)
  Time created_at;
  Time updated_at;
};

// A reviewer as the assignment sees it: its name and its `concurrency`.
struct ReviewerSlotSpec {
  std::string name;
  int concurrency = 1;
};

struct Assignment {
  enum class Kind {
    kAssigned,    // `reviewer` is recorded on the run and one of its slots is held
    kPaused,      // every candidate is paused; nothing written
    kAtCapacity,  // the chosen reviewer has no free slot; the choice is recorded, no slot held
  };
  Kind kind = Kind::kAssigned;
  std::string reviewer;
  bool affinity = false;  // chosen because it reviewed this PR in this role before
};

struct ReviewerState {
  std::string name;
  bool paused = false;
  int busy = 0;  // slots held right now
  Time updated_at;
};

// The review-request funnel (docs/REVIEWERS.md): requested = done + cancelled + superseded +
// dead + in_flight, always.
struct ReviewFunnel {
  int64_t requested = 0;
  int64_t done = 0;  // posted on the PR
  int64_t cancelled = 0;
  int64_t superseded = 0;
  int64_t dead = 0;
  int64_t in_flight = 0;  // queued, running or finished (not posted yet)
};

class ReviewRuns {
 public:
  virtual ~ReviewRuns() = default;

  struct Requested {
    ReviewRun run;
    bool created = false;  // false: the run already existed (same key); nothing written
  };
  // Creates the run (queued) unless one with the same key exists, and signals its work item
  // (reason `review-run`, decide::kReasonReviewRun), in one transaction that checks that the
  // work item `fence_key` (the PR's) is still running under `fence` (kFenceLost otherwise, nothing
  // written). A new run in a dead work item revives it (pending, budgets reset) and ends the
  // runs that died there `cancelled` with the reason: a new request is not the old failure.
  // Durable (kAcknowledged) on return.
  virtual Result<Requested> RequestRun(const ReviewRunKey& key, std::string_view fence_key,
                                       int64_t fence, Time now) = 0;

  // A PR's runs, every role, oldest first; with `role` only that role's.
  virtual Result<std::vector<ReviewRun>> ListRuns(std::string_view subject,
                                                  std::string_view role = "") = 0;
  virtual Result<std::optional<ReviewRun>> GetRun(int64_t id) = 0;

  // Chooses the reviewer for run `id` among `candidates` (the reviewers serving its role, in
  // the reviewers file's order) and claims one of its slots, fenced by the run's work item:
  //  - affinity: the reviewer of the latest recorded assignment of (subject, role) — any run,
  //    finished or not — if it is a candidate and not paused (it is waited for when busy);
  //  - else the non-paused candidate with the most free slots (file order breaks ties).
  // With a free slot, the choice is recorded on the run (reviewer, assigned_at,
  // assigned_fence), the slot is held by (work key, fence) and the run becomes kRunning with
  // starts += 1. At capacity nothing is written: a choice no slot confirmed is no affinity.
  // A run that already holds a slot under this fence keeps it (idempotent).
  // A work item holds at most one slot of a reviewer: while it holds one for another of its
  // runs, this run is kAtCapacity on that reviewer. A candidate the store has never seen
  // (EnsureReviewers) counts as not paused. The run must be queued or running
  // (kFailedPrecondition otherwise); kInvalidArgument for no candidates or a concurrency < 1.
  virtual Result<Assignment> AssignAndClaimSlot(int64_t id,
                                                std::span<const ReviewerSlotSpec> candidates,
                                                int64_t fence, Time now) = 0;

  // Records the executor's result (kFinished) and releases the run's slot, fenced. The run
  // must be running (kFailedPrecondition otherwise, e.g. cancelled meanwhile).
  virtual Status RecordResult(int64_t id, std::string_view result_json, int64_t fence,
                              Time now) = 0;
  // Ends the run: kDone (with the posted review's id), kCancelled or kSuperseded, with the
  // reason; releases its slot; fenced by the run's work item. From any state that is not
  // terminal; ending a run the way it already ended is OK and writes nothing, ending it another
  // way is kFailedPrecondition.
  virtual Status EndRun(int64_t id, RunState end, std::string_view reason, int64_t review_id,
                        int64_t fence, Time now) = 0;
  // Releases whatever slot the work item `work_key` holds under `fence` (a failed attempt);
  // fenced. Returns OK also when it held none.
  virtual Status ReleaseSlot(std::string_view work_key, int64_t fence, Time now) = 0;

  // Cancels every queued, running or finished run of `subject` whose head is not `keep_head`
  // ("" cancels all), with `reason`, in a transaction fenced by the PR's work item
  // `fence_key`. Returns the work keys of the runs it cancelled (sorted, each once), for the
  // caller to signal. It releases no slot: a cancelled run's holder releases it, or its pass
  // ending does.
  virtual Result<std::vector<std::string>> CancelRuns(std::string_view subject,
                                                      std::string_view keep_head,
                                                      std::string_view reason,
                                                      std::string_view fence_key, int64_t fence,
                                                      Time now) = 0;

  // --- Reviewers ---
  // Inserts the reviewers the store has not seen, with their initial pause state; existing
  // ones keep theirs (an operator's pause survives restarts).
  virtual Status EnsureReviewers(std::span<const std::pair<std::string, bool>> initial,
                                 Time now) = 0;
  // kNotFound for a reviewer the store has never seen. Durable on return.
  virtual Status SetPaused(std::string_view reviewer, bool paused, Time now) = 0;
  // Every reviewer the store knows, by name, with its busy slots at `now`.
  virtual Result<std::vector<ReviewerState>> ListReviewers(Time now) = 0;
  // Work keys of every run that is not terminal (queued, running, finished), for waking runs
  // that wait for a resumed reviewer or a freed slot.
  virtual Result<std::vector<std::string>> WaitingWorkKeys() = 0;

  virtual Result<ReviewFunnel> GetReviewFunnel() = 0;
  // How many runs there are of each role, reviewer ("" before assignment) and state, a run
  // whose work item is dead counting as dead as in the funnel: the metrics'
  // gatehouse_review_runs{role,reviewer,state}. One aggregate query.
  struct RunCount {
    std::string role;
    std::string reviewer;
    RunState state = RunState::kQueued;
    int64_t count = 0;
  };
  virtual Result<std::vector<RunCount>> CountRuns() = 0;
};

}  // namespace gatehouse
