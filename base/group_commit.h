// GroupCommitter: many concurrent callers, one transaction.
//
// Each caller of Submit() hands over one item and blocks until the transaction that contains
// it has finished. Whoever arrives while no commit is running becomes the leader: it takes
// every item queued so far (up to max_batch), runs the commit function once for all of them,
// hands each caller its own outcome, and then passes leadership to a waiting caller. Callers
// that arrive while a commit runs queue up for the next one. The cost of one durable commit
// (one fsync) is thereby shared by everyone who arrived during the previous one, without
// timers: under no load a single caller commits immediately.
//
// Thread-safe. The commit function runs on a caller's thread, never concurrently with itself.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "base/mutex.h"
#include "base/thread_annotations.h"

namespace gatehouse {

template <typename Item, typename Outcome>
class GroupCommitter {
 public:
  // Commits `batch` and returns exactly one outcome per item, in order.
  using CommitFn = std::function<std::vector<Outcome>(std::vector<Item>& batch)>;

  // `on_throw` is every caller's outcome for a batch whose commit function threw (the
  // exception itself is rethrown to the leader only).
  GroupCommitter(CommitFn commit, Outcome on_throw, size_t max_batch = 1024)
      : commit_(std::move(commit)),
        on_throw_(std::move(on_throw)),
        max_batch_(max_batch == 0 ? 1 : max_batch) {}

  Outcome Submit(Item item) EXCLUDES(mu_) {
    Slot slot;
    MutexLock lock(&mu_);
    queue_.push_back(Waiting{std::move(item), &slot});
    while (!slot.outcome.has_value()) {
      if (!leader_active_) {
        RunAsLeader();
        continue;  // our own item may have been in a later batch than the first
      }
      cv_.Wait(&mu_);
    }
    return std::move(*slot.outcome);
  }

  // Number of commit-function calls so far, for benchmarks and tests.
  size_t commits() const EXCLUDES(mu_) {
    MutexLock lock(&mu_);
    return commits_;
  }

 private:
  struct Slot {
    std::optional<Outcome> outcome;  // written by a leader under mu_, read by its owner
  };
  struct Waiting {
    Item item;
    Slot* slot;
  };

  // Releases mu_ while the commit function runs; returns with it held, after one batch.
  void RunAsLeader() REQUIRES(mu_) {
    leader_active_ = true;
    const size_t n = std::min(queue_.size(), max_batch_);
    std::vector<Item> items;
    std::vector<Slot*> slots;
    items.reserve(n);
    slots.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      items.push_back(std::move(queue_[i].item));
      slots.push_back(queue_[i].slot);
    }
    queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(n));
    mu_.Unlock();
    std::vector<Outcome> outcomes;
    try {
      outcomes = commit_(items);
    } catch (...) {
      // Hand every caller of this batch an outcome and free the leadership, or they would
      // all wait forever; then let the leader see the exception.
      mu_.Lock();
      ++commits_;
      for (Slot* slot : slots) slot->outcome.emplace(on_throw_);
      leader_active_ = false;
      cv_.SignalAll();
      throw;
    }
    mu_.Lock();
    ++commits_;
    if (outcomes.size() != slots.size()) std::abort();  // a commit function bug; never guess
    for (size_t i = 0; i < slots.size(); ++i) slots[i]->outcome.emplace(std::move(outcomes[i]));
    leader_active_ = false;
    cv_.SignalAll();  // wakes finished callers and lets one waiting caller lead next
  }

  CommitFn commit_;
  const Outcome on_throw_;
  const size_t max_batch_;
  mutable Mutex mu_;
  CondVar cv_;
  std::vector<Waiting> queue_ GUARDED_BY(mu_);
  bool leader_active_ GUARDED_BY(mu_) = false;
  size_t commits_ GUARDED_BY(mu_) = 0;
};

}  // namespace gatehouse
