#include "engine/enqueuer.h"

#include <gtest/gtest.h>

#include <thread>

#include "store/sqlite/sqlite_store.h"
#include "store/store_test_util.h"

namespace gatehouse {
namespace {

TEST(EnqueuerTest, ConcurrentSignalsAreAllCommittedInSharedTransactions) {
  testing::TempDir dir;
  auto store = OpenSqliteStore(dir.File("g.db"));
  ASSERT_TRUE(store.ok());
  auto clock = std::make_shared<SimClock>(FromMicros(1'800'000'000'000'000));
  std::atomic<int> wakes{0};
  Enqueuer enq(**store, clock, Durability::kAcknowledged, [&] { wakes.fetch_add(1); });
  constexpr int kThreads = 16, kPerThread = 200, kKeys = 50;
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        Status s = enq.Enqueue(Signal{"acme/app#" + std::to_string((t * kPerThread + i) % kKeys),
                                      "pushed", Duration(0)});
        if (!s.ok()) failures.fetch_add(1);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  auto items = (*store)->work().ListWorkItems(WorkFilter{});
  ASSERT_TRUE(items.ok());
  ASSERT_EQ(items->size(), static_cast<size_t>(kKeys));
  int64_t total = 0;
  for (const auto& w : *items) total += w.requested_gen;
  EXPECT_EQ(total, kThreads * kPerThread) << "every signal bumped exactly one generation";
  EXPECT_EQ(static_cast<size_t>(wakes.load()), enq.commits());
  EXPECT_LE(enq.commits(), static_cast<size_t>(kThreads * kPerThread));
}

TEST(EnqueuerTest, InvalidSignalIsRejectedAlone) {
  testing::TempDir dir;
  auto store = OpenSqliteStore(dir.File("g.db"));
  ASSERT_TRUE(store.ok());
  Enqueuer enq(**store, std::make_shared<RealClock>(), Durability::kRecoverable);
  EXPECT_EQ(enq.Enqueue(Signal{"acme/app#1", "Not Valid", Duration(0)}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(enq.Enqueue(Signal{"acme/app#1", "pushed", Duration(0)}).ok());
  EXPECT_EQ(enq.commits(), 1u);
}

}  // namespace
}  // namespace gatehouse
