// Counters: named monotonic counters of the store, e.g. "work.signals", "inbox.received",
// "ledger.done"; the funnel and `gatehouse work counters` read them.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

namespace gatehouse {

using Counters = std::map<std::string, int64_t, std::less<>>;

// One counter's increment within a write transaction.
struct CounterDelta {
  std::string_view name;
  int64_t delta = 0;
};

}  // namespace gatehouse
