// LocalWakeups: the in-process Wakeups every backend can start from — Notify calls this
// process's subscribers of a topic, synchronously. A backend that can reach other processes
// (PostgreSQL's LISTEN/NOTIFY) also calls Notify when another process's notification arrives.
//
// Thread-safe. Subscribers run under an internal lock (so that Unsubscribe can promise that a
// callback is over), hence the Wakeups rule that they must not call back into it.
#pragma once

#include <map>

#include "base/mutex.h"
#include "store/wakeups.h"

namespace gatehouse {

class LocalWakeups final : public Wakeups {
 public:
  int64_t Subscribe(Topic topic, Callback callback) override;
  void Unsubscribe(int64_t handle) override;

  // Calls every subscriber of `topic`.
  void Notify(Topic topic);

 private:
  struct Subscriber {
    Topic topic;
    Callback callback;
  };
  Mutex mu_;
  std::map<int64_t, Subscriber> subscribers_ GUARDED_BY(mu_);
  int64_t next_ GUARDED_BY(mu_) = 1;
};

}  // namespace gatehouse
