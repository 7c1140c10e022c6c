#include "admin/queue_view.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "base/subject.h"

namespace gatehouse::admin {
namespace {

namespace json = boost::json;

constexpr int kEnded = 20;

json::value TimeOrNull(const std::optional<Time>& t) {
  return t ? json::value(FormatTime(*t)) : json::value(nullptr);
}

json::object EntryJson(const QueueEntry& e) {
  return json::object{{"id", e.id},
                      {"subject", e.key.subject},
                      {"head_sha", e.key.head_sha},
                      {"state", std::string(EntryStateName(e.state))},
                      {"priority", e.priority},
                      {"batch", e.batch},
                      {"tested_sha", e.tested_sha},
                      {"reason", e.reason},
                      {"deadline", TimeOrNull(e.deadline)},
                      {"entered_at", FormatTime(e.entered_at)},
                      {"updated_at", FormatTime(e.updated_at)}};
}

// The recent pace: the landings (merged entries grouped by the instant they were recorded)
// and the mean time between them.
struct Pace {
  std::optional<double> interval_s;
  double per_landing = 1;
};

Pace PaceOf(const std::vector<QueueEntry>& ended) {
  std::set<Time> landings;
  int merged = 0;
  for (const QueueEntry& e : ended) {
    if (e.state != EntryState::kMerged) continue;
    landings.insert(e.updated_at);
    ++merged;
  }
  Pace p;
  if (landings.size() >= 2) {
    const double span =
        std::chrono::duration<double>(*landings.rbegin() - *landings.begin()).count();
    p.interval_s = span / static_cast<double>(landings.size() - 1);
    p.per_landing = static_cast<double>(merged) / static_cast<double>(landings.size());
  }
  return p;
}

Result<json::object> OneQueue(Store& store, const WorkItem& item, const QueueKey& key, Time now) {
  auto listed = store.queues().ListQueue(key.key(), kEnded);
  if (!listed.ok()) return listed.status();
  std::vector<QueueEntry> open, ended;
  for (QueueEntry& e : *listed) (IsTerminal(e.state) ? ended : open).push_back(std::move(e));
  const Pace pace = PaceOf(ended);
  json::array open_json, ended_json;
  for (size_t i = 0; i < open.size(); ++i) {
    json::object e = EntryJson(open[i]);
    e["position"] = static_cast<int64_t>(i);
    if (pace.interval_s) {
      const double landings_ahead = std::floor(static_cast<double>(i) / pace.per_landing) + 1;
      e["eta"] = FormatTime(now + std::chrono::duration_cast<Duration>(std::chrono::duration<double>(
                                      landings_ahead * *pace.interval_s)));
    } else {
      e["eta"] = nullptr;
    }
    open_json.push_back(std::move(e));
  }
  for (const QueueEntry& e : ended) ended_json.push_back(EntryJson(e));
  json::object q{{"queue", key.key()},
                 {"repo", std::string(key.repo_full_name())},
                 {"base", std::string(key.base())},
                 {"work_state", std::string(WorkStateName(item.state))},
                 {"open", std::move(open_json)},
                 {"ended", std::move(ended_json)},
                 {"per_landing", pace.per_landing}};
  q["landing_interval_seconds"] =
      pace.interval_s ? json::value(*pace.interval_s) : json::value(nullptr);
  return q;
}

}  // namespace

Result<json::object> QueuesView(Store& store, Time now) {
  json::array queues;
  WorkFilter filter;
  filter.limit = 1000;
  while (true) {
    auto page = store.work().ListWorkItems(filter);
    if (!page.ok()) return page.status();
    for (const WorkItem& item : *page) {
      const std::optional<QueueKey> key = QueueKey::Parse(item.key);
      if (!key) continue;
      auto q = OneQueue(store, item, *key, now);
      if (!q.ok()) return q.status();
      queues.push_back(std::move(*q));
    }
    if (page->size() < filter.limit) break;
    filter.after = page->back().key;
  }
  return json::object{{"queues", std::move(queues)}, {"now", FormatTime(now)}};
}

}  // namespace gatehouse::admin
