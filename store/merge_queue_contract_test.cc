// The merge-queue part of the Store contract (store/merge_queue.h): an entry is made exactly once
// per PR head, whoever asks and however concurrently; entering and dropping are fenced by the
// PR's work item and moving by the queue's; every change signals the queue; the queue's order;
// the queues a SHA wakes.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "store/review_runs_test_util.h"

namespace gatehouse {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;
using testing::kReviewT0;

// The fixture's helpers (signal and claim a work item, a PR's fence) are the review runs'.
using MergeQueueContractTest = testing::ReviewRunsTest;

using testing::kT0;
const std::string kQueue = "acme/app@main/queue";

QueueEntryKey Head(const std::string& subject, const std::string& sha, int64_t occurrence = 1) {
  return QueueEntryKey{subject, sha, occurrence};
}

TEST_P(MergeQueueContractTest, StateNamesRoundTrip) {
  for (EntryState s : {EntryState::kQueued, EntryState::kUpdating, EntryState::kTesting,
                       EntryState::kMerging, EntryState::kMerged, EntryState::kDropped}) {
    EntryState back = EntryState::kQueued;
    ASSERT_TRUE(ParseEntryState(EntryStateName(s), &back));
    EXPECT_EQ(back, s);
    EXPECT_EQ(IsTerminal(s), s == EntryState::kMerged || s == EntryState::kDropped);
  }
  EntryState out;
  EXPECT_FALSE(ParseEntryState("dead", &out));
}

TEST_P(MergeQueueContractTest, AHeadEntersOnceAndSignalsTheQueue) {
  MergeQueue& q = store_->queues();
  const int64_t fence = PrFence("acme/app#1", kT0);
  auto first = q.Enter(kQueue, Head("acme/app#1", "sha1"), 5, fence, kT0);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE(first->created);
  EXPECT_GT(first->entry.id, 0);
  EXPECT_EQ(first->entry.queue, kQueue);
  EXPECT_EQ(first->entry.key, Head("acme/app#1", "sha1"));
  EXPECT_EQ(first->entry.priority, 5);
  EXPECT_EQ(first->entry.state, EntryState::kQueued);
  EXPECT_EQ(first->entry.tested_sha, "");
  EXPECT_EQ(first->entry.entered_at, kT0);
  auto item = work().GetWorkItem(kQueue);
  ASSERT_TRUE(item.ok() && item->has_value());
  EXPECT_EQ((*item)->state, WorkState::kPending);
  EXPECT_EQ((*item)->reasons, std::vector<std::string>{"queue-enter"});
  EXPECT_EQ((*item)->requested_gen, 1);

  auto again = q.Enter(kQueue, Head("acme/app#1", "sha1"), 9, fence, kT0 + seconds(5));
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(again->created);
  EXPECT_EQ(again->entry.id, first->entry.id);
  EXPECT_EQ(again->entry.priority, 5) << "nothing rewritten";
  EXPECT_EQ((*work().GetWorkItem(kQueue))->requested_gen, 1) << "no second signal";

  // Another head, or the same head's second occurrence, is another entry.
  EXPECT_TRUE(q.Enter(kQueue, Head("acme/app#1", "sha2"), 0, fence, kT0)->created);
  EXPECT_TRUE(q.Enter(kQueue, Head("acme/app#1", "sha1", 2), 0, fence, kT0)->created);
  // A command admits the head once more: another entry, once per command.
  QueueEntryKey admitted = Head("acme/app#1", "sha1");
  admitted.admitted_by = 4242;
  auto by_command = q.Enter(kQueue, admitted, 0, fence, kT0 + seconds(6));
  ASSERT_TRUE(by_command.ok()) << by_command.status().ToString();
  EXPECT_TRUE(by_command->created);
  EXPECT_EQ(by_command->entry.key, admitted);
  EXPECT_FALSE(q.Enter(kQueue, admitted, 0, fence, kT0 + seconds(7))->created);
  auto all = q.EntriesOf("acme/app#1");
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 4u);
  EXPECT_EQ((*all)[0].id, first->entry.id) << "oldest first";
  EXPECT_EQ((*all)[3].key.admitted_by, 4242);
}

TEST_P(MergeQueueContractTest, EnteringUnderAStaleFenceOrWithABadKeyWritesNothing) {
  MergeQueue& q = store_->queues();
  const int64_t fence = PrFence("acme/app#1", kT0);
  EXPECT_EQ(q.Enter(kQueue, Head("acme/app#1", "sha1"), 0, fence - 1, kT0).status().code(),
            StatusCode::kFenceLost);
  EXPECT_EQ(q.Enter(kQueue, Head("acme/app#404", "sha1"), 0, 1, kT0).status().code(),
            StatusCode::kFenceLost);
  for (const auto& [queue, key] : std::vector<std::pair<std::string, QueueEntryKey>>{
           {"acme/app@main", Head("acme/app#1", "sha1")},
           {"Acme/App@main/queue", Head("acme/app#1", "sha1")},
           {"acme/other@main/queue", Head("acme/app#1", "sha1")},
           {kQueue, Head("acme/app", "sha1")},
           {kQueue, Head("acme/app#1", "")},
           {kQueue, Head("acme/app#1", "sha1", 0)}}) {
    EXPECT_EQ(q.Enter(queue, key, 0, fence, kT0).status().code(), StatusCode::kInvalidArgument)
        << queue << " " << key.subject << " " << key.head_sha;
  }
  auto all = q.EntriesOf("acme/app#1");
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->empty());
  auto item = work().GetWorkItem(kQueue);
  ASSERT_TRUE(item.ok());
  EXPECT_FALSE(item->has_value()) << "no signal either";
}

// Eight passes of one PR entering at once (one store, eight threads): one entry.
TEST_P(MergeQueueContractTest, ConcurrentEntersOfOneHeadMakeOneEntry) {
  const int64_t fence = PrFence("acme/app#1", kT0);
  std::atomic<int> created{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      auto r = store_->queues().Enter(kQueue, Head("acme/app#1", "sha1"), 0, fence, kT0);
      ASSERT_TRUE(r.ok()) << r.status().ToString();
      if (r->created) created.fetch_add(1);
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(created.load(), 1);
  EXPECT_EQ(store_->queues().EntriesOf("acme/app#1")->size(), 1u);
}

TEST_P(MergeQueueContractTest, TheQueueTakesEntriesUnderWayFirstThenByPriorityThenArrival) {
  MergeQueue& q = store_->queues();
  // Every PR's work item is claimed before the queue's is left pending.
  for (int n = 1; n <= 4; ++n) PrFence("acme/app#" + std::to_string(n), kT0);
  const int64_t e1 =
      q.Enter(kQueue, Head("acme/app#1", "a"), 0, PrFence("acme/app#1", kT0), kT0)->entry.id;
  const int64_t e2 =
      q.Enter(kQueue, Head("acme/app#2", "b"), 0, PrFence("acme/app#2", kT0), kT0 + seconds(1))
          ->entry.id;
  const int64_t e3 =
      q.Enter(kQueue, Head("acme/app#3", "c"), 10, PrFence("acme/app#3", kT0), kT0 + seconds(2))
          ->entry.id;
  const int64_t e4 =
      q.Enter(kQueue, Head("acme/app#4", "d"), -1, PrFence("acme/app#4", kT0), kT0 + seconds(3))
          ->entry.id;
  auto order = [&](int ended = 0) {
    std::vector<int64_t> ids;
    auto listed = q.ListQueue(kQueue, ended);  // held: a range over *temporary would dangle
    EXPECT_TRUE(listed.ok()) << listed.status().ToString();
    for (const QueueEntry& e : *listed) ids.push_back(e.id);
    return ids;
  };
  EXPECT_EQ(order(), (std::vector<int64_t>{e3, e1, e2, e4}));

  // The queue starts on #1 (say a batch already under way): a priority never overtakes it.
  const Lease lease = ClaimNext(kQueue, kT0 + seconds(10));
  auto stepped = q.Step(e1, {.from = EntryState::kQueued, .to = EntryState::kUpdating}, lease.fence,
                        kT0 + seconds(10));
  ASSERT_TRUE(stepped.ok()) << stepped.status().ToString();
  EXPECT_EQ(order(), (std::vector<int64_t>{e1, e3, e2, e4}));
  // Terminal entries leave the order; `ended` lists the latest of them after it.
  ASSERT_TRUE(q.Step(e2,
                     {.from = EntryState::kQueued, .to = EntryState::kDropped, .reason = "closed"},
                     lease.fence, kT0 + seconds(11))
                  .ok());
  EXPECT_EQ(order(), (std::vector<int64_t>{e1, e3, e4}));
  EXPECT_EQ(order(5), (std::vector<int64_t>{e1, e3, e4, e2}));
  EXPECT_TRUE(q.ListQueue("acme/app@release/queue")->empty()) << "another base, another queue";
}

// Batches (integration_branch): a step sets an entry's batch, later steps keep it; a failed
// batch's entries go back to queued with the batch of their half, and those halves come before
// any fresh entry, whatever its priority, so a bisection is never overtaken.
TEST_P(MergeQueueContractTest, BatchesAreKeptByStepsAndBisectedHalvesComeFirst) {
  MergeQueue& q = store_->queues();
  std::vector<int64_t> ids;
  for (int n = 1; n <= 4; ++n) {
    const std::string pr = "acme/app#" + std::to_string(n);
    ids.push_back(
        q.Enter(kQueue, Head(pr, "s" + std::to_string(n)), 0, PrFence(pr, kT0), kT0 + seconds(n))
            ->entry.id);
  }
  const Lease lease = ClaimNext(kQueue, kT0 + seconds(10));
  const int64_t batch = ids[0];
  for (int64_t id : {ids[0], ids[1], ids[2]}) {
    auto s = q.Step(id, {.from = EntryState::kQueued, .to = EntryState::kUpdating, .batch = batch},
                    lease.fence, kT0 + seconds(10));
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ(s->batch, batch);
    auto t = q.Step(id,
                    {.from = EntryState::kUpdating, .to = EntryState::kTesting, .tested_sha = "int1"},
                    lease.fence, kT0 + seconds(11));
    ASSERT_TRUE(t.ok());
    EXPECT_EQ(t->batch, batch) << "kept when not given";
  }
  EXPECT_EQ(q.EntriesOf("acme/app#4")->front().batch, 0) << "not in the batch";
  // The batch's members by their integration SHA, and one of them dropped by its PR's pass.
  ASSERT_TRUE(q.Leave("acme/app#2", "", "pushed", PrFence("acme/app#2", kT0), kT0 + seconds(11))
                  .ok());
  auto tested = q.EntriesTested(kQueue, "int1");
  ASSERT_TRUE(tested.ok()) << tested.status().ToString();
  ASSERT_EQ(tested->size(), 3u);
  EXPECT_EQ((*tested)[1].id, ids[1]);
  EXPECT_EQ((*tested)[1].state, EntryState::kDropped) << "terminal ones too";
  EXPECT_TRUE(q.EntriesTested(kQueue, "")->empty());
  EXPECT_TRUE(q.EntriesTested("acme/app@release/queue", "int1")->empty());

  // A priority entry arrives; the batch fails and is split: {#1} and {#3}.
  const int64_t urgent =
      q.Enter(kQueue, Head("acme/app#9", "s9"), 10, PrFence("acme/app#9", kT0), kT0 + seconds(12))
          ->entry.id;
  for (auto [id, half] : {std::pair{ids[0], ids[0]}, {ids[2], ids[2]}}) {
    ASSERT_TRUE(q.Step(id,
                       {.from = EntryState::kTesting,
                        .to = EntryState::kQueued,
                        .tested_sha = "",
                        .reason = "bisecting",
                        .batch = half},
                       lease.fence, kT0 + seconds(13))
                    .ok());
  }
  std::vector<int64_t> order;
  auto listed = q.ListQueue(kQueue);  // held: a range over *temporary would dangle
  ASSERT_TRUE(listed.ok());
  for (const QueueEntry& e : *listed) order.push_back(e.id);
  EXPECT_EQ(order, (std::vector<int64_t>{ids[0], ids[2], urgent, ids[3]}));
}

TEST_P(MergeQueueContractTest, StepsAreFencedByTheQueueAndCheckTheStateTheyLeave) {
  MergeQueue& q = store_->queues();
  const int64_t pr = PrFence("acme/app#1", kT0);
  const int64_t id = q.Enter(kQueue, Head("acme/app#1", "sha1"), 0, pr, kT0)->entry.id;
  const Lease lease = ClaimNext(kQueue, kT0);

  EXPECT_EQ(
      q.Step(id, {.from = EntryState::kQueued, .to = EntryState::kUpdating}, lease.fence - 1, kT0)
          .status()
          .code(),
      StatusCode::kFenceLost);
  EXPECT_EQ(
      q.Step(id + 100, {.from = EntryState::kQueued, .to = EntryState::kUpdating}, lease.fence, kT0)
          .status()
          .code(),
      StatusCode::kNotFound);

  auto updating = q.Step(id, {.from = EntryState::kQueued, .to = EntryState::kUpdating},
                         lease.fence, kT0 + seconds(1));
  ASSERT_TRUE(updating.ok()) << updating.status().ToString();
  EXPECT_EQ(updating->state, EntryState::kUpdating);
  EXPECT_EQ(q.Step(id, {.from = EntryState::kQueued, .to = EntryState::kUpdating}, lease.fence, kT0)
                .status()
                .code(),
            StatusCode::kFailedPrecondition)
      << "moved already";

  auto testing = q.Step(id,
                        {.from = EntryState::kUpdating,
                         .to = EntryState::kTesting,
                         .tested_sha = "sha1u",
                         .deadline = kT0 + minutes(30)},
                        lease.fence, kT0 + seconds(2));
  ASSERT_TRUE(testing.ok());
  EXPECT_EQ(testing->tested_sha, "sha1u");
  EXPECT_EQ(testing->deadline, kT0 + minutes(30));
  EXPECT_EQ(testing->updated_at, kT0 + seconds(2));

  auto merging = q.Step(id, {.from = EntryState::kTesting, .to = EntryState::kMerging}, lease.fence,
                        kT0 + seconds(3));
  ASSERT_TRUE(merging.ok());
  EXPECT_EQ(merging->tested_sha, "sha1u") << "kept when not given";
  EXPECT_FALSE(merging->deadline.has_value()) << "cleared out of testing";
  auto merged = q.Step(
      id, {.from = EntryState::kMerging, .to = EntryState::kMerged, .reason = "merged at sha1u"},
      lease.fence, kT0 + seconds(4));
  ASSERT_TRUE(merged.ok());
  EXPECT_EQ(merged->state, EntryState::kMerged);
  EXPECT_EQ(merged->reason, "merged at sha1u");

  // A terminal entry never moves; a drop needs a reason.
  EXPECT_EQ(q.Step(id, {.from = EntryState::kMerged, .to = EntryState::kQueued}, lease.fence, kT0)
                .status()
                .code(),
            StatusCode::kFailedPrecondition);
  const int64_t other = q.Enter(kQueue, Head("acme/app#1", "sha2"), 0, pr, kT0)->entry.id;
  EXPECT_EQ(
      q.Step(other, {.from = EntryState::kQueued, .to = EntryState::kDropped}, lease.fence, kT0)
          .status()
          .code(),
      StatusCode::kInvalidArgument);
}

TEST_P(MergeQueueContractTest, LeavingDropsThePrsOpenEntriesButTheHeadItKeepsAndSignalsEachQueue) {
  MergeQueue& q = store_->queues();
  const int64_t pr = PrFence("acme/app#1", kT0);
  const std::string release = "acme/app@release/2.x/queue";
  const int64_t a = q.Enter(kQueue, Head("acme/app#1", "a"), 0, pr, kT0)->entry.id;
  // Due after kT0: the claim below takes the main queue.
  const int64_t b = q.Enter(release, Head("acme/app#1", "b"), 0, pr, kT0 + seconds(1))->entry.id;
  const int64_t c = q.Enter(kQueue, Head("acme/app#1", "c"), 0, pr, kT0)->entry.id;
  // The queue made a tested head of `c` (its update-branch): `keep_sha` names either.
  const Lease lease = ClaimNext(kQueue, kT0);
  ASSERT_TRUE(q.Step(c,
                     {.from = EntryState::kQueued, .to = EntryState::kTesting, .tested_sha = "c2"},
                     lease.fence, kT0)
                  .ok());
  const int64_t gen_before = (*work().GetWorkItem(release))->requested_gen;

  EXPECT_EQ(q.Leave("acme/app#1", "c2", "pushed", pr - 1, kT0).status().code(),
            StatusCode::kFenceLost);
  auto dropped = q.Leave("acme/app#1", "c2", "a push made the head d", pr, kT0 + seconds(5));
  ASSERT_TRUE(dropped.ok()) << dropped.status().ToString();
  ASSERT_EQ(dropped->size(), 2u);
  EXPECT_EQ((*dropped)[0].id, a);
  EXPECT_EQ((*dropped)[1].id, b);
  for (const QueueEntry& e : *dropped) {
    EXPECT_EQ(e.state, EntryState::kDropped);
    EXPECT_EQ(e.reason, "a push made the head d");
    EXPECT_EQ(e.updated_at, kT0 + seconds(5));
  }
  EXPECT_EQ((*work().GetWorkItem(release))->requested_gen, gen_before + 1);
  auto kept = q.EntriesOf("acme/app#1");
  ASSERT_EQ(kept->size(), 3u);
  EXPECT_EQ((*kept)[2].state, EntryState::kTesting);

  // Dropping again drops nothing more; "" keeps nothing.
  EXPECT_TRUE(q.Leave("acme/app#1", "c2", "again", pr, kT0)->empty());
  auto all = q.Leave("acme/app#1", "", "closed", pr, kT0 + seconds(6));
  ASSERT_EQ(all->size(), 1u);
  EXPECT_EQ((*all)[0].id, c);
  EXPECT_EQ(q.Leave("acme/app#1", "", "", pr, kT0).status().code(), StatusCode::kInvalidArgument);
}

TEST_P(MergeQueueContractTest, AShaWakesTheQueuesWhoseOpenEntriesItIsTheHeadOrTestedShaOf) {
  MergeQueue& q = store_->queues();
  const int64_t p1 = PrFence("acme/app#1", kT0);
  const int64_t p2 = PrFence("acme/app#2", kT0);
  const int64_t p3 = PrFence("acme/lib#3", kT0);
  const std::string release = "acme/app@release/queue";
  // Only the release queue is due at kT0, so that the claim takes it.
  const int64_t e2 = q.Enter(release, Head("acme/app#2", "s2"), 0, p2, kT0)->entry.id;
  ASSERT_TRUE(q.Enter(kQueue, Head("acme/app#1", "s1"), 0, p1, kT0 + seconds(1)).ok());
  ASSERT_TRUE(
      q.Enter("acme/lib@main/queue", Head("acme/lib#3", "s1"), 0, p3, kT0 + seconds(1)).ok());
  const Lease lease = ClaimNext(release, kT0);
  ASSERT_TRUE(q.Step(e2,
                     {.from = EntryState::kQueued, .to = EntryState::kTesting, .tested_sha = "s1"},
                     lease.fence, kT0)
                  .ok());
  EXPECT_EQ(*q.QueuesWatching("acme/app", "s1"), (std::vector<std::string>{kQueue, release}));
  EXPECT_EQ(*q.QueuesWatching("acme/lib", "s1"), (std::vector<std::string>{"acme/lib@main/queue"}));
  EXPECT_EQ(*q.QueuesWatching("acme/app", "s2"), (std::vector<std::string>{release}));
  EXPECT_TRUE(q.QueuesWatching("acme/app", "nope")->empty());
  EXPECT_TRUE(q.QueuesWatching("acme/ap", "s1")->empty()) << "the whole repository name";
  // An ended entry watches nothing.
  ASSERT_TRUE(q.Leave("acme/app#1", "", "closed", p1, kT0).ok());
  EXPECT_EQ(*q.QueuesWatching("acme/app", "s1"), (std::vector<std::string>{release}));
}

TEST_P(MergeQueueContractTest, EntriesSurviveAReopen) {
  const int64_t pr = PrFence("acme/app#1", kT0);
  const int64_t id =
      store_->queues().Enter(kQueue, Head("acme/app#1", "sha1"), 3, pr, kT0)->entry.id;
  store_.reset();
  store_ = GetParam().open_again(dir_);
  auto back = store_->queues().ListQueue(kQueue);
  ASSERT_TRUE(back.ok());
  ASSERT_EQ(back->size(), 1u);
  EXPECT_EQ((*back)[0].id, id);
  EXPECT_EQ((*back)[0].priority, 3);
  EXPECT_EQ((*back)[0].entered_at, kT0);
}

INSTANTIATE_TEST_SUITE_P(Backends, MergeQueueContractTest,
                         ::testing::ValuesIn(testing::ContractBackends()), testing::BackendName);

}  // namespace
}  // namespace gatehouse
