// The backend-neutral parts of store/review_runs.h: state names and the review work key.
#include "store/review_runs.h"

#include "store/reviewer_choice.h"

namespace gatehouse {
namespace {

constexpr std::string_view kReviewInfix = "/review/";

}  // namespace

std::string_view RunStateName(RunState state) {
  switch (state) {
    case RunState::kQueued:
      return "queued";
    case RunState::kRunning:
      return "running";
    case RunState::kFinished:
      return "finished";
    case RunState::kDone:
      return "done";
    case RunState::kCancelled:
      return "cancelled";
    case RunState::kSuperseded:
      return "superseded";
    case RunState::kDead:
      return "dead";
  }
  return "queued";
}

bool ParseRunState(std::string_view text, RunState* out) {
  for (RunState s : {RunState::kQueued, RunState::kRunning, RunState::kFinished, RunState::kDone,
                     RunState::kCancelled, RunState::kSuperseded, RunState::kDead}) {
    if (text == RunStateName(s)) {
      *out = s;
      return true;
    }
  }
  return false;
}

bool IsTerminal(RunState state) {
  return state == RunState::kDone || state == RunState::kCancelled ||
         state == RunState::kSuperseded;
}

std::string ReviewWorkKey(std::string_view subject, std::string_view role) {
  std::string key;
  key.reserve(subject.size() + kReviewInfix.size() + role.size());
  key.append(subject).append(kReviewInfix).append(role);
  return key;
}

bool ParseReviewWorkKey(std::string_view key, std::string* subject, std::string* role) {
  const size_t at = key.rfind(kReviewInfix);
  if (at == std::string_view::npos || at == 0) return false;
  const std::string_view s = key.substr(0, at);
  const std::string_view r = key.substr(at + kReviewInfix.size());
  // A subject is "owner/repo#N"; a role is one path segment.
  if (s.find('#') == std::string_view::npos || r.empty() || r.find('/') != std::string_view::npos) {
    return false;
  }
  if (subject != nullptr) *subject = std::string(s);
  if (role != nullptr) *role = std::string(r);
  return true;
}

Status ValidateReviewRunKey(const ReviewRunKey& key) {
  std::string subject, role;
  if (!ParseReviewWorkKey(ReviewWorkKey(key.subject, key.role), &subject, &role) ||
      subject != key.subject || role != key.role) {
    return InvalidArgument(
        "a review run needs a subject \"owner/repo#N\" and a role without '/'"
        ", got subject '" +
        key.subject + "' role '" + key.role + "'");
  }
  if (key.head_sha.empty()) return InvalidArgument("a review run needs a head SHA");
  if (key.trigger.empty()) return InvalidArgument("a review run needs a trigger");
  return Status::Ok();
}

const ReviewerCandidate* ChooseReviewer(const std::vector<ReviewerCandidate>& candidates, std::string_view affinity,
                        bool* by_affinity) {
  *by_affinity = false;
  const ReviewerCandidate* best = nullptr;
  for (const ReviewerCandidate& c : candidates) {
    if (c.paused) continue;
    if (!affinity.empty() && c.spec->name == affinity) {
      *by_affinity = true;
      return &c;
    }
    if (best == nullptr || c.Free() > best->Free()) best = &c;
  }
  return best;
}

Status ValidateReviewerCandidates(std::span<const ReviewerSlotSpec> candidates) {
  if (candidates.empty()) return InvalidArgument("assigning a review run needs candidates");
  for (const ReviewerSlotSpec& c : candidates) {
    if (c.name.empty()) return InvalidArgument("a candidate reviewer has no name");
    if (c.concurrency < 1) {
      return InvalidArgument("reviewer " + c.name + ": concurrency must be >= 1, got " +
                             std::to_string(c.concurrency));
    }
  }
  return Status::Ok();
}

}  // namespace gatehouse
