#include "store/queue_pace.h"

#include <cmath>
#include <set>

namespace gatehouse {

QueuePace PaceOf(const std::vector<EndedEntry>& ended) {
  std::set<Time> landings;
  int merged = 0;
  for (const EndedEntry& e : ended) {
    if (!e.merged) continue;
    landings.insert(e.at);
    ++merged;
  }
  QueuePace p;
  if (landings.size() >= 2) {
    p.interval = (*landings.rbegin() - *landings.begin()) / static_cast<int64_t>(landings.size() - 1);
    p.per_landing = static_cast<double>(merged) / static_cast<double>(landings.size());
  }
  return p;
}

std::optional<Time> EtaOf(const QueuePace& pace, size_t position, Time now) {
  if (!pace.interval) return std::nullopt;
  const auto landings_ahead =
      static_cast<int64_t>(std::floor(static_cast<double>(position) / pace.per_landing)) + 1;
  return now + *pace.interval * landings_ahead;
}

}  // namespace gatehouse
