#include "act/head_occurrence.h"

#include <string_view>

namespace gatehouse::act {

std::optional<Time> LastPushAt(const std::vector<PrFact>& facts) {
  std::optional<Time> at;
  for (const PrFact& f : facts) {
    if (f.name == kPushedFact && (!at || f.at > *at)) at = f.at;
  }
  return at;
}

Result<HeadOccurrence> ObserveHead(Store& store, const std::string& subject, int64_t fence,
                                   const PullRequest& pr, std::optional<Time> last_push_at,
                                   Time now) {
  if (pr.head_sha.empty()) return InvalidArgument("the pull request has no head SHA");
  auto latest = store.LatestHeadOccurrence(subject);
  if (!latest.ok()) return latest.status();
  const bool pushed_since = last_push_at && *latest && *last_push_at > (*latest)->github_at;
  if (*latest && (*latest)->head_sha == pr.head_sha && !pushed_since) return **latest;
  // GitHub's time for the read: the PR's updated_at, which is never earlier than the push that
  // made this head. Without one, the latest push known stands in, so that only a push reported
  // later than this read starts yet another occurrence.
  Time github_at = ParseTime(pr.updated_at).value_or(last_push_at.value_or(Time{}));
  return store.StartHeadOccurrence(subject, pr.head_sha, github_at, fence, now);
}

}  // namespace gatehouse::act
