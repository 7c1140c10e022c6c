#include "store/postgres/pg_pool.h"

#include <cstdio>
#include <cstdlib>

namespace gatehouse::postgres {
namespace {

[[noreturn]] void Fatal(const char* what) {
  std::fprintf(stderr, "gatehouse: fatal: %s\n", what);
  std::abort();
}

}  // namespace

PgPool::Handle::Handle(Handle&& other) noexcept
    : pool_(other.pool_), conn_(std::move(other.conn_)), holder_(other.holder_) {
  other.pool_ = nullptr;
}

PgPool::Handle::~Handle() {
  if (pool_) pool_->Release(std::move(conn_), holder_);
}

Result<std::unique_ptr<PgPool>> PgPool::Create(Options options) {
  if (options.size < 1) return InvalidArgument("postgres pool size must be at least 1");
  return std::unique_ptr<PgPool>(new PgPool(std::move(options)));
}

PgPool::~PgPool() {
  MutexLock lock(&mu_);
  if (in_use_ != 0) {
    std::fprintf(stderr, "gatehouse: fatal: PgPool destroyed with %d connections on loan\n",
                 in_use_);
    std::abort();
  }
}

Result<PgPool::Handle> PgPool::Acquire() {
  return AcquireUntil(CondVar::Steady::now() + options_.acquire_timeout);
}

Result<PgPool::Handle> PgPool::AcquireUntil(CondVar::Steady::time_point deadline) {
  const std::thread::id self = std::this_thread::get_id();
  std::unique_ptr<PgConn> conn;
  {
    MutexLock lock(&mu_);
    if (holders_.count(self) != 0) {
      // Waiting for a connection while holding one is how a pool deadlocks itself.
      Fatal("PgPool::Acquire by a thread that already holds a connection (nested acquire)");
    }
    while (idle_.empty() && in_use_ >= options_.size) {
      if (!freed_.WaitUntil(&mu_, deadline) && idle_.empty() && in_use_ >= options_.size) {
        return Unavailable("postgres pool exhausted: all " + std::to_string(options_.size) +
                           " connections in use past the acquire deadline");
      }
    }
    if (!idle_.empty()) {
      conn = std::move(idle_.back());
      idle_.pop_back();
    }
    ++in_use_;
    holders_.insert(self);
  }
  // A connection that rested in the pool while the server restarted (or terminated its
  // backend) is dead though libpq does not know it yet: lending it would fail the caller's
  // next statement, so every idle connection the restart killed would cost one failed store
  // call (a 503 for a batch of webhooks). Replace it now instead. Outside the lock, like
  // connecting.
  if (conn && !conn->CheckAtRest()) conn.reset();
  // Connect outside the lock: other threads keep taking and returning connections meanwhile.
  if (!conn) {
    Result<std::unique_ptr<PgConn>> made = PgConn::Connect(options_.url, options_.connect);
    if (!made.ok()) {
      Release(nullptr, self);
      return made.status();
    }
    conn = std::move(made).value();
  }
  return Handle(this, std::move(conn), self);
}

void PgPool::Release(std::unique_ptr<PgConn> conn, std::thread::id holder) {
  // Released elsewhere, the acquiring thread could end and its id be reused by a new thread,
  // which the nested-acquire check would then mistake for the holder.
  if (holder != std::this_thread::get_id()) {
    Fatal("PgPool::Handle released on a thread other than the one that acquired it");
  }
  std::unique_ptr<PgConn> dropped;
  {
    MutexLock lock(&mu_);
    holders_.erase(holder);
    --in_use_;
    if (conn && !conn->broken()) {
      idle_.push_back(std::move(conn));
    } else {
      dropped = std::move(conn);
    }
  }
  freed_.Signal();
  // `dropped` closes here, outside the lock.
}

int PgPool::in_use() const {
  MutexLock lock(&mu_);
  return in_use_;
}

int PgPool::idle() const {
  MutexLock lock(&mu_);
  return static_cast<int>(idle_.size());
}

}  // namespace gatehouse::postgres
