// The merge queue's commands (docs/MERGE_QUEUE.md "Commands"): `queue`, `dequeue`, `merge` and
// `refresh` in a PR comment, by someone with write access (author association OWNER, MEMBER or
// COLLABORATOR — what a webhook says of the author; gatehouse itself never commands).
//
// Decided from state, never from timing, like the review command: what the commands say is
// folded from every command comment of the PR in comment order (a later comment overrides an
// earlier one), so a replay, a sweep or a restart decides the same; each comment is
// acknowledged once (a reaction, and a reply when it is refused), through the ledger.
//
//   queue    the PR enters its base's queue when it is ready, under the repository's autonomy
//            (the merge actions at `auto`); also undoes a `dequeue`, and lets a head the queue
//            dropped (a flaky check, a timeout) enter once more.
//   merge    the same, and the merge actions run for this PR whatever their autonomy
//            (`observe` or `suggest`; the server's dry-run still wins); without a merge queue,
//            the PR merges when ready.
//   dequeue  the PR's open entry leaves the queue with the reason, and the PR stays out until a
//            later `queue` or `merge`.
//   refresh  a fresh pass now: the comment's own webhook makes the PR's pass, which reads every
//            input live; gatehouse also wakes the queue of the PR's open entry.
//
// Pure; safe from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "decide/options.h"
#include "decide/review_plan.h"

namespace gatehouse::decide {

// What a PR's `queue`, `merge` and `dequeue` comments say, all of them folded in order.
struct QueueCommandStanding {
  bool hold = false;         // the latest of them is `dequeue`: the PR stays out of the queue
  bool grant = false;        // a `merge` after the latest `dequeue`: merge actions run at auto
  int64_t admitted_by = 0;   // the latest `queue` or `merge` after the latest `dequeue`, or 0
  int64_t comment_id = 0;    // the latest of them (0: none)
  std::string by;            // its author
  bool operator==(const QueueCommandStanding&) const = default;
};

// Whether an author with `role` may give the queue's commands (write access).
bool MayCommandQueue(AuthorRole role);
// The same from GitHub's author_association as the webhook writes it ("OWNER", ...).
bool MayCommandQueue(std::string_view author_association);

// Folds `comments` (every command comment of the PR, handled or not; any order) into what they
// say. Comments by gatehouse (`app_login`), by authors without write access and other commands
// are left out.
QueueCommandStanding FoldQueueCommands(const std::vector<CommandComment>& comments,
                                       std::string_view app_login);

// What the commands leave of the merge actions' autonomy for this PR: `auto` under a grant.
PlannerOptions UnderQueueCommands(const PlannerOptions& options,
                                  const QueueCommandStanding& standing);

// The acknowledgement of one queue command comment: kAccepted (+1), kRejected with the reply
// (confused), kNotAllowed (nothing), or kIgnored for a comment that holds no queue command.
// `pr_open`: the PR is open; `base_ref`: its base branch; `queue_enabled`: the base has a merge
// queue; `merge_level`: the merge actions' autonomy before any grant. `refresh` is always
// accepted; the others are refused on a closed PR, `queue` and `dequeue` without a queue, and
// `queue` when the merge actions are not at `auto` (the reply points to `merge`).
CommandDecision DecideQueueCommand(const CommandComment& comment, bool pr_open,
                                   std::string_view base_ref, std::string_view app_login,
                                   bool queue_enabled, Autonomy merge_level);

}  // namespace gatehouse::decide
