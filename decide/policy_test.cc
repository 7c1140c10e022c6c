#include "decide/policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace gatehouse::decide {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;
using ::testing::HasSubstr;

constexpr char kFullExample[] = R"(version: 1
rules:
  required_checks:
    mode: block
    checks:
      - build
      - "test/*"
      - name: lint
        app: github-actions
    missing_after: 1h30m
  approvals:
    mode: block
    min: 2
    block_changes_requested: true
    require_on_head: true
  mergeable:
    mode: advisory
    allow_behind: false
    allow_blocked: false
  draft:
    mode: block
    verdict: pending
  labels:
    mode: block
    required: [reviewed]
    blocking: [do-not-merge, wip]
  size:
    mode: block
    max_files: 50
    max_lines: 1000
  protected_paths:
    mode: advisory
    paths: [".github/**", "*.lock"]
  authors:
    mode: block
    exempt_bots: false
    exempt_maintainers: true
    maintainer_roles: [OWNER, member]
)";

TEST(PolicyTest, ParsesTheFullExample) {
  auto p = ParsePolicy(kFullExample);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->required_checks.mode, RuleMode::kBlock);
  ASSERT_EQ(p->required_checks.checks.size(), 3u);
  EXPECT_EQ(p->required_checks.checks[0], (RequiredCheck{"build", ""}));
  EXPECT_EQ(p->required_checks.checks[1], (RequiredCheck{"test/*", ""}));
  EXPECT_EQ(p->required_checks.checks[2], (RequiredCheck{"lint", "github-actions"}));
  EXPECT_EQ(p->required_checks.missing_after, hours(1) + minutes(30));
  EXPECT_EQ(p->approvals.min, 2);
  EXPECT_TRUE(p->approvals.block_changes_requested);
  EXPECT_TRUE(p->approvals.require_on_head);
  EXPECT_EQ(p->mergeable.mode, RuleMode::kAdvisory);
  EXPECT_FALSE(p->mergeable.allow_behind);
  EXPECT_FALSE(p->mergeable.allow_blocked);
  EXPECT_EQ(p->draft.verdict, DraftVerdict::kPending);
  EXPECT_EQ(p->labels.required, std::vector<std::string>{"reviewed"});
  EXPECT_EQ(p->labels.blocking, (std::vector<std::string>{"do-not-merge", "wip"}));
  EXPECT_EQ(p->size.mode, RuleMode::kBlock);
  EXPECT_EQ(p->size.max_files, 50);
  EXPECT_EQ(p->size.max_lines, 1000);
  EXPECT_EQ(p->protected_paths.mode, RuleMode::kAdvisory);
  EXPECT_EQ(p->protected_paths.paths, (std::vector<std::string>{".github/**", "*.lock"}));
  EXPECT_FALSE(p->authors.exempt_bots);
  EXPECT_EQ(p->authors.maintainer_roles,
            (std::vector<AuthorRole>{AuthorRole::kOwner, AuthorRole::kMember}));
}

TEST(PolicyTest, EmptyFileGivesTheDefaults) {
  auto p = ParsePolicy("");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  const Policy d = DefaultPolicy();
  EXPECT_EQ(p->approvals.min, d.approvals.min);
  EXPECT_EQ(p->required_checks.missing_after, minutes(30));
  EXPECT_EQ(p->labels.blocking, std::vector<std::string>{"do-not-merge"});
  EXPECT_EQ(p->size.mode, RuleMode::kAdvisory);
  EXPECT_TRUE(ParsePolicy("# only a comment\n").ok());
}

TEST(PolicyTest, RepoOverridesDefaultsPerKey) {
  Policy defaults;
  defaults.approvals.min = 2;
  defaults.approvals.require_on_head = true;
  defaults.labels.blocking = {"hold"};
  defaults.size.max_files = 100;
  defaults.required_checks.checks = {{"build", ""}};

  auto overlay = ParsePolicyOverlay(
      "rules:\n"
      "  approvals:\n"
      "    min: 1\n"
      "  labels:\n"
      "    blocking: [wip]\n"
      "  size:\n"
      "    max_lines: 10\n");
  ASSERT_TRUE(overlay.ok()) << overlay.status().ToString();
  const Policy p = MergePolicies(defaults, *overlay);
  EXPECT_EQ(p.approvals.min, 1);                                  // overridden
  EXPECT_TRUE(p.approvals.require_on_head);                       // kept
  EXPECT_EQ(p.labels.blocking, std::vector<std::string>{"wip"});  // list replaced
  EXPECT_EQ(p.size.max_files, 100);                               // kept
  EXPECT_EQ(p.size.max_lines, 10);                                // added
  EXPECT_EQ(p.required_checks.checks, (std::vector<RequiredCheck>{{"build", ""}}));  // kept
  EXPECT_EQ(p.required_checks.mode, RuleMode::kBlock);
}

TEST(PolicyTest, ModeOffParsesAsAMode) {
  auto p = ParsePolicy("rules:\n  draft:\n    mode: off\n  size:\n    mode: Block\n");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  EXPECT_EQ(p->draft.mode, RuleMode::kOff);
  EXPECT_EQ(p->size.mode, RuleMode::kBlock);
}

// Each invalid document with the exact error line it must produce.
struct BadCase {
  const char* yaml;
  const char* error;
};

class PolicyErrorTest : public ::testing::TestWithParam<BadCase> {};

TEST_P(PolicyErrorTest, ReportsLineAndKey) {
  auto p = ParsePolicy(GetParam().yaml);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(p.status().message(), GetParam().error);
}

INSTANTIATE_TEST_SUITE_P(
    AllErrors, PolicyErrorTest,
    ::testing::Values(
        BadCase{"version: 1\nrules:\n  approvals:\n    mode: block\n\n\n    min: two\n",
                "gatehouse.yml:7: rules.approvals.min: expected a non-negative integer, got "
                "\"two\""},
        BadCase{"rules:\n  approvals:\n    min: -1\n",
                "gatehouse.yml:3: rules.approvals.min: expected a non-negative integer, got "
                "\"-1\""},
        BadCase{"version: 2\n", "gatehouse.yml:1: version: expected 1, got \"2\""},
        BadCase{"verison: 1\n",
                "gatehouse.yml:1: verison: unknown key (expected one of: version, rules)"},
        BadCase{"- a\n- b\n", "gatehouse.yml:1: (top level): expected a mapping, got a list"},
        BadCase{"rules: [a]\n", "gatehouse.yml:1: rules: expected a mapping, got a list"},
        BadCase{"rules:\n  aprovals:\n    min: 1\n",
                "gatehouse.yml:2: rules.aprovals: unknown key (expected one of: "
                "required_checks, approvals, mergeable, draft, labels, size, protected_paths, "
                "authors)"},
        BadCase{"rules:\n  approvals: 2\n",
                "gatehouse.yml:2: rules.approvals: expected a mapping, got \"2\""},
        BadCase{"rules:\n  approvals:\n    mode: strict\n",
                "gatehouse.yml:3: rules.approvals.mode: expected one of off, advisory, block, "
                "got \"strict\""},
        BadCase{"rules:\n  approvals:\n    minimum: 1\n",
                "gatehouse.yml:3: rules.approvals.minimum: unknown key (expected one of: mode, "
                "min, block_changes_requested, require_on_head)"},
        BadCase{"rules:\n  approvals:\n    require_on_head: maybe\n",
                "gatehouse.yml:3: rules.approvals.require_on_head: expected true or false, got "
                "\"maybe\""},
        BadCase{"rules:\n  required_checks:\n    missing_after: soon\n",
                "gatehouse.yml:3: rules.required_checks.missing_after: expected a duration "
                "such as 30m, 2h or 1h30m, got \"soon\""},
        BadCase{"rules:\n  required_checks:\n    checks: build\n",
                "gatehouse.yml:3: rules.required_checks.checks: expected a list of checks, "
                "got \"build\""},
        BadCase{"rules:\n  required_checks:\n    checks:\n      - build\n      - app: x\n",
                "gatehouse.yml:5: rules.required_checks.checks[1].name: missing (every "
                "required check needs a name)"},
        BadCase{"rules:\n  required_checks:\n    checks:\n      - name: a\n        ap: x\n",
                "gatehouse.yml:5: rules.required_checks.checks[0].ap: unknown key (expected "
                "one of: name, app)"},
        BadCase{"rules:\n  required_checks:\n    checks:\n      - [a]\n",
                "gatehouse.yml:4: rules.required_checks.checks[0]: expected a check name or "
                "{name, app}, got a list"},
        BadCase{"rules:\n  mergeable:\n    allow_dirty: true\n",
                "gatehouse.yml:3: rules.mergeable.allow_dirty: unknown key (expected one of: "
                "mode, allow_behind, allow_blocked)"},
        BadCase{"rules:\n  draft:\n    verdict: fail\n",
                "gatehouse.yml:3: rules.draft.verdict: expected neutral or pending, got "
                "\"fail\""},
        BadCase{"rules:\n  labels:\n    required: reviewed\n",
                "gatehouse.yml:3: rules.labels.required: expected a list of strings, got "
                "\"reviewed\""},
        BadCase{"rules:\n  labels:\n    blocking:\n      - wip\n      - {a: b}\n",
                "gatehouse.yml:5: rules.labels.blocking[1]: expected a non-empty string, got "
                "a mapping"},
        BadCase{"rules:\n  size:\n    max_files: 1.5\n",
                "gatehouse.yml:3: rules.size.max_files: expected a non-negative integer, got "
                "\"1.5\""},
        BadCase{"rules:\n  protected_paths:\n    path: [a]\n",
                "gatehouse.yml:3: rules.protected_paths.path: unknown key (expected one of: "
                "mode, paths)"},
        BadCase{"rules:\n  authors:\n    maintainer_roles: [OWNER, ADMIN]\n",
                "gatehouse.yml:3: rules.authors.maintainer_roles[1]: expected one of OWNER, "
                "MEMBER, COLLABORATOR, CONTRIBUTOR, got \"ADMIN\""},
        BadCase{"rules:\n  authors:\n    exempt_bots: 1\n",
                "gatehouse.yml:3: rules.authors.exempt_bots: expected true or false, got "
                "\"1\""}));

TEST(PolicyTest, ReportsEveryErrorOnePerLine) {
  auto p = ParsePolicy(
      "rules:\n"
      "  approvals:\n"
      "    min: two\n"
      "  size:\n"
      "    max_lines: lots\n"
      "  typo: 1\n");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(),
            "gatehouse.yml:3: rules.approvals.min: expected a non-negative integer, got "
            "\"two\"\n"
            "gatehouse.yml:5: rules.size.max_lines: expected a non-negative integer, got "
            "\"lots\"\n"
            "gatehouse.yml:6: rules.typo: unknown key (expected one of: required_checks, "
            "approvals, mergeable, draft, labels, size, protected_paths, authors)");
}

TEST(PolicyTest, SyntaxErrorsAreStatusNotExceptions) {
  auto p = ParsePolicy("rules:\n  approvals: [1, 2\n", DefaultPolicy(), "repo.yml");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(p.status().message(), HasSubstr("repo.yml:"));
  EXPECT_THAT(p.status().message(), HasSubstr("(syntax)"));

  auto tabs = ParsePolicy("rules:\n\tapprovals: {}\n");
  EXPECT_FALSE(tabs.ok());
}

TEST(PolicyTest, ParsesDurations) {
  EXPECT_EQ(ParseDuration("45s"), Duration(seconds(45)));
  EXPECT_EQ(ParseDuration("30m"), Duration(minutes(30)));
  EXPECT_EQ(ParseDuration("2h"), Duration(hours(2)));
  EXPECT_EQ(ParseDuration("1d"), Duration(hours(24)));
  EXPECT_EQ(ParseDuration("1h30m"), Duration(minutes(90)));
  EXPECT_FALSE(ParseDuration(""));
  EXPECT_FALSE(ParseDuration("30"));
  EXPECT_FALSE(ParseDuration("m"));
  EXPECT_FALSE(ParseDuration("5w"));
  EXPECT_FALSE(ParseDuration("-5m"));
}

}  // namespace
}  // namespace gatehouse::decide
