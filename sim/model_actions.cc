// Model mutations that the App performs through the REST API, with GitHub's guards.
#include <algorithm>

#include "base/ascii.h"
#include "sim/model.h"

namespace gatehouse::sim {

Outcome Model::Merge(const std::string& who, const std::string& repo, int number,
                     const std::string& sha, const std::string& method) {
  MutexLock lock(&mu_);
  RepoState* rs;
  PullRequest* pr = PullLocked(repo, number, &rs);
  auto record = [&](Outcome o) REQUIRES(mu_) -> Outcome {
    return RecordLocked(who, "merge", repo, number, sha, o);
  };
  if (pr == nullptr) return record({404, "Not Found"});
  if (pr->state != "open") return record({405, "Pull Request is not mergeable"});
  // GitHub checks the head first: a stale `sha` is a conflict whatever the mergeability.
  if (!sha.empty() && sha != pr->head_sha) {
    return record({409, "Head branch was modified. Review and try the merge again."});
  }
  PullRequest view = ViewLocked(*rs, *pr);
  if (pr->draft || !view.mergeable.has_value() || !*view.mergeable) {
    return record({405, "Pull Request is not mergeable"});
  }
  const std::string untested = UntestedLocked(*rs, *pr);
  if (!untested.empty() && rs->repo.protection.enforce) return record({405, untested});
  Time now = clock_->Now();
  pr->state = "closed";
  pr->merged = true;
  pr->merged_by = who;
  pr->merge_commit_sha = NewShaLocked();
  pr->merged_at = pr->closed_at = pr->updated_at = now;
  rs->repo.default_sha = pr->merge_commit_sha;
  rs->commits.Commit(rs->repo.default_sha);
  rs->commits.Landed(number, pr->head_sha);
  BaseMovedLocked(*rs, pr->base_ref);  // other open PRs on the base are now behind it
  Outcome out = record({200, "Pull Request successfully merged"});
  effects_.back().untested = untested;
  PullRequest after = ViewLocked(*rs, *pr);
  NotifyLocked({.event = "pull_request", .action = "closed", .pr = &after, .sender = who}, *rs);
  (void)method;
  return out;
}

Outcome Model::UpdateBranch(const std::string& who, const std::string& repo, int number,
                            const std::string& expected_head_sha) {
  MutexLock lock(&mu_);
  RepoState* rs;
  PullRequest* pr = PullLocked(repo, number, &rs);
  auto record = [&](Outcome o) REQUIRES(mu_) {
    return RecordLocked(who, "update_branch", repo, number, expected_head_sha, o);
  };
  if (pr == nullptr) return record({404, "Not Found"});
  if (pr->state != "open") return record({422, "Unprocessable Entity: pull request is closed"});
  if (!expected_head_sha.empty() && expected_head_sha != pr->head_sha) {
    return record({422, "expected head sha didn't match current head ref."});
  }
  if (!pr->behind) return record({422, "There are no new commits on the base branch."});
  if (pr->conflicted) return record({422, "merge conflict between base and head"});
  Outcome o = record({202, "Updating pull request branch."});  // `head`: the old head
  const std::string before = pr->head_sha;
  pr->head_sha = NewShaLocked();
  pr->commits.push_back(pr->head_sha);
  rs->commits.UpdateHead(number, pr->head_sha, before);
  pr->base_sha = rs->repo.default_sha;
  pr->behind = false;
  pr->up_to_date.push_back(pr->head_sha);
  pr->head_pushed_at = pr->updated_at = clock_->Now();
  HeadMovedLocked(*rs, *pr, before, who);
  return o;
}

Outcome Model::SetState(const std::string& who, const std::string& repo, int number,
                        const std::string& state) {
  MutexLock lock(&mu_);
  RepoState* rs;
  PullRequest* pr = PullLocked(repo, number, &rs);
  auto record = [&](Outcome o) REQUIRES(mu_) {
    return RecordLocked(who, state == "closed" ? "close" : "reopen", repo, number,
                        pr ? pr->head_sha : "", o);
  };
  if (pr == nullptr) return record({404, "Not Found"});
  if (state != "open" && state != "closed") {
    return record({422, "Unprocessable Entity: invalid state"});
  }
  if (state == "open" && pr->merged) {
    return record({422, "Unprocessable Entity: cannot reopen a merged pull request"});
  }
  if (pr->state == state) return record({200, "unchanged"});
  pr->state = state;
  pr->updated_at = clock_->Now();
  if (state == "closed") {
    pr->closed_at = pr->updated_at;
  } else {
    pr->closed_at.reset();
  }
  Outcome o = record({200, ""});
  PullRequest view = ViewLocked(*rs, *pr);
  NotifyLocked({.event = "pull_request",
                .action = state == "closed" ? "closed" : "reopened",
                .pr = &view,
                .sender = who},
               *rs);
  return o;
}

Outcome Model::SetDraft(const std::string& who, const std::string& repo, int number, bool draft) {
  MutexLock lock(&mu_);
  RepoState* rs;
  PullRequest* pr = PullLocked(repo, number, &rs);
  auto record = [&](Outcome o) REQUIRES(mu_) {
    return RecordLocked(who, draft ? "convert_to_draft" : "ready_for_review", repo, number,
                        pr ? pr->head_sha : "", o);
  };
  if (pr == nullptr) return record({404, "Not Found"});
  if (pr->state != "open") return record({422, "Unprocessable Entity: pull request is closed"});
  if (pr->draft == draft) return record({200, "unchanged"});
  pr->draft = draft;
  pr->updated_at = clock_->Now();
  Outcome o = record({200, ""});
  PullRequest view = ViewLocked(*rs, *pr);
  NotifyLocked({.event = "pull_request",
                .action = draft ? "converted_to_draft" : "ready_for_review",
                .pr = &view,
                .sender = who},
               *rs);
  return o;
}

Outcome Model::AddLabels(const std::string& who, const std::string& repo, int number,
                         const std::vector<std::string>& labels) {
  MutexLock lock(&mu_);
  RepoState* rs;
  PullRequest* pr = PullLocked(repo, number, &rs);
  std::string detail;
  for (const auto& l : labels) detail += (detail.empty() ? "" : ",") + l;
  if (pr == nullptr) {
    return RecordLocked(who, "label_add", repo, number, "", {404, "Not Found"}, detail);
  }
  Outcome o = RecordLocked(who, "label_add", repo, number, pr->head_sha, {200, ""}, detail);
  for (const auto& label : labels) {
    if (std::find(pr->labels.begin(), pr->labels.end(), label) != pr->labels.end()) continue;
    pr->labels.push_back(label);
    PullRequest view = ViewLocked(*rs, *pr);
    NotifyLocked(
        {.event = "pull_request", .action = "labeled", .pr = &view, .label = label, .sender = who},
        *rs);
  }
  return o;
}

Outcome Model::RemoveLabel(const std::string& who, const std::string& repo, int number,
                           const std::string& label) {
  MutexLock lock(&mu_);
  RepoState* rs;
  PullRequest* pr = PullLocked(repo, number, &rs);
  if (pr == nullptr) {
    return RecordLocked(who, "label_remove", repo, number, "", {404, "Not Found"}, label);
  }
  auto it = std::find(pr->labels.begin(), pr->labels.end(), label);
  if (it == pr->labels.end()) {
    return RecordLocked(who, "label_remove", repo, number, pr->head_sha,
                        {404, "Label does not exist"}, label);
  }
  pr->labels.erase(it);
  Outcome o = RecordLocked(who, "label_remove", repo, number, pr->head_sha, {200, ""}, label);
  PullRequest view = ViewLocked(*rs, *pr);
  NotifyLocked(
      {.event = "pull_request", .action = "unlabeled", .pr = &view, .label = label, .sender = who},
      *rs);
  return o;
}

Outcome Model::RequestReviewers(const std::string& who, const std::string& repo, int number,
                                const std::vector<std::string>& reviewers) {
  MutexLock lock(&mu_);
  RepoState* rs;
  PullRequest* pr = PullLocked(repo, number, &rs);
  std::string detail;
  for (const auto& r : reviewers) detail += (detail.empty() ? "" : ",") + r;
  auto record = [&](Outcome o) REQUIRES(mu_) {
    return RecordLocked(who, "request_reviewers", repo, number, pr ? pr->head_sha : "", o, detail);
  };
  if (pr == nullptr) return record({404, "Not Found"});
  if (pr->state != "open") {
    return record({422, "Unprocessable Entity: pull request is closed"});
  }
  for (const auto& r : reviewers) {
    if (r == pr->author) {
      return record({422, "Review cannot be requested from pull request author."});
    }
  }
  for (const auto& r : reviewers) {
    auto& req = pr->requested_reviewers;
    if (std::find(req.begin(), req.end(), r) == req.end()) req.push_back(r);
  }
  Outcome o = record({201, ""});
  PullRequest view = ViewLocked(*rs, *pr);
  NotifyLocked({.event = "pull_request", .action = "review_requested", .pr = &view, .sender = who},
               *rs);
  return o;
}

std::string Model::AssociationLocked(const RepoState& rs, const PullRequest& pr,
                                     const std::string& who) const {
  if (who == pr.author) return pr.author_association;
  for (const std::string& m : rs.repo.members) {
    if (EqualsIgnoreCase(m, who)) return "MEMBER";
  }
  return "NONE";
}

Outcome Model::AddComment(const std::string& who, const std::string& repo, int number,
                          const std::string& body, Comment* out) {
  MutexLock lock(&mu_);
  RepoState* rs;
  PullRequest* pr = PullLocked(repo, number, &rs);
  if (pr == nullptr) return RecordLocked(who, "comment", repo, number, "", {404, "Not Found"});
  if (body.empty()) {
    return RecordLocked(who, "comment", repo, number, pr->head_sha,
                        {422, "Unprocessable Entity: body is missing"});
  }
  Comment c;
  c.id = ++next_id_;
  c.number = number;
  c.user = who;
  c.author_association = AssociationLocked(*rs, *pr, who);
  c.body = body;
  c.created_at = c.updated_at = clock_->Now();
  rs->comments.push_back(c);
  if (out) *out = c;
  Outcome o = RecordLocked(who, "comment", repo, number, pr->head_sha, {201, ""},
                           "id=" + std::to_string(c.id));
  PullRequest view = ViewLocked(*rs, *pr);
  NotifyLocked(
      {.event = "issue_comment", .action = "created", .pr = &view, .comment = &c, .sender = who},
      *rs);
  return o;
}

Outcome Model::EditComment(const std::string& who, const std::string& repo, int64_t comment_id,
                           const std::string& body, Comment* out) {
  MutexLock lock(&mu_);
  RepoState* rs = FindLocked(repo);
  std::string detail = "id=" + std::to_string(comment_id);
  if (rs == nullptr) return RecordLocked(who, "comment_edit", repo, 0, "", {404, "Not Found"});
  for (auto& c : rs->comments) {
    if (c.id != comment_id) continue;
    c.body = body;
    c.updated_at = clock_->Now();
    if (out) *out = c;
    auto it = rs->pulls.find(c.number);
    Outcome o = RecordLocked(who, "comment_edit", repo, c.number,
                             it == rs->pulls.end() ? "" : it->second.head_sha, {200, ""}, detail);
    if (it != rs->pulls.end()) {
      PullRequest view = ViewLocked(*rs, it->second);
      NotifyLocked(
          {.event = "issue_comment", .action = "edited", .pr = &view, .comment = &c, .sender = who},
          *rs);
    }
    return o;
  }
  return RecordLocked(who, "comment_edit", repo, 0, "", {404, "Not Found"}, detail);
}

Outcome Model::UpsertCheckRun(const std::string& who, const std::string& repo, CheckRun run,
                              CheckRun* out) {
  MutexLock lock(&mu_);
  RepoState* rs = FindLocked(repo);
  if (rs == nullptr) return RecordLocked(who, "check_run", repo, 0, "", {404, "Not Found"});
  CheckRun* stored = nullptr;
  const bool creating = run.id == 0;
  std::string action = "created";
  if (run.id != 0) {
    for (auto& r : rs->check_runs)
      if (r.id == run.id) stored = &r;
    if (stored == nullptr) {
      return RecordLocked(who, "check_run", repo, 0, "", {404, "Not Found"});
    }
    if (!run.name.empty()) stored->name = run.name;
    if (!run.title.empty()) stored->title = run.title;
    if (!run.summary.empty()) stored->summary = run.summary;
    if (!run.external_id.empty()) stored->external_id = run.external_id;
    if (!run.status.empty()) stored->status = run.status;
    if (!run.conclusion.empty()) {
      stored->conclusion = run.conclusion;
      stored->status = "completed";
    }
  } else {
    if (run.head_sha.empty() || run.name.empty()) {
      return RecordLocked(who, "check_run", repo, 0, run.head_sha,
                          {422, "Unprocessable Entity: name and head_sha are required"});
    }
    run.id = ++next_id_;
    run.app = who;
    run.started_at = clock_->Now();
    if (run.status.empty()) run.status = "queued";
    if (!run.conclusion.empty()) run.status = "completed";
    rs->check_runs.push_back(run);
    stored = &rs->check_runs.back();
  }
  if (stored->status == "completed") {
    if (!stored->completed_at) stored->completed_at = clock_->Now();
    action = "completed";
  }
  if (out) *out = *stored;
  Outcome o = RecordLocked(who, "check_run", repo, 0, stored->head_sha, {creating ? 201 : 200, ""},
                           stored->name + ":" + stored->status + ":" + stored->conclusion);
  std::vector<PullRequest> views;
  for (const auto& [n, pr] : rs->pulls)
    if (pr.state == "open" && pr.head_sha == stored->head_sha) views.push_back(ViewLocked(*rs, pr));
  Notification note{.event = "check_run", .action = action, .check_run = stored, .sender = who};
  for (const auto& v : views) note.prs.push_back(&v);
  if (views.empty()) note.head_branch = HeadBranchLocked(*rs, stored->head_sha);
  NotifyLocked(note, *rs);
  if (action == "completed") {
    // The suite (this app's runs on this SHA) completes with its last run, as on GitHub.
    bool all_done = true;
    bool all_green = true;
    for (const auto& r : rs->check_runs) {
      if (r.head_sha != stored->head_sha || r.app != stored->app) continue;
      all_done &= r.status == "completed";
      all_green &=
          r.conclusion == "success" || r.conclusion == "neutral" || r.conclusion == "skipped";
    }
    if (all_done) {
      note.event = "check_suite";
      note.suite_conclusion = all_green ? "success" : "failure";
      NotifyLocked(note, *rs);
    }
  }
  return o;
}

Outcome Model::SetStatus(const std::string& who, const std::string& repo, CommitStatus status,
                         CommitStatus* out) {
  MutexLock lock(&mu_);
  RepoState* rs = FindLocked(repo);
  if (rs == nullptr) return RecordLocked(who, "status", repo, 0, "", {404, "Not Found"});
  static const char* kStates[] = {"error", "failure", "pending", "success"};
  if (std::find(std::begin(kStates), std::end(kStates), status.state) == std::end(kStates)) {
    return RecordLocked(who, "status", repo, 0, status.sha,
                        {422, "Unprocessable Entity: invalid state"});
  }
  if (status.context.empty()) status.context = "default";
  status.id = ++next_id_;
  status.created_at = clock_->Now();
  rs->statuses.push_back(status);
  if (out) *out = status;
  Outcome o = RecordLocked(who, "status", repo, 0, status.sha, {201, ""},
                           status.context + ":" + status.state);
  std::vector<PullRequest> views;
  for (const auto& [n, pr] : rs->pulls)
    if (pr.state == "open" && pr.head_sha == status.sha) views.push_back(ViewLocked(*rs, pr));
  Notification note{.event = "status", .status = &rs->statuses.back(), .sender = who};
  for (const auto& v : views) note.prs.push_back(&v);
  NotifyLocked(note, *rs);
  return o;
}

std::string Model::IssueToken(int64_t installation_id, Time* expires_at) {
  MutexLock lock(&mu_);
  std::string token = "ghs_sim" + NewShaLocked().substr(0, 30);
  Time expiry = clock_->Now() + options_.token_ttl;
  tokens_[token] = {installation_id, expiry};
  if (expires_at) *expires_at = expiry;
  return token;
}

std::optional<int64_t> Model::TokenInstallation(const std::string& token) const {
  MutexLock lock(&mu_);
  auto it = tokens_.find(token);
  if (it == tokens_.end() || clock_->Now() >= it->second.expires_at) return std::nullopt;
  return it->second.installation_id;
}

}  // namespace gatehouse::sim
