// The git data API's refs and the merges endpoint of SimHandler (sim/model.h, "branches"):
// GET /git/ref/heads/{branch}, POST /git/refs, PATCH and DELETE /git/refs/heads/{branch}, and
// POST /merges. A branch name may hold '/': it is every path segment after "heads".
#include "sim/rest.h"

namespace gatehouse::sim {
namespace json = boost::json;
namespace {

constexpr std::string_view kHeads = "refs/heads/";

std::string ApiRepo(const std::string& full) { return "https://api.github.com/repos/" + full; }

// GitHub's ref object (git/refs): the branch and the commit it points at.
json::object RenderRef(const std::string& full, const std::string& branch, const std::string& sha) {
  return json::object{{"ref", "refs/heads/" + branch},
                      {"node_id", "REF_" + sha.substr(0, 16)},
                      {"url", ApiRepo(full) + "/git/refs/heads/" + branch},
                      {"object", json::object{{"sha", sha},
                                              {"type", "commit"},
                                              {"url", ApiRepo(full) + "/git/commits/" + sha}}}};
}

// GitHub's commit object (POST /merges answers one).
json::object RenderMergeCommit(const std::string& full, const Model::MergeCommitMade& made,
                               const std::string& message) {
  json::array parents;
  for (const std::string& p : made.parents) {
    parents.push_back(json::object{{"sha", p}, {"url", ApiRepo(full) + "/commits/" + p}});
  }
  return json::object{
      {"sha", made.sha},
      {"node_id", "C_" + made.sha.substr(0, 16)},
      {"url", ApiRepo(full) + "/commits/" + made.sha},
      {"html_url", "https://github.com/" + full + "/commit/" + made.sha},
      {"commit", json::object{{"message", message},
                              // The simulator keeps no trees: the commit's own SHA stands in.
                              {"tree", json::object{{"sha", made.sha}}}}},
      {"parents", std::move(parents)}};
}

// "a/b/c" from parts[from..].
std::string Join(const std::vector<std::string>& parts, size_t from) {
  std::string out;
  for (size_t i = from; i < parts.size(); ++i) out += (i > from ? "/" : "") + parts[i];
  return out;
}

HttpResponse NoContent() {
  HttpResponse r;
  r.status = 204;
  return r;
}

}  // namespace

std::optional<HttpResponse> SimHandler::ServeGit(const HttpRequest& request, const Caller& caller,
                                                 const std::vector<std::string>& parts,
                                                 const json::object& body) {
  const std::string full = parts[1] + "/" + parts[2];
  const std::string& m = request.method;
  const std::string& who = caller.who;
  const size_t n = parts.size();
  if (parts[3] == "merges" && n == 4 && m == "POST") {
    const std::string base = GetString(body, "base");
    const std::string head = GetString(body, "head");
    Model::MergeCommitMade made;
    const Outcome o = model_.MergeIntoBranch(who, full, base, head, &made);
    if (o.status == 204) return NoContent();
    return FromOutcome(
        o, RenderMergeCommit(full, made,
                             GetString(body, "commit_message", "Merge " + head + " into " + base)));
  }
  if (parts[3] != "git" || n < 5) return std::nullopt;
  const bool heads = n >= 7 && parts[5] == "heads";
  if (parts[4] == "ref" && heads && m == "GET") {
    const std::string branch = Join(parts, 6);
    const std::optional<std::string> sha = model_.BranchSha(full, branch);
    if (!sha) return GitHubError(404, "Not Found");
    return JsonValueResponse(200, RenderRef(full, branch, *sha));
  }
  if (parts[4] != "refs") return std::nullopt;
  if (n == 5 && m == "POST") {
    const std::string ref = GetString(body, "ref");
    const std::string sha = GetString(body, "sha");
    const Outcome o = model_.CreateRef(who, full, ref, sha);
    const std::string branch = ref.starts_with(kHeads) ? ref.substr(kHeads.size()) : ref;
    return FromOutcome(o, RenderRef(full, branch, sha));
  }
  if (heads && m == "PATCH") {
    const std::string branch = Join(parts, 6);
    const std::string sha = GetString(body, "sha");
    const Outcome o =
        model_.UpdateRef(who, full, branch, sha, GetBool(body, "force", /*fallback=*/false));
    return FromOutcome(o, RenderRef(full, branch, sha));
  }
  if (heads && m == "DELETE") {
    const Outcome o = model_.DeleteRef(who, full, Join(parts, 6));
    if (o.ok()) return NoContent();
    return GitHubError(o.status, o.message);
  }
  return GitHubError(404, "Not Found");
}

}  // namespace gatehouse::sim
