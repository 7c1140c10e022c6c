// See base/metrics.h.
#include "base/metrics.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <utility>

namespace gatehouse::metrics {
namespace {

[[noreturn]] void Misuse(const std::string& what) {
  std::fprintf(stderr, "metrics: %s\n", what.c_str());
  std::abort();
}

bool ValidName(std::string_view n, bool metric) {
  if (n.empty()) return false;
  auto first = [&](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (metric && c == ':');
  };
  if (!first(n[0])) return false;
  for (char c : n.substr(1)) {
    if (!first(c) && !(c >= '0' && c <= '9')) return false;
  }
  return metric || n.substr(0, 2) != "__";
}

void AddDouble(std::atomic<double>& a, double d) {
  double old = a.load(std::memory_order_relaxed);
  while (!a.compare_exchange_weak(old, old + d, std::memory_order_relaxed)) {
  }
}

// `{a="x",b="y"}` (plus `extra` as the last label, for a bucket's le), or "" with no labels.
std::string LabelSet(const std::vector<std::string>& names, const std::vector<std::string>& values,
                     std::string_view extra_name = {}, std::string_view extra_value = {}) {
  if (names.empty() && extra_name.empty()) return "";
  std::string out = "{";
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += ',';
    out += names[i] + "=\"" + EscapeLabelValue(values[i]) + "\"";
  }
  if (!extra_name.empty()) {
    if (!names.empty()) out += ',';
    out.append(extra_name).append("=\"").append(extra_value).append("\"");
  }
  return out + "}";
}

}  // namespace

void Gauge::Add(double d) { AddDouble(value_, d); }

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)), buckets_(new std::atomic<int64_t>[bounds_.size() + 1]) {
  for (size_t i = 0; i + 1 < bounds_.size(); ++i) {
    if (!(bounds_[i] < bounds_[i + 1])) Misuse("histogram bounds must ascend");
  }
  for (double b : bounds_) {
    if (!std::isfinite(b)) Misuse("histogram bounds must be finite (+Inf is implied)");
  }
  for (size_t i = 0; i <= bounds_.size(); ++i) buckets_[i].store(0, std::memory_order_relaxed);
}

void Histogram::Observe(double v) {
  const size_t at =
      static_cast<size_t>(std::lower_bound(bounds_.begin(), bounds_.end(), v) - bounds_.begin());
  buckets_[at].fetch_add(1, std::memory_order_relaxed);
  AddDouble(sum_, v);
}

Histogram::Snapshot Histogram::Take() const {
  Snapshot s;
  s.bounds = bounds_;
  int64_t running = 0;
  for (size_t i = 0; i <= bounds_.size(); ++i) {
    running += buckets_[i].load(std::memory_order_relaxed);
    s.cumulative.push_back(running);
  }
  s.count = running;
  s.sum = sum_.load(std::memory_order_relaxed);
  return s;
}

std::vector<double> LatencyBounds() {
  return {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60};
}

template <typename M>
M& Family<M>::With(const std::vector<std::string>& values) {
  if (values.size() != labels_.size()) {
    Misuse(name_ + ": " + std::to_string(values.size()) + " label values for " +
           std::to_string(labels_.size()) + " labels");
  }
  MutexLock lock(&mu_);
  std::unique_ptr<M>& slot = series_[values];
  if (!slot) {
    if constexpr (std::is_same_v<M, Histogram>) {
      slot = std::make_unique<Histogram>(bounds_);
    } else {
      slot = std::make_unique<M>();
    }
  }
  return *slot;
}

template class Family<Counter>;
template class Family<Gauge>;
template class Family<Histogram>;

struct Registry::Entry {
  std::string name, help, type;
  std::vector<std::string> labels;
  std::unique_ptr<Family<Counter>> counters;
  std::unique_ptr<Family<Gauge>> gauges;
  std::unique_ptr<Family<Histogram>> histograms;
  std::function<std::vector<Sample>()> collect;
};

Registry::Registry() = default;
Registry::~Registry() = default;

Registry::Entry& Registry::Add(std::string name, std::string help, std::string type,
                               const std::vector<std::string>& labels) {
  if (!ValidName(name, /*metric=*/true)) Misuse("invalid metric name \"" + name + "\"");
  for (const std::string& l : labels) {
    if (!ValidName(l, /*metric=*/false) || (type == "histogram" && l == "le")) {
      Misuse(name + ": invalid label name \"" + l + "\"");
    }
  }
  auto [it, inserted] = entries_.try_emplace(name);
  if (!inserted) Misuse("a second family named " + name);
  it->second = std::make_unique<Entry>();
  Entry& e = *it->second;
  e.name = std::move(name);
  e.help = std::move(help);
  e.type = std::move(type);
  e.labels = labels;
  return e;
}

Family<Counter>& Registry::AddCounter(std::string name, std::string help,
                                      std::vector<std::string> labels) {
  MutexLock lock(&mu_);
  Entry& e = Add(name, std::move(help), "counter", labels);
  e.counters.reset(new Family<Counter>(std::move(name), std::move(labels), {}));
  return *e.counters;
}

Family<Gauge>& Registry::AddGauge(std::string name, std::string help,
                                  std::vector<std::string> labels) {
  MutexLock lock(&mu_);
  Entry& e = Add(name, std::move(help), "gauge", labels);
  e.gauges.reset(new Family<Gauge>(std::move(name), std::move(labels), {}));
  return *e.gauges;
}

Family<Histogram>& Registry::AddHistogram(std::string name, std::string help,
                                          std::vector<std::string> labels,
                                          std::vector<double> bounds) {
  MutexLock lock(&mu_);
  Entry& e = Add(name, std::move(help), "histogram", labels);
  Histogram check(bounds);  // malformed bounds abort here, at registration
  e.histograms.reset(new Family<Histogram>(std::move(name), std::move(labels), std::move(bounds)));
  return *e.histograms;
}

void Registry::AddCollector(std::string name, std::string help, std::string type,
                            std::vector<std::string> labels,
                            std::function<std::vector<Sample>()> collect) {
  if (type != "counter" && type != "gauge") Misuse(name + ": a collector is a counter or gauge");
  MutexLock lock(&mu_);
  Entry& e = Add(std::move(name), std::move(help), std::move(type), labels);
  e.collect = std::move(collect);
}

std::string Registry::Render() const {
  MutexLock lock(&mu_);
  std::string out;
  for (const auto& [name, entry] : entries_) {
    const Entry& e = *entry;
    out += "# HELP " + name + " " + EscapeHelp(e.help) + "\n";
    out += "# TYPE " + name + " " + e.type + "\n";
    auto line = [&](const std::string& series, const std::string& labels, double v) {
      out += series + labels + " " + FormatValue(v) + "\n";
    };
    if (e.collect) {
      std::vector<Sample> samples = e.collect();
      std::sort(samples.begin(), samples.end(), [](const Sample& a, const Sample& b) {
        return a.label_values < b.label_values;
      });
      for (const Sample& s : samples) {
        if (s.label_values.size() != e.labels.size()) Misuse(name + ": a sample's labels");
        line(name, LabelSet(e.labels, s.label_values), s.value);
      }
    } else if (e.counters) {
      MutexLock family(&e.counters->mu_);
      for (const auto& [values, c] : e.counters->series_) {
        line(name, LabelSet(e.labels, values), static_cast<double>(c->Value()));
      }
    } else if (e.gauges) {
      MutexLock family(&e.gauges->mu_);
      for (const auto& [values, g] : e.gauges->series_) {
        line(name, LabelSet(e.labels, values), g->Value());
      }
    } else if (e.histograms) {
      MutexLock family(&e.histograms->mu_);
      for (const auto& [values, h] : e.histograms->series_) {
        const Histogram::Snapshot s = h->Take();
        for (size_t i = 0; i < s.cumulative.size(); ++i) {
          const std::string le = i < s.bounds.size() ? FormatValue(s.bounds[i]) : "+Inf";
          line(name + "_bucket", LabelSet(e.labels, values, "le", le),
               static_cast<double>(s.cumulative[i]));
        }
        line(name + "_sum", LabelSet(e.labels, values), s.sum);
        line(name + "_count", LabelSet(e.labels, values), static_cast<double>(s.count));
      }
    }
  }
  return out;
}

namespace {

// `\` and newline escaped, and `"` too when `quotes`.
std::string Escape(std::string_view v, bool quotes) {
  std::string out;
  out.reserve(v.size());
  for (char c : v) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '"' && quotes) {
      out += "\\\"";
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

std::string EscapeLabelValue(std::string_view v) { return Escape(v, /*quotes=*/true); }

std::string EscapeHelp(std::string_view v) { return Escape(v, /*quotes=*/false); }

std::string FormatValue(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    return std::to_string(static_cast<int64_t>(v));
  }
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);  // shortest round-trip form
  if (ec != std::errc()) return "NaN";
  return std::string(buf, end);
}

}  // namespace gatehouse::metrics
