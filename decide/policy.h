// Policy: a repository's merge-gate rules (`rules:`), the planner's settings (`actions:`), its
// reviews (`reviews:`, decide/review_policy.h) and its merge queue (`merge_queue:`,
// decide/queue_policy.h), read from `.github/gatehouse.yml` (or an
// operator override file) and merged over the server defaults.
//
// The repo file is parsed into a PolicyOverlay in which every key is optional; the overlay
// is then applied to the defaults key by key (`MergePolicies`), so a repository only writes
// what it changes. Lists replace the default list wholesale, and a written `reviews:` section
// replaces the default one wholesale (keys it omits take the ReviewsPolicy defaults). The format,
// every key and its default are documented in docs/POLICY.md.
//
// Parsing is strict: unknown keys and wrongly typed values are errors, each reported as
// `FILE:LINE: KEY: problem`, one per line in the returned Status message. Parsing never
// throws. All types are plain values; functions are pure and safe from any thread.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "decide/options.h"
#include "decide/queue_policy.h"
#include "decide/required_check.h"
#include "decide/review_policy.h"
#include "decide/snapshot.h"

namespace gatehouse::decide {

// What a rule's failure does: nothing, a warning, or a blocker.
enum class RuleMode { kOff, kAdvisory, kBlock };
std::string_view RuleModeName(RuleMode mode);


struct RequiredChecksRule {
  RuleMode mode = RuleMode::kBlock;
  std::vector<RequiredCheck> checks;
  // A required check that has not reported this long after its timer started is a failure.
  Duration missing_after = std::chrono::minutes(30);
  bool operator==(const RequiredChecksRule&) const = default;
};

struct ApprovalsRule {
  RuleMode mode = RuleMode::kBlock;
  int min = 1;
  bool block_changes_requested = true;  // an outstanding CHANGES_REQUESTED fails the rule
  bool require_on_head = false;         // only approvals on the current head SHA count
  bool operator==(const ApprovalsRule&) const = default;
};

struct MergeableRule {
  RuleMode mode = RuleMode::kBlock;
  bool allow_behind = true;   // `behind` passes; false: waits (for an update-branch)
  bool allow_blocked = true;  // `blocked` passes (branch protection mirrors our own rules)
  bool operator==(const MergeableRule&) const = default;
};

enum class DraftVerdict { kNeutral, kPending };

struct DraftRule {
  RuleMode mode = RuleMode::kBlock;
  DraftVerdict verdict = DraftVerdict::kNeutral;  // the verdict of a draft PR in block mode
  bool operator==(const DraftRule&) const = default;
};

struct LabelsRule {
  RuleMode mode = RuleMode::kBlock;
  std::vector<std::string> required;                     // all must be present (case-insensitive)
  std::vector<std::string> blocking = {"do-not-merge"};  // none may be present
  bool operator==(const LabelsRule&) const = default;
};

struct SizeRule {
  RuleMode mode = RuleMode::kAdvisory;
  std::optional<int> max_files;
  std::optional<int> max_lines;  // additions + deletions
  bool operator==(const SizeRule&) const = default;
};

struct ProtectedPathsRule {
  RuleMode mode = RuleMode::kBlock;
  std::vector<std::string> paths;  // path globs; touching any fails the rule
  bool operator==(const ProtectedPathsRule&) const = default;
};

struct AuthorsRule {
  RuleMode mode = RuleMode::kBlock;  // off: nobody is exempt from closing
  bool exempt_bots = true;
  bool exempt_maintainers = true;
  std::vector<AuthorRole> maintainer_roles = {AuthorRole::kOwner, AuthorRole::kMember,
                                              AuthorRole::kCollaborator};
  bool operator==(const AuthorsRule&) const = default;
};

struct Policy {
  RequiredChecksRule required_checks;
  ApprovalsRule approvals;
  MergeableRule mergeable;
  DraftRule draft;
  LabelsRule labels;
  SizeRule size;
  ProtectedPathsRule protected_paths;
  AuthorsRule authors;
  // The `actions:` section: autonomy, dry-run, merge method, grace, labels. `app_login` is
  // never read from a file (see decide/options.h).
  PlannerOptions actions;
  // The `reviews:` section: which roles review which PRs, when, and which the gate waits for.
  ReviewsPolicy reviews;
  // The `merge_queue:` section: whether ready PRs merge through a queue (docs/MERGE_QUEUE.md).
  MergeQueuePolicy merge_queue;
  bool operator==(const Policy&) const = default;
};

// The built-in server defaults (the field initializers above).
Policy DefaultPolicy();

// A parsed policy file: every key that was written, nothing else.
struct PolicyOverlay {
  struct RequiredChecks {
    std::optional<RuleMode> mode;
    std::optional<std::vector<RequiredCheck>> checks;
    std::optional<Duration> missing_after;
  } required_checks;
  struct Approvals {
    std::optional<RuleMode> mode;
    std::optional<int> min;
    std::optional<bool> block_changes_requested;
    std::optional<bool> require_on_head;
  } approvals;
  struct Mergeable {
    std::optional<RuleMode> mode;
    std::optional<bool> allow_behind;
    std::optional<bool> allow_blocked;
  } mergeable;
  struct Draft {
    std::optional<RuleMode> mode;
    std::optional<DraftVerdict> verdict;
  } draft;
  struct Labels {
    std::optional<RuleMode> mode;
    std::optional<std::vector<std::string>> required;
    std::optional<std::vector<std::string>> blocking;
  } labels;
  struct Size {
    std::optional<RuleMode> mode;
    std::optional<int> max_files;
    std::optional<int> max_lines;
  } size;
  struct ProtectedPaths {
    std::optional<RuleMode> mode;
    std::optional<std::vector<std::string>> paths;
  } protected_paths;
  struct Authors {
    std::optional<RuleMode> mode;
    std::optional<bool> exempt_bots;
    std::optional<bool> exempt_maintainers;
    std::optional<std::vector<AuthorRole>> maintainer_roles;
  } authors;
  struct Actions {
    std::optional<Autonomy> autonomy;
    // Only the classes written; each replaces that class's level and keeps the others.
    std::map<ActionClass, Autonomy> classes;
    std::optional<bool> dry_run;
    std::optional<MergeMethod> merge_method;
    std::optional<Duration> close_grace;
    std::optional<bool> update_branch;
    std::optional<Report> report;
    std::optional<std::string> label_ready;
    std::optional<std::string> label_changes_requested;
    std::optional<std::string> label_needs_human;
    std::optional<std::string> label_pending_closure;
  } actions;
  // The whole `reviews:` section when written (it is never merged key by key).
  std::optional<ReviewsPolicy> reviews;
  // The `merge_queue:` keys written (merged key by key; `priorities` replaces the whole map).
  MergeQueueOverlay merge_queue;
};

// Parses the YAML text of a policy file. `filename` only prefixes error messages. An empty
// document is a valid, empty overlay. On failure returns InvalidArgument whose message holds
// every problem found, one `FILE:LINE: KEY: problem` per line.
Result<PolicyOverlay> ParsePolicyOverlay(std::string_view yaml,
                                         std::string_view filename = "gatehouse.yml");

// Applies `repo` over `defaults`: each key written in the repo file replaces the default.
// Keys the file cannot hold (`actions.app_login`) keep the default's value.
Policy MergePolicies(const Policy& defaults, const PolicyOverlay& repo);

// Loads a policy for a pass: parses `yaml` (the repository's `.github/gatehouse.yml` or an
// operator override file), then merges it over `defaults` (the server defaults, with the
// server's app_login). Nothing is merged when the file has any error: the result is then
// InvalidArgument with one `FILE:LINE: KEY: problem` line per error, `filename` being the
// FILE. An empty text gives `defaults` unchanged.
Result<Policy> ParsePolicy(std::string_view yaml, const Policy& defaults = DefaultPolicy(),
                           std::string_view filename = "gatehouse.yml");

// Durations in the file use decide/yaml_reader.h's ParseDuration ("30m", "2h", "1h30m").

}  // namespace gatehouse::decide
