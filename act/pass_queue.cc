#include "act/pass_queue.h"

#include <algorithm>

#include "act/live_state.h"
#include "store/queue_pace.h"
#include "base/subject.h"
#include "decide/pr_facts.h"
#include "decide/queue_commands.h"

namespace gatehouse::act {

decide::QueueEntryFact QueueEntryFactOf(const QueueEntry& entry) {
  decide::QueueEntryFact f;
  f.id = entry.id;
  f.head_sha = entry.key.head_sha;
  f.head_occurrence = entry.key.head_occurrence;
  f.state = std::string(EntryStateName(entry.state));
  f.tested_sha = entry.tested_sha;
  f.reason = entry.reason;
  f.admitted_by = entry.key.admitted_by;
  return f;
}

std::optional<PassOutcome> ReadQueueFacts(Store& store, const std::string& subject,
                                          const std::string& repo, const std::string& base,
                                          Time now, decide::QueueFacts* facts) {
  const std::optional<QueueKey> queue = QueueKey::Of(repo, base);
  facts->queue = queue ? queue->key() : "";
  auto entries = store.queues().EntriesOf(subject);
  if (!entries.ok()) {
    return PassOutcome::Transient("reading the merge queue entries: " +
                                  entries.status().ToString());
  }
  facts->entries.clear();
  facts->place = decide::QueuePlace{};
  const QueueEntry* open = nullptr;
  for (const QueueEntry& e : *entries) {
    facts->entries.push_back(QueueEntryFactOf(e));
    if (!IsTerminal(e.state) && e.queue == facts->queue) open = &e;
  }
  if (open == nullptr) return std::nullopt;
  auto listed = store.queues().ListQueue(facts->queue, kQueuePaceWindow);
  if (!listed.ok()) {
    return PassOutcome::Transient("reading the merge queue: " + listed.status().ToString());
  }
  std::vector<EndedEntry> ended;
  int position = 0;
  for (const QueueEntry& e : *listed) {
    if (IsTerminal(e.state)) {
      ended.push_back({e.state == EntryState::kMerged, e.updated_at});
      continue;
    }
    ++facts->place.size;
    if (e.id == open->id) position = facts->place.size;
  }
  facts->place.entry = open->id;
  facts->place.position = position;
  facts->place.batch = open->batch;
  if (position > 0) {
    if (auto eta = EtaOf(PaceOf(ended), static_cast<size_t>(position - 1), now)) {
      facts->place.wait = *eta - now;
    }
  }
  return std::nullopt;
}

decide::QueueCommandStanding QueueCommandsOf(const std::vector<PrFact>& facts,
                                             std::string_view app_login) {
  std::vector<decide::CommandComment> comments;
  for (const PrFact& f : facts) {
    auto command = decide::ParseCommandFact(f.name, f.value);
    if (!command) continue;
    comments.push_back(decide::CommandComment{command->comment_id, command->login,
                                              RoleOf(command->association), command->line});
  }
  return decide::FoldQueueCommands(comments, app_login);
}

std::optional<PassOutcome> WakeQueueOnRefresh(Store& store, Time now,
                                              const decide::QueueFacts& queue,
                                              const std::vector<decide::CommandComment>& unhandled,
                                              std::string_view app_login) {
  if (queue.queue.empty()) return std::nullopt;
  const bool open = std::any_of(queue.entries.begin(), queue.entries.end(),
                                [](const decide::QueueEntryFact& e) { return !e.terminal(); });
  const bool refresh = std::any_of(
      unhandled.begin(), unhandled.end(), [&](const decide::CommandComment& c) {
        return decide::ParseCommand(c.body, app_login).kind ==
                   decide::ParsedCommand::Kind::kRefresh &&
               decide::MayCommandQueue(c.author_role) && !decide::IsSelf(c.author, app_login);
      });
  if (!open || !refresh) return std::nullopt;
  const Signal wake{queue.queue, "refresh", Duration(0)};
  const Status s = store.work().Enqueue({&wake, 1}, now, Durability::kAcknowledged);
  if (!s.ok()) return PassOutcome::Transient("waking the merge queue: " + s.ToString());
  return std::nullopt;
}

}  // namespace gatehouse::act
