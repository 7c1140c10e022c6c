// QueueBatch: what the merge queue's pass does next with its batch under the integration_branch
// method (docs/MERGE_QUEUE.md, "Batches"). The batch is the entries at the front of the queue
// that are tested together: the base branch with each of their heads merged in, on gatehouse's
// integration branch; its tip, the integration SHA, is what CI tests and what the base branch is
// fast-forwarded to. A batch that fails is split in two and each half tested again, so one bad
// PR is found in O(log n) rounds and the others still merge.
//
//   updating  build (again): the integration branch reset to the base, each member's head
//             merged in, the tip recorded as the members' tested SHA.
//   testing   a member left (its PR moved or closed): build again without it. The required
//             checks failed on the tested SHA, or did not report by the deadline: split (a
//             single member: drop it). Pending: wait until the deadline. All passed: merge.
//   merging   fast-forward the base branch to the tested SHA (the pass settles what GitHub
//             answers; GitHub marks each member's PR merged).
//
// Pure functions over plain values; safe from any thread.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "decide/queue_step.h"
#include "decide/required_check.h"
#include "decide/snapshot.h"

namespace gatehouse::decide {

// The batch under way, as the queue pass read it: its open members share a state and, once
// built, a tested SHA.
struct QueueBatchFacts {
  std::string state;             // updating, testing, merging
  std::string tested_sha;        // testing, merging: the integration SHA
  std::optional<Time> deadline;  // testing: when its checks must have reported by
  size_t size = 0;               // its open members
  // A member tested at `tested_sha` has been dropped since (its PR's pass saw a push or a
  // close): the integration SHA holds a head that must not land.
  bool lost_member = false;
  std::vector<CheckRun> check_runs;  // on tested_sha
  std::vector<CommitStatus> statuses;
};

struct BatchMove {
  enum class Kind {
    kBuild,         // (re)build the integration branch from the base and the members' heads
    kWait,          // nothing to do before `at` (or a webhook): `reason`
    kStartMerging,  // testing -> merging (each member's PR checked live first)
    kLand,          // merging: fast-forward the base to the tested SHA
    kSplit,         // the batch failed: test its halves again (`reason`)
    kDrop,          // a batch of one failed: drop it (`reason`)
  };
  Kind kind = Kind::kWait;
  std::string reason;
  Time at{};
};

BatchMove NextBatchMove(const QueueBatchFacts& batch, const std::vector<RequiredCheck>& required,
                        Duration checks_timeout, Time now);

// Why a member's PR may not land with the batch ("" when it may): gone, merged, closed, a
// draft, or its head is no longer the head it was queued (and merged into the batch) at.
std::string WhyMemberCannotLand(const std::string& queued_head, const QueuePull& pr);

// How many of a failed batch's `size` members the first half takes (the rest form the second).
size_t FirstHalf(size_t size);

// How long a new batch waits for company: entries that become ready together (a storm of green
// checks, one webhook each) enter the queue over a second or two, and a batch formed at the
// first of them would test it alone. A batch forms once `batch_size` entries are queued, or
// once its first entry has waited this long (GitHub's merge queue calls it the wait time).
inline constexpr Duration kBatchGather = std::chrono::seconds(2);

// When the batch of `queued` entries (the first with `lead_entered_at`) may form: now (nullopt)
// or the instant to look again.
std::optional<Time> BatchFormsAt(size_t queued, size_t batch_size, Time lead_entered_at,
                                 Time now);

// The branch the queue of `base` builds its batches on: "gatehouse/queue/<base>".
std::string IntegrationBranch(const std::string& base);

}  // namespace gatehouse::decide
