#include "decide/policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "decide/yaml_reader.h"

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
actions:
  autonomy: suggest
  classes:
    label: auto
    review: auto
    merge: observe
  dry_run: true
  merge_method: rebase
  close_grace: 2d
  update_branch: true
  report: verdicts
  labels:
    ready: lgtm
    changes_requested: needs-work
    needs_human: human-please
    pending_closure: closing-soon
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
  const PlannerOptions& a = p->actions;
  EXPECT_EQ(a.autonomy, Autonomy::kSuggest);
  EXPECT_EQ(a.class_autonomy, (std::map<ActionClass, Autonomy>{
                                  {ActionClass::kLabel, Autonomy::kAuto},
                                  {ActionClass::kReview, Autonomy::kAuto},
                                  {ActionClass::kMerge, Autonomy::kObserve},
                              }));
  EXPECT_EQ(a.AutonomyFor(ActionClass::kReport), Autonomy::kSuggest);
  EXPECT_EQ(a.AutonomyFor(ActionClass::kMerge), Autonomy::kObserve);
  EXPECT_TRUE(a.dry_run);
  EXPECT_EQ(a.merge_method, MergeMethod::kRebase);
  EXPECT_EQ(a.close_grace, hours(48));
  EXPECT_TRUE(a.update_branch);
  EXPECT_EQ(a.report, Report::kVerdicts);
  EXPECT_EQ(a.label_ready, "lgtm");
  EXPECT_EQ(a.label_changes_requested, "needs-work");
  EXPECT_EQ(a.label_needs_human, "human-please");
  EXPECT_EQ(a.label_pending_closure, "closing-soon");
  EXPECT_EQ(a.app_login, "gatehouse[bot]");  // not a file key: the default stays
}

TEST(PolicyTest, EmptyFileGivesTheDefaults) {
  auto p = ParsePolicy("");
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  const Policy d = DefaultPolicy();
  EXPECT_EQ(p->approvals.min, d.approvals.min);
  EXPECT_EQ(p->required_checks.missing_after, minutes(30));
  EXPECT_EQ(p->labels.blocking, std::vector<std::string>{"do-not-merge"});
  EXPECT_EQ(p->size.mode, RuleMode::kAdvisory);
  EXPECT_EQ(p->actions.autonomy, Autonomy::kObserve);
  EXPECT_TRUE(p->actions.class_autonomy.empty());
  EXPECT_FALSE(p->actions.dry_run);
  EXPECT_EQ(p->actions.merge_method, MergeMethod::kSquash);
  EXPECT_EQ(p->actions.close_grace, hours(72));
  EXPECT_FALSE(p->actions.update_branch);
  EXPECT_EQ(p->actions.label_ready, "ready-to-merge");
  EXPECT_EQ(p->actions.label_pending_closure, "pending-closure");
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

TEST(PolicyTest, RepoActionsOverrideDefaultsPerKey) {
  Policy defaults;
  defaults.actions.autonomy = Autonomy::kSuggest;
  defaults.actions.class_autonomy = {{ActionClass::kLabel, Autonomy::kAuto},
                                     {ActionClass::kClose, Autonomy::kObserve}};
  defaults.actions.merge_method = MergeMethod::kMerge;
  defaults.actions.close_grace = hours(24);
  defaults.actions.app_login = "acme-gate[bot]";
  defaults.actions.label_ready = "ship-it";

  auto p = ParsePolicy(
      "actions:\n"
      "  autonomy: AUTO\n"
      "  classes:\n"
      "    close: suggest\n"
      "    merge: observe\n"
      "  labels:\n"
      "    pending_closure: stale\n",
      defaults);
  ASSERT_TRUE(p.ok()) << p.status().ToString();
  const PlannerOptions& a = p->actions;
  EXPECT_EQ(a.autonomy, Autonomy::kAuto);  // overridden (names are case-insensitive)
  EXPECT_EQ(a.class_autonomy,
            (std::map<ActionClass, Autonomy>{{ActionClass::kLabel, Autonomy::kAuto},        // kept
                                             {ActionClass::kClose, Autonomy::kSuggest},     // over
                                             {ActionClass::kMerge, Autonomy::kObserve}}));  // new
  EXPECT_EQ(a.merge_method, MergeMethod::kMerge);                                           // kept
  EXPECT_EQ(a.close_grace, hours(24));                                                      // kept
  EXPECT_EQ(a.app_login, "acme-gate[bot]");     // server only
  EXPECT_EQ(a.label_ready, "ship-it");          // kept
  EXPECT_EQ(a.label_pending_closure, "stale");  // overridden
  EXPECT_EQ(a.label_needs_human, "needs-human-review");
}

TEST(PolicyTest, AnOperatorOverrideFileNamesItselfInErrors) {
  auto p = ParsePolicy("actions:\n  dry_run: sometimes\n", DefaultPolicy(),
                       "/etc/gatehouse/repos/acme/app.yml");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(),
            "/etc/gatehouse/repos/acme/app.yml:2: actions.dry_run: expected true or false, got "
            "\"sometimes\"");
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

// Test names carry the expected error's key ("rules.approvals.min"), not the struct's bytes.
void PrintTo(const BadCase& c, std::ostream* os) {
  const std::string error = c.error;
  const size_t start = error.find(": ");
  const size_t end = error.find(':', start == std::string::npos ? 0 : start + 2);
  *os << (start == std::string::npos ? error : error.substr(start + 2, end - start - 2));
}

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
                "gatehouse.yml:1: verison: unknown key (expected one of: version, rules, "
                "actions, reviews, merge_queue)"},
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
                "\"1\""},
        BadCase{"actions: auto\n", "gatehouse.yml:1: actions: expected a mapping, got \"auto\""},
        BadCase{"actions:\n  autonomy: yolo\n",
                "gatehouse.yml:2: actions.autonomy: expected one of observe, suggest, auto, got "
                "\"yolo\""},
        BadCase{"actions:\n  autonomy_by_class: {}\n",
                "gatehouse.yml:2: actions.autonomy_by_class: unknown key (expected one of: "
                "autonomy, classes, dry_run, merge_method, close_grace, update_branch, report, "
                "labels, app_login)"},
        BadCase{"actions:\n  classes: [report]\n",
                "gatehouse.yml:2: actions.classes: expected a mapping, got a list"},
        BadCase{"actions:\n  classes:\n    report: auto\n    approve: auto\n",
                "gatehouse.yml:4: actions.classes.approve: unknown key (expected one of: "
                "report, label, review, merge, close)"},
        BadCase{"actions:\n  classes:\n    merge: yes\n",
                "gatehouse.yml:3: actions.classes.merge: expected one of observe, suggest, auto, "
                "got \"yes\""},
        BadCase{"actions:\n  dry_run: 1\n",
                "gatehouse.yml:2: actions.dry_run: expected true or false, got \"1\""},
        BadCase{"actions:\n  merge_method: fast-forward\n",
                "gatehouse.yml:2: actions.merge_method: expected one of merge, squash, rebase, "
                "got \"fast-forward\""},
        BadCase{"actions:\n  close_grace: 3 days\n",
                "gatehouse.yml:2: actions.close_grace: expected a duration such as 30m, 2h or "
                "1h30m, got \"3 days\""},
        BadCase{"actions:\n  report: everything\n",
                "gatehouse.yml:2: actions.report: expected one of progress, verdicts, got "
                "\"everything\""},
        BadCase{"actions:\n  update_branch: [true]\n",
                "gatehouse.yml:2: actions.update_branch: expected true or false, got a list"},
        BadCase{"actions:\n  labels:\n    ready: \"\"\n",
                "gatehouse.yml:3: actions.labels.ready: expected a non-empty string, got \"\""},
        BadCase{"actions:\n  labels:\n    wip: work-in-progress\n",
                "gatehouse.yml:3: actions.labels.wip: unknown key (expected one of: ready, "
                "changes_requested, needs_human, pending_closure)"},
        BadCase{"actions:\n  app_login: me[bot]\n",
                "gatehouse.yml:2: actions.app_login: a server setting; it cannot be set in a "
                "policy file"}),
    [](const ::testing::TestParamInfo<BadCase>& p) { return "Case" + std::to_string(p.index); });

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

TEST(PolicyTest, ARepeatedKeyIsAnError) {
  auto p = ParsePolicy(
      "rules:\n"
      "  approvals: {min: 1, min: 2}\n"
      "rules:\n"
      "  size: {}\n");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(),
            "gatehouse.yml:2: rules.approvals.min: duplicate key\n"
            "gatehouse.yml:3: rules: duplicate key");
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

// Seen while writing policy_fuzz_test, whose UBSan build aborts on it: "9999999999999999d"
// overflowed int64 converting days to the microsecond Duration.
TEST(PolicyTest, DurationsPastAHundredYearsAreRefusedNotOverflowed) {
  EXPECT_EQ(ParseDuration("36500d"), Duration(hours(24 * 36500)));
  EXPECT_FALSE(ParseDuration("36501d"));
  EXPECT_FALSE(ParseDuration("9999999999999999d"));
  EXPECT_FALSE(ParseDuration("9223372036854775807s"));
  EXPECT_FALSE(ParseDuration("36500d1s"));
  auto p = ParsePolicy("rules:\n  required_checks:\n    missing_after: 9999999999999999d\n");
  ASSERT_FALSE(p.ok());
  EXPECT_THAT(p.status().message(), HasSubstr("gatehouse.yml:3: rules.required_checks"));
}

// Found by policy_fuzz_test: a quoted key holding a newline split one error over two lines.
TEST(PolicyTest, ControlCharactersInKeysCannotBreakTheOneErrorPerLineRule) {
  auto p = ParsePolicy("rules:\n  \"pro\\ntected\": 1\n  size:\n    max_files: \"a\\tb\"\n");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().message(),
            "gatehouse.yml:2: rules.pro\\x0atected: unknown key (expected one of: "
            "required_checks, approvals, mergeable, draft, labels, size, protected_paths, "
            "authors)\n"
            "gatehouse.yml:4: rules.size.max_files: expected a non-negative integer, got "
            "\"a\\x09b\"");
}

}  // namespace
}  // namespace gatehouse::decide

namespace gatehouse::decide {
namespace {

// policy_fuzz_test found it: yaml-cpp reads a lone CR as part of a plain scalar, and its
// emitter writes it back as a line break, so one file meant two things. Every line break YAML
// defines (LF, CR LF, a lone CR) now ends a line, as the YAML spec says.
TEST(PolicyLineBreakTest, ALoneCrOrCrLfEndsALineAsLfDoes) {
  const char* texts[] = {
      "rules:\n  required_checks:\n    checks:\n      - nal\r      # a comment\n      - b\n",
      "rules:\r\n  required_checks:\r\n    checks:\r\n      - nal\r\n      - b\r\n",
      "rules:\r  required_checks:\r    checks:\r      - nal\r      - b\r",
  };
  for (const char* text : texts) {
    auto p = ParsePolicy(text);
    ASSERT_TRUE(p.ok()) << p.status().ToString();
    EXPECT_EQ(p->required_checks.checks,
              (std::vector<RequiredCheck>{{"nal", ""}, {"b", ""}}));
  }
  // Lines still count as the file's lines: the error is on line 4 however they end.
  for (const char* text : {"rules:\r  required_checks:\r    checks:\r      - {app: x}\r",
                           "rules:\r\n  required_checks:\r\n    checks:\r\n      - {app: x}\r\n"}) {
    auto p = ParsePolicy(text);
    ASSERT_FALSE(p.ok());
    EXPECT_THAT(p.status().message(), HasSubstr("gatehouse.yml:4: "));
  }
}

}  // namespace
}  // namespace gatehouse::decide
