// The PostgreSQL work queue under real concurrency: several PgStores (as several processes
// would have) on one database, against a real server named by GATEHOUSE_TEST_PG_URL; skipped
// when it is unset. Each test gets a fresh database, dropped at the end. The single-store
// semantics are the contract suites' (store/store_contract_test.cc, wake_contract_test.cc).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <latch>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "store/pg_test_database.h"
#include "store/postgres/pg_conn.h"
#include "store/postgres/pg_store.h"

namespace gatehouse::postgres {
namespace {

using std::chrono::seconds;

const Time kT0 = FromMicros(1'800'000'000'000'000);

class PgWorkTest : public ::testing::Test {
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
    stores_.clear();
    if (!db_.name.empty()) {
      Status s = testing::DropPgTestDatabase(cluster_url_, db_.name);
      EXPECT_TRUE(s.ok()) << s.ToString();
    }
  }

  PgStore* Open() {
    PgStoreOptions o;
    o.pool_size = 2;
    o.listen = false;
    auto s = OpenPgStore(db_.url, o);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    if (!s.ok()) return nullptr;
    stores_.push_back(std::move(s).value());
    return stores_.back().get();
  }

  // `threads` stores, opened one by one (each migrates, or finds the schema there), each
  // draining Claim(owner, 1 + i % 7) at `now` on its own thread until it gets nothing; the
  // threads start together. Returns each key's leases.
  std::map<std::string, std::vector<Lease>> ClaimConcurrently(int threads, Time now) {
    std::vector<PgStore*> stores;
    for (int i = 0; i < threads; ++i) stores.push_back(Open());
    std::vector<std::vector<Lease>> got(static_cast<size_t>(threads));
    std::latch start(threads);
    std::vector<std::thread> workers;
    for (int i = 0; i < threads; ++i) {
      workers.emplace_back([&, i] {
        start.arrive_and_wait();
        const std::string owner = "w" + std::to_string(i);
        while (true) {
          auto r = stores[static_cast<size_t>(i)]->Claim(owner, static_cast<size_t>(1 + i % 7),
                                                         seconds(60), now);
          ASSERT_TRUE(r.ok()) << r.status().ToString();
          if (r->empty()) return;
          for (Lease& l : *r) got[static_cast<size_t>(i)].push_back(std::move(l));
        }
      });
    }
    for (auto& t : workers) t.join();
    std::map<std::string, std::vector<Lease>> by_key;
    for (auto& leases : got) {
      for (Lease& l : leases) by_key[l.key].push_back(std::move(l));
    }
    return by_key;
  }

  std::string cluster_url_;
  testing::PgTestDatabase db_;
  std::vector<std::unique_ptr<PgStore>> stores_;
};

std::vector<Signal> Keys(int n, const std::string& reason) {
  std::vector<Signal> out;
  for (int i = 0; i < n; ++i) out.push_back({"acme/app#" + std::to_string(i), reason, {}});
  return out;
}

// FOR UPDATE SKIP LOCKED: eight claimers at once never take one item twice, and miss none.
TEST_F(PgWorkTest, ConcurrentClaimersTakeEveryDueItemExactlyOnce) {
  constexpr int kItems = 500;
  PgStore* first = Open();
  ASSERT_NE(first, nullptr);
  ASSERT_TRUE(first->Enqueue(Keys(kItems, "swept"), kT0, Durability::kRecoverable).ok());

  auto by_key = ClaimConcurrently(8, kT0);
  EXPECT_EQ(by_key.size(), static_cast<size_t>(kItems));
  for (const auto& [key, leases] : by_key) {
    ASSERT_EQ(leases.size(), 1u) << key << " was claimed " << leases.size() << " times";
    EXPECT_EQ(leases[0].fence, 1) << key;
    EXPECT_FALSE(leases[0].reclaimed) << key;
  }
  auto running = first->ListWorkItems(WorkFilter{WorkState::kRunning, 10000, ""});
  ASSERT_TRUE(running.ok());
  EXPECT_EQ(running->size(), static_cast<size_t>(kItems));
  auto counters = first->GetCounters();
  ASSERT_TRUE(counters.ok());
  EXPECT_EQ((*counters)["work.passes_claimed"], kItems);
  EXPECT_EQ((*counters)["work.leases_expired"], 0);
}

// The expired-lease branch locks the same way: every lost lease is reclaimed once, and counts
// as one failed attempt once.
TEST_F(PgWorkTest, ConcurrentClaimersReclaimEveryExpiredLeaseExactlyOnce) {
  constexpr int kItems = 500;
  PgStore* first = Open();
  ASSERT_NE(first, nullptr);
  ASSERT_TRUE(first->Enqueue(Keys(kItems, "swept"), kT0, Durability::kRecoverable).ok());
  auto lost = first->Claim("crashed", kItems, seconds(10), kT0);
  ASSERT_TRUE(lost.ok()) << lost.status().ToString();
  ASSERT_EQ(lost->size(), static_cast<size_t>(kItems));

  auto by_key = ClaimConcurrently(8, kT0 + seconds(10));
  EXPECT_EQ(by_key.size(), static_cast<size_t>(kItems));
  for (const auto& [key, leases] : by_key) {
    ASSERT_EQ(leases.size(), 1u) << key << " was reclaimed " << leases.size() << " times";
    EXPECT_TRUE(leases[0].reclaimed) << key;
    EXPECT_EQ(leases[0].fence, 2) << key;
    EXPECT_EQ(leases[0].attempts, 1) << key;
  }
  auto item = first->GetWorkItem("acme/app#7");
  ASSERT_TRUE(item.ok() && item->has_value());
  EXPECT_EQ((*item)->last_error, "lease expired mid-pass (held by crashed)");
  auto counters = first->GetCounters();
  ASSERT_TRUE(counters.ok());
  EXPECT_EQ((*counters)["work.passes_claimed"], 2 * kItems);
  EXPECT_EQ((*counters)["work.leases_expired"], kItems);
}

// Concurrent batches over the same keys, in opposite orders and with duplicates: every signal
// counts, whatever waits (or deadlocks and is retried) on whom.
TEST_F(PgWorkTest, ConcurrentEnqueuesCountEverySignal) {
  constexpr int kThreads = 6, kRounds = 20, kKeys = 40;
  std::vector<PgStore*> stores;
  for (int i = 0; i < kThreads; ++i) stores.push_back(Open());
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::vector<Signal> batch = Keys(kKeys, "r" + std::to_string(t));
      if (t % 2 == 1) std::reverse(batch.begin(), batch.end());
      batch.push_back(batch.front());  // a duplicate counts too
      start.arrive_and_wait();
      for (int round = 0; round < kRounds; ++round) {
        Status s = stores[static_cast<size_t>(t)]->Enqueue(batch, kT0 + seconds(round),
                                                           Durability::kRecoverable);
        ASSERT_TRUE(s.ok()) << s.ToString();
      }
    });
  }
  for (auto& t : threads) t.join();
  auto items = stores[0]->ListWorkItems(WorkFilter{});
  ASSERT_TRUE(items.ok());
  ASSERT_EQ(items->size(), static_cast<size_t>(kKeys));
  int64_t total = 0;
  for (const WorkItem& w : *items) {
    EXPECT_EQ(w.reasons.size(), static_cast<size_t>(kThreads)) << w.key;
    EXPECT_EQ(w.due_at, kT0) << w.key;
    total += w.requested_gen;
  }
  EXPECT_EQ(total, int64_t{kThreads} * kRounds * (kKeys + 1));
  auto counters = stores[0]->GetCounters();
  ASSERT_TRUE(counters.ok());
  EXPECT_EQ((*counters)["work.signals"], total);
}

// A batch folds its duplicates as signals one by one would: every one a generation, reasons
// merged, the earliest due time, never before a backoff.
TEST_F(PgWorkTest, ABatchWithDuplicatesFoldsAsSignalsOneByOne) {
  PgStore* store = Open();
  ASSERT_NE(store, nullptr);
  std::vector<Signal> batch = {{"k#1", "pushed", seconds(10)},
                               {"k#2", "swept", seconds(1)},
                               {"k#1", "ci-completed", seconds(3)},
                               {"k#1", "pushed", seconds(20)}};
  ASSERT_TRUE(store->Enqueue(batch, kT0, Durability::kRecoverable).ok());
  auto w = store->GetWorkItem("k#1");
  ASSERT_TRUE(w.ok() && w->has_value());
  EXPECT_EQ((*w)->requested_gen, 3);
  EXPECT_EQ((*w)->reasons, (std::vector<std::string>{"ci-completed", "pushed"}));
  EXPECT_EQ((*w)->due_at, kT0 + seconds(3));
  ASSERT_TRUE(store->Enqueue(batch, kT0 + seconds(1), Durability::kRecoverable).ok());
  w = store->GetWorkItem("k#1");
  ASSERT_TRUE(w.ok() && w->has_value());
  EXPECT_EQ((*w)->requested_gen, 6);
  EXPECT_EQ((*w)->due_at, kT0 + seconds(3)) << "min(t0+3, t0+1+3)";

  // A retry's backoff is the floor for the next batch's due time.
  auto leases = store->Claim("w", 10, seconds(30), kT0 + seconds(3));
  ASSERT_TRUE(leases.ok());
  ASSERT_EQ(leases->size(), 2u);
  for (const Lease& l : *leases) {
    PassFinish f;
    f.key = l.key;
    f.fence = l.fence;
    f.kind = PassFinish::Kind::kRetry;
    f.retry_at = kT0 + seconds(60);
    f.attempts = 1;
    f.error = "transient: 502";
    auto r = store->Finish({&f, 1}, kT0 + seconds(4));
    ASSERT_TRUE(r.ok() && (*r)[0].ok());
  }
  ASSERT_TRUE(store->Enqueue(batch, kT0 + seconds(5), Durability::kRecoverable).ok());
  w = store->GetWorkItem("k#1");
  ASSERT_TRUE(w.ok() && w->has_value());
  EXPECT_EQ((*w)->requested_gen, 9);
  EXPECT_EQ((*w)->due_at, kT0 + seconds(60));
}

// Keys that an array literal would otherwise misread: quotes, backslashes, braces, commas,
// the word NULL.
TEST_F(PgWorkTest, AnyKeySurvivesTheBatch) {
  PgStore* store = Open();
  ASSERT_NE(store, nullptr);
  const std::vector<std::string> keys = {"a\"b", "c\\d", "{e,f}", "NULL", " g ", "h'i", "ü#1"};
  std::vector<Signal> batch;
  for (const auto& k : keys) batch.push_back({k, "swept", {}});
  ASSERT_TRUE(store->Enqueue(batch, kT0, Durability::kRecoverable).ok());
  for (const auto& k : keys) {
    auto w = store->GetWorkItem(k);
    ASSERT_TRUE(w.ok() && w->has_value()) << k;
    EXPECT_EQ((*w)->requested_gen, 1) << k;
  }
  ASSERT_TRUE(store->Wake(keys, kT0).ok());
  auto leases = store->Claim("w", 100, seconds(30), kT0);
  ASSERT_TRUE(leases.ok());
  EXPECT_EQ(leases->size(), keys.size());
}

// The race a freed slot meets, with the finish committing while the wake waits for its row: in
// the wake's snapshot the item runs, when it gets the row lock it waits for availability. The
// wake must see the newest row and make it due now, as in either serial order.
TEST_F(PgWorkTest, AWakeRacingAnUnavailableRetryIsNotLost) {
  PgStore* store = Open();
  ASSERT_NE(store, nullptr);
  Signal sig{"acme/app#1/review/security", "review-run", {}};
  ASSERT_TRUE(store->Enqueue({&sig, 1}, kT0, Durability::kRecoverable).ok());
  auto leases = store->Claim("w", 1, seconds(30), kT0);
  ASSERT_TRUE(leases.ok() && leases->size() == 1u);

  // The finish, by hand in a transaction held open: what Finish's unavailable kRetry writes.
  auto finisher = PgConn::Connect(db_.url);
  ASSERT_TRUE(finisher.ok()) << finisher.status().ToString();
  ASSERT_TRUE((*finisher)->Exec("BEGIN").ok());
  auto held = (*finisher)->Exec(
      "UPDATE work_items SET state = 'pending', due_at = $2::bigint, backoff_until = $2::bigint,"
      " availability_since = $3::bigint, attempts = 1, lease_owner = NULL, lease_until = NULL "
      "WHERE key = $1::text",
      {PgParam::Text(sig.key), PgParam::At(kT0 + std::chrono::hours(1)),
       PgParam::At(kT0 + seconds(1))});
  ASSERT_TRUE(held.ok()) << held.status().ToString();

  Status woke;
  std::thread waker([&] { woke = store->Wake({&sig.key, 1}, kT0 + seconds(2)); });
  // Wait until the wake is blocked on the row lock, then let the finish commit.
  auto watcher = PgConn::Connect(db_.url);
  ASSERT_TRUE(watcher.ok());
  bool blocked = false;
  for (int i = 0; i < 500 && !blocked; ++i) {
    auto r = (*watcher)->Exec(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND "
        "wait_event_type = 'Lock'");
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    blocked = r->Int(0, 0) > 0;
    if (!blocked) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(blocked) << "the wake never waited for the finish's row lock";
  ASSERT_TRUE((*finisher)->Exec("COMMIT").ok());
  waker.join();
  ASSERT_TRUE(woke.ok()) << woke.ToString();

  auto w = store->GetWorkItem(sig.key);
  ASSERT_TRUE(w.ok() && w->has_value());
  EXPECT_EQ((*w)->state, WorkState::kPending);
  EXPECT_EQ((*w)->due_at, kT0 + seconds(2));
  EXPECT_FALSE((*w)->backoff_until.has_value());
}

// The SQL function the upserts merge reasons with: byte order, no duplicates, no empties.
TEST_F(PgWorkTest, ReasonUnionIsTheSortedSet) {
  ASSERT_NE(Open(), nullptr);  // migrates
  auto value = [&](const std::string& sql) {
    auto v = testing::PgQueryValue(db_.url, sql);
    EXPECT_TRUE(v.ok()) << v.status().ToString();
    return v.ok() ? *v : "<error>";
  };
  EXPECT_EQ(value("SELECT reason_union('pushed', 'ci-completed')"), "ci-completed,pushed");
  EXPECT_EQ(value("SELECT reason_union('b,a,,c', 'a,d,b')"), "a,b,c,d");
  EXPECT_EQ(value("SELECT reason_union('', '')"), "");
  EXPECT_EQ(value("SELECT reason_union('a', '')"), "a");
  EXPECT_EQ(value("SELECT reason_union(',', ',,')"), "");
  EXPECT_EQ(value("SELECT reason_union('a', 'B')"), "B,a") << "byte order, as SQLite";
  EXPECT_EQ(value("SELECT reason_union('x:1', 'x.1,x-1,x_1')"), "x-1,x.1,x:1,x_1");
}

}  // namespace
}  // namespace gatehouse::postgres
