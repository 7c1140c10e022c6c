// Wakeups: how new work reaches waiting workers and routers before their next poll.
//
// A store notifies a topic after the commit of new work of that kind:
//   kWork        signals folded into work items (Enqueue, ApplyRouting with signals, Rearm):
//                worker pools look for due items;
//   kDeliveries  deliveries accepted (AcceptDeliveries): routers look for open deliveries.
// Subscribers in this process are called at once. Subscribers in other processes are called as
// far as the backend can reach them — SQLite cannot (their polling finds the work within its
// interval); PostgreSQL will, with LISTEN/NOTIFY. A lost or late wake-up therefore delays work,
// never loses it: polling stays the backstop (docs/STORE.md, "A contract several nodes can share").
//
// Thread-safe.
#pragma once

#include <cstdint>
#include <functional>

namespace gatehouse {

class Wakeups {
 public:
  enum class Topic { kWork, kDeliveries };
  using Callback = std::function<void()>;

  virtual ~Wakeups() = default;

  // Calls `callback` after each commit of new work of `topic`, on the committing thread (or the
  // backend's listener thread). It must be quick, must not block, and must not call back into
  // the store or into Subscribe/Unsubscribe. Returns a handle for Unsubscribe.
  virtual int64_t Subscribe(Topic topic, Callback callback) = 0;
  // When it returns, the callback is not running and will never run again.
  virtual void Unsubscribe(int64_t handle) = 0;
};

}  // namespace gatehouse
