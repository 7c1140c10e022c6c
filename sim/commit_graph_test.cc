// sim::CommitGraph: which commit contains which, from PR heads, merge commits and the default
// branch's history.
#include "sim/commit_graph.h"

#include <gtest/gtest.h>

namespace gatehouse::sim {
namespace {

TEST(CommitGraphTest, APrHeadHoldsTheTipItWasMadeOnAndTheHeadsBeforeIt) {
  CommitGraph g("d0");
  g.OpenHead(1, "h1");
  EXPECT_TRUE(g.Contains("h1", "d0"));
  EXPECT_FALSE(g.Contains("d0", "h1"));
  g.PushHead(1, "h1b", "h1");
  EXPECT_TRUE(g.Contains("h1b", "h1"));
  EXPECT_TRUE(g.Contains("h1b", "d0"));
  EXPECT_FALSE(g.Contains("h1", "h1b"));

  // The base moves on; a pushed head still holds only the old base, an updated one the new.
  g.Commit("d1");
  g.PushHead(1, "h1c", "h1b");
  EXPECT_FALSE(g.Contains("h1c", "d1"));
  g.UpdateHead(1, "h1u", "h1c");
  EXPECT_TRUE(g.Contains("h1u", "d1"));
  EXPECT_TRUE(g.Contains("h1u", "h1"));

  // A force-push back to h1, then a new commit on it: the abandoned heads are not in it.
  g.PushHead(1, "h1b", "h1");  // known already: not recorded again
  g.PushHead(1, "h1x", "h1");
  EXPECT_TRUE(g.Contains("h1x", "h1"));
  EXPECT_FALSE(g.Contains("h1x", "h1b"));
  EXPECT_FALSE(g.Knows("nope"));
  EXPECT_FALSE(g.Contains("nope", "nope")) << "an unknown commit contains nothing";
}

TEST(CommitGraphTest, AMergeCommitHoldsBothParentsAndALaterHeadSupersedesAnEarlierOne) {
  CommitGraph g("d0");
  g.OpenHead(1, "h1");
  g.OpenHead(2, "h2");
  CommitGraph::Merge one = g.Merged("d0", "h1");
  EXPECT_EQ(one.brought, std::vector<int>{1});
  g.AddMerge("m1", one.content);
  CommitGraph::Merge two = g.Merged("m1", "h2");
  EXPECT_EQ(two.brought, std::vector<int>{2});
  g.AddMerge("m2", two.content);
  for (const char* held : {"d0", "h1", "h2", "m1"}) EXPECT_TRUE(g.Contains("m2", held)) << held;
  EXPECT_FALSE(g.Contains("m1", "h2"));
  EXPECT_FALSE(g.Contains("h2", "m1"));
  EXPECT_TRUE(g.Merged("m2", "h1").brought.empty()) << "m2 holds h1 already";

  g.PushHead(1, "h1b", "h1");
  CommitGraph::Merge later = g.Merged("m2", "h1b");
  EXPECT_EQ(later.brought, std::vector<int>{1});
  ASSERT_EQ(later.content.pulls.size(), 2u) << "h1b replaces h1";
  EXPECT_EQ(later.content.pulls[1], (std::pair<int, std::string>{1, "h1b"}));

  // A merge of a newer default-branch commit moves the merge's base up.
  g.Commit("d1");
  g.AddMerge("m3", g.Merged("m2", "d1").content);
  EXPECT_TRUE(g.Contains("m3", "d1"));
  EXPECT_TRUE(g.Contains("m3", "m2"));
  EXPECT_FALSE(g.Contains("m2", "d1"));
}

TEST(CommitGraphTest, MovingTheTipLandsTheHeadsItHolds) {
  CommitGraph g("d0");
  g.OpenHead(1, "h1");
  g.OpenHead(2, "h2");
  g.AddMerge("m1", g.Merged("d0", "h1").content);
  EXPECT_TRUE(g.Contains("m1", g.tip())) << "a fast-forward";
  g.MoveTip("m1");
  EXPECT_EQ(g.tip(), "m1");
  g.Commit("d2");  // a later commit of the default branch holds what landed before it
  EXPECT_TRUE(g.Contains("d2", "h1"));
  EXPECT_TRUE(g.Contains("d2", "m1"));
  EXPECT_FALSE(g.Contains("d2", "h2"));
  // h2 was made on d0: it is behind the tip, not a fast-forward of it.
  EXPECT_FALSE(g.Contains("h2", "d2"));

  // A PR merged into the tip (PUT /merge) has landed as well.
  g.Commit("d3");
  g.Landed(2, "h2");
  EXPECT_TRUE(g.Contains("d3", "h2"));
  EXPECT_FALSE(g.Contains("d2", "h2"));

  // Back to an earlier commit (a forced update): what came after it is forgotten.
  g.MoveTip("d0");
  EXPECT_EQ(g.tip(), "d0");
  EXPECT_FALSE(g.Knows("d2"));
  EXPECT_FALSE(g.Contains("d0", "h1"));
  EXPECT_TRUE(g.Knows("m1")) << "a merge commit stays known";
}

}  // namespace
}  // namespace gatehouse::sim
