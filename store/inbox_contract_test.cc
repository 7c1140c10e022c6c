// The inbox part of the Store contract (DESIGN.md §4): durable acceptance, de-duplication,
// conflicts, routing with its signals in one transaction, PR heads, and the funnel.
#include <gtest/gtest.h>

#include "base/compress.h"
#include "store/store.h"
#include "store/store_test_util.h"

namespace gatehouse {
namespace {

using std::chrono::seconds;
using testing::StoreBackend;
using testing::TempDir;

using testing::kT0;

Delivery MakeDelivery(const std::string& id, const std::string& body = "{\"action\":\"opened\"}",
                      const std::string& sha = "aaaa") {
  Delivery d;
  d.delivery_id = id;
  d.event = "pull_request";
  d.action = "opened";
  d.installation_id = 42;
  d.body = body;
  d.body_sha256 = sha;
  d.received_at = kT0;
  return d;
}

class InboxContractTest : public ::testing::TestWithParam<StoreBackend> {
 protected:
  void SetUp() override { store_ = GetParam().open_fresh(dir_); }

  std::vector<AcceptOutcome> Accept(std::vector<Delivery> ds, const Counters& rejected = {}) {
    auto r = store_->inbox().AcceptDeliveries(ds, rejected, kT0);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? *r : std::vector<AcceptOutcome>{};
  }
  // Claims open deliveries as a router would, each time later than every earlier claim's
  // lease, so that what an earlier claim left unapplied is claimable again.
  Result<std::vector<InboxEntry>> Claim(size_t limit, Inbox::Open which = Inbox::Open::kAccepted) {
    claim_at_ += seconds(60);
    return store_->inbox().ClaimDeliveries("test", limit, which, seconds(30), claim_at_);
  }
  Funnel GetFunnel() {
    auto f = store_->inbox().GetFunnel();
    EXPECT_TRUE(f.ok());
    return f.ok() ? *f : Funnel{};
  }
  static void ExpectBalanced(const Funnel& f) {
    EXPECT_EQ(f.received, f.routed + f.ignored + f.duplicate + f.rejected + f.dead + f.in_flight)
        << "received " << f.received << " routed " << f.routed << " ignored " << f.ignored
        << " duplicate " << f.duplicate << " rejected " << f.rejected << " dead " << f.dead
        << " in_flight " << f.in_flight;
  }

  TempDir dir_;
  StorePtr store_;
  Time claim_at_ = kT0;
};

TEST_P(InboxContractTest, AcceptsStoresAndReturnsOpenDeliveriesInOrder) {
  auto out = Accept({MakeDelivery("d-1"), MakeDelivery("d-2")});
  EXPECT_EQ(out, (std::vector<AcceptOutcome>{AcceptOutcome::kAccepted, AcceptOutcome::kAccepted}));
  auto open = Claim(10);
  ASSERT_TRUE(open.ok());
  ASSERT_EQ(open->size(), 2u);
  EXPECT_EQ((*open)[0].delivery_id, "d-1");
  EXPECT_EQ((*open)[1].delivery_id, "d-2");
  EXPECT_LT((*open)[0].seq, (*open)[1].seq);
  EXPECT_EQ((*open)[0].event, "pull_request");
  EXPECT_EQ((*open)[0].action, "opened");
  EXPECT_EQ((*open)[0].installation_id, 42);
  EXPECT_EQ((*open)[0].body, "{\"action\":\"opened\"}");
  EXPECT_EQ((*open)[0].state, InboxState::kAccepted);
  Funnel f = GetFunnel();
  EXPECT_EQ(f.received, 2);
  EXPECT_EQ(f.in_flight, 2);
  ExpectBalanced(f);
}

// The headers a delivery keeps come back, in order and whole, from GetDelivery (a value's line
// breaks flattened: one header, one line); a delivery stored without any has none.
TEST_P(InboxContractTest, AStoredDeliveryKeepsItsHeaders) {
  Delivery with = MakeDelivery("d-h1");
  with.headers = {{"X-GitHub-Event", "pull_request"},
                  {"X-GitHub-Hook-ID", "123"},
                  {"User-Agent", "GitHub-Hookshot/abc: def"},
                  {"X-Odd", "a\r\nb"}};
  Delivery without = MakeDelivery("d-h2");
  EXPECT_EQ(Accept({with, without}),
            (std::vector<AcceptOutcome>{AcceptOutcome::kAccepted, AcceptOutcome::kAccepted}));
  auto got = store_->inbox().GetDelivery("d-h1");
  ASSERT_TRUE(got.ok() && got->has_value()) << got.status().ToString();
  const std::vector<std::pair<std::string, std::string>> want = {
      {"X-GitHub-Event", "pull_request"},
      {"X-GitHub-Hook-ID", "123"},
      {"User-Agent", "GitHub-Hookshot/abc: def"},
      {"X-Odd", "a  b"}};
  EXPECT_EQ((*got)->headers, want);
  auto bare = store_->inbox().GetDelivery("d-h2");
  ASSERT_TRUE(bare.ok() && bare->has_value());
  EXPECT_TRUE((*bare)->headers.empty());
}

TEST_P(InboxContractTest, SameIdSameBodyIsADuplicateDifferentBodyAConflict) {
  Accept({MakeDelivery("d-1")});
  auto out = Accept({MakeDelivery("d-1"), MakeDelivery("d-1", "{\"other\":1}", "bbbb")});
  EXPECT_EQ(out, (std::vector<AcceptOutcome>{AcceptOutcome::kDuplicate, AcceptOutcome::kConflict}));
  // Within one batch, too.
  auto batch = Accept({MakeDelivery("d-2"), MakeDelivery("d-2")});
  EXPECT_EQ(batch,
            (std::vector<AcceptOutcome>{AcceptOutcome::kAccepted, AcceptOutcome::kDuplicate}));
  auto open = Claim(10);
  ASSERT_TRUE(open.ok());
  EXPECT_EQ(open->size(), 2u) << "nothing stored twice";
  Funnel f = GetFunnel();
  EXPECT_EQ(f.received, 5);
  EXPECT_EQ(f.duplicate, 2);
  EXPECT_EQ(f.rejected, 1);
  EXPECT_EQ(f.conflicts, 1);
  ExpectBalanced(f);
}

TEST_P(InboxContractTest, RejectedRequestsCountInTheFunnel) {
  Accept({}, Counters{{"signature", 3}, {"json", 1}});
  Funnel f = GetFunnel();
  EXPECT_EQ(f.received, 4);
  EXPECT_EQ(f.rejected, 4);
  ExpectBalanced(f);
  auto c = store_->GetCounters();
  ASSERT_TRUE(c.ok());
  EXPECT_EQ((*c)["inbox.rejected.signature"], 3);
  EXPECT_EQ((*c)["inbox.rejected.json"], 1);
}

TEST_P(InboxContractTest, RoutingEnqueuesSignalsAndEndsTheDeliveryAtomically) {
  Accept({MakeDelivery("d-1"), MakeDelivery("d-2"), MakeDelivery("d-3"), MakeDelivery("d-4")});
  auto open = Claim(10);
  ASSERT_TRUE(open.ok());
  ASSERT_EQ(open->size(), 4u);
  std::vector<RouteDecision> decisions(4);
  decisions[0].seq = (*open)[0].seq;
  decisions[0].claim = (*open)[0].claim;
  decisions[0].state = InboxState::kRouted;
  decisions[0].signals = {{"acme/app#1", "opened", seconds(1)}, {"acme/app#2", "pushed", {}}};
  decisions[0].heads = {{"acme/app#1", "sha1"}};
  decisions[1].seq = (*open)[1].seq;
  decisions[1].claim = (*open)[1].claim;
  decisions[1].state = InboxState::kIgnored;
  decisions[1].reason = "event star is not used";
  decisions[2].seq = (*open)[2].seq;
  decisions[2].claim = (*open)[2].claim;
  decisions[2].state = InboxState::kUnresolved;
  decisions[2].reason = "no known PR has head abc";
  decisions[3].seq = (*open)[3].seq;
  decisions[3].claim = (*open)[3].claim;
  decisions[3].state = InboxState::kDead;
  decisions[3].reason = "body is not JSON";
  ASSERT_TRUE(store_->inbox().ApplyRouting(decisions, kT0).ok());

  auto w1 = store_->work().GetWorkItem("acme/app#1");
  ASSERT_TRUE(w1.ok() && w1->has_value());
  EXPECT_EQ((*w1)->requested_gen, 1);
  EXPECT_EQ((*w1)->due_at, kT0 + seconds(1));
  auto heads = store_->repos().PullRequestsWithHead("acme/app", "sha1");
  ASSERT_TRUE(heads.ok());
  EXPECT_EQ(*heads, std::vector<std::string>{"acme/app#1"});

  auto still_open = Claim(10);
  ASSERT_TRUE(still_open.ok());
  EXPECT_TRUE(still_open->empty());
  auto unresolved = Claim(10, Inbox::Open::kAny);
  ASSERT_TRUE(unresolved.ok());
  ASSERT_EQ(unresolved->size(), 1u);
  EXPECT_EQ((*unresolved)[0].state, InboxState::kUnresolved);
  EXPECT_EQ((*unresolved)[0].state_reason, "no known PR has head abc");

  Funnel f = GetFunnel();
  EXPECT_EQ(f.routed, 1);
  EXPECT_EQ(f.ignored, 1);
  EXPECT_EQ(f.dead, 1);
  EXPECT_EQ(f.in_flight, 1);
  EXPECT_EQ(f.unresolved, 1);
  ExpectBalanced(f);

  // Routing an already-routed delivery again changes nothing (a second router, a retry).
  ASSERT_TRUE(store_->inbox().ApplyRouting({&decisions[0], 1}, kT0).ok());
  EXPECT_EQ((*store_->work().GetWorkItem("acme/app#1"))->requested_gen, 1);
  EXPECT_EQ(GetFunnel().routed, 1);

  // The unresolved one resolves later, under the claim that listed it.
  RouteDecision later;
  later.seq = (*unresolved)[0].seq;
  later.claim = (*unresolved)[0].claim;
  later.state = InboxState::kRouted;
  later.signals = {{"acme/app#1", "ci-completed", {}}};
  ASSERT_TRUE(store_->inbox().ApplyRouting({&later, 1}, kT0).ok());
  Funnel g = GetFunnel();
  EXPECT_EQ(g.in_flight, 0);
  EXPECT_EQ(g.routed, 2);
  ExpectBalanced(g);
}

TEST_P(InboxContractTest, UnresolvedDeliveriesAreListedAloneOldestFirst) {
  Accept({MakeDelivery("d-1"), MakeDelivery("d-2"), MakeDelivery("d-3")});
  auto open = Claim(10);
  ASSERT_TRUE(open.ok());
  ASSERT_EQ(open->size(), 3u);
  std::vector<RouteDecision> decisions(2);
  decisions[0].seq = (*open)[0].seq;
  decisions[0].claim = (*open)[0].claim;
  decisions[0].state = InboxState::kUnresolved;
  decisions[1].seq = (*open)[2].seq;
  decisions[1].claim = (*open)[2].claim;
  decisions[1].state = InboxState::kUnresolved;
  ASSERT_TRUE(store_->inbox().ApplyRouting(decisions, kT0).ok());
  // A backlog of accepted deliveries (d-2, and more) does not hide them.
  Accept({MakeDelivery("d-4"), MakeDelivery("d-5")});
  auto unresolved = Claim(10, Inbox::Open::kUnresolved);
  ASSERT_TRUE(unresolved.ok());
  ASSERT_EQ(unresolved->size(), 2u);
  EXPECT_EQ((*unresolved)[0].delivery_id, "d-1");
  EXPECT_EQ((*unresolved)[1].delivery_id, "d-3");
  EXPECT_EQ((*unresolved)[0].state, InboxState::kUnresolved);
  auto first = Claim(1, Inbox::Open::kUnresolved);
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->size(), 1u);
  EXPECT_EQ((*first)[0].delivery_id, "d-1");
}

TEST_P(InboxContractTest, InvalidDecisionsWriteNothing) {
  Accept({MakeDelivery("d-1")});
  auto open = Claim(10);
  ASSERT_TRUE(open.ok());
  RouteDecision d;
  d.seq = (*open)[0].seq;
  d.claim = (*open)[0].claim;
  d.signals = {{"acme/app#1", "Bad Reason", {}}};
  EXPECT_EQ(store_->inbox().ApplyRouting({&d, 1}, kT0).code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(GetFunnel().in_flight, 1);
}

TEST_P(InboxContractTest, ClosedPullRequestsAreForgottenAsHeads) {
  Accept({MakeDelivery("d-1"), MakeDelivery("d-2")});
  auto open = Claim(10);
  ASSERT_TRUE(open.ok());
  RouteDecision a;
  a.seq = (*open)[0].seq;
  a.claim = (*open)[0].claim;
  a.heads = {{"acme/app#1", "sha1"}, {"acme/app#2", "sha1"}};
  RouteDecision b;
  b.seq = (*open)[1].seq;
  b.claim = (*open)[1].claim;
  b.heads = {{"acme/app#2", ""}};
  ASSERT_TRUE(store_->inbox().ApplyRouting({&a, 1}, kT0).ok());
  ASSERT_TRUE(store_->inbox().ApplyRouting({&b, 1}, kT0).ok());
  auto heads = store_->repos().PullRequestsWithHead("acme/app", "sha1");
  ASSERT_TRUE(heads.ok());
  EXPECT_EQ(*heads, std::vector<std::string>{"acme/app#1"});
}

TEST_P(InboxContractTest, GetDeliveryFindsItById) {
  Accept({MakeDelivery("d-1")});
  auto d = store_->inbox().GetDelivery("d-1");
  ASSERT_TRUE(d.ok() && d->has_value());
  EXPECT_EQ((*d)->event, "pull_request");
  EXPECT_EQ((*d)->state, InboxState::kAccepted);
  auto none = store_->inbox().GetDelivery("nope");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
}

TEST_P(InboxContractTest, CompressedBodiesComeBackRaw) {
  const std::string raw = std::string(4096, 'x') + "{\"action\":\"opened\"}";
  Delivery d = MakeDelivery("z-1", ZlibCompress(raw));
  d.encoding = Delivery::Encoding::kZlib;
  Delivery broken = MakeDelivery("z-2", "definitely not zlib");
  broken.encoding = Delivery::Encoding::kZlib;
  Accept({d, broken});
  auto got = store_->inbox().GetDelivery("z-1");
  ASSERT_TRUE(got.ok() && got->has_value());
  EXPECT_EQ((*got)->body, raw);
  EXPECT_TRUE((*got)->body_error.empty());
  auto open = Claim(10);
  ASSERT_TRUE(open.ok());
  ASSERT_EQ(open->size(), 2u);
  EXPECT_EQ((*open)[0].body, raw) << "the router must see the raw body too";
  EXPECT_FALSE((*open)[1].body_error.empty());
  auto bad = store_->inbox().GetDelivery("z-2");
  ASSERT_TRUE(bad.ok() && bad->has_value());
  EXPECT_FALSE((*bad)->body_error.empty()) << "a corrupt body is reported, not thrown";
}

TEST_P(InboxContractTest, DeliveriesSurviveReopen) {
  Accept({MakeDelivery("d-1")});
  store_.reset();
  store_ = GetParam().open_again(dir_);
  auto open = Claim(10);
  ASSERT_TRUE(open.ok());
  ASSERT_EQ(open->size(), 1u);
  EXPECT_TRUE(store_->CheckWritable().ok());
}

INSTANTIATE_TEST_SUITE_P(Backends, InboxContractTest,
                         ::testing::ValuesIn(testing::ContractBackends()), testing::BackendName);

}  // namespace
}  // namespace gatehouse
