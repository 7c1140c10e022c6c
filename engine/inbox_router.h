// InboxRouter: moves accepted deliveries out of the inbox and into work items.
//
// One thread loops: take the oldest open deliveries, route each with RouteWebhook (the same
// code as `gatehouse route`), resolve checks and statuses that carry no PR list through the
// PR heads the store knows, and apply the decisions — each delivery's terminal state together
// with its signals and what its payload taught (PR heads, repositories and their installation,
// PR facts stamped with the delivery's received_at) — in one transaction. A delivery whose commit
// matches no known PR head stays `unresolved`, visible in the funnel, and is looked at again every
// `unresolved_recheck`; the DeliveryResolver (engine/delivery_resolver.h) asks GitHub about the
// rest.
//
// Several routers (threads or processes) may share one store: each claims its own batch
// (Inbox::ClaimDeliveries), so none routes a delivery another holds, and a decision applied
// under a claim that has been superseded changes nothing.
//
// Ingest first: while the webhook door is saturated (RouterOptions::ingest), the loop leaves the
// machine to acceptance for up to `defer_while_saturated`, then routes at full speed until it
// has caught up (docs/INGRESS.md, "Ingest first").
//
// Thread-safe. Start() once; Stop() routes what is still accepted, then joins.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include "base/clock.h"
#include "base/metrics.h"
#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "engine/ingest_pressure.h"
#include "engine/router.h"
#include "store/store.h"

namespace gatehouse {

struct RouterOptions {
  Duration debounce = std::chrono::seconds(1);  // for every signal routed
  size_t batch = 256;
  // Who claims (Inbox::ClaimDeliveries); "" = "router@<host>:<pid>:<n>". Routers in several
  // threads or processes each claim their own batches.
  std::string owner;
  // How long a batch stays this router's: a router that dies mid-batch leaves it to another
  // (or to itself, restarted) after this. Routing a batch takes milliseconds; the lease only
  // bounds how long a crash delays the deliveries it held.
  Duration claim_lease = std::chrono::seconds(10);
  // Between looks for deliveries accepted by other processes (this process's writer wakes
  // the router at once), measured on the router's Clock.
  std::chrono::milliseconds poll_interval{500};
  Duration unresolved_recheck = std::chrono::seconds(30);
  // Ingest first: while `ingest` says the front door is saturated, the loop routes nothing for
  // up to this long (on the router's Clock) from the first batch it held back; then it routes
  // until a batch comes back short of `batch` (caught up), and may hold back again. The door
  // going idle ends the wait at once. Unset `ingest` or zero: route at once.
  std::shared_ptr<const IngestPressure> ingest;
  Duration defer_while_saturated = Duration::zero();
  // Metrics (docs/METRICS.md), optional: 1 while routing is held back for the door, else 0;
  // holds begun.
  metrics::Gauge* held = nullptr;
  metrics::Counter* holds = nullptr;
  // Observer (tests, metrics): runs on the router's thread after each batch its loop routed
  // or tried to, one that found nothing included.
  std::function<void()> on_batch;
  // Metrics (docs/METRICS.md): from a delivery's acceptance to the transaction that decided
  // it (routed, ignored or dead; an unresolved delivery once it is resolved), in seconds.
  metrics::Histogram* routing_lag = nullptr;
  // gatehouse's login when it is known (act::AppLogin::Known: "<slug>[bot]" in App mode),
  // nullopt or unset before: what it reports of gatehouse's own effects is not routed
  // (RouteStamp::own_login).
  std::function<std::optional<std::string>()> own_login;
};

class InboxRouter {
 public:
  // `on_routed` runs after each batch that enqueued signals (wired to WorkerPool::Wake).
  InboxRouter(Store& store, ClockPtr clock, RouterOptions options,
              std::function<void()> on_routed = nullptr);
  ~InboxRouter();

  void Start();
  void Stop();
  void Wake();

  // Routes one batch now, on the caller's thread; returns how many deliveries it decided.
  Result<size_t> RouteOnce(bool include_unresolved);

 private:
  void Loop();
  // One ingest-first episode: since when the loop has held routing back, and whether the limit
  // ended it (then it routes until caught up).
  struct Deferral {
    std::optional<Time> since;
    bool limit_reached = false;
  };
  // True when it waited for the door instead of routing (the loop looks again); false when the
  // loop should route now.
  bool YieldToIngest(Time now, Deferral* deferral);
  void SetHeld(bool held);
  // Adds to `d` a signal for each merge queue watching a commit `r` is about (a check or status
  // on a SHA under test, a push from a head being updated); a check nobody else has resolved
  // is routed to them. `watching` holds the queues already looked up in this batch, by
  // (repository, SHA): a burst about one commit asks the store once.
  using QueuesBySha = std::map<std::pair<std::string, std::string>, std::vector<std::string>>;
  Status SignalWatchingQueues(const RouteResult& r, RouteDecision* d, QueuesBySha* watching);
  // Brings back each dead work item in `keys` (RouteResult::rearm), after the batch that
  // routed their commands committed; an item that is not dead is left as it is.
  void RearmRefreshed(const std::vector<std::string>& keys, Time now);

  Store& store_;
  int64_t wakeup_ = 0;  // the store's kDeliveries subscription while started
  ClockPtr clock_;
  RouterOptions options_;
  std::function<void()> on_routed_;

  Mutex mu_;
  CondVar cv_;
  bool wake_ GUARDED_BY(mu_) = false;
  bool stopping_ GUARDED_BY(mu_) = false;
  std::thread thread_;
};

}  // namespace gatehouse
