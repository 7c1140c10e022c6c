// Claimed routing as part of the Store contract (docs/STORE.md, "A contract several nodes can share"):
// several routers — threads or processes, each on its own store connection — never hold one
// delivery at once, a decision made under a superseded claim changes nothing, a claim left
// unapplied expires, and applying releases it. Also the wake-ups a store gives and the
// counters several writers share.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

#include "store/store.h"
#include "store/store_test_util.h"

namespace gatehouse {
namespace {

using std::chrono::seconds;
using testing::StoreBackend;
using testing::TempDir;

using testing::kT0;
using Open = Inbox::Open;

Delivery MakeDelivery(int i) {
  Delivery d;
  d.delivery_id = "d-" + std::to_string(i);
  d.event = "pull_request";
  d.action = "opened";
  d.body = "{}";
  d.body_sha256 = d.delivery_id;
  d.received_at = kT0;
  return d;
}

class RoutingClaimContractTest : public ::testing::TestWithParam<StoreBackend> {
 protected:
  void SetUp() override { store_ = GetParam().open_fresh(dir_); }

  void Accept(int first, int count, Store& store) {
    std::vector<Delivery> ds;
    for (int i = first; i < first + count; ++i) ds.push_back(MakeDelivery(i));
    auto r = store.inbox().AcceptDeliveries(ds, {}, kT0);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  std::vector<InboxEntry> Claim(Store& store, const std::string& owner, size_t limit, Time now,
                                Open which = Open::kAccepted) {
    auto r = store.inbox().ClaimDeliveries(owner, limit, which, seconds(30), now);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::vector<InboxEntry>{};
  }
  // Routes `e` to one signal for "acme/app#<seq>", so a double routing shows as generation 2.
  static RouteDecision Routed(const InboxEntry& e) {
    RouteDecision d;
    d.seq = e.seq;
    d.claim = e.claim;
    d.state = InboxState::kRouted;
    d.signals = {{"acme/app#" + std::to_string(e.seq), "opened", {}}};
    return d;
  }
  int64_t Generation(int64_t seq) {
    auto w = store_->work().GetWorkItem("acme/app#" + std::to_string(seq));
    EXPECT_TRUE(w.ok());
    return w.ok() && w->has_value() ? (*w)->requested_gen : 0;
  }

  TempDir dir_;
  StorePtr store_;
};

TEST_P(RoutingClaimContractTest, TwoRoutersNeverHoldTheSameDelivery) {
  StorePtr other = GetParam().open_again(dir_);
  Accept(1, 10, *store_);
  const auto a = Claim(*store_, "router-a", 4, kT0);
  const auto b = Claim(*other, "router-b", 10, kT0);
  ASSERT_EQ(a.size(), 4u);
  ASSERT_EQ(b.size(), 6u);
  std::set<int64_t> seqs;
  for (const auto& e : a) seqs.insert(e.seq);
  for (const auto& e : b) EXPECT_TRUE(seqs.insert(e.seq).second) << "claimed twice: " << e.seq;
  EXPECT_EQ(a.front().delivery_id, "d-1") << "oldest first";
  EXPECT_GT(a.front().claim, 0);
  EXPECT_TRUE(Claim(*store_, "router-c", 10, kT0).empty()) << "all held";
}

TEST_P(RoutingClaimContractTest, ADecisionUnderASupersededClaimChangesNothing) {
  Accept(1, 1, *store_);
  const auto stale = Claim(*store_, "router-a", 1, kT0);
  ASSERT_EQ(stale.size(), 1u);
  EXPECT_TRUE(Claim(*store_, "router-b", 1, kT0 + seconds(29)).empty()) << "lease still held";
  // router-a stalls past its lease; router-b claims the delivery again.
  const auto fresh = Claim(*store_, "router-b", 1, kT0 + seconds(31));
  ASSERT_EQ(fresh.size(), 1u);
  EXPECT_EQ(fresh[0].seq, stale[0].seq);
  EXPECT_GT(fresh[0].claim, stale[0].claim);
  RouteDecision late = Routed(stale[0]);
  ASSERT_TRUE(store_->inbox().ApplyRouting({&late, 1}, kT0 + seconds(32)).ok());
  EXPECT_EQ(Generation(stale[0].seq), 0) << "the stale router's decision is skipped";
  RouteDecision current = Routed(fresh[0]);
  ASSERT_TRUE(store_->inbox().ApplyRouting({&current, 1}, kT0 + seconds(32)).ok());
  EXPECT_EQ(Generation(stale[0].seq), 1);
  auto f = store_->inbox().GetFunnel();
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->routed, 1);
  EXPECT_EQ(f->in_flight, 0);
}

TEST_P(RoutingClaimContractTest, AuditLinesAreWrittenOnlyWithTheirDecision) {
  Accept(1, 1, *store_);
  const auto stale = Claim(*store_, "router-a", 1, kT0);
  const auto fresh = Claim(*store_, "router-b", 1, kT0 + seconds(31));
  ASSERT_EQ(stale.size(), 1u);
  ASSERT_EQ(fresh.size(), 1u);
  auto audited = [&](const InboxEntry& e, const std::string& summary) {
    RouteDecision d = Routed(e);
    AuditEntry a;
    a.subject = "acme/app#" + std::to_string(e.seq);
    a.at = kT0 + seconds(32);
    a.kind = "delivery";
    a.summary = summary;
    d.audit.push_back(a);
    return d;
  };
  RouteDecision late = audited(stale[0], "stale");
  ASSERT_TRUE(store_->inbox().ApplyRouting({&late, 1}, kT0 + seconds(32)).ok());
  RouteDecision current = audited(fresh[0], "current");
  ASSERT_TRUE(store_->inbox().ApplyRouting({&current, 1}, kT0 + seconds(32)).ok());
  auto log = store_->audit().ListAudit("acme/app#" + std::to_string(fresh[0].seq), 0);
  ASSERT_TRUE(log.ok()) << log.status().ToString();
  ASSERT_EQ(log->size(), 1u) << "the skipped decision wrote no line";
  EXPECT_EQ((*log)[0].summary, "current");
  EXPECT_EQ((*log)[0].kind, "delivery");
  // A malformed line refuses the whole batch.
  Accept(2, 1, *store_);
  const auto next = Claim(*store_, "router-b", 1, kT0 + seconds(40));
  ASSERT_EQ(next.size(), 1u);
  RouteDecision bad = audited(next[0], "bad");
  bad.audit[0].kind = "Not A Kind";
  EXPECT_EQ(store_->inbox().ApplyRouting({&bad, 1}, kT0 + seconds(40)).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(Generation(next[0].seq), 0);
}

TEST_P(RoutingClaimContractTest, ApplyingReleasesTheClaimSoTheResolverCanTakeIt) {
  Accept(1, 2, *store_);
  const auto open = Claim(*store_, "router", 10, kT0);
  ASSERT_EQ(open.size(), 2u);
  RouteDecision d;
  d.seq = open[0].seq;
  d.claim = open[0].claim;
  d.state = InboxState::kUnresolved;
  ASSERT_TRUE(store_->inbox().ApplyRouting({&d, 1}, kT0).ok());
  const auto unresolved = Claim(*store_, "resolver", 10, kT0, Open::kUnresolved);
  ASSERT_EQ(unresolved.size(), 1u);
  EXPECT_EQ(unresolved[0].seq, open[0].seq);
  EXPECT_EQ(unresolved[0].state, InboxState::kUnresolved);
  // The second delivery is still the router's: kAny does not hand it out either.
  EXPECT_TRUE(Claim(*store_, "router-2", 10, kT0, Open::kAny).empty());
}

TEST_P(RoutingClaimContractTest, BadClaimsAreRefused) {
  EXPECT_EQ(
      store_->inbox().ClaimDeliveries("", 1, Open::kAccepted, seconds(1), kT0).status().code(),
      StatusCode::kInvalidArgument);
  EXPECT_EQ(
      store_->inbox().ClaimDeliveries("r", 1, Open::kAccepted, seconds(0), kT0).status().code(),
      StatusCode::kInvalidArgument);
}

// Four routers on their own connections claim and route 400 deliveries concurrently, each
// claim racing the others: every delivery is routed exactly once.
TEST_P(RoutingClaimContractTest, ConcurrentRoutersRouteEveryDeliveryExactlyOnce) {
  constexpr int kDeliveries = 400;
  Accept(1, kDeliveries, *store_);
  std::atomic<int> applied{0};
  std::vector<std::thread> routers;
  for (int r = 0; r < 4; ++r) {
    routers.emplace_back([&, r] {
      StorePtr mine = GetParam().open_again(dir_);
      for (int round = 0; round < 10000 && applied.load() < kDeliveries; ++round) {
        auto batch = mine->inbox().ClaimDeliveries("router-" + std::to_string(r), 7,
                                                   Open::kAccepted, seconds(30), kT0);
        if (!batch.ok() || batch->empty()) {
          std::this_thread::yield();
          continue;
        }
        std::vector<RouteDecision> decisions;
        for (const auto& e : *batch) decisions.push_back(Routed(e));
        if (mine->inbox().ApplyRouting(decisions, kT0).ok()) {
          applied.fetch_add(static_cast<int>(decisions.size()));
        }
      }
    });
  }
  for (auto& t : routers) t.join();
  EXPECT_EQ(applied.load(), kDeliveries);
  auto f = store_->inbox().GetFunnel();
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(f->routed, kDeliveries);
  EXPECT_EQ(f->in_flight, 0);
  auto items = store_->work().ListWorkItems(WorkFilter{std::nullopt, 10000, ""});
  ASSERT_TRUE(items.ok());
  ASSERT_EQ(items->size(), static_cast<size_t>(kDeliveries));
  for (const auto& w : *items) EXPECT_EQ(w.requested_gen, 1) << w.key << " routed twice";
}

// Counters that several store instances (processes) add to are summed when read.
TEST_P(RoutingClaimContractTest, CountersOfSeveralWritersAddUp) {
  StorePtr other = GetParam().open_again(dir_);
  Accept(1, 3, *store_);
  Accept(4, 2, *other);
  Accept(1, 1, *other);  // a duplicate
  for (Store* s : {store_.get(), other.get()}) {
    auto f = s->inbox().GetFunnel();
    ASSERT_TRUE(f.ok());
    EXPECT_EQ(f->received, 6);
    EXPECT_EQ(f->duplicate, 1);
    EXPECT_EQ(f->in_flight, 5);
    auto c = s->GetCounters();
    ASSERT_TRUE(c.ok());
    EXPECT_EQ((*c)["inbox.accepted"], 5);
  }
}

// New work wakes this process's subscribers after its commit; an unsubscribed callback stays
// quiet.
TEST_P(RoutingClaimContractTest, NewWorkWakesSubscribers) {
  std::atomic<int> work{0}, deliveries{0};
  const int64_t w = store_->wakeups().Subscribe(Wakeups::Topic::kWork, [&] { work.fetch_add(1); });
  const int64_t d =
      store_->wakeups().Subscribe(Wakeups::Topic::kDeliveries, [&] { deliveries.fetch_add(1); });
  Accept(1, 1, *store_);
  EXPECT_EQ(deliveries.load(), 1);
  EXPECT_EQ(work.load(), 0);
  Accept(1, 1, *store_);  // only a duplicate: nothing new
  EXPECT_EQ(deliveries.load(), 1);
  auto open = Claim(*store_, "router", 1, kT0);
  ASSERT_EQ(open.size(), 1u);
  RouteDecision routed = Routed(open[0]);
  ASSERT_TRUE(store_->inbox().ApplyRouting({&routed, 1}, kT0).ok());
  EXPECT_EQ(work.load(), 1) << "routing enqueued a signal";
  Signal s{"acme/app#9", "swept", {}};
  ASSERT_TRUE(store_->work().Enqueue({&s, 1}, kT0, Durability::kRecoverable).ok());
  EXPECT_EQ(work.load(), 2);
  store_->wakeups().Unsubscribe(w);
  store_->wakeups().Unsubscribe(d);
  ASSERT_TRUE(store_->work().Enqueue({&s, 1}, kT0, Durability::kRecoverable).ok());
  Accept(2, 1, *store_);
  EXPECT_EQ(work.load(), 2);
  EXPECT_EQ(deliveries.load(), 1);
}

INSTANTIATE_TEST_SUITE_P(Backends, RoutingClaimContractTest,
                         ::testing::ValuesIn(testing::ContractBackends()), testing::BackendName);

}  // namespace
}  // namespace gatehouse
