#include "act/pass_queue.h"

#include "base/subject.h"

namespace gatehouse::act {

decide::QueueEntryFact QueueEntryFactOf(const QueueEntry& entry) {
  decide::QueueEntryFact f;
  f.id = entry.id;
  f.head_sha = entry.key.head_sha;
  f.head_occurrence = entry.key.head_occurrence;
  f.state = std::string(EntryStateName(entry.state));
  f.tested_sha = entry.tested_sha;
  f.reason = entry.reason;
  return f;
}

std::optional<PassOutcome> ReadQueueFacts(Store& store, const std::string& subject,
                                          const std::string& repo, const std::string& base,
                                          decide::QueueFacts* facts) {
  const std::optional<QueueKey> queue = QueueKey::Of(repo, base);
  facts->queue = queue ? queue->key() : "";
  auto entries = store.queues().EntriesOf(subject);
  if (!entries.ok()) {
    return PassOutcome::Transient("reading the merge queue entries: " +
                                  entries.status().ToString());
  }
  facts->entries.clear();
  for (const QueueEntry& e : *entries) facts->entries.push_back(QueueEntryFactOf(e));
  return std::nullopt;
}

}  // namespace gatehouse::act
