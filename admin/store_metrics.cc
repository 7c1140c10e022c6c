#include "admin/store_metrics.h"

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/log.h"
#include "base/mutex.h"

namespace gatehouse::admin {
namespace {

using metrics::Sample;

struct Snapshot {
  Funnel funnel;
  WorkSummary work;
  ReviewFunnel reviews;
  Counters counters;
  std::vector<ActionLedger::KindCount> actions;
  std::vector<ReviewRuns::RunCount> runs;
  Time now;
};

// One snapshot per scrape: collectors run one after another under the registry's lock.
class SnapshotCache {
 public:
  SnapshotCache(Store& store, ClockPtr clock) : store_(store), clock_(std::move(clock)) {}

  std::optional<Snapshot> Get() {
    MutexLock lock(&mu_);
    const auto now = std::chrono::steady_clock::now();
    if (taken_ && now - *taken_ < std::chrono::seconds(1)) return last_;
    taken_ = now;
    last_ = Read();
    return last_;
  }

 private:
  std::optional<Snapshot> Read() {
    Snapshot s;
    auto funnel = store_.inbox().GetFunnel();
    auto work = store_.work().SummarizeWork();
    auto reviews = store_.reviews().GetReviewFunnel();
    auto counters = store_.GetCounters();
    auto actions = store_.ledger().CountActions();
    auto runs = store_.reviews().CountRuns();
    if (!funnel.ok() || !work.ok() || !reviews.ok() || !counters.ok() || !actions.ok() ||
        !runs.ok()) {
      const Status bad = !funnel.ok()    ? funnel.status()
                         : !work.ok()    ? work.status()
                         : !reviews.ok() ? reviews.status()
                         : !actions.ok() ? actions.status()
                         : !runs.ok()    ? runs.status()
                                         : counters.status();
      Log(LogLevel::kWarn, "metrics.store_unreadable").Field("error", bad.ToString());
      return std::nullopt;
    }
    s.funnel = *funnel;
    s.work = *work;
    s.reviews = *reviews;
    s.counters = std::move(*counters);
    s.actions = std::move(*actions);
    s.runs = std::move(*runs);
    s.now = clock_->Now();
    return s;
  }

  Store& store_;
  ClockPtr clock_;
  Mutex mu_;
  std::optional<std::chrono::steady_clock::time_point> taken_ GUARDED_BY(mu_);
  std::optional<Snapshot> last_ GUARDED_BY(mu_);
};

Sample S(std::vector<std::string> labels, double v) { return Sample{std::move(labels), v}; }

}  // namespace

void RegisterStoreMetrics(metrics::Registry& registry, Store& store, ClockPtr clock) {
  auto cache = std::make_shared<SnapshotCache>(
      store, clock ? std::move(clock) : std::make_shared<RealClock>());
  auto with = [cache](auto f) {
    return [cache, f]() -> std::vector<Sample> {
      std::optional<Snapshot> s = cache->Get();
      if (!s) return {};
      return f(*s);
    };
  };
  registry.AddCollector(
      "gatehouse_inbox_deliveries_total",
      "Webhook deliveries by where they ended (received = routed + ignored + duplicate + "
      "rejected + dead + in flight; recovered is part of received), cluster-wide.",
      "counter", {"outcome"}, with([](const Snapshot& s) {
        const Funnel& f = s.funnel;
        return std::vector<Sample>{
            S({"received"}, f.received), S({"recovered"}, f.recovered), S({"routed"}, f.routed),
            S({"ignored"}, f.ignored),   S({"duplicate"}, f.duplicate), S({"rejected"}, f.rejected),
            S({"dead"}, f.dead)};
      }));
  registry.AddCollector(
      "gatehouse_inbox_in_flight", "Deliveries accepted and not yet routed (unresolved included).",
      "gauge", {},
      with([](const Snapshot& s) { return std::vector<Sample>{S({}, s.funnel.in_flight)}; }));
  registry.AddCollector(
      "gatehouse_inbox_unresolved",
      "Deliveries waiting for a commit to be matched to its pull requests.", "gauge", {},
      with([](const Snapshot& s) { return std::vector<Sample>{S({}, s.funnel.unresolved)}; }));
  registry.AddCollector("gatehouse_work_items", "Work items (one per PR, review run) by state.",
                        "gauge", {"state"}, with([](const Snapshot& s) {
                          const WorkSummary& w = s.work;
                          return std::vector<Sample>{S({"idle"}, w.idle), S({"pending"}, w.pending),
                                                     S({"running"}, w.running),
                                                     S({"dead"}, w.dead)};
                        }));
  registry.AddCollector(
      "gatehouse_work_oldest_pending_age_seconds",
      "How long the earliest-due pending work item has been due (0 when none is due).", "gauge", {},
      with([](const Snapshot& s) {
        double age = 0;
        if (s.work.oldest_due && *s.work.oldest_due < s.now) {
          age = std::chrono::duration<double>(s.now - *s.work.oldest_due).count();
        }
        return std::vector<Sample>{S({}, age)};
      }));
  registry.AddCollector(
      "gatehouse_review_requests_total",
      "Review runs by where they ended (requested = done + cancelled + superseded + dead + in "
      "flight), cluster-wide.",
      "counter", {"outcome"}, with([](const Snapshot& s) {
        const ReviewFunnel& r = s.reviews;
        return std::vector<Sample>{S({"requested"}, r.requested), S({"done"}, r.done),
                                   S({"cancelled"}, r.cancelled), S({"superseded"}, r.superseded),
                                   S({"dead"}, r.dead)};
      }));
  registry.AddCollector(
      "gatehouse_review_requests_in_flight",
      "Review runs queued, running, or finished and not yet posted.", "gauge", {},
      with([](const Snapshot& s) { return std::vector<Sample>{S({}, s.reviews.in_flight)}; }));
  registry.AddCollector(
      "gatehouse_ledger_actions",
      "Rows of the action ledger by kind and state (intent: the effect may or may not have "
      "happened yet; done, failed, superseded: how it ended), cluster-wide.",
      "gauge", {"kind", "state"}, with([](const Snapshot& s) {
        std::vector<Sample> out;
        out.reserve(s.actions.size());
        for (const auto& a : s.actions) {
          out.push_back(S({a.kind, std::string(ActionStateName(a.state))}, a.count));
        }
        return out;
      }));
  registry.AddCollector(
      "gatehouse_review_runs",
      "Review runs by role, reviewer (\"\" until assigned) and state (dead: its mailbox is), "
      "cluster-wide.",
      "gauge", {"role", "reviewer", "state"}, with([](const Snapshot& s) {
        std::vector<Sample> out;
        out.reserve(s.runs.size());
        for (const auto& r : s.runs) {
          out.push_back(S({r.role, r.reviewer, std::string(RunStateName(r.state))}, r.count));
        }
        return out;
      }));
  registry.AddCollector(
      "gatehouse_signals_per_pass",
      "Coalescing: signals routed per pass claimed, since the database was created (1 = no "
      "folding; a storm of 100 webhooks answered by 2 passes pushes it up), cluster-wide.",
      "gauge", {}, with([](const Snapshot& s) {
        const auto at = [&](const char* name) {
          auto it = s.counters.find(name);
          return it == s.counters.end() ? int64_t{0} : it->second;
        };
        const int64_t passes = at("work.passes_claimed");
        std::vector<Sample> out;
        if (passes > 0) {
          out.push_back(
              S({}, static_cast<double>(at("work.signals")) / static_cast<double>(passes)));
        }
        return out;
      }));
  registry.AddCollector(
      "gatehouse_store_events_total",
      "The store's own counters (work.signals, work.passes_completed, ledger.intents, ...), "
      "cluster-wide; docs/STORE.md lists them.",
      "counter", {"name"}, with([](const Snapshot& s) {
        std::vector<Sample> out;
        out.reserve(s.counters.size());
        for (const auto& [name, value] : s.counters) out.push_back(S({name}, value));
        return out;
      }));
}

}  // namespace gatehouse::admin
