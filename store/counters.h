// Counters: named monotonic counters of the store, e.g. "work.signals", "inbox.received",
// "ledger.done"; the funnel and `gatehouse work counters` read them.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

namespace gatehouse {

using Counters = std::map<std::string, int64_t, std::less<>>;

}  // namespace gatehouse
