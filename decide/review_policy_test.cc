#include "decide/review_policy.h"

#include <gtest/gtest.h>

#include <string>

#include "decide/policy.h"

namespace gatehouse::decide {
namespace {

ReviewRoleRule Rule(std::string role) {
  ReviewRoleRule r;
  r.role = std::move(role);
  return r;
}

constexpr char kReviewsExample[] = R"(version: 1
reviews:
  commanders: [OWNER, member]
  roles:
    - role: security
      required: true
      on: [opened, synchronize, ready_for_review, command]
      paths: ["src/**", "*.sql"]
      labels: [needs-security]
      min_lines: 1
      max_lines: 2000
    - role: style
)";

TEST(ReviewPolicyTest, ParsesTheReviewsSection) {
  auto p = ParsePolicy(kReviewsExample);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  const ReviewsPolicy& r = p->reviews;
  EXPECT_EQ(r.commanders, (std::vector<AuthorRole>{AuthorRole::kOwner, AuthorRole::kMember}));
  ASSERT_EQ(r.roles.size(), 2u);
  const ReviewRoleRule& sec = r.roles[0];
  EXPECT_EQ(sec.role, "security");
  EXPECT_TRUE(sec.required);
  EXPECT_EQ(sec.on.size(), 4u);
  EXPECT_EQ(sec.paths, (std::vector<std::string>{"src/**", "*.sql"}));
  EXPECT_EQ(sec.labels, std::vector<std::string>{"needs-security"});
  EXPECT_EQ(sec.min_lines, 1);
  EXPECT_EQ(sec.max_lines, 2000);
  // The second rule keeps every default.
  EXPECT_EQ(r.roles[1], Rule("style"));
  EXPECT_EQ(r.Find("style"), &r.roles[1]);
  EXPECT_EQ(r.Find("docs"), nullptr);
}

TEST(ReviewPolicyTest, DefaultsHaveNoReviews) {
  auto p = ParsePolicy("");
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(p->reviews.roles.empty());
  EXPECT_EQ(p->reviews.commanders, (std::vector<AuthorRole>{AuthorRole::kOwner, AuthorRole::kMember,
                                                            AuthorRole::kCollaborator}));
}

TEST(ReviewPolicyTest, AWrittenSectionReplacesTheDefaultWholesale) {
  Policy defaults;
  defaults.reviews.roles = {Rule("style")};
  defaults.reviews.commanders = {AuthorRole::kOwner};
  // Only roles written: commanders go back to the ReviewsPolicy default, not the server's.
  auto p = ParsePolicy("reviews:\n  roles:\n    - role: security\n      on: [command]\n", defaults);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  ASSERT_EQ(p->reviews.roles.size(), 1u);
  EXPECT_EQ(p->reviews.roles[0].role, "security");
  EXPECT_EQ(p->reviews.roles[0].on, std::set<ReviewTrigger>{ReviewTrigger::kCommand});
  EXPECT_EQ(p->reviews.commanders, ReviewsPolicy{}.commanders);
  // No section written: the server's stays.
  auto q = ParsePolicy("rules:\n  approvals:\n    min: 2\n", defaults);
  ASSERT_TRUE(q.ok());
  EXPECT_EQ(q->reviews, defaults.reviews);
}

TEST(ReviewPolicyTest, TriggerNamesRoundTrip) {
  for (ReviewTrigger t : {ReviewTrigger::kOpened, ReviewTrigger::kSynchronize,
                          ReviewTrigger::kReadyForReview, ReviewTrigger::kCommand}) {
    EXPECT_EQ(ParseReviewTrigger(ReviewTriggerName(t)), t);
  }
  EXPECT_EQ(ReviewTriggerName(ReviewTrigger::kReadyForReview), "ready_for_review");
  EXPECT_EQ(ParseReviewTrigger("push"), std::nullopt);
  EXPECT_EQ(ParseReviewTrigger("Opened"), std::nullopt);
}

struct BadCase {
  const char* yaml;
  const char* error;
};

void PrintTo(const BadCase& c, std::ostream* os) { *os << c.error; }

class ReviewPolicyErrorTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(ReviewPolicyErrorTest, ReportsLineAndKey) {
  auto p = ParsePolicy(GetParam().yaml);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(p.status().message(), GetParam().error);
}

INSTANTIATE_TEST_SUITE_P(
    AllErrors, ReviewPolicyErrorTest,
    ::testing::Values(
        BadCase{"reviews: [security]\n",
                "gatehouse.yml:1: reviews: expected a mapping, got a list"},
        BadCase{"reviews:\n  role: [security]\n",
                "gatehouse.yml:2: reviews.role: unknown key (expected one of: commanders, "
                "roles)"},
        BadCase{"reviews:\n  commanders: [OWNER, ADMIN]\n",
                "gatehouse.yml:2: reviews.commanders[1]: expected one of OWNER, MEMBER, "
                "COLLABORATOR, CONTRIBUTOR, got \"ADMIN\""},
        BadCase{"reviews:\n  roles: security\n",
                "gatehouse.yml:2: reviews.roles: expected a list of role rules, got "
                "\"security\""},
        BadCase{"reviews:\n  roles:\n    - security\n",
                "gatehouse.yml:3: reviews.roles[0]: expected a mapping, got \"security\""},
        BadCase{"reviews:\n  roles:\n    - required: true\n",
                "gatehouse.yml:3: reviews.roles[0].role: missing (every rule names the role it "
                "configures)"},
        BadCase{"reviews:\n  roles:\n    - role: Security\n",
                "gatehouse.yml:3: reviews.roles[0].role: expected a role name of [a-z0-9_-] (at "
                "most 64 bytes), got \"Security\""},
        BadCase{"reviews:\n  roles:\n    - role: a\n    - role: b\n    - role: a\n",
                "gatehouse.yml:5: reviews.roles[2].role: duplicate role \"a\" (first at line "
                "3)"},
        BadCase{"reviews:\n  roles:\n    - role: a\n      when: [opened]\n",
                "gatehouse.yml:4: reviews.roles[0].when: unknown key (expected one of: role, "
                "required, on, paths, labels, min_lines, max_lines)"},
        BadCase{"reviews:\n  roles:\n    - role: a\n      on: [opened, push]\n",
                "gatehouse.yml:4: reviews.roles[0].on[1]: expected one of opened, synchronize, "
                "ready_for_review, command, got \"push\""},
        BadCase{"reviews:\n  roles:\n    - role: a\n      on: []\n",
                "gatehouse.yml:4: reviews.roles[0].on: expected at least one of opened, "
                "synchronize, ready_for_review, command (remove the rule to turn the role "
                "off)"},
        BadCase{"reviews:\n  roles:\n    - role: a\n      on: opened\n",
                "gatehouse.yml:4: reviews.roles[0].on: expected a list of strings, got "
                "\"opened\""},
        BadCase{"reviews:\n  roles:\n    - role: a\n      required: sometimes\n",
                "gatehouse.yml:4: reviews.roles[0].required: expected true or false, got "
                "\"sometimes\""},
        BadCase{"reviews:\n  roles:\n    - role: a\n      paths: src\n",
                "gatehouse.yml:4: reviews.roles[0].paths: expected a list of strings, got "
                "\"src\""},
        BadCase{"reviews:\n  roles:\n    - role: a\n      labels: [\"\"]\n",
                "gatehouse.yml:4: reviews.roles[0].labels[0]: expected a non-empty string, got "
                "\"\""},
        BadCase{"reviews:\n  roles:\n    - role: a\n      min_lines: -1\n",
                "gatehouse.yml:4: reviews.roles[0].min_lines: expected a non-negative integer, "
                "got \"-1\""},
        BadCase{"reviews:\n  roles:\n    - role: a\n      min_lines: 20\n      max_lines: 10\n",
                "gatehouse.yml:5: reviews.roles[0].max_lines: less than min_lines (10 < 20)"}),
    [](const ::testing::TestParamInfo<BadCase>& p) { return "Case" + std::to_string(p.index); });

PrSnapshot Pr(std::vector<std::string> paths, std::vector<std::string> labels, int add, int del) {
  PrSnapshot pr;
  pr.changed_paths = std::move(paths);
  pr.labels = std::move(labels);
  pr.additions = add;
  pr.deletions = del;
  return pr;
}

TEST(RoleAppliesTest, NoFiltersSelectsEveryPr) {
  EXPECT_TRUE(RoleApplies(Rule("style"), Pr({}, {}, 0, 0)));
}

TEST(RoleAppliesTest, PathsNeedOneMatchingChangedPath) {
  ReviewRoleRule rule = Rule("security");
  rule.paths = {"src/**", "*.sql"};
  EXPECT_TRUE(RoleApplies(rule, Pr({"README.md", "src/net/conn.cc"}, {}, 1, 0)));
  EXPECT_TRUE(RoleApplies(rule, Pr({"schema.sql"}, {}, 1, 0)));
  EXPECT_FALSE(RoleApplies(rule, Pr({"db/schema.sql", "docs/a.md"}, {}, 1, 0)));
  EXPECT_FALSE(RoleApplies(rule, Pr({}, {}, 1, 0)));
}

TEST(RoleAppliesTest, LabelsMatchCaseInsensitively) {
  ReviewRoleRule rule = Rule("security");
  rule.labels = {"needs-security", "crypto"};
  EXPECT_TRUE(RoleApplies(rule, Pr({}, {"bug", "Needs-Security"}, 0, 0)));
  EXPECT_FALSE(RoleApplies(rule, Pr({}, {"bug"}, 0, 0)));
}

TEST(RoleAppliesTest, LinesAreAdditionsPlusDeletionsWithinBounds) {
  ReviewRoleRule rule = Rule("big");
  rule.min_lines = 10;
  rule.max_lines = 100;
  EXPECT_FALSE(RoleApplies(rule, Pr({}, {}, 5, 4)));
  EXPECT_TRUE(RoleApplies(rule, Pr({}, {}, 5, 5)));
  EXPECT_TRUE(RoleApplies(rule, Pr({}, {}, 60, 40)));
  EXPECT_FALSE(RoleApplies(rule, Pr({}, {}, 60, 41)));
}

TEST(RoleAppliesTest, EveryFilterMustHold) {
  ReviewRoleRule rule = Rule("security");
  rule.paths = {"src/**"};
  rule.labels = {"security"};
  rule.max_lines = 10;
  EXPECT_TRUE(RoleApplies(rule, Pr({"src/a.cc"}, {"security"}, 3, 3)));
  EXPECT_FALSE(RoleApplies(rule, Pr({"src/a.cc"}, {}, 3, 3)));
  EXPECT_FALSE(RoleApplies(rule, Pr({"lib/a.cc"}, {"security"}, 3, 3)));
  EXPECT_FALSE(RoleApplies(rule, Pr({"src/a.cc"}, {"security"}, 30, 3)));
}

}  // namespace
}  // namespace gatehouse::decide
