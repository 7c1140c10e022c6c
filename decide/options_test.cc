#include "decide/options.h"

#include <gtest/gtest.h>

namespace gatehouse::decide {
namespace {

TEST(UnderServerSwitchesTest, TheServerSetsTheLoginAndCanOnlyTurnDryRunOn) {
  PlannerOptions repo;
  repo.autonomy = Autonomy::kAuto;
  repo.close_grace = std::chrono::hours(1);
  repo.app_login = "from-the-file";

  PlannerOptions o = UnderServerSwitches(repo, "gatehouse-app[bot]", false);
  EXPECT_EQ(o.app_login, "gatehouse-app[bot]");
  EXPECT_FALSE(o.dry_run);
  EXPECT_EQ(o.autonomy, Autonomy::kAuto) << "everything else is the repository's";
  EXPECT_EQ(o.close_grace, std::chrono::hours(1));

  EXPECT_TRUE(UnderServerSwitches(repo, "x", true).dry_run) << "the server's switch";
  repo.dry_run = true;
  EXPECT_TRUE(UnderServerSwitches(repo, "x", false).dry_run) << "the repository's own";
}

}  // namespace
}  // namespace gatehouse::decide
