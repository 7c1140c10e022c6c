// What routing learns besides signals, as part of the Store contract: the repositories
// gatehouse covers (with their installation) and per-PR facts, applied in the same
// transaction as the delivery's routing decision.
#include <gtest/gtest.h>

#include "store/store.h"
#include "store/store_test_util.h"

namespace gatehouse {
namespace {

using std::chrono::seconds;
using testing::StoreBackend;
using testing::TempDir;

using testing::kT0;

class LearnedContractTest : public ::testing::TestWithParam<StoreBackend> {
 protected:
  void SetUp() override { store_ = GetParam().open_fresh(dir_); }

  // Accepts one delivery per decision and applies the decisions to them, in one call.
  Status Route(std::vector<RouteDecision> decisions, Time now = kT0) {
    std::vector<Delivery> ds;
    for (size_t i = 0; i < decisions.size(); ++i) {
      Delivery d;
      d.delivery_id = "d-" + std::to_string(next_++);
      d.event = "installation";
      d.body = "{}";
      d.body_sha256 = d.delivery_id;
      d.received_at = now;
      ds.push_back(std::move(d));
    }
    auto accepted = store_->inbox().AcceptDeliveries(ds, {}, now);
    if (!accepted.ok()) return accepted.status();
    // Each claim later than the last one's lease: everything open is claimable.
    claim_at_ += seconds(60);
    auto open =
        store_->inbox().ClaimDeliveries("test", 1000, Inbox::Open::kAny, seconds(30), claim_at_);
    if (!open.ok()) return open.status();
    // The newest open deliveries are the ones just accepted, in order.
    const size_t first = open->size() - decisions.size();
    for (size_t i = 0; i < decisions.size(); ++i) {
      decisions[i].seq = (*open)[first + i].seq;
      decisions[i].claim = (*open)[first + i].claim;
    }
    return store_->inbox().ApplyRouting(decisions, now);
  }
  static RouteDecision Learn(std::vector<RepoInstallation> repos,
                             std::vector<std::string> removed = {},
                             std::vector<PrFact> facts = {}) {
    RouteDecision d;
    d.state = InboxState::kRouted;
    d.reason = "learned";
    d.repos = std::move(repos);
    d.repos_removed = std::move(removed);
    d.facts = std::move(facts);
    return d;
  }
  std::optional<int64_t> InstallationOf(std::string_view repo) {
    auto r = store_->repos().GetRepository(repo);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_TRUE(r.ok() && r->has_value()) << repo << " is unknown";
    return r.ok() && r->has_value() ? (*r)->installation_id : std::nullopt;
  }
  bool Known(std::string_view repo) {
    auto r = store_->repos().GetRepository(repo);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() && r->has_value();
  }
  std::vector<PrFact> Facts(std::string_view subject) {
    auto f = store_->repos().GetPrFacts(subject);
    EXPECT_TRUE(f.ok()) << f.status().ToString();
    return f.ok() ? *f : std::vector<PrFact>{};
  }

  TempDir dir_;
  StorePtr store_;
  int next_ = 1;
  Time claim_at_ = kT0;
};

TEST_P(LearnedContractTest, RepositoriesAreUpsertedListedInOrderAndLookedUpCaseInsensitively) {
  ASSERT_TRUE(Route({Learn({{"acme/web", 7}, {"acme/app", 7}, {"solo/tool", std::nullopt}})}).ok());
  auto list = store_->repos().ListRepositories();
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->size(), 3u);
  EXPECT_EQ((*list)[0].repo, "acme/app");
  EXPECT_EQ((*list)[1].repo, "acme/web");
  EXPECT_EQ((*list)[2].repo, "solo/tool");
  EXPECT_EQ((*list)[0].installation_id, 7);
  EXPECT_EQ((*list)[2].installation_id, std::nullopt);
  EXPECT_EQ(InstallationOf("ACME/App"), 7);
  auto unknown = store_->repos().GetRepository("acme/nothing");
  ASSERT_TRUE(unknown.ok());
  EXPECT_FALSE(unknown->has_value());
}

TEST_P(LearnedContractTest, AnInstallationChangesButIsNeverForgottenByAPayloadWithoutOne) {
  ASSERT_TRUE(Route({Learn({{"acme/app", 7}})}).ok());
  ASSERT_TRUE(Route({Learn({{"acme/app", std::nullopt}})}).ok());
  EXPECT_EQ(InstallationOf("acme/app"), 7) << "a payload without installation knows nothing";
  ASSERT_TRUE(Route({Learn({{"acme/app", 9}})}).ok());
  EXPECT_EQ(InstallationOf("acme/app"), 9) << "the repository moved to another installation";
  // Unknown first, known later.
  ASSERT_TRUE(Route({Learn({{"solo/tool", std::nullopt}})}).ok());
  EXPECT_EQ(InstallationOf("solo/tool"), std::nullopt);
  ASSERT_TRUE(Route({Learn({{"solo/tool", 3}})}).ok());
  EXPECT_EQ(InstallationOf("solo/tool"), 3);
}

TEST_P(LearnedContractTest, RemovedRepositoriesAreForgottenAndMayComeBack) {
  ASSERT_TRUE(Route({Learn({{"acme/app", 7}, {"acme/web", 7}})}).ok());
  ASSERT_TRUE(Route({Learn({}, {"acme/app", "acme/never-seen"})}).ok());
  EXPECT_FALSE(Known("acme/app"));
  EXPECT_TRUE(Known("acme/web"));
  auto list = store_->repos().ListRepositories();
  ASSERT_TRUE(list.ok());
  ASSERT_EQ(list->size(), 1u);
  // Added and removed in one decision: the removal is applied after the upserts.
  ASSERT_TRUE(Route({Learn({{"acme/app", 8}}, {"acme/web"})}).ok());
  EXPECT_EQ(InstallationOf("acme/app"), 8);
  EXPECT_FALSE(Known("acme/web"));
}

TEST_P(LearnedContractTest, FactsKeepTheLaterOneByTime) {
  const std::string pr = "acme/app#1";
  ASSERT_TRUE(
      Route({Learn({}, {}, {{pr, "reopened", "bob COLLABORATOR", kT0 + seconds(20)}})}).ok());
  // Routed later but learned earlier (an older delivery, retried): does not win.
  ASSERT_TRUE(
      Route({Learn({}, {}, {{pr, "reopened", "alice CONTRIBUTOR", kT0 + seconds(10)}})}).ok());
  std::vector<PrFact> facts = Facts(pr);
  ASSERT_EQ(facts.size(), 1u);
  EXPECT_EQ(facts[0].value, "bob COLLABORATOR");
  EXPECT_EQ(facts[0].at, kT0 + seconds(20));
  ASSERT_TRUE(Route({Learn({}, {},
                           {{pr, "reopened", "carol OWNER", kT0 + seconds(30)},
                            {pr, "closed_by", "dave merged", kT0 + seconds(25)},
                            {"acme/app#2", "closed_by", "erin", kT0}})})
                  .ok());
  facts = Facts(pr);
  ASSERT_EQ(facts.size(), 2u);
  EXPECT_EQ(facts[0].name, "closed_by");  // ordered by name
  EXPECT_EQ(facts[0].value, "dave merged");
  EXPECT_EQ(facts[0].subject, pr);
  EXPECT_EQ(facts[1].name, "reopened");
  EXPECT_EQ(facts[1].value, "carol OWNER");
  EXPECT_EQ(Facts("acme/app#2").size(), 1u);
  EXPECT_TRUE(Facts("acme/app#3").empty());
}

// Within one batch, decisions apply in order: the later one of equal time wins.
TEST_P(LearnedContractTest, FactsOfEqualTimeLastWriteWins) {
  ASSERT_TRUE(Route({Learn({}, {}, {{"acme/app#1", "closed_by", "a", kT0}}),
                     Learn({}, {}, {{"acme/app#1", "closed_by", "b", kT0}})})
                  .ok());
  std::vector<PrFact> facts = Facts("acme/app#1");
  ASSERT_EQ(facts.size(), 1u);
  EXPECT_EQ(facts[0].value, "b");
}

TEST_P(LearnedContractTest, WhatADecisionLearnedCommitsWithItOrNotAtAll) {
  RouteDecision good = Learn({{"acme/app", 7}}, {}, {{"acme/app#1", "closed_by", "bob", kT0}});
  good.signals.push_back(Signal{"acme/app#1", "closed", {}});
  RouteDecision bad = Learn({{"acme/web", 7}});
  bad.signals.push_back(Signal{"", "closed", {}});  // invalid: fails the whole batch
  EXPECT_EQ(Route({good, bad}).code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(Known("acme/app"));
  EXPECT_FALSE(Known("acme/web"));
  EXPECT_TRUE(Facts("acme/app#1").empty());
  auto item = store_->work().GetWorkItem("acme/app#1");
  ASSERT_TRUE(item.ok());
  EXPECT_FALSE(item->has_value());

  RouteDecision bad_fact = Learn({{"acme/web", 7}}, {}, {{"acme/app#1", "", "x", kT0}});
  EXPECT_EQ(Route({good, bad_fact}).code(), StatusCode::kInvalidArgument);
  EXPECT_FALSE(Known("acme/app"));

  // The good decision alone: signal, repository and fact all land.
  ASSERT_TRUE(Route({good}).ok());
  EXPECT_EQ(InstallationOf("acme/app"), 7);
  EXPECT_EQ(Facts("acme/app#1").size(), 1u);
  item = store_->work().GetWorkItem("acme/app#1");
  ASSERT_TRUE(item.ok());
  EXPECT_TRUE(item->has_value());
}

// One batch of decisions leaves repositories, facts and heads as applying the decisions one
// by one, in order, would: a backend may fold the batch into a few statements (PostgreSQL
// does), and this is the rule the fold must keep.
TEST_P(LearnedContractTest, OneBatchLearnsAsTheDecisionsAppliedOneByOne) {
  ASSERT_TRUE(Route({Learn({{"acme/kept", 3}, {"acme/gone", 4}})}).ok());
  RouteDecision a = Learn({{"acme/app", 7}, {"acme/kept", std::nullopt}}, {"acme/gone"},
                          {{"acme/app#1", "closed_by", "late", kT0 + seconds(5)}});
  a.heads = {{"acme/app#1", "sha1"}, {"acme/app#2", "sha1"}};
  RouteDecision b = Learn({{"acme/app", std::nullopt}, {"acme/gone", std::nullopt}}, {"acme/web"},
                          {{"acme/app#1", "closed_by", "early", kT0 + seconds(1)},
                           {"acme/app#2", "closed_by", "first", kT0}});
  b.heads = {{"acme/app#1", "sha2"}, {"acme/app#2", ""}};
  RouteDecision c = Learn({{"acme/web", 9}}, {"acme/app"},
                          {{"acme/app#2", "closed_by", "second", kT0}});
  c.heads = {{"acme/app#3", "sha1"}};
  RouteDecision d = Learn({{"acme/app", std::nullopt}});
  ASSERT_TRUE(Route({a, b, c, d}).ok());
  // Removed by c, then known again by d without an installation: none.
  EXPECT_TRUE(Known("acme/app"));
  EXPECT_EQ(InstallationOf("acme/app"), std::nullopt);
  // A payload without an installation keeps the known one.
  EXPECT_EQ(InstallationOf("acme/kept"), 3);
  // Removed by a, known again by b without an installation.
  EXPECT_EQ(InstallationOf("acme/gone"), std::nullopt);
  // Removed by b (unknown then), then learned by c.
  EXPECT_EQ(InstallationOf("acme/web"), 9);
  // Later by time wins; of equal times, the one applied last.
  std::vector<PrFact> one = Facts("acme/app#1");
  ASSERT_EQ(one.size(), 1u);
  EXPECT_EQ(one[0].value, "late");
  std::vector<PrFact> two = Facts("acme/app#2");
  ASSERT_EQ(two.size(), 1u);
  EXPECT_EQ(two[0].value, "second");
  auto sha1 = store_->repos().PullRequestsWithHead("acme/app", "sha1");
  ASSERT_TRUE(sha1.ok());
  EXPECT_EQ(*sha1, std::vector<std::string>{"acme/app#3"});
  auto sha2 = store_->repos().PullRequestsWithHead("acme/app", "sha2");
  ASSERT_TRUE(sha2.ok());
  EXPECT_EQ(*sha2, std::vector<std::string>{"acme/app#1"});
}

// A decision for a delivery another router already decided is skipped whole, what it learned
// included: the first decision's view stands.
TEST_P(LearnedContractTest, ADecisionForAClosedDeliveryLearnsNothing) {
  ASSERT_TRUE(Route({Learn({{"acme/app", 7}}, {}, {{"acme/app#1", "closed_by", "a", kT0}})}).ok());
  auto done = store_->inbox().GetDelivery("d-1");
  ASSERT_TRUE(done.ok() && done->has_value());
  RouteDecision late = Learn({{"acme/app", 9}, {"acme/web", 9}}, {},
                             {{"acme/app#1", "closed_by", "b", kT0 + seconds(1)}});
  late.seq = (*done)->seq;
  ASSERT_TRUE(store_->inbox().ApplyRouting({&late, 1}, kT0).ok());
  EXPECT_EQ(InstallationOf("acme/app"), 7);
  EXPECT_FALSE(Known("acme/web"));
  std::vector<PrFact> facts = Facts("acme/app#1");
  ASSERT_EQ(facts.size(), 1u);
  EXPECT_EQ(facts[0].value, "a");
}

TEST_P(LearnedContractTest, RepositoriesAndFactsSurviveReopen) {
  ASSERT_TRUE(Route({Learn({{"acme/app", 7}}, {}, {{"acme/app#1", "closed_by", "a", kT0}})}).ok());
  store_.reset();
  store_ = GetParam().open_again(dir_);
  EXPECT_EQ(InstallationOf("acme/app"), 7);
  EXPECT_EQ(Facts("acme/app#1").size(), 1u);
}

TEST_P(LearnedContractTest, RecordLearnedFollowsTheRulesOfRouting) {
  const std::vector<RepoInstallation> first = {{"Acme/App", 7}};
  const std::vector<PrFact> seen = {{"acme/app#1", "head_seen", "aaa", kT0}};
  ASSERT_TRUE(store_->repos().RecordLearned(first, seen, kT0).ok());
  EXPECT_EQ(InstallationOf("acme/app"), 7);
  const std::vector<RepoInstallation> unknown = {{"acme/app", std::nullopt}};
  const std::vector<PrFact> older = {{"acme/app#1", "head_seen", "old", kT0 - Duration(1)}};
  ASSERT_TRUE(store_->repos().RecordLearned(unknown, older, kT0).ok());
  EXPECT_EQ(InstallationOf("acme/app"), 7) << "a null installation never overwrites";
  auto facts = Facts("acme/app#1");
  ASSERT_EQ(facts.size(), 1u);
  EXPECT_EQ(facts[0].value, "aaa") << "an older fact does not replace a newer one";
  const std::vector<PrFact> bad = {{"", "head_seen", "x", kT0}};
  EXPECT_FALSE(store_->repos().RecordLearned({}, bad, kT0).ok());
  EXPECT_TRUE(store_->repos().RecordLearned({}, {}, kT0).ok());
}

INSTANTIATE_TEST_SUITE_P(Backends, LearnedContractTest,
                         ::testing::ValuesIn(testing::ContractBackends()), testing::BackendName);

}  // namespace
}  // namespace gatehouse
