// Head occurrences: which time a pull request's head became its SHA (docs/ACTIONS.md, "Head
// occurrences"). Every action a pass plans is bound to the occurrence it decided on, so a head
// that moved away and came back (a force-push back, a revert of a revert, a reset branch) is
// decided afresh: a merge superseded on the first occurrence never blocks the second.
//
// Occurrences are learned from gatehouse's own reads of the PR, never started by a webhook:
//  - a read (by a pass, or the executor's re-read of a PR that refused a call) whose head
//    differs from the latest occurrence's starts a new occurrence of that SHA — with or without
//    a `synchronize` webhook;
//  - a read of the same head as the latest occurrence's is still a new occurrence when GitHub
//    reported a push (the "pushed" PR fact the router stamps with GitHub's own time) later than
//    that occurrence started and no later than the read: the head went away and came back while
//    no pass looked. A late webhook about an older push carries an older time, and a push the
//    read does not reflect yet (reported later than the read) is left to the next pass, so
//    neither starts one;
//  - a read older than the latest occurrence (its `updated_at` is earlier: a lagging replica)
//    starts nothing: it is Lagging, and the pass reads again shortly instead of deciding on it.
//
// Thread-safety: free functions; the Store is thread-safe, and only the holder of the PR's
// fence can start an occurrence.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "github/github.h"
#include "store/store.h"

namespace gatehouse::act {

// Pushes come from the `pushed` PR fact (decide/pr_facts.h): the new head, at GitHub's time.

// The latest push webhooks reported: its new head and GitHub's time of it.
struct ReportedPush {
  std::string head_sha;
  Time at;
};
std::optional<ReportedPush> LastReportedPush(const std::vector<PrFact>& facts);

// A read that lags behind the latest occurrence is Lagging only for this long after that
// occurrence started: replicas lag by seconds, and a clock that disagrees for longer must not
// stop every pass.
inline constexpr Duration kLaggingReadWindow = std::chrono::minutes(1);

struct HeadObservation {
  enum class Kind {
    kOccurrence,  // decide on `occurrence`
    kLagging,     // the read is older than `occurrence`, the latest: decide nothing on it
  };
  Kind kind = Kind::kOccurrence;
  HeadOccurrence occurrence;
};

// Which occurrence of `pr.head_sha` a read made by the holder of `fence` on `subject` shows, by
// the rules above; a new occurrence is recorded (fenced) before it is returned. kFenceLost when
// another worker holds the PR.
Result<HeadObservation> ObserveHead(Store& store, const std::string& subject, int64_t fence,
                                    const PullRequest& pr,
                                    const std::optional<ReportedPush>& last_push, Time now);

}  // namespace gatehouse::act
