// Model mutations on pull request reviews: submitting one (the App through REST, people
// through the control API) and dismissing one (a maintainer, or branch protection when a push
// makes an approval stale), with GitHub's guards.
#include <algorithm>

#include "base/ascii.h"
#include "sim/app_identity.h"
#include "sim/model.h"

namespace gatehouse::sim {
namespace {

// The effect detail of a review: its event, and the role a gatehouse review run's hidden marker
// names ("<!-- gatehouse:review role=security head=... -->"), so that the invariant checker
// tells one role's review of a head from another's (docs/SIMULATOR.md, "Invariants").
std::string ReviewDetail(const std::string& event, const std::string& body) {
  static constexpr std::string_view kMarker = "<!-- gatehouse:review role=";
  const size_t at = body.rfind(kMarker);
  if (at == std::string::npos) return event;
  const size_t from = at + kMarker.size();
  const size_t end = body.find_first_of(" \n", from);
  if (end == std::string::npos) return event;
  return event + " role=" + body.substr(from, end - from);
}

bool Dismissible(const Review& review) {
  return review.state == "APPROVED" || review.state == "CHANGES_REQUESTED";
}

}  // namespace

Outcome Model::SubmitReview(const std::string& who, const std::string& repo, int number,
                            const std::string& event, const std::string& commit_id,
                            const std::string& body, Review* out) {
  MutexLock lock(&mu_);
  RepoState* rs;
  PullRequest* pr = PullLocked(repo, number, &rs);
  std::string sha = commit_id;
  auto record = [&](Outcome o) REQUIRES(mu_) {
    return RecordLocked(who, "review", repo, number, sha, o, ReviewDetail(event, body));
  };
  if (pr == nullptr) return record({404, "Not Found"});
  if (sha.empty()) sha = pr->head_sha;
  std::string state;
  if (event == "APPROVE") {
    state = "APPROVED";
  } else if (event == "REQUEST_CHANGES") {
    state = "CHANGES_REQUESTED";
  } else if (event == "COMMENT" || event.empty()) {
    state = event.empty() ? "PENDING" : "COMMENTED";
  } else {
    return record({422, "Unprocessable Entity: invalid event " + event});
  }
  if (pr->state != "open") {
    return record({422, "Unprocessable Entity: Can not review a closed pull request"});
  }
  if (std::find(pr->commits.begin(), pr->commits.end(), sha) == pr->commits.end()) {
    return record({422, "Unprocessable Entity: commit_id is not part of the pull request"});
  }
  if ((state == "CHANGES_REQUESTED" || state == "COMMENTED") && body.empty()) {
    return record({422, "Unprocessable Entity: body is required for " + event});
  }
  Review review;
  review.id = ++next_id_;
  review.user = who;
  review.state = state;
  review.commit_id = sha;
  review.body = body;
  review.submitted_at = clock_->Now();
  pr->reviews.push_back(review);
  pr->updated_at = review.submitted_at;
  auto& requested = pr->requested_reviewers;
  requested.erase(std::remove(requested.begin(), requested.end(), who), requested.end());
  if (out) *out = review;
  Outcome o = record({200, ""});
  effects_.back().review_id = review.id;
  if (state != "PENDING") {
    PullRequest view = ViewLocked(*rs, *pr);
    NotifyLocked({.event = "pull_request_review",
                  .action = "submitted",
                  .pr = &view,
                  .review = &review,
                  .sender = who},
                 *rs);
  }
  return o;
}

Outcome Model::DismissReview(const std::string& who, const std::string& repo, int number,
                             const ReviewChoice& choice, Review* out) {
  MutexLock lock(&mu_);
  RepoState* rs;
  PullRequest* pr = PullLocked(repo, number, &rs);
  auto refuse = [&](const std::string& sha, Outcome o) REQUIRES(mu_) {
    return RecordLocked(who, "dismiss_review", repo, number, sha, o);
  };
  if (pr == nullptr) return refuse("", {404, "Not Found"});
  Review* review = nullptr;
  if (choice.review_id != 0) {
    for (Review& r : pr->reviews)
      if (r.id == choice.review_id) review = &r;
    if (review == nullptr) return refuse("", {404, "Not Found: no such review"});
  } else if (!choice.reviewer.empty()) {
    const std::string login = ShownLogin(choice.reviewer);
    for (Review& r : pr->reviews) {
      if (ShownLogin(r.user) == login && Dismissible(r) &&
          (choice.commit_id.empty() || r.commit_id == choice.commit_id))
        review = &r;
    }
    if (review == nullptr) {
      return refuse(choice.commit_id,
                    {404, "Not Found: no APPROVED or CHANGES_REQUESTED review by " + login +
                              (choice.commit_id.empty() ? "" : " on " + choice.commit_id)});
    }
  } else {
    return refuse("", {422, "Unprocessable Entity: review_id or reviewer is required"});
  }
  if (!Dismissible(*review)) {
    const std::string state = AsciiLower(review->state);
    return refuse(review->commit_id, {422, "Unprocessable Entity: Can not dismiss a " + state +
                                               " pull request review"});
  }
  Outcome o = DismissLocked(who, who, *rs, *pr, *review);
  if (out) *out = *review;
  return o;
}

Outcome Model::DismissLocked(const std::string& who, const std::string& sender, RepoState& rs,
                             PullRequest& pr, Review& review) {
  review.state = "DISMISSED";
  pr.updated_at = clock_->Now();
  Outcome o = RecordLocked(
      who, "dismiss_review", rs.repo.full_name(), pr.number, review.commit_id, {200, ""},
      "review=" + std::to_string(review.id) + " user=" + ShownLogin(review.user));
  effects_.back().review_id = review.id;
  PullRequest view = ViewLocked(rs, pr);
  NotifyLocked({.event = "pull_request_review",
                .action = "dismissed",
                .pr = &view,
                .review = &review,
                .sender = sender},
               rs);
  return o;
}

}  // namespace gatehouse::sim
