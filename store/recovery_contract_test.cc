// The recovery part of the Store contract (docs/INGRESS.md, "Recovering missed deliveries"):
// a recovered delivery is accepted under its guid and counted as `recovered` (part of
// `received`); the same id arriving again — a real redelivery with GitHub's signed bytes, or a
// second node recovering it — is a duplicate whatever its body hash, never a conflict; which
// ids the inbox holds is one read; the high-water mark only rises. Runs on every backend.
#include <gtest/gtest.h>

#include <algorithm>
#include <thread>

#include "store/store.h"
#include "store/store_test_util.h"

namespace gatehouse {
namespace {

using testing::StoreBackend;
using testing::TempDir;

using testing::kT0;

Delivery MakeDelivery(const std::string& id, const std::string& sha, bool recovered) {
  Delivery d;
  d.delivery_id = id;
  d.event = "pull_request";
  d.action = "opened";
  d.installation_id = 42;
  d.body = "{\"action\":\"opened\",\"n\":\"" + sha + "\"}";
  d.body_sha256 = sha;
  d.received_at = kT0;
  d.recovered = recovered;
  return d;
}

class RecoveryContractTest : public ::testing::TestWithParam<StoreBackend> {
 protected:
  void SetUp() override { store_ = GetParam().open_fresh(dir_); }

  AcceptOutcome AcceptOne(const Delivery& d) {
    auto r = store_->inbox().AcceptDeliveries(std::span<const Delivery>(&d, 1), {}, kT0);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() && r->size() == 1 ? (*r)[0] : AcceptOutcome::kConflict;
  }
  Funnel GetFunnel() {
    auto f = store_->inbox().GetFunnel();
    EXPECT_TRUE(f.ok());
    return f.ok() ? *f : Funnel{};
  }

  TempDir dir_;
  StorePtr store_;
};

TEST_P(RecoveryContractTest, RecoveredIsPartOfReceivedAndTheFunnelBalances) {
  EXPECT_EQ(AcceptOne(MakeDelivery("d-1", "aaaa", false)), AcceptOutcome::kAccepted);
  EXPECT_EQ(AcceptOne(MakeDelivery("g-2", "bbbb", true)), AcceptOutcome::kAccepted);
  Funnel f = GetFunnel();
  EXPECT_EQ(f.received, 2);
  EXPECT_EQ(f.recovered, 1);
  EXPECT_EQ(f.in_flight, 2);
  EXPECT_EQ(f.received, f.routed + f.ignored + f.duplicate + f.rejected + f.dead + f.in_flight);
  auto entry = store_->inbox().GetDelivery("g-2");
  ASSERT_TRUE(entry.ok());
  ASSERT_TRUE(entry->has_value());
  EXPECT_EQ((*entry)->body, "{\"action\":\"opened\",\"n\":\"bbbb\"}");
}

TEST_P(RecoveryContractTest, ARealRedeliveryOfARecoveredIdIsADuplicateNotAConflict) {
  ASSERT_EQ(AcceptOne(MakeDelivery("g-1", "parsed", true)), AcceptOutcome::kAccepted);
  // GitHub's signed bytes hash differently from the re-serialized payload.
  EXPECT_EQ(AcceptOne(MakeDelivery("g-1", "signed", false)), AcceptOutcome::kDuplicate);
  Funnel f = GetFunnel();
  EXPECT_EQ(f.conflicts, 0);
  EXPECT_EQ(f.duplicate, 1);
  EXPECT_EQ(f.recovered, 1);
  EXPECT_EQ(f.received, f.routed + f.ignored + f.duplicate + f.rejected + f.dead + f.in_flight);
}

TEST_P(RecoveryContractTest, RecoveringAnIdAlreadyReceivedIsADuplicate) {
  ASSERT_EQ(AcceptOne(MakeDelivery("d-1", "signed", false)), AcceptOutcome::kAccepted);
  EXPECT_EQ(AcceptOne(MakeDelivery("d-1", "parsed", true)), AcceptOutcome::kDuplicate);
  // An ordinary different body under a received id is still a conflict.
  EXPECT_EQ(AcceptOne(MakeDelivery("d-1", "other", false)), AcceptOutcome::kConflict);
  Funnel f = GetFunnel();
  EXPECT_EQ(f.recovered, 0);
  EXPECT_EQ(f.conflicts, 1);
}

TEST_P(RecoveryContractTest, TwoNodesRecoveringOneIdStoreItOnce) {
  StorePtr other = GetParam().open_again(dir_);
  ASSERT_NE(other, nullptr);
  const Delivery d = MakeDelivery("g-9", "parsed", true);
  AcceptOutcome a{}, b{};
  std::thread t1([&] {
    auto r = store_->inbox().AcceptDeliveries(std::span<const Delivery>(&d, 1), {}, kT0);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    a = (*r)[0];
  });
  std::thread t2([&] {
    auto r = other->inbox().AcceptDeliveries(std::span<const Delivery>(&d, 1), {}, kT0);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    b = (*r)[0];
  });
  t1.join();
  t2.join();
  EXPECT_EQ((a == AcceptOutcome::kAccepted) + (b == AcceptOutcome::kAccepted), 1);
  EXPECT_EQ((a == AcceptOutcome::kDuplicate) + (b == AcceptOutcome::kDuplicate), 1);
  Funnel f = GetFunnel();
  EXPECT_EQ(f.recovered, 1);
  EXPECT_EQ(f.in_flight, 1);
  EXPECT_EQ(f.conflicts, 0);
}

TEST_P(RecoveryContractTest, HeldDeliveryIdsNamesOnlyStoredIds) {
  ASSERT_EQ(AcceptOne(MakeDelivery("a", "1", false)), AcceptOutcome::kAccepted);
  ASSERT_EQ(AcceptOne(MakeDelivery("c", "3", true)), AcceptOutcome::kAccepted);
  std::vector<std::string> ask{"a", "b", "c", "d"};
  auto held = store_->inbox().HeldDeliveryIds(ask);
  ASSERT_TRUE(held.ok()) << held.status().ToString();
  std::vector<std::string> got = *held;
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, (std::vector<std::string>{"a", "c"}));
  auto none = store_->inbox().HeldDeliveryIds({});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST_P(RecoveryContractTest, TheMarkStartsAtZeroAndOnlyRises) {
  auto m = store_->inbox().GetRecoveryMark();
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(*m, 0);
  ASSERT_TRUE(store_->inbox().RaiseRecoveryMark(500, kT0).ok());
  ASSERT_TRUE(store_->inbox().RaiseRecoveryMark(300, kT0).ok());  // a slower node's round
  EXPECT_EQ(*store_->inbox().GetRecoveryMark(), 500);
  ASSERT_TRUE(store_->inbox().RaiseRecoveryMark(700, kT0).ok());
  // Another store instance on the same database sees the same mark.
  StorePtr other = GetParam().open_again(dir_);
  ASSERT_NE(other, nullptr);
  EXPECT_EQ(*other->inbox().GetRecoveryMark(), 700);
  EXPECT_FALSE(store_->inbox().RaiseRecoveryMark(-1, kT0).ok());
}

INSTANTIATE_TEST_SUITE_P(Backends, RecoveryContractTest,
                         ::testing::ValuesIn(testing::ContractBackends()), testing::BackendName);

}  // namespace
}  // namespace gatehouse
