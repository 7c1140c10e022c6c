#include "store/fence_outcomes.h"

#include <string>

namespace gatehouse {

Status RenewOutcome(const LeaseRenewal& r, bool applied) {
  if (applied) return Status::Ok();
  return FenceLost("renewing " + r.key + " fence " + std::to_string(r.fence));
}

void FinishTally::Record(const PassFinish& f, bool applied, std::vector<Status>* out) {
  if (!applied) {
    ++rejected_;
    out->push_back(FenceLost("finishing " + f.key + " fence " + std::to_string(f.fence)));
    return;
  }
  out->push_back(Status::Ok());
  switch (f.kind) {
    case PassFinish::Kind::kCompleted:
      ++completed_;
      break;
    case PassFinish::Kind::kRetry:
      ++retried_;
      break;
    case PassFinish::Kind::kDead:
      ++dead_;
      break;
  }
}

std::array<CounterDelta, 4> FinishTally::Counters() const {
  return {{{"work.passes_completed", completed_},
           {"work.passes_retried", retried_},
           {"work.dead", dead_},
           {"work.fence_rejections", rejected_}}};
}

}  // namespace gatehouse
