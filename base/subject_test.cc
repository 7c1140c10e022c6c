#include "base/subject.h"

#include <gtest/gtest.h>

#include <string>

namespace gatehouse {
namespace {

TEST(SubjectTest, SplitsOwnerRepoAndNumber) {
  const std::optional<Subject> s = Subject::Parse("acme/app#12");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->key(), "acme/app#12");
  EXPECT_EQ(s->owner(), "acme");
  EXPECT_EQ(s->repo_name(), "app");
  EXPECT_EQ(s->repo_full_name(), "acme/app");
  EXPECT_EQ(s->number(), 12);
}

TEST(SubjectTest, LowerCasesOwnerAndRepoOnce) {
  const std::optional<Subject> s = Subject::Parse("Codertocat/Hello-World#2");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->key(), "codertocat/hello-world#2");
  EXPECT_EQ(s, Subject::Parse("codertocat/hello-world#2"));
  EXPECT_EQ(Subject::PullRequest("Acme/App", 12)->key(), "acme/app#12");
  EXPECT_EQ(Subject::PullRequest("acme/app.js_x-1", 7)->key(), "acme/app.js_x-1#7");
}

TEST(SubjectTest, TheKeyParsesBackToTheSameSubject) {
  for (const char* text : {"a/b#1", "Acme/App#12", "x.y/z_-9#123456789012"}) {
    const std::optional<Subject> s = Subject::Parse(text);
    ASSERT_TRUE(s.has_value()) << text;
    const std::optional<Subject> again = Subject::Parse(s->key());
    ASSERT_TRUE(again.has_value()) << text;
    EXPECT_EQ(again->key(), s->key());
    EXPECT_EQ(again->number(), s->number());
    EXPECT_EQ(again->repo_full_name(), s->repo_full_name());
  }
}

TEST(SubjectTest, RejectsEverythingElse) {
  for (const char* bad : {"", "acme/app", "acme/app#", "acme#1", "/app#1", "acme/#1", "acme/app#x",
                          "acme/app#0", "acme/app#-1", "acme/app#+1", "acme/app#01", "acme/app#1x",
                          "acme/app#1#2", "ac me/app#1", "acme/a/pp#1", "acme/app #1",
                          "acme/app\n#1", "acme/app#1234567890123456789", "acme/ap\xc3\xa9#1"}) {
    EXPECT_FALSE(Subject::Parse(bad).has_value()) << bad;
  }
  EXPECT_FALSE(Subject::Parse(std::string(300, 'a') + "/b#1").has_value());
  EXPECT_FALSE(Subject::PullRequest("acme/app", 0).has_value());
  EXPECT_FALSE(Subject::PullRequest("acme/app", -3).has_value());
  EXPECT_FALSE(Subject::PullRequest("acme", 3).has_value());
}

TEST(SubjectTest, RepoFullNamesUseGitHubsAlphabet) {
  EXPECT_TRUE(IsRepoFullName("Acme/App"));
  EXPECT_TRUE(IsRepoFullName("a-b/c.d_e"));
  EXPECT_FALSE(IsRepoFullName("acme"));
  EXPECT_FALSE(IsRepoFullName("/app"));
  EXPECT_FALSE(IsRepoFullName("acme/"));
  EXPECT_FALSE(IsRepoFullName("acme/app#1"));
  EXPECT_FALSE(IsRepoFullName("acme/a b"));
  EXPECT_FALSE(IsRepoFullName(std::string(200, 'a') + "/" + std::string(100, 'b')));
}

TEST(SubjectTest, RepoOfSubjectKey) {
  EXPECT_EQ(RepoOfSubjectKey("acme/app#12"), "acme/app");
  EXPECT_EQ(RepoOfSubjectKey("not a key"), "");
}

TEST(QueueKeyTest, OneQueuePerRepositoryAndBaseBranch) {
  const std::optional<QueueKey> q = QueueKey::Of("Acme/App", "main");
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(q->key(), "acme/app@main/queue");
  EXPECT_EQ(q->repo_full_name(), "acme/app");
  EXPECT_EQ(q->base(), "main");
  // The branch keeps its case and may hold '/', '@' and even end in "/queue".
  for (const char* base :
       {"Release/2.x", "feature/queue", "user@host", "v1.0-rc_2", "caf\xc3\xa9"}) {
    const std::optional<QueueKey> k = QueueKey::Of("acme/app", base);
    ASSERT_TRUE(k.has_value()) << base;
    EXPECT_EQ(k->base(), base);
    const std::optional<QueueKey> again = QueueKey::Parse(k->key());
    ASSERT_TRUE(again.has_value()) << k->key();
    EXPECT_EQ(again->base(), base);
    EXPECT_EQ(again->repo_full_name(), "acme/app");
    EXPECT_EQ(*again, *k);
  }
  EXPECT_EQ(QueueKey::Parse("ACME/app@Main/queue")->key(), "acme/app@Main/queue");
}

TEST(QueueKeyTest, NeitherAPrNorAReviewMailboxIsAQueueNorTheOtherWayRound) {
  for (const char* bad :
       {"acme/app#12", "acme/app#12/review/security", "acme/app@main", "acme/app@/queue",
        "acme@main/queue", "acme/a b@main/queue", "acme/app@ma in/queue", "/queue", "@main/queue",
        "acme/app@main/queue/"}) {
    EXPECT_FALSE(QueueKey::Parse(bad).has_value()) << bad;
  }
  EXPECT_FALSE(Subject::Parse("acme/app@main/queue").has_value());
}

TEST(QueueKeyTest, BranchNamesFollowGitsRules) {
  for (const char* ok : {"main", "release/2.x", "a", "feature/x.y", "dependabot/npm/lodash-4.17"}) {
    EXPECT_TRUE(IsBranchName(ok)) << ok;
  }
  for (const char* bad :
       {"",        "@",         "/main",  "main/",    "main.",     "a..b",   "a//b", "a@{b",
        "a b",     "a~1",       "a^",     "a:b",      "a?",        "a*",     "a[b",  "a\\b",
        ".hidden", "x/.hidden", "x.lock", "x.lock/y", "tab\there", "del\x7f"}) {
    EXPECT_FALSE(IsBranchName(bad)) << bad;
  }
  EXPECT_FALSE(IsBranchName(std::string(256, 'b')));
  EXPECT_TRUE(IsBranchName(std::string(255, 'b')));
}

}  // namespace
}  // namespace gatehouse
