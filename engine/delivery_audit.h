// The audit line a routed delivery leaves on each PR it signals, so that a PR's timeline
// (`gatehouse audit`, the admin API, the dashboard) shows which deliveries woke it and why,
// next to the passes they caused (docs/AUDIT.md, kind "delivery").
#pragma once

#include "base/clock.h"
#include "store/inbox.h"

namespace gatehouse {

// Appends to decision.audit one "delivery" entry per distinct subject among decision.signals:
// summary "<event>.<action> <delivery id>: <reason>", detail {"delivery_id", "event",
// "action", "reason", "received_at"}. ApplyRouting writes them in the transaction that routes
// the delivery, so a line exists exactly when the signal does.
void AuditSignals(const InboxEntry& entry, RouteDecision& decision, Time now);

}  // namespace gatehouse
