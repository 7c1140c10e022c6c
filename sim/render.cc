#include "sim/render.h"

#include <algorithm>
#include <cstdint>
#include <limits>

#include "base/ascii.h"
#include "github/signature.h"
#include "sim/app_identity.h"

namespace gatehouse::sim {
namespace {

namespace json = boost::json;

constexpr char kApi[] = "https://api.github.com";

json::value OptTime(const std::optional<Time>& t) {
  if (!t) return nullptr;
  return json::value(GitHubTime(*t));
}

std::string RepoUrl(const Repository& repo) {
  return std::string(kApi) + "/repos/" + repo.full_name();
}

json::object Branch(const Repository& repo, const std::string& ref, const std::string& sha) {
  return {{"label", repo.owner + ":" + ref},
          {"ref", ref},
          {"sha", sha},
          {"user", RenderUser(repo.owner)},
          {"repo", RenderRepo(repo)}};
}

}  // namespace

std::string GitHubTime(Time t) {
  std::string text = FormatTime(std::chrono::floor<std::chrono::seconds>(t));
  text.erase(19, 4);  // ".mmm"
  return text;
}

// A deterministic id per login, so that payloads are stable across runs: the polynomial hash
// h = h * 31 + c, taken modulo 2^64 (unsigned, so long logins wrap instead of overflowing a
// signed integer), read as two's complement and made non-negative, as GitHub's ids are.
int64_t StableUserId(std::string_view login) {
  uint64_t h = 0;
  for (char c : login) h = h * 31 + static_cast<unsigned char>(c);
  const auto id = static_cast<int64_t>(h);  // modular since C++20
  if (id >= 0) return id;
  return id == std::numeric_limits<int64_t>::min() ? std::numeric_limits<int64_t>::max() : -id;
}

json::object RenderUser(const std::string& raw_login, const std::string& type) {
  const bool app = raw_login.rfind("installation:", 0) == 0;
  const std::string login = ShownLogin(raw_login);
  bool bot = app || login.find("[bot]") != std::string::npos;
  return {{"login", login},
          {"id", StableUserId(login)},
          {"type", !type.empty() ? type
                   : bot         ? "Bot"
                                 : "User"},
          {"site_admin", false}};
}

json::object RenderRepo(const Repository& repo) {
  return {{"id", repo.id},
          {"name", repo.name},
          {"full_name", repo.full_name()},
          {"private", false},
          {"owner", RenderUser(repo.owner)},
          {"url", RepoUrl(repo)},
          {"default_branch", repo.default_branch}};
}

json::object RenderPull(const Repository& repo, const PullRequest& pr) {
  json::array labels;
  for (const auto& l : pr.labels) labels.push_back(json::object{{"name", l}});
  json::array reviewers;
  for (const auto& r : pr.requested_reviewers) reviewers.push_back(RenderUser(r));
  json::value mergeable = nullptr;
  if (pr.mergeable) mergeable = *pr.mergeable;
  return {{"url", RepoUrl(repo) + "/pulls/" + std::to_string(pr.number)},
          {"id", pr.id},
          {"number", pr.number},
          {"state", pr.state},
          {"locked", false},
          {"title", pr.title},
          {"user", RenderUser(pr.author, pr.author_type)},
          {"author_association", pr.author_association},
          {"body", pr.body},
          {"created_at", GitHubTime(pr.created_at)},
          {"updated_at", GitHubTime(pr.updated_at)},
          {"closed_at", OptTime(pr.closed_at)},
          {"merged_at", OptTime(pr.merged_at)},
          {"merge_commit_sha",
           pr.merge_commit_sha.empty() ? json::value(nullptr) : json::value(pr.merge_commit_sha)},
          {"labels", std::move(labels)},
          {"requested_reviewers", std::move(reviewers)},
          {"head", Branch(repo, pr.head_ref, pr.head_sha)},
          {"base", Branch(repo, pr.base_ref, pr.base_sha)},
          {"draft", pr.draft},
          {"merged", pr.merged},
          {"mergeable", mergeable},
          {"mergeable_state", pr.mergeable_state},
          {"merged_by", pr.merged ? json::value(RenderUser(pr.merged_by)) : json::value(nullptr)},
          {"commits", static_cast<int64_t>(pr.commits.size())},
          {"additions", pr.additions},
          {"deletions", pr.deletions},
          {"changed_files", pr.changed_files}};
}

json::object RenderPullInList(const Repository& repo, const PullRequest& pr) {
  json::object out = RenderPull(repo, pr);
  for (const char* key : {"merged", "mergeable", "mergeable_state", "merged_by", "commits",
                          "additions", "deletions", "changed_files"}) {
    out.erase(key);
  }
  return out;
}

std::string SyntheticPatch(const std::string& path, int additions, int deletions) {
  if (additions + deletions == 0 || additions + deletions > kMaxSyntheticPatchLines) return "";
  std::string patch = "@@ -" + std::to_string(deletions > 0 ? 1 : 0) + "," +
                      std::to_string(deletions) + " +" + std::to_string(additions > 0 ? 1 : 0) +
                      "," + std::to_string(additions) + " @@";
  for (int i = 1; i <= deletions; ++i) {
    patch += "\n-removed line " + std::to_string(i) + " of " + path;
  }
  for (int i = 1; i <= additions; ++i) {
    patch += "\n+added line " + std::to_string(i) + " of " + path;
  }
  return patch;
}

json::array RenderPullFiles(const PullRequest& pr) {
  json::array out;
  // The lines the described files do not account for, spread over the others.
  int spread_add = pr.additions;
  int spread_del = pr.deletions;
  for (const auto& [path, change] : pr.file_changes) {
    spread_add -= change.additions;
    spread_del -= change.deletions;
  }
  spread_add = std::max(spread_add, 0);
  spread_del = std::max(spread_del, 0);
  const int n = static_cast<int>(pr.files.size() - pr.file_changes.size());
  int i = 0;  // among the files not described
  for (const std::string& path : pr.files) {
    FileChange change;
    if (auto it = pr.file_changes.find(path); it != pr.file_changes.end()) {
      change = it->second;
    } else {
      change.additions = spread_add / n + (i < spread_add % n ? 1 : 0);
      change.deletions = spread_del / n + (i < spread_del % n ? 1 : 0);
      change.patch = SyntheticPatch(path, change.additions, change.deletions);
      ++i;
    }
    json::object file{{"sha", Sha256Hex(pr.head_sha + ":" + path).substr(0, 40)},
                      {"filename", path},
                      {"status", change.status},
                      {"additions", change.additions},
                      {"deletions", change.deletions},
                      {"changes", change.additions + change.deletions}};
    // GitHub leaves `patch` out for binary files and for diffs too large to show.
    if (!change.patch.empty()) file["patch"] = change.patch;
    out.push_back(std::move(file));
  }
  return out;
}

json::object RenderReview(const Repository& repo, int number, const Review& review) {
  return {{"id", review.id},
          {"user", RenderUser(review.user)},
          {"body", review.body},
          {"state", review.state},
          {"commit_id", review.commit_id},
          {"submitted_at", GitHubTime(review.submitted_at)},
          {"pull_request_url", RepoUrl(repo) + "/pulls/" + std::to_string(number)}};
}

json::object RenderCheckRun(const Repository& repo, const CheckRun& run,
                            const std::vector<const PullRequest*>& prs) {
  json::array pulls;
  for (const PullRequest* pr : prs) {
    pulls.push_back(json::object{{"url", RepoUrl(repo) + "/pulls/" + std::to_string(pr->number)},
                                 {"id", pr->id},
                                 {"number", pr->number},
                                 {"head", {{"ref", pr->head_ref}, {"sha", pr->head_sha}}},
                                 {"base", {{"ref", pr->base_ref}, {"sha", pr->base_sha}}}});
  }
  return {
      {"id", run.id},
      {"name", run.name},
      {"head_sha", run.head_sha},
      {"external_id", run.external_id},
      {"url", RepoUrl(repo) + "/check-runs/" + std::to_string(run.id)},
      {"status", run.status},
      {"conclusion", run.conclusion.empty() ? json::value(nullptr) : json::value(run.conclusion)},
      {"started_at", GitHubTime(run.started_at)},
      {"completed_at", OptTime(run.completed_at)},
      {"output", {{"title", run.title}, {"summary", run.summary}}},
      {"app", {{"slug", ShownAppSlug(run.app)}}},
      {"pull_requests", std::move(pulls)}};
}

json::object RenderStatus(const Repository& repo, const CommitStatus& status) {
  (void)repo;
  return {{"id", status.id},
          {"state", status.state},
          {"context", status.context},
          {"description", status.description},
          {"target_url", status.target_url},
          {"created_at", GitHubTime(status.created_at)},
          {"updated_at", GitHubTime(status.created_at)}};
}

json::object RenderComment(const Repository& repo, const Comment& comment) {
  return {{"id", comment.id},
          {"url", RepoUrl(repo) + "/issues/comments/" + std::to_string(comment.id)},
          {"issue_url", RepoUrl(repo) + "/issues/" + std::to_string(comment.number)},
          {"user", RenderUser(comment.user)},
          {"author_association", comment.author_association},
          {"body", comment.body},
          {"created_at", GitHubTime(comment.created_at)},
          {"updated_at", GitHubTime(comment.updated_at)}};
}

json::object RenderReaction(const Reaction& reaction) {
  return {{"id", reaction.id},
          {"node_id", "REA_" + std::to_string(reaction.id)},
          {"user", RenderUser(reaction.user)},
          {"content", reaction.content},
          {"created_at", GitHubTime(reaction.created_at)}};
}

namespace {

// A check suite's head_branch: the branch of the PRs the check is for, else the branch whose
// commit it is (an integration branch); null when neither.
json::value HeadBranch(const Notification& n) {
  if (!n.prs.empty()) return json::value(n.prs.front()->head_ref);
  if (!n.head_branch.empty()) return json::value(n.head_branch);
  return nullptr;
}

}  // namespace

json::object RenderWebhook(const Notification& n) {
  const Repository& repo = *n.repo;
  json::object payload;
  if (!n.action.empty()) payload["action"] = n.action;
  if (n.event == "pull_request" && n.pr) {
    payload["number"] = n.pr->number;
    payload["pull_request"] = RenderPull(repo, *n.pr);
    if (!n.label.empty()) payload["label"] = json::object{{"name", n.label}};
    if (n.action == "synchronize") {
      payload["before"] = n.before;
      payload["after"] = n.pr->head_sha;
    }
  } else if (n.event == "pull_request_review" && n.pr && n.review) {
    json::object review = RenderReview(repo, n.pr->number, *n.review);
    // Webhooks spell the state in lower case (REST: APPROVED, webhook: approved).
    review["state"] = AsciiLower(n.review->state);
    payload["review"] = std::move(review);
    payload["pull_request"] = RenderPull(repo, *n.pr);
  } else if (n.event == "issue_comment" && n.pr && n.comment) {
    json::object issue{
        {"number", n.pr->number},
        {"title", n.pr->title},
        {"state", n.pr->state},
        {"user", RenderUser(n.pr->author, n.pr->author_type)},
        {"author_association", n.pr->author_association},
        {"pull_request", {{"url", RepoUrl(repo) + "/pulls/" + std::to_string(n.pr->number)}}}};
    payload["issue"] = std::move(issue);
    payload["comment"] = RenderComment(repo, *n.comment);
  } else if (n.event == "check_suite" && n.check_run) {
    json::array pulls = RenderCheckRun(repo, *n.check_run, n.prs).at("pull_requests").as_array();
    json::object suite{{"id", n.check_run->id},
                       {"head_sha", n.check_run->head_sha},
                       {"status", "completed"},
                       {"conclusion", n.suite_conclusion},
                       {"app", {{"slug", ShownAppSlug(n.check_run->app)}}},
                       {"pull_requests", std::move(pulls)}};
    suite["head_branch"] = HeadBranch(n);
    payload["check_suite"] = std::move(suite);
  } else if (n.event == "check_run" && n.check_run) {
    json::object run = RenderCheckRun(repo, *n.check_run, n.prs);
    run["check_suite"] =
        json::object{{"head_branch", HeadBranch(n)}, {"head_sha", n.check_run->head_sha}};
    payload["check_run"] = std::move(run);
  } else if (n.event == "status" && n.status) {
    payload["id"] = n.status->id;
    payload["sha"] = n.status->sha;
    payload["name"] = repo.full_name();
    payload["context"] = n.status->context;
    payload["state"] = n.status->state;
    payload["description"] = n.status->description;
    payload["target_url"] = n.status->target_url;
    payload["commit"] = json::object{{"sha", n.status->sha}};
    payload["branches"] = json::array{};
  }
  payload["repository"] = RenderRepo(repo);
  payload["installation"] = json::object{{"id", repo.installation_id}};
  payload["sender"] = RenderUser(n.sender.empty() ? repo.owner : n.sender);
  return payload;
}

DeliveryMeta DeliveryMetaOf(const Notification& n) {
  DeliveryMeta meta{.action = n.action, .prs = {}};
  if (n.pr) meta.prs.push_back(n.pr->number);
  for (const PullRequest* pr : n.prs) meta.prs.push_back(pr->number);
  return meta;
}

}  // namespace gatehouse::sim
