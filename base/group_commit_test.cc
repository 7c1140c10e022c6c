#include "base/group_commit.h"

#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

namespace gatehouse {
namespace {

TEST(GroupCommitTest, SingleCallerCommitsAlone) {
  std::vector<int> seen;
  GroupCommitter<int, int> gc(
      [&](std::vector<int>& batch) {
        std::vector<int> out;
        for (int x : batch) {
          seen.push_back(x);
          out.push_back(x * 10);
        }
        return out;
      },
      -1);
  EXPECT_EQ(gc.Submit(1), 10);
  EXPECT_EQ(gc.Submit(2), 20);
  EXPECT_EQ(seen, (std::vector<int>{1, 2}));
  EXPECT_EQ(gc.commits(), 2u);
}

// Many threads: every item is committed exactly once, each caller gets its own outcome, the
// commit function never runs concurrently with itself, and batches form (fewer commits than
// items) because callers arrive while a commit is running.
TEST(GroupCommitTest, ConcurrentCallersShareCommitsAndGetTheirOwnOutcome) {
  constexpr int kThreads = 16;
  constexpr int kPerThread = 500;
  std::atomic<int> inside{0};
  std::atomic<bool> overlapped{false};
  std::vector<int> committed;  // only touched inside the commit function
  GroupCommitter<int, int> gc(
      [&](std::vector<int>& batch) {
        if (inside.fetch_add(1) != 0) overlapped = true;
        std::this_thread::yield();
        std::vector<int> out;
        for (int x : batch) {
          committed.push_back(x);
          out.push_back(-x);
        }
        inside.fetch_sub(1);
        return out;
      },
      0, 64);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) {
        const int v = t * kPerThread + i + 1;
        if (gc.Submit(v) != -v) wrong.fetch_add(1);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_FALSE(overlapped.load());
  EXPECT_EQ(wrong.load(), 0);
  ASSERT_EQ(committed.size(), static_cast<size_t>(kThreads * kPerThread));
  std::sort(committed.begin(), committed.end());
  for (int i = 0; i < kThreads * kPerThread; ++i) ASSERT_EQ(committed[i], i + 1);
  EXPECT_LE(gc.commits(), static_cast<size_t>(kThreads * kPerThread));
}

// A commit function that throws must not strand anyone: the leader sees the exception, and
// later callers can still commit.
TEST(GroupCommitTest, ThrowingCommitReleasesEveryCaller) {
  std::atomic<bool> fail{true};
  GroupCommitter<int, int> gc(
      [&](std::vector<int>& batch) {
        if (fail.load()) throw std::runtime_error("disk on fire");
        return std::vector<int>(batch.size(), 1);
      },
      -1);
  EXPECT_THROW(gc.Submit(1), std::runtime_error);
  fail = false;
  EXPECT_EQ(gc.Submit(2), 1);
}

}  // namespace
}  // namespace gatehouse
