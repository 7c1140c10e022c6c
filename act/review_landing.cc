// See act/review_landing.h.
#include "act/review_landing.h"

#include "act/reconcile.h"

namespace gatehouse::act {

ReviewLanding CheckReviewLanding(GitHub& github, const CallContext& ctx, const RepoRef& repo,
                                 int64_t number, int64_t review_id, const std::string& sha,
                                 std::string_view event) {
  ReviewLanding landing;
  if (event != "APPROVE" && event != "REQUEST_CHANGES") return landing;
  const std::string review = "review " + std::to_string(review_id);
  auto pr = github.GetPullRequest(ctx, repo, number);
  if (!pr.ok()) {
    landing.note = "the head after " + review + " was not checked: " + pr.error().ToString();
    return landing;
  }
  landing.head = pr->head_sha;
  if (pr->head_sha == sha) return landing;
  landing.stale = true;
  const std::string moved = "the head moved to " + ShortSha(pr->head_sha) + " before " + review +
                            " of " + ShortSha(sha) + " landed";
  auto dismissed = github.DismissReview(
      ctx, repo, number, review_id,
      "gatehouse: this review is of " + ShortSha(sha) + ", which a push replaced with " +
          ShortSha(pr->head_sha) + " before the review landed; it does not count for the new head.");
  // Unprocessable: GitHub had dismissed it already (the repository dismisses stale approvals).
  if (dismissed.ok() || dismissed.error().kind == GitHubErrorKind::kUnprocessable) {
    landing.dismissed = true;
    landing.note = moved + "; dismissed";
  } else {
    landing.note = moved + "; not dismissed: " + dismissed.error().ToString();
  }
  return landing;
}

}  // namespace gatehouse::act
