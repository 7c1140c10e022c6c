// The merge queue's integration_branch method (docs/MERGE_QUEUE.md, "Batches"): the entries at
// the front of a queue are tested together on gatehouse's integration branch
// ("gatehouse/queue/<base>", decide/queue_batch.h), built through the git data API as the base
// branch with each member's head merged in; CI tests its tip, the integration SHA; the base
// branch is fast-forwarded to exactly that SHA (ledger action `land_batch|<sha>|batch:<id>`),
// and GitHub marks each member's PR merged. A batch that fails is split in two and each half
// tested again (bisection); a single entry that fails is dropped with the reason.
//
// One move per call, each step fenced by the queue's lease:
//   - no batch under way: form one — the first queued entry and the ones after it, up to
//     `batch_size`, or, for the half of a bisected batch, the entries of that half — queued ->
//     updating with the batch's id (its first entry's id);
//   - updating: build — the branch reset to the base's SHA, each member's PR read live and its
//     head merged in (a member that moved, closed or conflicts is dropped, the rest go on), the
//     tip recorded as every member's tested SHA (-> testing, until now + checks_timeout);
//   - testing: decide/queue_batch.h NextBatchMove over the checks on the tested SHA: wait,
//     rebuild without a member that left, split, drop, or every member's PR checked live and
//     -> merging;
//   - merging: land through the ledger; then -> merged, and the branch is deleted. A base that
//     moved meanwhile (not a fast-forward) sends the members back to updating.
// The integration branch is gatehouse's scratch space: building it again is harmless, so its
// writes are not ledgered; what lands on the base branch is.
//
// Crash safety: a kill between steps leaves the members in their last recorded state; a batch
// found half-moved (some members stepped, others not) is taken in its least advanced state
// that matters (any merging: land; else any updating: build again).
#pragma once

#include <vector>

#include "act/queue_moves.h"

namespace gatehouse::act {

// One move of the batch at the front of `entries` (ListQueue's order, non-empty).
QueueMoves::Moved MoveBatch(QueueMoves& moves, const std::vector<QueueEntry>& entries);

}  // namespace gatehouse::act
