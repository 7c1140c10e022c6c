// The traffic side of a storm: which signals to send, sending them from several threads at
// random times, and draining the store afterwards (heal, re-arm the dead, wait until idle).
#pragma once

#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "engine/enqueuer.h"
#include "store/store.h"
#include "tests/storm_log.h"

namespace gatehouse::storm {

struct StormPlan {
  std::vector<std::string> signals;  // one entry per signal, in sending order
  std::map<std::string, int64_t> per_key;
  std::set<std::string> doomed;
};

// `keys` ordinary keys and `doomed` always-failing keys, each with U[min, max] signals,
// shuffled into one arrival order.
StormPlan MakeStormPlan(int keys, int doomed, int min_signals, int max_signals, uint64_t seed);

// Sends the plan from `producers` threads through `enqueuer`, with random gaps (0..300 us)
// and random debounce (0..5 ms). Every Enqueue must succeed.
void ProduceSignals(Enqueuer& enqueuer, const StormPlan& plan, int producers, uint64_t seed);

// Waits until every work item is idle or dead (no pass pending or running), re-checking after
// each `tick` (a notification or a timeout). False if the safety deadline passes.
bool WaitQuiet(Store& store, const std::function<void()>& tick, bool allow_dead,
               std::chrono::seconds safety = std::chrono::seconds(240));

// Snapshot of every work item, by key.
std::map<std::string, WorkItem> AllItems(Store& store);

// The end of every storm: records dead items' errors, heals (creates `heal_file`), re-arms the
// dead, waits until everything is idle, and fills `want` for CheckStormInvariants.
bool HealAndDrain(Store& store, const std::string& heal_file, const std::function<void()>& tick,
                  const StormPlan& plan, StormExpectations* want);

}  // namespace gatehouse::storm
