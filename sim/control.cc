// The control API of SimHandler, under /_sim/ (documented in docs/SIMULATOR.md). It moves
// the simulated world as people and CI would: those changes emit webhooks like GitHub's and
// are recorded in the effect log under the acting user's login.
#include <algorithm>

#include "sim/expectations.h"
#include "sim/faults.h"
#include "sim/render.h"
#include "sim/rest.h"

namespace gatehouse::sim {
namespace json = boost::json;

namespace {

std::vector<std::string> Strings(const json::object& o, std::string_view key) {
  std::vector<std::string> out;
  if (const auto* arr = o.if_contains(key); arr && arr->is_array()) {
    for (const auto& v : arr->as_array())
      if (v.is_string()) out.emplace_back(v.as_string());
  }
  return out;
}

// A list of positive integers (PR numbers) at `key`; "" when valid or absent.
std::string Numbers(const json::object& o, std::string_view key, std::vector<int>* out) {
  const json::value* arr = o.if_contains(key);
  if (arr == nullptr) return "";
  if (!arr->is_array()) return std::string(key) + " must be an array of PR numbers";
  for (const auto& v : arr->as_array()) {
    if (!v.is_int64() || v.as_int64() <= 0 || v.as_int64() > 1'000'000'000) {
      return std::string(key) + " must be an array of PR numbers";
    }
    out->push_back(static_cast<int>(v.as_int64()));
  }
  return "";
}

// The `protection` and `ci` objects of a new repository (docs/SIMULATOR.md, "Branch
// protection and CI"); "" when valid, else what is wrong.
std::string ParseRepoSettings(const json::object& body, RepoOptions* options) {
  if (const json::value* p = body.if_contains("protection")) {
    if (!p->is_object()) return "protection must be an object";
    const json::object& o = p->as_object();
    for (const auto& [k, v] : o) {
      if (k != "strict" && k != "required_checks" && k != "enforce") {
        return "protection: unknown key " + std::string(k) +
               " (expected strict, required_checks, enforce)";
      }
    }
    options->protection.strict = GetBool(o, "strict", false);
    options->protection.required_checks = Strings(o, "required_checks");
    options->protection.enforce = GetBool(o, "enforce", true);
  }
  if (const json::value* c = body.if_contains("ci")) {
    if (!c->is_object()) return "ci must be an object";
    const json::object& o = c->as_object();
    for (const auto& [k, v] : o) {
      if (k != "checks" && k != "duration_ms" && k != "failing" && k != "failing_later" &&
          k != "hanging_later" && k != "branch_settle_ms") {
        return "ci: unknown key " + std::string(k) +
               " (expected checks, duration_ms, failing, failing_later, hanging_later, "
               "branch_settle_ms)";
      }
    }
    options->ci.checks = Strings(o, "checks");
    const int64_t ms = GetInt(o, "duration_ms", 5'000);
    if (ms < 0 || ms > 86'400'000) return "ci: duration_ms must be between 0 and 86400000";
    options->ci.duration = std::chrono::milliseconds(ms);
    const int64_t settle = GetInt(o, "branch_settle_ms", 500);
    if (settle < 0 || settle > 86'400'000) {
      return "ci: branch_settle_ms must be between 0 and 86400000";
    }
    options->ci.branch_settle = std::chrono::milliseconds(settle);
    for (auto [key, out] : {std::pair{"failing", &options->ci.failing},
                            std::pair{"failing_later", &options->ci.failing_later},
                            std::pair{"hanging_later", &options->ci.hanging_later}}) {
      if (std::string why = Numbers(o, key, out); !why.empty()) return "ci: " + why;
    }
  }
  return "";
}

// `files` of a control call: paths, or objects describing a file in full
// ({"path", "status", "patch", "additions", "deletions"}; the counts default to the patch's
// '+' and '-' lines). "" when valid, else what is wrong.
std::string ParseFiles(const json::value& files, std::vector<std::string>* paths,
                       std::map<std::string, FileChange>* changes) {
  if (!files.is_array()) return "files must be an array";
  for (size_t i = 0; i < files.as_array().size(); ++i) {
    const json::value& f = files.as_array()[i];
    const std::string where = "files[" + std::to_string(i) + "]";
    if (f.is_string()) {
      paths->emplace_back(f.as_string());
      continue;
    }
    if (!f.is_object()) return where + ": expected a path or an object";
    const json::object& o = f.as_object();
    std::string path = GetString(o, "path");
    if (path.empty()) return where + ".path: expected a non-empty string";
    if (const auto* p = o.if_contains("patch"); p && !p->is_string()) {
      return where + ".patch: expected a string";
    }
    FileChange change;
    change.status = GetString(o, "status", change.status);
    change.patch = GetString(o, "patch");
    CountPatchLines(change.patch, &change.additions, &change.deletions);
    change.additions = static_cast<int>(GetInt(o, "additions", change.additions));
    change.deletions = static_cast<int>(GetInt(o, "deletions", change.deletions));
    if (change.additions < 0 || change.deletions < 0) {
      return where + ": additions and deletions must not be negative";
    }
    paths->push_back(path);
    (*changes)[path] = std::move(change);
  }
  return "";
}

json::object RenderEffect(const Effect& e) {
  json::object o{{"seq", e.seq},       {"at", FormatTime(e.at)}, {"who", e.who}, {"kind", e.kind},
                 {"repo", e.repo},     {"number", e.number},     {"sha", e.sha}, {"head", e.head},
                 {"status", e.status}, {"detail", e.detail}};
  if (e.review_id != 0) o["review_id"] = e.review_id;
  if (!e.untested.empty()) o["untested"] = e.untested;
  return o;
}

}  // namespace

HttpResponse SimHandler::ServeChatControl(const HttpRequest& request, const json::object& body,
                                          const std::vector<std::string>& parts) {
  const std::string& m = request.method;
  if (parts.size() == 2 && (m == "GET" || m == "PUT")) {
    if (m == "PUT") {
      if (Status s = chat_.Configure(body); !s.ok())
        return GitHubError(400, "openai: " + s.message());
    }
    return JsonValueResponse(200, chat_.Render());
  }
  if (parts.size() == 3 && parts[2] == "script" && (m == "POST" || m == "DELETE")) {
    if (m == "DELETE") {
      chat_.ClearScript();
    } else if (Status s = chat_.Append(body); !s.ok()) {
      return GitHubError(400, "openai: " + s.message());
    }
    return JsonValueResponse(200, chat_.Render());
  }
  return GitHubError(404, "Not Found");
}

HttpResponse SimHandler::ServeControl(const HttpRequest& request) {
  std::vector<std::string> parts = PathSegments(request.Path());  // "_sim", ...
  const std::string& m = request.method;
  json::object body;
  HttpResponse error;
  if (m != "GET" && !ParseObject(request.body, &body, &error)) return error;
  size_t n = parts.size();

  if (n >= 2 && parts[1] == "openai") return ServeChatControl(request, body, parts);
  if (n == 2 && parts[1] == "app") return ServeAppControl(request, body);
  if (n == 2 && parts[1] == "effects" && m == "GET") {
    auto query = ParseQuery(request.target);
    json::array out;
    for (const auto& e : model_.Effects()) {
      if (query.count("kind") && query["kind"] != e.kind) continue;
      if (query.count("repo") && query["repo"] != e.repo) continue;
      if (query.count("number") && query["number"] != std::to_string(e.number)) continue;
      out.push_back(RenderEffect(e));
    }
    return JsonValueResponse(200, out);
  }
  if (n == 2 && parts[1] == "requests" && (m == "GET" || m == "DELETE")) {
    return JsonValueResponse(200, m == "DELETE" ? requests_.RenderAndReset() : requests_.Render());
  }
  if (n == 2 && parts[1] == "expect" && m == "POST") {
    // Scenario expectations evaluated now, for a harness that plays the world itself.
    const json::value* expect = body.if_contains("expect");
    if (expect == nullptr || !expect->is_array()) {
      return GitHubError(400, "expect must be an array of expectations");
    }
    for (const auto& x : expect->as_array()) {
      if (Status valid = ValidateExpectation(x); !valid.ok()) {
        return GitHubError(400, valid.message());
      }
    }
    json::array results;
    int64_t unmet = 0;
    for (const ExpectationResult& r : EvaluateExpectations(expect->as_array(), model_)) {
      json::array offences;
      for (const auto& o : r.offences) offences.emplace_back(o);
      results.push_back(json::object{
          {"met", r.met()}, {"failure", r.failure}, {"offences", std::move(offences)}});
      unmet += r.met() ? 0 : 1;
    }
    return JsonValueResponse(200, json::object{{"results", std::move(results)}, {"unmet", unmet}});
  }
  if (n == 2 && parts[1] == "state" && m == "GET") {
    json::array repos;
    for (const auto& repo : model_.Repos()) {
      json::object r = RenderRepo(repo);
      r["installation_id"] = repo.installation_id;
      json::array pulls;
      for (const auto& pr : model_.ListPulls(repo.full_name(), "all")) {
        json::object p = RenderPull(repo, pr);
        json::array reviews;
        for (const auto& rv : pr.reviews) reviews.push_back(RenderReview(repo, pr.number, rv));
        p["reviews"] = std::move(reviews);
        json::array runs;
        for (const auto& run : model_.CheckRunsFor(repo.full_name(), pr.head_sha))
          runs.push_back(RenderCheckRun(repo, run, {}));
        p["check_runs"] = std::move(runs);
        json::array comments;
        for (const auto& c : model_.CommentsFor(repo.full_name(), pr.number)) {
          json::object comment = RenderComment(repo, c);
          json::array reactions;
          for (const auto& reaction :
               model_.ReactionsFor(repo.full_name(), c.id).value_or(std::vector<Reaction>{})) {
            reactions.push_back(RenderReaction(reaction));
          }
          comment["reactions"] = std::move(reactions);
          comments.push_back(std::move(comment));
        }
        p["comments"] = std::move(comments);
        pulls.push_back(std::move(p));
      }
      r["pulls"] = std::move(pulls);
      json::object branches;
      for (const auto& [name, sha] : model_.Branches(repo.full_name())) branches[name] = sha;
      r["branches"] = std::move(branches);  // besides the default one
      repos.push_back(std::move(r));
    }
    return JsonValueResponse(200, json::object{{"repos", std::move(repos)}});
  }
  if (n == 2 && parts[1] == "webhook-url") {
    if (options_.webhooks == nullptr) return GitHubError(409, "this simulator sends no webhooks");
    if (m == "PUT") {
      std::string url = GetString(body, "url");
      // One URL, or several comma-separated (nodes behind a balancer; sim/webhooks.h).
      for (size_t start = 0; start <= url.size();) {
        size_t comma = url.find(',', start);
        if (comma == std::string::npos) comma = url.size();
        const std::string one = url.substr(start, comma - start);
        if (one.rfind("http://", 0) != 0 && one.rfind("https://", 0) != 0) {
          return GitHubError(422, "url must be an http:// or https:// URL, or several "
                                  "comma-separated");
        }
        start = comma + 1;
      }
      options_.webhooks->SetUrl(std::move(url));
    } else if (m != "GET") {
      return GitHubError(405, "use GET or PUT");
    }
    return JsonValueResponse(200, json::object{{"url", options_.webhooks->url()}});
  }
  if (n == 2 && parts[1] == "faults") {
    MutexLock lock(&mu_);
    const int64_t now_s = NowEpochSeconds();
    SettleExhaustionLocked(now_s);
    if (m == "PUT") {
      auto settings = ParseFaultSettings(body, now_s);
      if (!settings.ok()) return GitHubError(400, "faults: " + settings.status().message());
      faults_ = std::move(settings->rest);
      if (options_.webhooks != nullptr) options_.webhooks->SetFaults(std::move(settings->delivery));
    } else if (m != "GET") {
      return GitHubError(405, "use GET or PUT");
    }
    DeliveryFaults delivery;
    if (options_.webhooks != nullptr) delivery = options_.webhooks->faults();
    return JsonValueResponse(200, RenderFaultSettings(faults_, delivery, now_s));
  }
  if (n == 2 && parts[1] == "repos" && m == "POST") {
    std::map<std::string, std::string> files;
    if (const auto* f = body.if_contains("files"); f && f->is_object()) {
      for (const auto& [k, v] : f->as_object())
        if (v.is_string()) files[std::string(k)] = std::string(v.as_string());
    }
    RepoOptions options{.dismiss_stale_reviews = GetBool(body, "dismiss_stale_reviews", false),
                        .members = Strings(body, "members")};
    if (std::string why = ParseRepoSettings(body, &options); !why.empty()) {
      return GitHubError(400, why);
    }
    auto repo = model_.CreateRepo(GetString(body, "owner"), GetString(body, "name"),
                                  GetInt(body, "installation_id", 1), std::move(files),
                                  std::move(options));
    if (!repo.ok()) {
      return GitHubError(repo.status().code() == StatusCode::kAlreadyExists ? 422 : 400,
                         repo.status().message());
    }
    return JsonValueResponse(201, RenderRepo(*repo));
  }
  const bool delete_label = m == "DELETE" && n == 8 && parts[6] == "labels";
  if (n < 5 || parts[1] != "repos" || (m != "POST" && !delete_label)) {
    return GitHubError(404, "Not Found");
  }
  const std::string full = parts[2] + "/" + parts[3];
  auto repo = model_.GetRepo(full);
  if (!repo) return GitHubError(404, "no such repository");
  const std::string& what = parts[4];

  if (what == "pulls" && n == 5) {
    NewPull np;
    np.title = GetString(body, "title", np.title);
    np.body = GetString(body, "body");
    np.author = GetString(body, "author", np.author);
    np.author_association = GetString(body, "author_association", np.author_association);
    np.author_type = GetString(body, "author_type", np.author_type);
    if (const json::value* files = body.if_contains("files")) {
      np.files.clear();
      std::string bad = ParseFiles(*files, &np.files, &np.file_changes);
      if (!bad.empty()) return GitHubError(400, bad);
    }
    np.head_ref = GetString(body, "head_ref", np.head_ref);
    np.head_sha = GetString(body, "head_sha");
    np.base_ref = GetString(body, "base_ref");
    np.draft = GetBool(body, "draft", false);
    np.labels = Strings(body, "labels");
    np.changed_files = static_cast<int>(GetInt(body, "changed_files", -1));
    np.additions = static_cast<int>(GetInt(body, "additions", 1));
    np.deletions = static_cast<int>(GetInt(body, "deletions", 0));
    auto pr = model_.CreatePull(full, np);
    if (!pr.ok()) return GitHubError(400, pr.status().message());
    return JsonValueResponse(201, RenderPull(*repo, *pr));
  }
  if (what == "pulls" && (n == 7 || delete_label)) {
    int number = ToNumber(parts[5]);
    const std::string& action = parts[6];
    std::string user = GetString(body, "user", "octocat");
    Outcome o{404, "Not Found"};
    if (delete_label) {
      o = model_.RemoveLabel(user, full, number, parts[7]);
    } else if (action == "push") {
      std::optional<std::vector<std::string>> files;
      std::map<std::string, FileChange> changes;
      if (const json::value* given = body.if_contains("files")) {
        files.emplace();
        std::string bad = ParseFiles(*given, &*files, &changes);
        if (!bad.empty()) return GitHubError(400, bad);
      }
      o = model_.Push(user, full, number, GetString(body, "sha"), std::move(files),
                      std::move(changes));
    } else if (action == "labels") {
      o = model_.AddLabels(user, full, number, Strings(body, "labels"));
    } else if (action == "draft") {
      o = model_.SetDraft(user, full, number, GetBool(body, "draft", true));
    } else if (action == "base") {
      o = model_.MoveBase(full, number, GetBool(body, "conflicted", false));
    } else if (action == "reviews") {
      Review review;
      o = model_.SubmitReview(user, full, number, GetString(body, "event", "APPROVE"),
                              GetString(body, "commit_id"), GetString(body, "body"), &review);
    } else if (action == "dismissals") {
      Review review;
      o = model_.DismissReview(user, full, number,
                               {.review_id = GetInt(body, "review_id", 0),
                                .reviewer = GetString(body, "reviewer"),
                                .commit_id = GetString(body, "commit_id")},
                               &review);
      if (o.ok()) return JsonValueResponse(200, RenderReview(*repo, number, review));
    } else if (action == "comments") {
      o = model_.AddComment(user, full, number, GetString(body, "body"), nullptr);
    } else if (action == "close" || action == "reopen") {
      o = model_.SetState(user, full, number, action == "close" ? "closed" : "open");
    }
    if (!o.ok()) return GitHubError(o.status, o.message);
    auto pr = model_.GetPull(full, number);
    return FromOutcome(o, RenderPull(*repo, *pr));
  }
  if (what == "comments" && n == 7 && parts[6] == "reactions") {
    // A person reacting to a comment.
    Reaction reaction;
    Outcome o = model_.AddReaction(GetString(body, "user", "octocat"), full, ToNumber(parts[5]),
                                   GetString(body, "content"), &reaction);
    return FromOutcome(o, RenderReaction(reaction));
  }
  if (what == "check-runs" && n == 5) {
    CheckRun run;
    run.id = GetInt(body, "id", 0);
    run.name = GetString(body, "name", run.id ? "" : "ci");
    run.head_sha = GetString(body, "head_sha");
    if (run.head_sha.empty() && body.contains("pr")) {
      auto pr = model_.GetPull(full, static_cast<int>(GetInt(body, "pr", 0)));
      if (!pr) return GitHubError(404, "no such pull request");
      run.head_sha = pr->head_sha;
    }
    run.status = GetString(body, "status", run.id ? "" : "completed");
    run.conclusion = GetString(body, "conclusion", run.status == "completed" ? "success" : "");
    CheckRun stored;
    Outcome o = model_.UpsertCheckRun(GetString(body, "app", "ci"), full, run, &stored);
    return FromOutcome(o, RenderCheckRun(*repo, stored, {}));
  }
  if (what == "statuses" && n == 6) {
    CommitStatus st;
    st.sha = parts[5];
    st.state = GetString(body, "state", "success");
    st.context = GetString(body, "context", "ci");
    st.description = GetString(body, "description");
    CommitStatus stored;
    Outcome o = model_.SetStatus(GetString(body, "user", "ci"), full, st, &stored);
    return FromOutcome(o, RenderStatus(*repo, stored));
  }
  return GitHubError(404, "Not Found");
}

}  // namespace gatehouse::sim
