// PgPool: at most `size` PostgreSQL connections, handed out one per thread at a time.
//
// Acquire() returns a PgPool::Handle, which gives its connection back when it goes out of
// scope. When all `size` connections are in use, Acquire blocks until one comes back or its
// deadline passes (then kUnavailable "pool exhausted"). Connections are made lazily, outside
// the pool's lock; a connection that broke while it was used (PgConn::broken()) is dropped
// when its handle goes back, and a new one is made by the next Acquire that needs it. An idle
// connection the server closed while it rested (a restart, a terminated backend) is found by
// PgConn::CheckAtRest when it is next taken, and replaced by a new one before it is lent.
//
// No self-deadlock: a thread that holds a handle and calls Acquire again would wait for
// itself once the pool is small enough, so a nested acquire is a bug and aborts at once, at
// any pool size. (Code that needs a connection takes the caller's handle instead.) A handle
// belongs to the thread that acquired it: it may be moved, but must be destroyed on that
// thread (a check aborts otherwise), which is what lets the pool tell threads apart.
//
// Thread-safe. Every Handle must be destroyed before the pool.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "base/mutex.h"
#include "base/status.h"
#include "store/postgres/pg_conn.h"

namespace gatehouse::postgres {

class PgPool {
 public:
  struct Options {
    std::string url;
    PgConnectOptions connect;
    int size = 4;
    // How long Acquire() waits for a free connection (real time: it waits on real I/O).
    std::chrono::milliseconds acquire_timeout{10000};
  };

  // A connection on loan; move-only. Gives it back (or drops it, if broken) when destroyed.
  class Handle {
   public:
    Handle(Handle&& other) noexcept;
    Handle& operator=(Handle&&) = delete;
    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;
    ~Handle();

    PgConn& conn() { return *conn_; }
    PgConn* operator->() { return conn_.get(); }

   private:
    friend class PgPool;
    Handle(PgPool* pool, std::unique_ptr<PgConn> conn, std::thread::id holder)
        : pool_(pool), conn_(std::move(conn)), holder_(holder) {}
    PgPool* pool_;  // null once moved from
    std::unique_ptr<PgConn> conn_;
    std::thread::id holder_;  // the thread that acquired it, and must release it
  };

  // Connects nothing yet: the first Acquire does. kInvalidArgument when size < 1.
  static Result<std::unique_ptr<PgPool>> Create(Options options);
  ~PgPool();

  // A connection, waiting up to options.acquire_timeout for one to be free. kUnavailable when
  // the pool stays exhausted that long, or when a needed new connection cannot be made.
  Result<Handle> Acquire() EXCLUDES(mu_);
  Result<Handle> AcquireUntil(CondVar::Steady::time_point deadline) EXCLUDES(mu_);

  int size() const { return options_.size; }
  // Connections currently on loan / made and idle, for tests and metrics.
  int in_use() const EXCLUDES(mu_);
  int idle() const EXCLUDES(mu_);

 private:
  explicit PgPool(Options options) : options_(std::move(options)) {}
  // Takes a loan back: keeps `conn` for the next Acquire, or drops it when it is broken or null
  // (connecting failed).
  void Release(std::unique_ptr<PgConn> conn, std::thread::id holder) EXCLUDES(mu_);

  const Options options_;
  mutable Mutex mu_;
  CondVar freed_;  // a slot came back
  std::vector<std::unique_ptr<PgConn>> idle_ GUARDED_BY(mu_);
  int in_use_ GUARDED_BY(mu_) = 0;  // handles out, plus connections being made for one
  std::unordered_set<std::thread::id> holders_ GUARDED_BY(mu_);
};

}  // namespace gatehouse::postgres
