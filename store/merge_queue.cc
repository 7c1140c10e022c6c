// The backend-neutral parts of store/merge_queue.h: state names and the validation every
// backend applies before it writes.
#include "store/merge_queue.h"

#include "base/subject.h"

namespace gatehouse {

std::string_view EntryStateName(EntryState state) {
  switch (state) {
    case EntryState::kQueued:
      return "queued";
    case EntryState::kUpdating:
      return "updating";
    case EntryState::kTesting:
      return "testing";
    case EntryState::kMerging:
      return "merging";
    case EntryState::kMerged:
      return "merged";
    case EntryState::kDropped:
      return "dropped";
  }
  return "queued";
}

bool ParseEntryState(std::string_view text, EntryState* out) {
  for (EntryState s : {EntryState::kQueued, EntryState::kUpdating, EntryState::kTesting,
                       EntryState::kMerging, EntryState::kMerged, EntryState::kDropped}) {
    if (text == EntryStateName(s)) {
      *out = s;
      return true;
    }
  }
  return false;
}

bool IsTerminal(EntryState state) {
  return state == EntryState::kMerged || state == EntryState::kDropped;
}

Status ValidateQueueEntry(std::string_view queue, const QueueEntryKey& key) {
  const std::optional<QueueKey> q = QueueKey::Parse(queue);
  if (!q || q->key() != queue) {
    return InvalidArgument("not a queue key: " + std::string(queue));
  }
  const std::optional<Subject> pr = Subject::Parse(key.subject);
  if (!pr || pr->key() != key.subject) {
    return InvalidArgument("not a pull request key: " + key.subject);
  }
  if (pr->repo_full_name() != q->repo_full_name()) {
    return InvalidArgument(key.subject + " is not in the repository of " + std::string(queue));
  }
  if (key.head_sha.empty()) return InvalidArgument("a queue entry needs a head SHA");
  if (key.head_occurrence < 1) return InvalidArgument("a head occurrence starts at 1");
  return Status::Ok();
}

Status ValidateEntryStep(const EntryStep& step) {
  if (IsTerminal(step.from)) {
    return FailedPrecondition("a " + std::string(EntryStateName(step.from)) +
                              " entry never moves again");
  }
  if (step.to == EntryState::kDropped && step.reason.empty()) {
    return InvalidArgument("dropping an entry needs a reason");
  }
  return Status::Ok();
}

}  // namespace gatehouse
