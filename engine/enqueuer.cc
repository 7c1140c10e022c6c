#include "engine/enqueuer.h"

namespace gatehouse {

Enqueuer::Enqueuer(Store& store, ClockPtr clock, Durability durability,
                   std::function<void()> on_committed, size_t max_batch)
    : store_(store),
      clock_(std::move(clock)),
      durability_(durability),
      on_committed_(std::move(on_committed)),
      committer_([this](std::vector<Signal>& batch) { return CommitBatch(batch); },
                 Internal("enqueue: the commit threw"), max_batch) {}

Status Enqueuer::Enqueue(Signal signal) {
  GH_RETURN_IF_ERROR(ValidateSignal(signal));
  return committer_.Submit(std::move(signal));
}

std::vector<Status> Enqueuer::CommitBatch(std::vector<Signal>& batch) {
  Status s = store_.work().Enqueue(batch, clock_->Now(), durability_);
  if (s.ok() && on_committed_) on_committed_();
  return std::vector<Status>(batch.size(), s);
}

}  // namespace gatehouse
