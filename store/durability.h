// Durability: how durable a store write must be before the call returns (docs/DURABILITY.md).
#pragma once

namespace gatehouse {

// How durable a write must be before the call returns.
//  kAcknowledged: on stable storage (fsync'd) before returning. For anything acknowledged to
//                 the outside world or preceding an external effect.
//  kRecoverable:  survives a crash of the process, but the last moments may be lost on power
//                 loss or kernel panic. Only for writes whose loss is repaired by re-running a
//                 pass (see docs/DURABILITY.md).
enum class Durability { kRecoverable, kAcknowledged };

}  // namespace gatehouse
