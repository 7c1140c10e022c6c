// Metrics in Prometheus's text exposition format (version 0.0.4), for the admin listener's
// /metrics (docs/METRICS.md). The registry holds families of counters, gauges and histograms,
// each with fixed label names; a family hands out one series per label-value tuple, which the
// caller keeps (a reference, valid as long as the registry) so that the hot path is one atomic
// add with no lookup and no allocation. Values that live elsewhere (the store's funnel, a
// process's RSS) are read at scrape time by collectors.
//
// Names follow Prometheus: metric names [a-zA-Z_:][a-zA-Z0-9_:]*, label names
// [a-zA-Z_][a-zA-Z0-9_]* not starting with "__", and "le" is the histogram's own. They are
// constants of the code: a malformed name, a second family of one name, or a series asked for
// with the wrong number of label values is a programming error and aborts with the reason.
//
// Thread-safe: series update with atomics; families and collectors are guarded by the
// registry's mutex, which Render also takes (so a scrape sees each family whole).
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/mutex.h"
#include "base/thread_annotations.h"

namespace gatehouse::metrics {

// A value that only goes up (resets when the process restarts).
class Counter {
 public:
  void Inc(int64_t n = 1) { value_.fetch_add(n, std::memory_order_relaxed); }
  int64_t Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<int64_t> value_{0};
};

// A value that goes up and down.
class Gauge {
 public:
  void Set(double v) { value_.store(v, std::memory_order_relaxed); }
  void Add(double d);
  double Value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0};
};

// Observations counted into buckets with fixed upper bounds (ascending, finite; +Inf is
// implied), with their sum and count.
class Histogram {
 public:
  explicit Histogram(std::vector<double> bounds);
  void Observe(double v);

  struct Snapshot {
    std::vector<double> bounds;
    std::vector<int64_t> cumulative;  // per bound, then one for +Inf (== count)
    double sum = 0;
    int64_t count = 0;
  };
  Snapshot Take() const;

 private:
  const std::vector<double> bounds_;
  std::unique_ptr<std::atomic<int64_t>[]> buckets_;  // bounds_.size() + 1, not cumulative
  std::atomic<double> sum_{0};
};

// Bounds for durations in seconds, 1 ms to 60 s.
std::vector<double> LatencyBounds();

// One series per label-value tuple, created on first use.
template <typename M>
class Family {
 public:
  // The series for `values` (one per label name, in order). The reference stays valid as long
  // as the registry does.
  M& With(const std::vector<std::string>& values);

 private:
  friend class Registry;
  Family(std::string name, std::vector<std::string> labels, std::vector<double> bounds)
      : name_(std::move(name)), labels_(std::move(labels)), bounds_(std::move(bounds)) {}
  const std::string name_;
  const std::vector<std::string> labels_;
  const std::vector<double> bounds_;  // histograms only
  Mutex mu_;
  std::map<std::vector<std::string>, std::unique_ptr<M>> series_ GUARDED_BY(mu_);
};

// A sample a collector reports at scrape time.
struct Sample {
  std::vector<std::string> label_values;  // one per label name of the collector's family
  double value = 0;
};

class Registry {
 public:
  Registry();
  ~Registry();
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;

  Family<Counter>& AddCounter(std::string name, std::string help,
                              std::vector<std::string> labels = {});
  Family<Gauge>& AddGauge(std::string name, std::string help,
                          std::vector<std::string> labels = {});
  Family<Histogram>& AddHistogram(std::string name, std::string help,
                                  std::vector<std::string> labels, std::vector<double> bounds);
  // A family whose samples `collect` reports at each Render ("counter" or "gauge"). It runs
  // under the registry's mutex and must not call back into the registry.
  void AddCollector(std::string name, std::string help, std::string type,
                    std::vector<std::string> labels, std::function<std::vector<Sample>()> collect);

  // Every family in name order: "# HELP", "# TYPE", then its series sorted by label values.
  std::string Render() const;

 private:
  struct Entry;
  Entry& Add(std::string name, std::string help, std::string type,
             const std::vector<std::string>& labels) REQUIRES(mu_);

  mutable Mutex mu_;
  std::map<std::string, std::unique_ptr<Entry>> entries_ GUARDED_BY(mu_);
};

// Text-format helpers, exposed for tests: a label value escaped (\\, \", \n), a HELP text
// escaped (\\, \n), a value as Prometheus writes it (integers without an exponent, +Inf, -Inf,
// NaN).
std::string EscapeLabelValue(std::string_view v);
std::string EscapeHelp(std::string_view v);
std::string FormatValue(double v);

}  // namespace gatehouse::metrics
