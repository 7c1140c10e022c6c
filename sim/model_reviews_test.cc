// Reviews in the model: dismissals (by id, by reviewer, by branch protection when a push makes
// an approval stale) and force-pushes, including back to an earlier head.
#include <gtest/gtest.h>

#include <memory>

#include "sim/app_identity.h"
#include "sim/model.h"

namespace gatehouse::sim {
namespace {

constexpr char kReviewsApp[] = "installation:7";

// What a webhook would say, copied while the notification's pointers are valid.
struct Heard {
  std::string what;  // event.action
  std::string sender;
  std::string before;
  std::string head;
  std::string review_state;
};

class ModelReviewsTest : public ::testing::Test {
 protected:
  ModelReviewsTest()
      : clock_(std::make_shared<SimClock>(FromMicros(1'800'000'000'000'000))),
        model_(clock_, ModelOptions{.mergeable_delay = std::chrono::seconds(5),
                                    .token_ttl = std::chrono::minutes(60)}) {
    EXPECT_TRUE(model_.CreateRepo("acme", "app", 7, {}).ok());
    EXPECT_TRUE(
        model_.CreateRepo("acme", "strict", 7, {}, {.dismiss_stale_reviews = true, .members = {}})
            .ok());
    model_.SetListener([this](const Notification& n) {
      heard_.push_back({n.event + "." + n.action, n.sender, n.before, n.pr ? n.pr->head_sha : "",
                        n.review ? n.review->state : ""});
    });
  }

  PullRequest Open(const std::string& repo) {
    NewPull np;
    np.author = "alice";
    auto pr = model_.CreatePull(repo, np);
    EXPECT_TRUE(pr.ok());
    return *pr;
  }

  Review Submit(const std::string& repo, const std::string& who, const std::string& event,
                const std::string& sha) {
    Review r;
    EXPECT_TRUE(
        model_.SubmitReview(who, repo, 1, event, sha, event == "APPROVE" ? "" : "why", &r).ok());
    return r;
  }

  std::vector<std::string> States(const std::string& repo) {
    std::vector<std::string> out;
    const PullRequest pr = *model_.GetPull(repo, 1);
    for (const Review& r : pr.reviews) out.push_back(r.state);
    return out;
  }

  std::vector<Effect> EffectsOf(const std::string& kind) {
    std::vector<Effect> out;
    for (const Effect& e : model_.Effects())
      if (e.kind == kind) out.push_back(e);
    return out;
  }

  std::shared_ptr<SimClock> clock_;
  Model model_;
  std::vector<Heard> heard_;
};

TEST_F(ModelReviewsTest, DismissByIdOrByReviewer) {
  PullRequest pr = Open("acme/app");
  const std::string first = pr.head_sha;
  Review app_first = Submit("acme/app", kReviewsApp, "APPROVE", first);
  ASSERT_TRUE(model_.Push("alice", "acme/app", 1, "").ok());
  const std::string second = model_.GetPull("acme/app", 1)->head_sha;
  Review app_second = Submit("acme/app", kReviewsApp, "APPROVE", second);
  Review bob = Submit("acme/app", "bob", "REQUEST_CHANGES", second);
  Review comment = Submit("acme/app", "carol", "COMMENT", second);
  heard_.clear();

  // The App's latest approval, named as GitHub shows it; then the one on an older commit.
  Review dismissed;
  Outcome o =
      model_.DismissReview("maintainer", "acme/app", 1, {.reviewer = AppLogin()}, &dismissed);
  ASSERT_EQ(o.status, 200) << o.message;
  EXPECT_EQ(dismissed.id, app_second.id);
  EXPECT_EQ(dismissed.state, "DISMISSED");
  ASSERT_TRUE(model_
                  .DismissReview("maintainer", "acme/app", 1,
                                 {.reviewer = kReviewsApp, .commit_id = first}, nullptr)
                  .ok());
  ASSERT_TRUE(
      model_.DismissReview("maintainer", "acme/app", 1, {.review_id = bob.id}, nullptr).ok());
  EXPECT_EQ(States("acme/app"),
            (std::vector<std::string>{"DISMISSED", "DISMISSED", "DISMISSED", "COMMENTED"}));

  // Refusals: nothing left to dismiss, an unknown id, a comment, nothing named, no PR.
  EXPECT_EQ(
      model_.DismissReview("maintainer", "acme/app", 1, {.reviewer = AppLogin()}, nullptr).status,
      404);
  EXPECT_EQ(
      model_.DismissReview("maintainer", "acme/app", 1, {.review_id = 424242}, nullptr).status,
      404);
  Outcome commented =
      model_.DismissReview("maintainer", "acme/app", 1, {.review_id = comment.id}, nullptr);
  EXPECT_EQ(commented.status, 422);
  EXPECT_NE(commented.message.find("commented"), std::string::npos) << commented.message;
  EXPECT_EQ(
      model_.DismissReview("maintainer", "acme/app", 1, {.review_id = bob.id}, nullptr).status,
      422);
  EXPECT_EQ(model_.DismissReview("maintainer", "acme/app", 1, {}, nullptr).status, 422);
  EXPECT_EQ(model_.DismissReview("maintainer", "acme/app", 9, {.reviewer = "bob"}, nullptr).status,
            404);

  std::vector<Effect> effects = EffectsOf("dismiss_review");
  ASSERT_EQ(effects.size(), 9u);
  EXPECT_EQ(effects[0].who, "maintainer");
  EXPECT_EQ(effects[0].status, 200);
  EXPECT_EQ(effects[0].sha, second);
  EXPECT_EQ(effects[0].detail, "review=" + std::to_string(app_second.id) + " user=" + AppLogin());
  EXPECT_EQ(effects[1].sha, first);
  EXPECT_EQ(effects[1].detail, "review=" + std::to_string(app_first.id) + " user=" + AppLogin());
  EXPECT_EQ(effects[2].detail, "review=" + std::to_string(bob.id) + " user=bob");
  for (size_t i = 3; i < effects.size(); ++i) EXPECT_GE(effects[i].status, 400) << i;

  ASSERT_EQ(heard_.size(), 3u) << "one webhook per dismissal, none for a refusal";
  for (const Heard& h : heard_) {
    EXPECT_EQ(h.what, "pull_request_review.dismissed");
    EXPECT_EQ(h.sender, "maintainer");
    EXPECT_EQ(h.review_state, "DISMISSED");
  }
}

TEST_F(ModelReviewsTest, APushDismissesStaleApprovalsWhenTheRepositorySaysSo) {
  const std::string repos[] = {"acme/app", "acme/strict"};
  for (const std::string& repo : repos) {
    PullRequest pr = Open(repo);
    Submit(repo, "bob", "APPROVE", pr.head_sha);
    Submit(repo, "carol", "REQUEST_CHANGES", pr.head_sha);
    Submit(repo, kReviewsApp, "APPROVE", pr.head_sha);
  }
  heard_.clear();
  ASSERT_TRUE(model_.Push("alice", "acme/app", 1, "").ok());
  EXPECT_EQ(States("acme/app"),
            (std::vector<std::string>{"APPROVED", "CHANGES_REQUESTED", "APPROVED"}));
  ASSERT_TRUE(model_.Push("alice", "acme/strict", 1, "").ok());
  // Approvals only: a change request stands until its author withdraws it.
  EXPECT_EQ(States("acme/strict"),
            (std::vector<std::string>{"DISMISSED", "CHANGES_REQUESTED", "DISMISSED"}));
  ASSERT_EQ(heard_.size(), 4u);
  EXPECT_EQ(heard_[1].what, "pull_request.synchronize");
  EXPECT_EQ(heard_[2].what, "pull_request_review.dismissed");
  EXPECT_EQ(heard_[2].sender, "alice") << "GitHub shows the pusher as the dismisser";
  EXPECT_EQ(heard_[3].what, "pull_request_review.dismissed");
  std::vector<Effect> effects = EffectsOf("dismiss_review");
  ASSERT_EQ(effects.size(), 2u);
  EXPECT_EQ(effects[0].who, "control");
  EXPECT_EQ(effects[0].repo, "acme/strict");
  EXPECT_EQ(effects[1].detail.substr(effects[1].detail.find(' ')), " user=" + AppLogin());

  // An approval of the new head stays; update-branch makes it stale in turn.
  const std::string head = model_.GetPull("acme/strict", 1)->head_sha;
  Submit("acme/strict", "bob", "APPROVE", head);
  ASSERT_TRUE(model_.MoveBase("acme/strict", 1, false).ok());
  ASSERT_EQ(model_.UpdateBranch(kReviewsApp, "acme/strict", 1, head).status, 202);
  EXPECT_EQ(States("acme/strict").back(), "DISMISSED");
  EXPECT_EQ(heard_.back().what, "pull_request_review.dismissed");
  EXPECT_EQ(heard_.back().sender, kReviewsApp);
  EXPECT_EQ(heard_[heard_.size() - 2].before, head);
}

TEST_F(ModelReviewsTest, ForcePushBackToAnEarlierHead) {
  PullRequest pr = Open("acme/app");
  const std::string a = pr.head_sha;
  CheckRun failing;
  failing.name = "ci";
  failing.head_sha = a;
  failing.conclusion = "failure";
  ASSERT_TRUE(model_.UpsertCheckRun("ci", "acme/app", failing, nullptr).ok());
  const std::string b(40, 'b');
  clock_->Advance(std::chrono::seconds(10));
  ASSERT_TRUE(model_.Push("alice", "acme/app", 1, b).ok());
  clock_->Advance(std::chrono::seconds(10));
  EXPECT_EQ(model_.GetPull("acme/app", 1)->mergeable_state, "clean") << "b has no checks";
  heard_.clear();

  const Time before_push = model_.GetPull("acme/app", 1)->updated_at;
  clock_->Advance(std::chrono::seconds(1));
  Outcome back = model_.Push("alice", "acme/app", 1, a);
  ASSERT_EQ(back.status, 200) << back.message;
  PullRequest now = *model_.GetPull("acme/app", 1);
  EXPECT_EQ(now.head_sha, a);
  EXPECT_GT(now.updated_at, before_push);
  // As on GitHub, b left the pull request: only a is one of its commits now.
  EXPECT_EQ(now.commits, (std::vector<std::string>{a}));
  ASSERT_EQ(heard_.size(), 1u);
  EXPECT_EQ(heard_[0].what, "pull_request.synchronize");
  EXPECT_EQ(heard_[0].before, b);
  EXPECT_EQ(heard_[0].head, a);
  // The head that came back finds its check runs.
  ASSERT_EQ(model_.CheckRunsFor("acme/app", a).size(), 1u);
  clock_->Advance(std::chrono::seconds(10));
  EXPECT_EQ(model_.GetPull("acme/app", 1)->mergeable_state, "unstable");

  Outcome same = model_.Push("alice", "acme/app", 1, a);
  EXPECT_EQ(same.status, 422);
  EXPECT_EQ(same.message, "head is already " + a);
  EXPECT_EQ(heard_.size(), 1u) << "no webhook for a push that moved nothing";
  std::vector<Effect> pushes = EffectsOf("push");
  ASSERT_EQ(pushes.size(), 3u);
  EXPECT_EQ(pushes[1].detail, "before=" + b);
  EXPECT_EQ(pushes[2].status, 422);
}

}  // namespace
}  // namespace gatehouse::sim
