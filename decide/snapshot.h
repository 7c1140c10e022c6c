// PrSnapshot: everything one pass knows about a pull request, as plain values.
//
// The pass reads the live PR, its reviews, the check runs and commit statuses of the head
// SHA, and fills this struct inside its lease; decide/ never performs I/O itself. `now` is
// passed in explicitly (from the injected Clock) so evaluation is a pure function: the same
// snapshot and policy always give the same verdict.
//
// Plain value type; not synchronized.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "decide/review_types.h"

namespace gatehouse::decide {

// GitHub's `author_association`, reduced to what policy needs.
enum class AuthorRole {
  kNone,          // NONE, FIRST_TIMER, FIRST_TIME_CONTRIBUTOR, MANNEQUIN
  kContributor,   // CONTRIBUTOR
  kCollaborator,  // COLLABORATOR
  kMember,        // MEMBER
  kOwner,         // OWNER
};

struct Review {
  std::string user;
  std::string state;      // APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED, PENDING
  std::string commit_id;  // the head SHA the review was made on
  Time submitted_at{};
};

struct CheckRun {
  int64_t id = 0;  // larger is newer: a re-run of the same name supersedes older runs
  std::string name;
  std::string app;         // the app's slug, e.g. "github-actions"
  std::string status;      // queued, in_progress, completed, waiting, requested, pending
  std::string conclusion;  // success, failure, neutral, cancelled, skipped, timed_out,
                           // action_required, stale, startup_failure; empty until completed
  std::string head_sha;
};

struct CommitStatus {
  int64_t id = 0;  // larger is newer: the latest status of a context wins
  std::string context;
  std::string state;  // pending, success, failure, error
};

// What the gate knows of one review role at the current head (docs/REVIEWERS.md): the pass fills
// one per role of the policy's `reviews:` that applies to the PR (decide/review_policy.h,
// RoleApplies), from the latest run of that role at snapshot.head_sha.
struct RoleReview {
  std::string role;
  bool required = false;  // the role rule's `required`
  // The run's state (store/review_runs.h, RunStateName): queued, running, finished, done, dead,
  // cancelled, superseded; "missing" when the role has no run at this head.
  std::string state = "missing";
  std::optional<ReviewResult> result;  // the reviewer's answer, once finished
  std::string reviewer;                // "" until assigned
  std::string reason;                  // why it ended (dead, cancelled) or why it is missing
};

struct PrSnapshot {
  int64_t number = 0;
  std::string author;
  AuthorRole author_role = AuthorRole::kNone;
  bool author_is_bot = false;
  bool draft = false;
  std::string state;  // open, closed
  std::string head_sha;
  std::string base_sha;
  std::vector<std::string> labels;

  // GitHub computes mergeability lazily: nullopt means "not computed yet".
  std::optional<bool> mergeable;
  std::string mergeable_state;  // clean, behind, dirty, blocked, unstable, has_hooks, unknown

  int changed_files = 0;
  int additions = 0;
  int deletions = 0;
  std::vector<std::string> changed_paths;

  std::vector<Review> reviews;
  std::vector<CheckRun> check_runs;  // for head_sha; runs on other SHAs are ignored
  std::vector<CommitStatus> statuses;

  // When the head SHA was pushed (or first observed), and when each required-check pattern
  // was first expected on this head (keyed by the pattern as written in the policy). The
  // "missing check" timer starts at the pattern's entry, else at head_pushed_at.
  std::optional<Time> head_pushed_at;
  std::map<std::string, Time> required_check_first_seen;

  // One entry per review role that applies to this PR (empty: no reviews, the gate's `reviews`
  // rule is off).
  std::vector<RoleReview> role_reviews;

  Time now{};  // the evaluation instant, from the injected Clock
};

}  // namespace gatehouse::decide
