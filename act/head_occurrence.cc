#include "act/head_occurrence.h"

#include "decide/pr_facts.h"

namespace gatehouse::act {
namespace {

// Whether a push GitHub reported shows that the head, read again as `latest`'s SHA, went away
// and came back since `latest` started. GitHub's times have whole seconds: a push in the same
// second as the read counts only if it is the push to the head read (so the read reflects it).
bool PushedSince(const HeadOccurrence& latest, const std::optional<ReportedPush>& push,
                 const std::optional<Time>& read_at, const std::string& head) {
  if (!push || !read_at || push->at <= latest.github_at) return false;
  return push->at < *read_at || (push->at == *read_at && push->head_sha == head);
}

}  // namespace

std::optional<ReportedPush> LastReportedPush(const std::vector<PrFact>& facts) {
  std::optional<ReportedPush> last;
  for (const PrFact& f : facts) {
    if (f.name == decide::kFactPushed && (!last || f.at > last->at)) last = ReportedPush{f.value, f.at};
  }
  return last;
}

Result<HeadObservation> ObserveHead(Store& store, const std::string& subject, int64_t fence,
                                    const PullRequest& pr,
                                    const std::optional<ReportedPush>& last_push, Time now) {
  if (pr.head_sha.empty()) return InvalidArgument("the pull request has no head SHA");
  auto latest = store.ledger().LatestHeadOccurrence(subject);
  if (!latest.ok()) return latest.status();
  const std::optional<Time> read_at = ParseTime(pr.updated_at);
  if (*latest) {
    const HeadOccurrence& l = **latest;
    if (l.head_sha == pr.head_sha && !PushedSince(l, last_push, read_at, pr.head_sha)) {
      return HeadObservation{HeadObservation::Kind::kOccurrence, l};
    }
    if (l.head_sha != pr.head_sha && read_at && *read_at < l.github_at &&
        now - l.observed_at < kLaggingReadWindow) {
      return HeadObservation{HeadObservation::Kind::kLagging, l};
    }
  }
  // GitHub's time for the read: the PR's updated_at, which is never earlier than the push that
  // made this head. Without one, the latest push known stands in, so that only a push reported
  // later than this read starts yet another occurrence.
  const Time github_at = read_at.value_or(last_push ? last_push->at : Time{});
  auto started = store.ledger().StartHeadOccurrence(subject, pr.head_sha, github_at, fence, now);
  if (!started.ok()) return started.status();
  return HeadObservation{HeadObservation::Kind::kOccurrence, *started};
}

}  // namespace gatehouse::act
