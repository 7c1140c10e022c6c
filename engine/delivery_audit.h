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

// After ApplyRouting wrote them: one `delivery.routed` log line (info) per audit line of
// AuditSignals, with the delivery id and the subject, so that one grep for a PR finds the
// deliveries that woke it next to its passes (docs/AUDIT.md, "Logs").
void LogRouted(const InboxEntry& entry, const RouteDecision& decision);

}  // namespace gatehouse
