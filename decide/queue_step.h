// QueueStep: what the merge queue's pass does next with its head entry (docs/MERGE_QUEUE.md,
// "An entry and its states"), given the entry and its PR as read live inside the queue's lease.
// The method is update_branch: the PR itself is brought up to date with its base
// (update-branch bound to the head it was queued at), its CI tests that new head, and the PR
// merges bound to exactly that head.
//
//   queued    the head moved or the PR closed: drop. Conflicts: drop. Behind its base: start
//             updating from the head. Mergeability not computed yet: wait. Else the head is
//             already up to date: test it as it is.
//   updating  `tested_sha` is the head the update started from. The head moved: that is the
//             update's head, test it. Still behind: ask for the update (the ledger makes it
//             once) and wait for the new head, until the checks timeout.
//   testing   the head is not the tested SHA: drop (pushed during the test). Behind again (the
//             base moved): update again from the tested head. A required check failed on the
//             tested SHA: drop. Pending: wait until the deadline, then drop. All passed: merge.
//   merging   merge bound to the tested SHA (the pass settles what GitHub answers).
//
// Pure functions over plain values; safe from any thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "decide/required_check.h"
#include "decide/snapshot.h"

namespace gatehouse::decide {

// The head entry of a queue, as the queue's pass read it (store/merge_queue.h).
struct QueueHeadEntry {
  std::string state;       // queued, updating, testing, merging
  std::string head_sha;    // the head it was queued at
  std::string tested_sha;  // updating: the head the update started from; testing: tested
  std::optional<Time> deadline;  // updating, testing: when its checks must have reported by
};

// The entry's PR, as read live.
struct QueuePull {
  bool found = true;  // false: GitHub no longer has it
  std::string state;  // open, closed
  bool merged = false;
  bool draft = false;
  std::string head_sha;
  std::optional<bool> mergeable;
  std::string mergeable_state;
  std::vector<CheckRun> check_runs;  // on head_sha
  std::vector<CommitStatus> statuses;
};

struct QueueMove {
  enum class Kind {
    kDrop,          // end the entry: `reason`
    kStartUpdate,   // -> updating from `sha` (then ask for the update)
    kUpdate,        // updating: ask for the update from `sha` (once, through the ledger)
    kStartTesting,  // -> testing `sha`, until now + checks_timeout
    kStartMerging,  // testing -> merging
    kMerge,         // merging: merge bound to `sha`
    kWait,          // nothing to do before `at` (or a webhook): `reason`
  };
  Kind kind = Kind::kWait;
  std::string sha;
  std::string reason;
  Time at{};
};

// How often the queue looks again while GitHub computes mergeability or an update lands.
inline constexpr Duration kQueueRecheck = std::chrono::seconds(3);

// The next move for `entry` and its PR at `now`. `required` are the checks the tested SHA must
// pass (the queue's `required_checks`, else the PR's); `checks_timeout` the queue's.
QueueMove NextQueueMove(const QueueHeadEntry& entry, const QueuePull& pr,
                        const std::vector<RequiredCheck>& required, Duration checks_timeout,
                        Time now);

// `required` on `sha` among `runs` and `statuses`, as the gate's required_checks rule reads
// them (the latest run of a name, the latest status of a context). kPass with no required
// check.
struct TestedChecks {
  enum class Outcome { kPass, kPending, kFail };
  Outcome outcome = Outcome::kPass;
  std::string reason;  // what fails or waits
};
TestedChecks EvaluateTestedChecks(const std::vector<RequiredCheck>& required,
                                  const std::string& sha, const std::vector<CheckRun>& runs,
                                  const std::vector<CommitStatus>& statuses, Time now);

}  // namespace gatehouse::decide
