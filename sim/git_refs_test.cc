// The model's branches (sim/model.h, "branches"): refs, merges into a branch, and the default
// branch moved to a tested commit — its PRs merged, the others behind, branch protection
// judged on exactly that commit — with their effects and webhooks.
#include <gtest/gtest.h>

#include <memory>

#include "sim/invariants.h"
#include "sim/model.h"

namespace gatehouse::sim {
namespace {

constexpr const char* kApp = "installation:7";
constexpr const char* kRepo = "acme/mono";
constexpr const char* kBranch = "gatehouse/queue/main";

class GitRefsTest : public ::testing::Test {
 protected:
  GitRefsTest()
      : clock_(std::make_shared<SimClock>(FromMicros(1'800'000'000'000'000))),
        model_(clock_, ModelOptions{.mergeable_delay = Duration::zero(),
                                    .token_ttl = std::chrono::minutes(60)}) {
    model_.SetListener([this](const Notification& n) {
      if (n.event == "pull_request" && n.action == "closed" && n.pr != nullptr) {
        closed_.push_back(std::to_string(n.pr->number) + (n.pr->merged ? " merged by " : " by ") +
                          n.sender);
      }
    });
  }

  // A repository with `pulls` open PRs; protection {strict, required ci} unless `protection`.
  void MakeRepo(bool enforce, int pulls = 3, std::optional<BranchProtection> protection = {}) {
    ASSERT_TRUE(
        model_
            .CreateRepo("acme", "mono", 7, {},
                        {.protection = protection.value_or(BranchProtection{
                             .strict = true, .required_checks = {"ci"}, .enforce = enforce})})
            .ok());
    for (int i = 0; i < pulls; ++i) ASSERT_TRUE(model_.CreatePull(kRepo, NewPull{}).ok());
  }
  std::string Head(int n) { return model_.GetPull(kRepo, n)->head_sha; }
  std::string Main() { return *model_.BranchSha(kRepo, "main"); }
  // The integration branch made afresh at the default branch's tip, with PRs `prs` merged in;
  // its tip.
  std::string Build(std::initializer_list<int> prs) {
    if (model_.BranchSha(kRepo, kBranch)) {
      EXPECT_EQ(model_.UpdateRef(kApp, kRepo, kBranch, Main(), /*force=*/true).status, 200);
    } else {
      EXPECT_EQ(model_.CreateRef(kApp, kRepo, std::string("refs/heads/") + kBranch, Main()).status,
                201);
    }
    std::string tip = Main();
    for (int n : prs) {
      Model::MergeCommitMade made;
      EXPECT_EQ(model_.MergeIntoBranch(kApp, kRepo, kBranch, Head(n), &made).status, 201);
      EXPECT_EQ(made.parents, (std::vector<std::string>{tip, Head(n)}));
      tip = made.sha;
    }
    return tip;
  }
  void Check(const std::string& sha, const std::string& conclusion) {
    CheckRun run;
    run.name = "ci";
    run.head_sha = sha;
    run.conclusion = conclusion;
    ASSERT_TRUE(model_.UpsertCheckRun("ci-bot", kRepo, run, nullptr).ok());
  }
  // The effects of `kind`, as "status detail".
  std::vector<std::string> Logged(const std::string& kind) {
    std::vector<std::string> out;
    for (const Effect& e : model_.Effects()) {
      if (e.kind == kind) out.push_back(std::to_string(e.status) + " " + e.detail);
    }
    return out;
  }

  std::shared_ptr<SimClock> clock_;
  Model model_;
  std::vector<std::string> closed_;
};

TEST_F(GitRefsTest, RefsAreCreatedMovedAndDeletedWithGitHubsRefusals) {
  MakeRepo(/*enforce=*/true);
  const std::string main = Main();
  const std::string ref = std::string("refs/heads/") + kBranch;
  EXPECT_FALSE(model_.BranchSha(kRepo, kBranch).has_value());
  EXPECT_EQ(model_.CreateRef(kApp, kRepo, ref, main).status, 201);
  EXPECT_EQ(*model_.BranchSha(kRepo, kBranch), main);
  EXPECT_EQ(model_.CreateRef(kApp, kRepo, ref, main).message, "Reference already exists");
  EXPECT_EQ(model_.CreateRef(kApp, kRepo, "refs/heads/main", main).message,
            "Reference already exists");
  EXPECT_EQ(model_.CreateRef(kApp, kRepo, "refs/heads/x", std::string(40, '0')).message,
            "Object does not exist");
  for (const char* bad : {"refs/tags/v1", "heads/x", "refs/heads/", "refs/heads/a..b",
                          "refs/heads/a//b", "refs/heads/a b"}) {
    EXPECT_EQ(model_.CreateRef(kApp, kRepo, bad, main).status, 422) << bad;
  }
  // Any commit the repository knows: a PR's head too.
  EXPECT_EQ(model_.CreateRef(kApp, kRepo, "refs/heads/one", Head(1)).status, 201);

  // A PR's head contains the base commit the branch is at: a fast-forward. #2's head does not
  // contain #1's: not one, unless forced.
  EXPECT_EQ(model_.UpdateRef(kApp, kRepo, kBranch, Head(1), false).status, 200);
  EXPECT_EQ(model_.UpdateRef(kApp, kRepo, kBranch, Head(2), false).message,
            "Update is not a fast forward");
  EXPECT_EQ(model_.UpdateRef(kApp, kRepo, kBranch, main, true).status, 200);
  EXPECT_EQ(*model_.BranchSha(kRepo, kBranch), main);
  EXPECT_EQ(model_.UpdateRef(kApp, kRepo, "nope", main, false).message, "Reference does not exist");
  EXPECT_EQ(model_.UpdateRef(kApp, kRepo, kBranch, "feedface", true).message,
            "Object does not exist");

  EXPECT_EQ(model_.DeleteRef(kApp, kRepo, kBranch).status, 204);
  EXPECT_EQ(model_.DeleteRef(kApp, kRepo, kBranch).message, "Reference does not exist");
  EXPECT_EQ(model_.DeleteRef(kApp, kRepo, "main").status, 422);
  EXPECT_EQ(Main(), main) << "nothing moved the default branch";
  EXPECT_EQ(model_.Branches(kRepo), (std::map<std::string, std::string>{{"one", Head(1)}}));

  // Every call is an effect, refused or not, with the branch as its detail.
  EXPECT_EQ(Logged("create_ref").size(), 11u);
  EXPECT_EQ(Logged("update_ref"),
            (std::vector<std::string>{"200 " + std::string(kBranch), "422 " + std::string(kBranch),
                                      "200 " + std::string(kBranch), "422 nope",
                                      "422 " + std::string(kBranch)}));
  EXPECT_EQ(Logged("delete_ref"),
            (std::vector<std::string>{"204 " + std::string(kBranch), "422 " + std::string(kBranch),
                                      "422 main"}));
  for (const Effect& e : model_.Effects()) {
    if (e.kind.ends_with("_ref")) {
      EXPECT_EQ(e.who, kApp);
    }
  }
}

TEST_F(GitRefsTest, MergesIntoABranchMakeCommitsThatHoldThePrHeads) {
  MakeRepo(/*enforce=*/true, /*pulls=*/4);
  const std::string tip = Build({1});
  const std::string detail = std::string(kBranch) + " <- " + Head(1);
  EXPECT_EQ(*model_.BranchSha(kRepo, kBranch), tip);
  EXPECT_EQ(model_.MergeIntoBranch(kApp, kRepo, kBranch, Head(1), nullptr).status, 204)
      << "already merged";
  EXPECT_EQ(model_.MergeIntoBranch(kApp, kRepo, kBranch, "main", nullptr).status, 204)
      << "the branch is built on main";
  EXPECT_EQ(model_.MergeIntoBranch(kApp, kRepo, "nope", Head(2), nullptr).message,
            "Base does not exist");
  EXPECT_EQ(model_.MergeIntoBranch(kApp, kRepo, kBranch, "feedface", nullptr).message,
            "Head does not exist");
  EXPECT_EQ(model_.MergeIntoBranch(kApp, kRepo, kBranch, "", nullptr).status, 422);
  ASSERT_EQ(model_.MoveBase(kRepo, 3, /*conflicted=*/true).status, 200);
  EXPECT_EQ(model_.MergeIntoBranch(kApp, kRepo, kBranch, Head(3), nullptr).message,
            "Merge conflict");
  EXPECT_EQ(*model_.BranchSha(kRepo, kBranch), tip) << "nothing made by a refusal";

  // A branch's name is a head too: merging another branch brings in its PRs.
  ASSERT_EQ(model_.CreateRef(kApp, kRepo, "refs/heads/side", Head(2)).status, 201);
  Model::MergeCommitMade made;
  ASSERT_EQ(model_.MergeIntoBranch(kApp, kRepo, kBranch, "side", &made).status, 201);
  EXPECT_EQ(made.parents, (std::vector<std::string>{tip, Head(2)}));
  EXPECT_EQ(model_.MergeIntoBranch(kApp, kRepo, kBranch, Head(2), nullptr).status, 204);

  // Effects: the new commit as `sha` when one was made.
  std::vector<Effect> merges;
  for (const Effect& e : model_.Effects()) {
    if (e.kind == "merge_branch") merges.push_back(e);
  }
  ASSERT_EQ(merges.size(), 9u);
  EXPECT_EQ(merges[0].status, 201);
  EXPECT_EQ(merges[0].sha, tip);
  EXPECT_EQ(merges[0].detail, detail);
  EXPECT_EQ(merges[1].sha, "") << "204: nothing made";
  EXPECT_EQ(merges[7].sha, made.sha);
  EXPECT_EQ(merges[7].detail, std::string(kBranch) + " <- side");
}

TEST_F(GitRefsTest, FastForwardingTheBaseMergesExactlyThePrsItHoldsAndLeavesTheOthersBehind) {
  MakeRepo(/*enforce=*/true, /*pulls=*/4);
  const std::string old_head = Head(3);
  const std::string tip = Build({1, 2, 3});
  ASSERT_TRUE(model_.Push("alice", kRepo, 3, "").ok());  // #3 moved on after the build
  Check(tip, "success");
  ASSERT_EQ(model_.UpdateRef(kApp, kRepo, "main", tip, false).status, 200);
  EXPECT_EQ(Main(), tip);
  EXPECT_EQ(model_.GetRepo(kRepo)->default_sha, tip);
  for (int n : {1, 2}) {
    const PullRequest pr = *model_.GetPull(kRepo, n);
    EXPECT_TRUE(pr.merged) << n;
    EXPECT_EQ(pr.state, "closed");
    EXPECT_EQ(pr.merge_commit_sha, tip);
    EXPECT_EQ(pr.merged_by, kApp);
    EXPECT_TRUE(pr.merged_at.has_value());
  }
  EXPECT_EQ(closed_,
            (std::vector<std::string>{"1 merged by installation:7", "2 merged by installation:7"}));
  for (int n : {3, 4}) {
    const PullRequest pr = *model_.GetPull(kRepo, n);
    EXPECT_EQ(pr.state, "open") << n;
    EXPECT_EQ(pr.mergeable_state, "behind") << n;
    EXPECT_EQ(pr.base_sha, tip) << n;
  }
  // One `merge` effect per PR merged, bound to its head, after the update's own.
  std::vector<std::string> merges;
  for (const Effect& e : model_.Effects()) {
    if (e.kind == "merge") {
      merges.push_back(std::to_string(e.number) + " " + std::to_string(e.status) + " " +
                       (e.sha == e.head ? "at head " : "stale ") + e.detail);
    }
  }
  EXPECT_EQ(merges, (std::vector<std::string>{"1 200 at head fast-forward " + tip,
                                              "2 200 at head fast-forward " + tip}));
  EXPECT_EQ(model_.Effects().end()[-3].kind, "update_ref");
  EXPECT_TRUE(UntestedMerges(model_.Effects()).empty());
  EXPECT_TRUE(StaleEffects(model_.Effects()).empty());

  // #3's old head landed with the batch: a branch at main already contains it.
  EXPECT_EQ(model_.MergeIntoBranch(kApp, kRepo, kBranch, old_head, nullptr).status, 204);
  // Landing it again changes nothing, merges nothing, and is no duplicate.
  ASSERT_EQ(model_.UpdateRef(kApp, kRepo, "main", tip, false).status, 200);
  EXPECT_EQ(closed_.size(), 2u);
  EXPECT_TRUE(DuplicateEffects(model_.Effects()).empty());
}

TEST_F(GitRefsTest, ABranchBuiltOnAnOldBaseIsNotAFastForward) {
  MakeRepo(/*enforce=*/true);
  const std::string tip = Build({1});
  Check(tip, "success");
  Check(Head(2), "success");
  ASSERT_EQ(model_.Merge(kApp, kRepo, 2, Head(2), "merge").status, 200);  // the base moved
  const Outcome o = model_.UpdateRef(kApp, kRepo, "main", tip, false);
  EXPECT_EQ(o.status, 422);
  EXPECT_EQ(o.message, "Update is not a fast forward");
  EXPECT_FALSE(model_.GetPull(kRepo, 1)->merged);

  // Built again on the new base, it is one.
  const std::string again = Build({1});
  Check(again, "success");
  EXPECT_EQ(model_.UpdateRef(kApp, kRepo, "main", again, false).status, 200);
  EXPECT_TRUE(model_.GetPull(kRepo, 1)->merged);
}

TEST_F(GitRefsTest, EnforcedProtectionRefusesAnUntestedOrForcedUpdate) {
  MakeRepo(/*enforce=*/true);
  const std::string tip = Build({1, 2});
  const Outcome missing = model_.UpdateRef(kApp, kRepo, "main", tip, false);
  EXPECT_EQ(missing.status, 422);
  EXPECT_EQ(missing.message,
            "Protected branch update failed for refs/heads/main. Required status check \"ci\" is "
            "expected.");
  Check(tip, "failure");
  EXPECT_EQ(model_.UpdateRef(kApp, kRepo, "main", tip, false).message,
            "Protected branch update failed for refs/heads/main. Required status check \"ci\" is "
            "failing.");
  Check(tip, "success");  // a re-run that passed
  EXPECT_EQ(model_.UpdateRef(kApp, kRepo, "main", tip, true).message,
            "Protected branch update failed for refs/heads/main. Cannot force-push to this "
            "branch.");
  // A green check on a PR's head says nothing of the batch.
  Check(Head(1), "success");
  EXPECT_FALSE(model_.GetPull(kRepo, 1)->merged);
  EXPECT_EQ(model_.UpdateRef(kApp, kRepo, "main", tip, false).status, 200);
  EXPECT_TRUE(model_.GetPull(kRepo, 1)->merged);
  EXPECT_TRUE(UntestedMerges(model_.Effects()).empty());
  EXPECT_TRUE(DuplicateEffects(model_.Effects()).empty()) << "retries after a 422 are not";
}

TEST_F(GitRefsTest, NotEnforcedAnUntestedUpdateLandsAndTheInvariantCountsIt) {
  MakeRepo(/*enforce=*/false);
  const std::string tip = Build({1, 2});
  ASSERT_EQ(model_.UpdateRef(kApp, kRepo, "main", tip, false).status, 200);
  EXPECT_TRUE(model_.GetPull(kRepo, 1)->merged);
  EXPECT_TRUE(model_.GetPull(kRepo, 2)->merged);
  // The update and each PR it merged.
  const std::vector<std::string> untested = UntestedMerges(model_.Effects());
  ASSERT_EQ(untested.size(), 3u);
  EXPECT_NE(untested[0].find(" update_ref acme/mono sha=" + tip), std::string::npos) << untested[0];
  EXPECT_NE(untested[0].find("untested: Required status check \"ci\" is expected."),
            std::string::npos)
      << untested[0];
  EXPECT_NE(untested[1].find(" merge acme/mono#1 "), std::string::npos) << untested[1];

  // A forced update to a commit that does not contain the tip lands too, untested.
  ASSERT_EQ(model_.UpdateRef(kApp, kRepo, "main", Head(3), true).status, 200);
  EXPECT_TRUE(model_.GetPull(kRepo, 3)->merged);
  EXPECT_EQ(Main(), Head(3));
  EXPECT_EQ(UntestedMerges(model_.Effects()).size(), 5u);
  EXPECT_EQ(model_.Effects().back().untested, "Cannot force-push to this branch.");
}

TEST_F(GitRefsTest, MergingIntoTheDefaultBranchIsJudgedAsAnUpdateOfIt) {
  MakeRepo(/*enforce=*/true);
  // Required checks: a commit made now has none, so it is refused and nothing is made.
  EXPECT_EQ(model_.MergeIntoBranch(kApp, kRepo, "main", Head(1), nullptr).message,
            "Protected branch update failed for refs/heads/main. Required status check \"ci\" is "
            "expected.");
  EXPECT_FALSE(model_.GetPull(kRepo, 1)->merged);

  ASSERT_TRUE(model_.CreateRepo("acme", "open", 7, {}).ok());  // no protection
  ASSERT_TRUE(model_.CreatePull("acme/open", NewPull{}).ok());
  ASSERT_TRUE(model_.CreatePull("acme/open", NewPull{}).ok());
  Model::MergeCommitMade made;
  const std::string head = model_.GetPull("acme/open", 1)->head_sha;
  ASSERT_EQ(model_.MergeIntoBranch(kApp, "acme/open", "main", head, &made).status, 201);
  EXPECT_EQ(model_.GetRepo("acme/open")->default_sha, made.sha);
  const PullRequest merged = *model_.GetPull("acme/open", 1);
  EXPECT_TRUE(merged.merged);
  EXPECT_EQ(merged.merge_commit_sha, made.sha);
  EXPECT_EQ(model_.GetPull("acme/open", 2)->mergeable_state, "behind");
  EXPECT_EQ(model_.Effects().back().detail, "merge " + made.sha);
  EXPECT_TRUE(UntestedMerges(model_.Effects()).empty());
}

TEST_F(GitRefsTest, ChecksOnABranchCommitNameTheBranch) {
  MakeRepo(/*enforce=*/true);
  std::vector<std::string> branches;
  model_.SetListener([&](const Notification& n) {
    if (n.event == "check_run") branches.push_back(n.head_branch);
  });
  const std::string tip = Build({1});
  Check(tip, "success");
  Check(Head(2), "success");  // a PR's head: the PR carries its branch
  EXPECT_EQ(branches, (std::vector<std::string>{kBranch, ""}));
  EXPECT_EQ(model_.ResolveRef(kRepo, kBranch), tip) << "GET /commits/{branch}/check-runs";
}

}  // namespace
}  // namespace gatehouse::sim
