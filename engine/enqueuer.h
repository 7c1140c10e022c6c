// Enqueuer: routes signals into work items with group commit.
//
// Concurrent Enqueue() calls share one store transaction (base/group_commit.h), so a burst of
// signals costs one commit, not one per signal. Enqueue() returns only after the signal is
// committed with the configured durability. On success the optional `on_committed` hook runs
// (the app wires it to WorkerPool::Wake so local workers look at once).
//
// Thread-safe.
#pragma once

#include <functional>

#include "base/clock.h"
#include "base/group_commit.h"
#include "store/store.h"

namespace gatehouse {

class Enqueuer {
 public:
  Enqueuer(Store& store, ClockPtr clock, Durability durability,
           std::function<void()> on_committed = nullptr, size_t max_batch = 1024);

  // Invalid signals are rejected here, before they can fail a shared transaction.
  Status Enqueue(Signal signal);

  size_t commits() const { return committer_.commits(); }

 private:
  std::vector<Status> CommitBatch(std::vector<Signal>& batch);

  Store& store_;
  ClockPtr clock_;
  Durability durability_;
  std::function<void()> on_committed_;
  GroupCommitter<Signal, Status> committer_;
};

}  // namespace gatehouse
