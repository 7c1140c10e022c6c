// The inbox router end to end against a real store: what a delivery's payload teaches
// (repositories with their installation, PR facts stamped with the delivery's received_at)
// lands in the same transaction as its routing decision.
#include "engine/inbox_router.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "store/store_test_util.h"

namespace gatehouse {
namespace {

using std::chrono::seconds;

const Time kT0 = FromMicros(1'800'000'000'000'000);

std::string ReadFixture(const std::string& relative) {
  std::ifstream in(std::string(GATEHOUSE_FIXTURES) + "/" + relative, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_TRUE(in) << relative;
  return text.str();
}

class InboxRouterTest : public ::testing::Test {
 protected:
  void SetUp() override { store_ = testing::SqliteTestBackend().open_fresh(dir_); }

  void Accept(const std::string& id, const std::string& event, const std::string& fixture,
              Time received_at) {
    Delivery d;
    d.delivery_id = id;
    d.event = event;
    d.body = ReadFixture(fixture);
    d.body_sha256 = id;
    d.received_at = received_at;
    auto r = store_->inbox().AcceptDeliveries({&d, 1}, {}, received_at);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  size_t RouteAll() {
    InboxRouter router(*store_, clock_, RouterOptions{});
    auto n = router.RouteOnce(true);
    EXPECT_TRUE(n.ok()) << n.status().ToString();
    return n.ok() ? *n : 0;
  }
  std::optional<RepoInstallation> Repo(std::string_view name) {
    auto r = store_->repos().GetRepository(name);
    EXPECT_TRUE(r.ok());
    return r.ok() ? *r : std::nullopt;
  }

  testing::TempDir dir_;
  StorePtr store_;
  std::shared_ptr<SimClock> clock_ = std::make_shared<SimClock>(kT0 + seconds(100));
};

TEST_F(InboxRouterTest, RepositoriesAndFactsArriveWithTheRouting) {
  Accept("d-1", "installation", "installation/created.payload.json", kT0);
  Accept("d-2", "pull_request", "pull_request/reopened.payload.json", kT0 + seconds(1));
  Accept("d-3", "pull_request", "pull_request/closed.payload.json", kT0 + seconds(2));
  Accept("d-4", "push", "push/payload.json", kT0 + seconds(3));  // ignored, still teaches
  EXPECT_EQ(RouteAll(), 4u);

  auto created = Repo("codertocat/hello-world");
  ASSERT_TRUE(created.has_value());
  EXPECT_EQ(created->installation_id, 1) << "the later pull_request payloads name installation 1";
  auto facts = store_->repos().GetPrFacts("codertocat/hello-world#2");
  ASSERT_TRUE(facts.ok());
  ASSERT_EQ(facts->size(), 2u);
  EXPECT_EQ((*facts)[0].name, "closed_by");
  EXPECT_EQ((*facts)[0].value, "Codertocat");
  EXPECT_EQ((*facts)[0].at, kT0 + seconds(2)) << "facts carry the delivery's received_at";
  EXPECT_EQ((*facts)[1].name, "reopened");
  EXPECT_EQ((*facts)[1].value, "Codertocat OWNER");
  EXPECT_EQ((*facts)[1].at, kT0 + seconds(1));
  auto push = store_->inbox().GetDelivery("d-4");
  ASSERT_TRUE(push.ok() && push->has_value());
  EXPECT_EQ((*push)->state, InboxState::kIgnored);

  // Removed from the installation: forgotten.
  Accept("d-5", "installation_repositories", "installation_repositories/added.payload.json",
         kT0 + seconds(4));
  EXPECT_EQ(RouteAll(), 1u);
  ASSERT_TRUE(Repo("codertocat/space").has_value());
  EXPECT_EQ(Repo("codertocat/space")->installation_id, 957387);
  Accept("d-6", "installation", "installation/deleted.payload.json", kT0 + seconds(5));
  EXPECT_EQ(RouteAll(), 1u);
  auto all = store_->repos().ListRepositories();
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 2u) << "octocat/hello-world was never known; nothing else goes";
  EXPECT_EQ((*all)[0].repo, "codertocat/hello-world");
  EXPECT_EQ((*all)[1].repo, "codertocat/space");
}

}  // namespace
}  // namespace gatehouse
