#include "admin/queue_view.h"

#include <algorithm>

#include "base/subject.h"
#include "store/queue_pace.h"

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

Result<json::object> OneQueue(Store& store, const WorkItem& item, const QueueKey& key, Time now) {
  auto listed = store.queues().ListQueue(key.key(), kEnded);
  if (!listed.ok()) return listed.status();
  std::vector<QueueEntry> open, ended;
  for (QueueEntry& e : *listed) (IsTerminal(e.state) ? ended : open).push_back(std::move(e));
  std::vector<EndedEntry> landed;
  for (const QueueEntry& e : ended) landed.push_back({e.state == EntryState::kMerged, e.updated_at});
  const QueuePace pace = PaceOf(landed);
  json::array open_json, ended_json;
  for (size_t i = 0; i < open.size(); ++i) {
    json::object e = EntryJson(open[i]);
    e["position"] = static_cast<int64_t>(i);
    e["eta"] = TimeOrNull(EtaOf(pace, i, now));
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
      pace.interval ? json::value(std::chrono::duration<double>(*pace.interval).count())
                    : json::value(nullptr);
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
