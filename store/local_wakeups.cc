#include "store/local_wakeups.h"

#include <utility>

namespace gatehouse {

int64_t LocalWakeups::Subscribe(Topic topic, Callback callback) {
  MutexLock lock(&mu_);
  const int64_t handle = next_++;
  subscribers_.emplace(handle, Subscriber{topic, std::move(callback)});
  return handle;
}

void LocalWakeups::Unsubscribe(int64_t handle) {
  MutexLock lock(&mu_);
  subscribers_.erase(handle);
}

void LocalWakeups::Notify(Topic topic) {
  MutexLock lock(&mu_);
  for (const auto& [handle, s] : subscribers_) {
    if (s.topic == topic && s.callback) s.callback();
  }
}

}  // namespace gatehouse
