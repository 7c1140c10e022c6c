// SqliteStore: WorkQueue::Wake, "a freed resource or an operator says: retry now".
#include <sqlite3.h>

#include <string>

#include "store/sqlite/sqlite_store.h"

namespace gatehouse {

Status SqliteStore::Wake(std::span<const std::string> keys, Time now) {
  for (const std::string& key : keys) {
    if (key.empty() || key.size() > 512) {
      return InvalidArgument("a work key to wake must be 1..512 bytes, got " +
                             std::to_string(key.size()));
    }
  }
  if (keys.empty()) return Status::Ok();
  int64_t made_due = 0;
  Status s;
  {
    MutexLock lock(&mu_);
    // Recoverable: if lost, the item only waits for the retry_at its last pass chose.
    s = db_->WriteTransaction(Durability::kRecoverable, [&]() REQUIRES(mu_) -> Status {
      made_due = 0;
      int64_t marked = 0;
      for (const std::string& key : keys) {
        GH_ASSIGN_OR_RETURN(auto due,
                            db_->Prepare("UPDATE work_items SET due_at = MIN(COALESCE(due_at, ?2),"
                                         " ?2), backoff_until = NULL, updated_at = ?2 "
                                         "WHERE key = ?1 AND state = 'pending' AND"
                                         " availability_since IS NOT NULL"));
        due->Bind(1, key).Bind(2, now);
        GH_RETURN_IF_ERROR(due->Run().WithContext("waking " + key));
        if (sqlite3_changes(db_->raw()) == 1) {
          ++made_due;
          continue;
        }
        GH_ASSIGN_OR_RETURN(auto mark, db_->Prepare("UPDATE work_items SET woken = 1, "
                                                    "updated_at = ?2 WHERE key = ?1 AND "
                                                    "state = 'running'"));
        mark->Bind(1, key).Bind(2, now);
        GH_RETURN_IF_ERROR(mark->Run().WithContext("waking " + key));
        marked += sqlite3_changes(db_->raw());
      }
      return Bump("work.woken", made_due + marked);
    });
  }
  if (s.ok() && made_due > 0) wakeups_.Notify(Wakeups::Topic::kWork);
  return s.WithContext("waking work items");
}

}  // namespace gatehouse
