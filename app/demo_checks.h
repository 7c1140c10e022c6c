// What gatehouse demo checks once the world is quiet:
//   - the simulator's invariants and every PR's story end state, evaluated by gatehouse-sim
//     itself (POST /_sim/expect: the scenario expectations of docs/SIMULATOR.md, the same
//     checker `gatehouse-sim run` uses): no action twice (no_duplicate_effects, and
//     no_duplicate_summaries: one summary comment per PR), nothing on a stale head
//     (no_stale_effects), each PR merged, closed or left open as its story says;
//   - from gatehouse's own database, what only it knows: each story's own action is `done` in
//     the ledger (a draft-dodge PR closed as a draft-dodge, not by the grace period), no work
//     item is dead, and what the ledger holds by state and kind (for the report).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "app/demo_sim.h"
#include "app/demo_world.h"
#include "store/store.h"

namespace gatehouse::app {

struct LedgerSummary {
  int64_t actions = 0;  // done
  int64_t superseded = 0;
  int64_t open_intents = 0;
  int64_t dead_items = 0;
  std::map<std::string, int64_t> done_by_kind;
  // Passes (a work item's key and the fence of its claim) with at least one GitHub write the
  // ledger recorded done: about the number of write requests, were each pass's writes one. An
  // estimate: the queue's branch writes and refused calls are not in the ledger, and an intent
  // a later pass reconciled as done carries that pass's fence.
  int64_t writing_passes = 0;
  std::vector<std::string> problems;  // one per dead work item
};

// Reads every work item and its actions.
LedgerSummary SummarizeLedger(Store& store);

struct WorldChecks {
  int64_t duplicate_effects = 0;  // duplicate App effects plus extra summary comments
  int64_t stale_effects = 0;
  // Merges (and base-branch fast-forwards) a strict repository's protection forbids: behind
  // its base, or not green on exactly the SHA that became the base (no_untested_merges).
  int64_t untested_merges = 0;
  // Per PR of the world, in order: "" when it ended in its story's state, else why not.
  std::vector<std::string> end_states;
  // By expected state ("merged", "closed", "open"): PRs that ended there by their story's
  // action (CheckStoryActions), and PRs expected there.
  std::map<std::string, int> stories_ok;
  std::map<std::string, int> stories;
  std::vector<std::string> problems;  // every offence and unmet story, one line each
};

// Asks the simulator, with the world at rest and before it stops. A simulator that cannot
// answer is a problem.
WorldChecks CheckWorld(SimControl& sim, const DemoWorld& world);

// Once gatehouse has stopped: completes `checks` with each story's own action in the ledger.
void CheckStoryActions(Store& store, const DemoWorld& world, WorldChecks* checks);

// One merge queue of the world, from gatehouse's database (for the report).
struct QueueSummary {
  std::string queue;  // "acme/mono@main/queue"
  int64_t merged = 0;
  int64_t dropped = 0;
  int64_t open = 0;            // entries not ended (a problem once the world is quiet)
  int64_t batches_landed = 0;  // land_batch actions done
  // The states the queue had CI test: the distinct SHAs its entries went into testing at (the
  // audit's "-> testing at <sha>"). A serial queue tests each entry on its own, after
  // bringing it up to date: one CI run per entry it tested.
  int64_t tested_states = 0;
  int64_t entries_tested = 0;  // entries that went into testing at least once
};
std::vector<QueueSummary> SummarizeQueues(Store& store, const DemoWorld& world);

}  // namespace gatehouse::app
