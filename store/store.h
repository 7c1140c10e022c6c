// Store: the durable state of gatehouse, by concept, behind one backend-neutral facade.
//
// A Store hands out one interface per concept, each in its own header:
//   work()   WorkQueue     — the per-subject work items (DESIGN.md §2)
//   inbox()  Inbox         — accepted webhook deliveries and their routing (§4)
//   ledger() ActionLedger  — intents and outcomes of external effects, head occurrences (§3)
//   audit()  AuditLog      — the history of verdicts and actions
//   repos()  RepoDirectory — repositories, PR heads and PR facts learned from webhooks
//   reviews() ReviewRuns   — review runs, reviewer assignments, slots and pause state
//   queues() MergeQueue    — the merge queues' entries (docs/MERGE_QUEUE.md)
//   wakeups() Wakeups      — who to tell when new work is committed (store/wakeups.h)
// plus the store-wide counters and a readiness check. The interfaces stay valid as long as the
// Store. Open one with OpenStore (store/open_store.h); wrap one with StoreWrapper
// (store/store_wrapper.h).
//
// Implementations: sqlite/ (embedded, the default; several processes may share one file) and,
// later, postgres/. Both must pass the store contract suite (store/*_contract_test.cc).
// Implementations are safe for concurrent use from multiple threads.
#pragma once

#include <memory>
#include <optional>

#include "base/metrics.h"
#include "base/status.h"
#include "store/action_ledger.h"
#include "store/audit_log.h"
#include "store/counters.h"
#include "store/durability.h"
#include "store/inbox.h"
#include "store/merge_queue.h"
#include "store/repo_directory.h"
#include "store/review_runs.h"
#include "store/wakeups.h"
#include "store/work_queue.h"

namespace gatehouse {

class Store {
 public:
  virtual ~Store() = default;

  virtual WorkQueue& work() = 0;
  virtual Inbox& inbox() = 0;
  virtual ActionLedger& ledger() = 0;
  virtual AuditLog& audit() = 0;
  virtual RepoDirectory& repos() = 0;
  virtual ReviewRuns& reviews() = 0;
  virtual MergeQueue& queues() = 0;
  virtual Wakeups& wakeups() = 0;

  // Every counter, summed over however the backend keeps them.
  virtual Result<Counters> GetCounters() = 0;

  // OK when a write transaction can be started now (for readiness probes). Writes nothing.
  virtual Status CheckWritable() = 0;

  // The highest schema migration applied to the database (`gatehouse migrate` reports it).
  virtual Result<int> SchemaVersion() = 0;

  // The database server's clock, for a node to compare its own with (docs/STORE.md, "Whose
  // clock"); nullopt for an embedded database, which shares this host's clock.
  virtual Result<std::optional<Time>> DatabaseTime() = 0;

  // Registers gatehouse_store_transaction_duration_seconds{backend,kind} (kind: write, read;
  // docs/METRICS.md) on `registry`, which must outlive the store, and times every transaction
  // from then on. Call at most once per registry, before the store is shared between threads.
  virtual void RegisterMetrics(metrics::Registry& registry) = 0;
};

using StorePtr = std::unique_ptr<Store>;

}  // namespace gatehouse
