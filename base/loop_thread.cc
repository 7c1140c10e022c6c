// The thread of a background loop. See base/loop_thread.h.
#include "base/loop_thread.h"

#include <utility>

namespace gatehouse {

void LoopThread::Start(std::function<void()> loop) { thread_ = std::thread(std::move(loop)); }

void LoopThread::Stop() {
  {
    MutexLock lock(&mu_);
    stopping_ = true;
  }
  cv_.SignalAll();
  if (thread_.joinable() && thread_.get_id() != std::this_thread::get_id()) thread_.join();
}

bool LoopThread::Stopping() {
  MutexLock lock(&mu_);
  return stopping_;
}

bool LoopThread::WaitUntil(Time deadline) {
  MutexLock lock(&mu_);
  while (!stopping_ && clock_->WaitUntil(&mu_, &cv_, deadline)) {
  }
  return !stopping_;
}

}  // namespace gatehouse
