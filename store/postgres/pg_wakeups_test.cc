// Wake-ups across processes: a PgStore's subscribers hear of work another PgStore (another
// process or node) committed, through LISTEN/NOTIFY, and hear of it again after their listener
// lost its connection (the server ended it). Against a real server named by
// GATEHOUSE_TEST_PG_URL; skipped when it is unset.
#include <gtest/gtest.h>

#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>

#include "store/pg_test_database.h"
#include "store/postgres/pg_store.h"

namespace gatehouse::postgres {
namespace {

const Time kT0 = FromMicros(1'800'000'000'000'000);

// Counts a topic's wake-ups and lets a test wait for the next one (real time: the wake-up
// crosses a real server).
class WakeCounter {
 public:
  Wakeups::Callback Callback() {
    return [this] {
      std::lock_guard<std::mutex> lock(mu_);
      ++count_;
      cv_.notify_all();
    };
  }
  // True once the count exceeds `seen`, within `timeout`.
  bool WaitBeyond(int seen, std::chrono::seconds timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    return cv_.wait_for(lock, timeout, [&] { return count_ > seen; });
  }
  int count() {
    std::lock_guard<std::mutex> lock(mu_);
    return count_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int count_ = 0;
};

class PgWakeupsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* url = std::getenv(testing::kTestPgUrlEnv);
    if (url == nullptr || *url == '\0') GTEST_SKIP() << testing::kTestPgUrlEnv << " is not set";
    cluster_url_ = url;
    auto db = testing::CreatePgTestDatabase(cluster_url_);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    db_ = *db;
  }
  void TearDown() override {
    if (!db_.name.empty()) (void)testing::DropPgTestDatabase(cluster_url_, db_.name);
  }
  std::unique_ptr<PgStore> Open(bool listen) {
    PgStoreOptions o;
    o.pool_size = 2;
    o.listen = listen;
    auto s = OpenPgStore(db_.url, o);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::move(s).value() : nullptr;
  }
  // Until `store`'s listener is connected, a NOTIFY would go unheard (polling covers that
  // moment in production); the test waits for its LISTEN to be registered.
  void WaitForListener() {
    for (int i = 0; i < 500; ++i) {
      auto n = testing::PgQueryValue(
          db_.url,
          "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'gatehouse-listen' "
          "AND datname = current_database() AND query LIKE 'LISTEN gatehouse_deliveries%'");
      if (n.ok() && *n != "0") return;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    FAIL() << "the listener never connected";
  }

  std::string cluster_url_;
  testing::PgTestDatabase db_;
};

TEST_F(PgWakeupsTest, AnotherStoresCommitWakesThisStoresSubscribers) {
  auto listener = Open(/*listen=*/true);
  auto writer = Open(/*listen=*/false);  // a one-shot command: it notifies without a listener
  ASSERT_TRUE(listener && writer);
  WakeCounter work, deliveries;
  const int64_t h1 = listener->wakeups().Subscribe(Wakeups::Topic::kWork, work.Callback());
  const int64_t h2 =
      listener->wakeups().Subscribe(Wakeups::Topic::kDeliveries, deliveries.Callback());
  WaitForListener();

  Signal sig{"acme/app#1", "pushed", {}};
  ASSERT_TRUE(writer->Enqueue({&sig, 1}, kT0, Durability::kRecoverable).ok());
  EXPECT_TRUE(work.WaitBeyond(0, std::chrono::seconds(10))) << "no cross-process work wake-up";
  EXPECT_EQ(deliveries.count(), 0) << "work woke the delivery topic";

  Delivery d;
  d.delivery_id = "d-1";
  d.event = "ping";
  d.body = "{}";
  d.body_sha256 = "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a";
  d.received_at = kT0;
  ASSERT_TRUE(writer->AcceptDeliveries({&d, 1}, {}, kT0).ok());
  EXPECT_TRUE(deliveries.WaitBeyond(0, std::chrono::seconds(10)))
      << "no cross-process delivery wake-up";
  listener->wakeups().Unsubscribe(h1);
  listener->wakeups().Unsubscribe(h2);
}

TEST_F(PgWakeupsTest, AListenerWhoseConnectionDiesComesBackAndLooksOnce) {
  auto listener = Open(/*listen=*/true);
  auto writer = Open(/*listen=*/true);
  ASSERT_TRUE(listener && writer);
  WakeCounter work;
  const int64_t h = listener->wakeups().Subscribe(Wakeups::Topic::kWork, work.Callback());
  WaitForListener();
  // The server ends every listener connection (as a restart or a failover would).
  ASSERT_TRUE(testing::PgExec(db_.url,
                              "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE "
                              "application_name = 'gatehouse-listen' AND datname = "
                              "current_database()")
                  .ok());
  // Reconnected, it wakes its subscribers once, for what it may have missed meanwhile.
  EXPECT_TRUE(work.WaitBeyond(0, std::chrono::seconds(15))) << "no wake-up after reconnecting";
  WaitForListener();
  const int seen = work.count();
  Signal sig{"acme/app#2", "pushed", {}};
  ASSERT_TRUE(writer->Enqueue({&sig, 1}, kT0, Durability::kRecoverable).ok());
  EXPECT_TRUE(work.WaitBeyond(seen, std::chrono::seconds(10))) << "deaf after reconnecting";
  listener->wakeups().Unsubscribe(h);
}

}  // namespace
}  // namespace gatehouse::postgres
