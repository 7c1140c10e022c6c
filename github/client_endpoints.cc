// The REST endpoints gatehouse uses, as thin wrappers over GitHubClient::Call/GetAllPages
// that build request bodies and pick the fields gatehouse reads out of the responses.
// Missing or mistyped fields read as empty: GitHub adds fields freely and omits some.
#include <boost/json.hpp>

#include "github/base64.h"
#include "github/client.h"
#include "github/json_read.h"

namespace gatehouse {
namespace {

namespace json = boost::json;

using json_read::Int;
using json_read::OptBool;
using json_read::Str;
using json_read::Sub;

std::string RepoPath(const RepoRef& repo) {
  return "/repos/" + UrlEncode(repo.owner) + "/" + UrlEncode(repo.name);
}

PullRequest ParsePull(const json::value& v) {
  PullRequest pr;
  pr.number = Int(v, "number");
  pr.state = Str(v, "state");
  pr.title = Str(v, "title");
  pr.body = Str(v, "body");
  pr.draft = OptBool(v, "draft").value_or(false);
  pr.merged = OptBool(v, "merged").value_or(false);
  pr.mergeable = OptBool(v, "mergeable");
  pr.mergeable_state = Str(v, "mergeable_state");
  pr.head_sha = Str(Sub(v, "head"), "sha");
  pr.head_ref = Str(Sub(v, "head"), "ref");
  pr.base_ref = Str(Sub(v, "base"), "ref");
  pr.base_sha = Str(Sub(v, "base"), "sha");
  pr.author = Str(Sub(v, "user"), "login");
  pr.author_type = Str(Sub(v, "user"), "type");
  pr.author_association = Str(v, "author_association");
  pr.changed_files = static_cast<int>(Int(v, "changed_files"));
  pr.additions = static_cast<int>(Int(v, "additions"));
  pr.deletions = static_cast<int>(Int(v, "deletions"));
  pr.updated_at = Str(v, "updated_at");
  pr.closed_at = Str(v, "closed_at");
  pr.merged_at = Str(v, "merged_at");
  if (const auto* labels = Sub(v, "labels").if_array()) {
    for (const auto& l : *labels) pr.labels.push_back(Str(l, "name"));
  }
  return pr;
}

std::vector<PullRequest> ParsePulls(const json::array& items) {
  std::vector<PullRequest> out;
  for (const auto& item : items) out.push_back(ParsePull(item));
  return out;
}

json::array StringArray(const std::vector<std::string>& values) {
  json::array out;
  for (const auto& s : values) out.emplace_back(s);
  return out;
}

json::object CheckRunBody(const CheckRunSpec& spec) {
  json::object body;
  if (!spec.name.empty()) body["name"] = spec.name;
  if (!spec.head_sha.empty()) body["head_sha"] = spec.head_sha;
  if (!spec.status.empty()) body["status"] = spec.status;
  if (!spec.conclusion.empty()) body["conclusion"] = spec.conclusion;
  if (!spec.external_id.empty()) body["external_id"] = spec.external_id;
  if (!spec.title.empty() || !spec.summary.empty()) {
    body["output"] = json::object{{"title", spec.title}, {"summary", spec.summary}};
  }
  return body;
}

template <typename T>
GitHubResult<GitHubOk> Ignore(GitHubResult<T> r) {
  if (!r.ok()) return r.error();
  return GitHubOk{};
}

}  // namespace

GitHubResult<PullRequest> GitHubClient::GetPullRequest(const CallContext& ctx, const RepoRef& repo,
                                                       int64_t number) {
  auto r = Call(ctx, "GET", RepoPath(repo) + "/pulls/" + std::to_string(number));
  if (!r.ok()) return r.error();
  return ParsePull(r->body);
}

GitHubResult<std::vector<Review>> GitHubClient::ListReviews(const CallContext& ctx,
                                                            const RepoRef& repo, int64_t number) {
  auto r = GetAllPages(
      ctx, RepoPath(repo) + "/pulls/" + std::to_string(number) + "/reviews?per_page=100", "");
  if (!r.ok()) return r.error();
  std::vector<Review> out;
  for (const auto& v : *r) {
    out.push_back(Review{Int(v, "id"), Str(Sub(v, "user"), "login"), Str(v, "state"),
                         Str(v, "commit_id"), Str(v, "body")});
  }
  return out;
}

GitHubResult<std::vector<CheckRun>> GitHubClient::ListCheckRuns(const CallContext& ctx,
                                                                const RepoRef& repo,
                                                                const std::string& ref) {
  auto r =
      GetAllPages(ctx, RepoPath(repo) + "/commits/" + UrlEncode(ref) + "/check-runs?per_page=100",
                  "check_runs");
  if (!r.ok()) return r.error();
  std::vector<CheckRun> out;
  for (const auto& v : *r) {
    out.push_back(CheckRun{Int(v, "id"), Str(v, "name"), Str(v, "status"), Str(v, "conclusion"),
                           Str(v, "head_sha"), Str(Sub(v, "app"), "slug"), Str(v, "external_id")});
  }
  return out;
}

GitHubResult<CombinedStatus> GitHubClient::GetCombinedStatus(const CallContext& ctx,
                                                             const RepoRef& repo,
                                                             const std::string& ref) {
  // One page of 100 contexts; more than that on one commit is not a case gatehouse serves.
  auto r = Call(ctx, "GET", RepoPath(repo) + "/commits/" + UrlEncode(ref) + "/status?per_page=100");
  if (!r.ok()) return r.error();
  CombinedStatus out;
  out.state = Str(r->body, "state");
  if (const auto* statuses = Sub(r->body, "statuses").if_array()) {
    for (const auto& s : *statuses) out.statuses.push_back({Str(s, "context"), Str(s, "state")});
  }
  return out;
}

GitHubResult<std::vector<PullRequest>> GitHubClient::ListPullRequestsForCommit(
    const CallContext& ctx, const RepoRef& repo, const std::string& sha) {
  auto r =
      GetAllPages(ctx, RepoPath(repo) + "/commits/" + UrlEncode(sha) + "/pulls?per_page=100", "");
  if (!r.ok()) return r.error();
  return ParsePulls(*r);
}

GitHubResult<std::vector<PullRequest>> GitHubClient::ListOpenPullRequests(const CallContext& ctx,
                                                                          const RepoRef& repo) {
  auto r = GetAllPages(ctx, RepoPath(repo) + "/pulls?state=open&per_page=100", "");
  if (!r.ok()) return r.error();
  return ParsePulls(*r);
}

GitHubResult<std::string> GitHubClient::GetFileContents(const CallContext& ctx, const RepoRef& repo,
                                                        const std::string& path,
                                                        const std::string& ref) {
  // Path separators stay; each segment is encoded.
  std::string encoded;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string::npos) slash = path.size();
    if (!encoded.empty() || start > 0) encoded += '/';
    encoded += UrlEncode(std::string_view(path).substr(start, slash - start));
    start = slash + 1;
  }
  std::string target = RepoPath(repo) + "/contents/" + encoded;
  if (!ref.empty()) target += "?ref=" + UrlEncode(ref);
  auto r = Call(ctx, "GET", target);
  if (!r.ok()) return r.error();
  if (Str(r->body, "encoding") != "base64") {
    return GitHubError{GitHubErrorKind::kPermanent,
                       r->status,
                       {},
                       "GET " + target + ": not a base64-encoded file"};
  }
  auto decoded = Base64Decode(Str(r->body, "content"));
  if (!decoded) {
    return GitHubError{
        GitHubErrorKind::kPermanent, r->status, {}, "GET " + target + ": invalid base64 content"};
  }
  return *std::move(decoded);
}

GitHubResult<std::vector<RepoRef>> GitHubClient::ListInstallationRepositories(
    const CallContext& ctx) {
  auto r = GetAllPages(ctx, "/installation/repositories?per_page=100", "repositories");
  if (!r.ok()) return r.error();
  std::vector<RepoRef> out;
  for (const auto& v : *r) out.push_back(RepoRef{Str(Sub(v, "owner"), "login"), Str(v, "name")});
  return out;
}

GitHubResult<std::string> GitHubClient::GetAuthenticatedUserLogin(const CallContext& ctx) {
  auto r = Call(ctx, "GET", "/user");
  if (!r.ok()) return r.error();
  std::string login = Str(r->body, "login");
  if (login.empty()) {
    return GitHubError{GitHubErrorKind::kPermanent, r->status, {}, "GET /user: no login"};
  }
  return login;
}

GitHubResult<std::vector<IssueComment>> GitHubClient::ListIssueComments(const CallContext& ctx,
                                                                        const RepoRef& repo,
                                                                        int64_t number) {
  auto r = GetAllPages(
      ctx, RepoPath(repo) + "/issues/" + std::to_string(number) + "/comments?per_page=100", "");
  if (!r.ok()) return r.error();
  std::vector<IssueComment> out;
  for (const auto& v : *r) {
    out.push_back(IssueComment{Int(v, "id"), Str(Sub(v, "user"), "login"), Str(v, "body"),
                               Str(v, "created_at"), Str(v, "updated_at")});
  }
  return out;
}

GitHubResult<std::vector<IssueEvent>> GitHubClient::ListIssueEvents(const CallContext& ctx,
                                                                    const RepoRef& repo,
                                                                    int64_t number) {
  auto r = GetAllPages(
      ctx, RepoPath(repo) + "/issues/" + std::to_string(number) + "/events?per_page=100", "");
  if (!r.ok()) return r.error();
  std::vector<IssueEvent> out;
  for (const auto& v : *r) {
    out.push_back(IssueEvent{Str(v, "event"), Str(Sub(v, "actor"), "login"), Str(v, "created_at")});
  }
  return out;
}

GitHubResult<std::vector<std::string>> GitHubClient::ListPullRequestFiles(const CallContext& ctx,
                                                                          const RepoRef& repo,
                                                                          int64_t number) {
  auto r = GetAllPages(
      ctx, RepoPath(repo) + "/pulls/" + std::to_string(number) + "/files?per_page=100", "");
  if (!r.ok()) return r.error();
  std::vector<std::string> out;
  for (const auto& v : *r) out.push_back(Str(v, "filename"));
  return out;
}

GitHubResult<std::vector<PullFile>> GitHubClient::ListPullRequestFileDetails(const CallContext& ctx,
                                                                             const RepoRef& repo,
                                                                             int64_t number) {
  auto r = GetAllPages(
      ctx, RepoPath(repo) + "/pulls/" + std::to_string(number) + "/files?per_page=100", "");
  if (!r.ok()) return r.error();
  std::vector<PullFile> out;
  for (const auto& v : *r) {
    out.push_back(PullFile{Str(v, "filename"), Str(v, "status"),
                           static_cast<int>(Int(v, "additions")),
                           static_cast<int>(Int(v, "deletions")), Str(v, "patch")});
  }
  return out;
}

GitHubResult<std::vector<Reaction>> GitHubClient::ListReactions(const CallContext& ctx,
                                                                const RepoRef& repo,
                                                                int64_t comment_id) {
  auto r = GetAllPages(
      ctx,
      RepoPath(repo) + "/issues/comments/" + std::to_string(comment_id) + "/reactions?per_page=100",
      "");
  if (!r.ok()) return r.error();
  std::vector<Reaction> out;
  for (const auto& v : *r) {
    out.push_back(Reaction{Int(v, "id"), Str(Sub(v, "user"), "login"), Str(v, "content")});
  }
  return out;
}

GitHubResult<MergeResult> GitHubClient::Merge(const CallContext& ctx, const RepoRef& repo,
                                              int64_t number, const std::string& sha,
                                              const std::string& merge_method) {
  json::object body{{"sha", sha}, {"merge_method", merge_method}};
  auto r = Call(ctx, "PUT", RepoPath(repo) + "/pulls/" + std::to_string(number) + "/merge", body);
  if (!r.ok()) return r.error();
  return MergeResult{OptBool(r->body, "merged").value_or(false), Str(r->body, "sha"),
                     Str(r->body, "message")};
}

GitHubResult<int64_t> GitHubClient::CreateReview(const CallContext& ctx, const RepoRef& repo,
                                                 int64_t number, const std::string& commit_id,
                                                 const std::string& event,
                                                 const std::string& body) {
  json::object req{{"commit_id", commit_id}, {"event", event}};
  if (!body.empty()) req["body"] = body;
  auto r = Call(ctx, "POST", RepoPath(repo) + "/pulls/" + std::to_string(number) + "/reviews", req);
  if (!r.ok()) return r.error();
  return Int(r->body, "id");
}

GitHubResult<GitHubOk> GitHubClient::DismissReview(const CallContext& ctx, const RepoRef& repo,
                                                   int64_t number, int64_t review_id,
                                                   const std::string& message) {
  return Ignore(Call(ctx, "PUT",
                     RepoPath(repo) + "/pulls/" + std::to_string(number) + "/reviews/" +
                         std::to_string(review_id) + "/dismissals",
                     json::object{{"message", message}, {"event", "DISMISS"}}));
}

GitHubResult<int64_t> GitHubClient::CreateIssueComment(const CallContext& ctx, const RepoRef& repo,
                                                       int64_t number, const std::string& body) {
  auto r = Call(ctx, "POST", RepoPath(repo) + "/issues/" + std::to_string(number) + "/comments",
                json::object{{"body", body}});
  if (!r.ok()) return r.error();
  return Int(r->body, "id");
}

GitHubResult<GitHubOk> GitHubClient::UpdateIssueComment(const CallContext& ctx, const RepoRef& repo,
                                                        int64_t comment_id,
                                                        const std::string& body) {
  return Ignore(Call(ctx, "PATCH",
                     RepoPath(repo) + "/issues/comments/" + std::to_string(comment_id),
                     json::object{{"body", body}}));
}

GitHubResult<int64_t> GitHubClient::CreateReaction(const CallContext& ctx, const RepoRef& repo,
                                                   int64_t comment_id, const std::string& content) {
  auto r = Call(ctx, "POST",
                RepoPath(repo) + "/issues/comments/" + std::to_string(comment_id) + "/reactions",
                json::object{{"content", content}});
  if (!r.ok()) return r.error();
  const int64_t id = Int(r->body, "id");
  if (id <= 0) {
    return GitHubError{GitHubErrorKind::kPermanent,
                       r->status,
                       {},
                       "POST reactions on comment " + std::to_string(comment_id) + ": no id"};
  }
  return id;
}

GitHubResult<GitHubOk> GitHubClient::AddLabels(const CallContext& ctx, const RepoRef& repo,
                                               int64_t number,
                                               const std::vector<std::string>& labels) {
  return Ignore(Call(ctx, "POST", RepoPath(repo) + "/issues/" + std::to_string(number) + "/labels",
                     json::object{{"labels", StringArray(labels)}}));
}

GitHubResult<GitHubOk> GitHubClient::RemoveLabel(const CallContext& ctx, const RepoRef& repo,
                                                 int64_t number, const std::string& label) {
  return Ignore(
      Call(ctx, "DELETE",
           RepoPath(repo) + "/issues/" + std::to_string(number) + "/labels/" + UrlEncode(label)));
}

GitHubResult<GitHubOk> GitHubClient::ClosePullRequest(const CallContext& ctx, const RepoRef& repo,
                                                      int64_t number) {
  return Ignore(Call(ctx, "PATCH", RepoPath(repo) + "/pulls/" + std::to_string(number),
                     json::object{{"state", "closed"}}));
}

GitHubResult<int64_t> GitHubClient::CreateCheckRun(const CallContext& ctx, const RepoRef& repo,
                                                   const CheckRunSpec& spec) {
  auto r = Call(ctx, "POST", RepoPath(repo) + "/check-runs", CheckRunBody(spec));
  if (!r.ok()) return r.error();
  return Int(r->body, "id");
}

GitHubResult<GitHubOk> GitHubClient::UpdateCheckRun(const CallContext& ctx, const RepoRef& repo,
                                                    int64_t check_run_id,
                                                    const CheckRunSpec& spec) {
  return Ignore(Call(ctx, "PATCH", RepoPath(repo) + "/check-runs/" + std::to_string(check_run_id),
                     CheckRunBody(spec)));
}

GitHubResult<GitHubOk> GitHubClient::UpdateBranch(const CallContext& ctx, const RepoRef& repo,
                                                  int64_t number,
                                                  const std::string& expected_head_sha) {
  return Ignore(Call(ctx, "PUT",
                     RepoPath(repo) + "/pulls/" + std::to_string(number) + "/update-branch",
                     json::object{{"expected_head_sha", expected_head_sha}}));
}

GitHubResult<GitHubOk> GitHubClient::RequestReviewers(const CallContext& ctx, const RepoRef& repo,
                                                      int64_t number,
                                                      const std::vector<std::string>& users,
                                                      const std::vector<std::string>& teams) {
  json::object body{{"reviewers", StringArray(users)}};
  if (!teams.empty()) body["team_reviewers"] = StringArray(teams);
  return Ignore(Call(ctx, "POST",
                     RepoPath(repo) + "/pulls/" + std::to_string(number) + "/requested_reviewers",
                     body));
}

namespace {

// "heads/<branch>" with each of the branch's '/'-separated parts percent-encoded.
std::string HeadsRef(const std::string& branch) {
  std::string out = "heads";
  size_t start = 0;
  while (start <= branch.size()) {
    const size_t slash = std::min(branch.find('/', start), branch.size());
    out += "/" + UrlEncode(std::string_view(branch).substr(start, slash - start));
    start = slash + 1;
  }
  return out;
}

}  // namespace

GitHubResult<std::string> GitHubClient::GetBranchSha(const CallContext& ctx, const RepoRef& repo,
                                                     const std::string& branch) {
  auto r = Call(ctx, "GET", RepoPath(repo) + "/git/ref/" + HeadsRef(branch));
  if (!r.ok()) return r.error();
  std::string sha = Str(Sub(r->body, "object"), "sha");
  if (sha.empty()) {
    return GitHubError{GitHubErrorKind::kPermanent, r->status, {},
                       "GET ref heads/" + branch + ": no object.sha"};
  }
  return sha;
}

GitHubResult<GitHubOk> GitHubClient::CreateBranch(const CallContext& ctx, const RepoRef& repo,
                                                  const std::string& branch,
                                                  const std::string& sha) {
  return Ignore(Call(ctx, "POST", RepoPath(repo) + "/git/refs",
                     json::object{{"ref", "refs/heads/" + branch}, {"sha", sha}}));
}

GitHubResult<GitHubOk> GitHubClient::MoveBranch(const CallContext& ctx, const RepoRef& repo,
                                                const std::string& branch, const std::string& sha,
                                                bool force) {
  return Ignore(Call(ctx, "PATCH", RepoPath(repo) + "/git/refs/" + HeadsRef(branch),
                     json::object{{"sha", sha}, {"force", force}}));
}

GitHubResult<GitHubOk> GitHubClient::DeleteBranch(const CallContext& ctx, const RepoRef& repo,
                                                  const std::string& branch) {
  return Ignore(Call(ctx, "DELETE", RepoPath(repo) + "/git/refs/" + HeadsRef(branch)));
}

GitHubResult<std::string> GitHubClient::MergeIntoBranch(const CallContext& ctx,
                                                        const RepoRef& repo,
                                                        const std::string& base,
                                                        const std::string& head,
                                                        const std::string& message) {
  json::object body{{"base", base}, {"head", head}};
  if (!message.empty()) body["commit_message"] = message;
  auto r = Call(ctx, "POST", RepoPath(repo) + "/merges", body);
  if (!r.ok()) return r.error();
  if (r->status == 204) return std::string();  // nothing to merge
  std::string sha = Str(r->body, "sha");
  if (sha.empty()) {
    return GitHubError{GitHubErrorKind::kPermanent, r->status, {},
                       "POST merges into " + base + ": no sha"};
  }
  return sha;
}

}  // namespace gatehouse
