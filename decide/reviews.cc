#include "decide/reviews.h"

namespace gatehouse::decide {

std::map<std::string, const Review*> LatestDecidingReviews(const PrSnapshot& pr) {
  std::map<std::string, const Review*> latest;
  for (const Review& review : pr.reviews) {
    if (review.user == pr.author) continue;
    if (review.state != "APPROVED" && review.state != "CHANGES_REQUESTED" &&
        review.state != "DISMISSED") {
      continue;
    }
    const Review*& slot = latest[review.user];
    if (slot == nullptr || review.submitted_at >= slot->submitted_at) slot = &review;
  }
  return latest;
}

}  // namespace gatehouse::decide
