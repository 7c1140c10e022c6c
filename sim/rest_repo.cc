// The /repos/{owner}/{repo}/... endpoints of SimHandler.
#include <algorithm>

#include "github/base64.h"
#include "sim/jwt.h"
#include "sim/paged.h"
#include "sim/render.h"
#include "sim/rest.h"

namespace gatehouse::sim {
namespace json = boost::json;

void SimHandler::PushFirst(int64_t Faults::*count, const PullRequest& pr, const std::string& full,
                           int number) {
  {
    MutexLock lock(&mu_);
    if (faults_.*count <= 0 || pr.state != "open") return;
    --(faults_.*count);
  }
  model_.Push(pr.author, full, number, "");
}

HttpResponse SimHandler::ServeRepo(const HttpRequest& request, const Caller& caller,
                                   const std::vector<std::string>& parts,
                                   const std::map<std::string, std::string>& query) {
  const std::string full = parts[1] + "/" + parts[2];
  const Repository repo = *model_.GetRepo(full);
  const std::string& m = request.method;
  const std::string& who = caller.who;
  const std::string what = parts[3];
  const size_t n_parts = parts.size();
  json::object body;
  HttpResponse error;
  if (m != "GET" && m != "DELETE" && !ParseObject(request.body, &body, &error)) return error;
  std::string path(request.Path());
  if (auto git = ServeGit(request, caller, parts, body)) return *std::move(git);

  if (what == "pulls") {
    if (n_parts == 4 && m == "GET") {
      std::string state = query.count("state") ? query.at("state") : "open";
      json::array all;
      for (const auto& pr : model_.ListPulls(full, state)) {
        all.push_back(RenderPullInList(repo, pr));
      }
      HttpResponse r;
      json::array page = Paged(std::move(all), query, path, &r);
      HttpResponse out = JsonValueResponse(200, page);
      out.headers = std::move(r.headers);
      return out;
    }
    int number = n_parts >= 5 ? ToNumber(parts[4]) : -1;
    if (number < 0) return GitHubError(404, "Not Found");
    auto pr = model_.GetPull(full, number);
    if (!pr) return GitHubError(404, "Not Found");
    if (n_parts == 5 && m == "GET") return JsonValueResponse(200, RenderPull(repo, *pr));
    if (n_parts == 5 && m == "PATCH") {
      std::string state = GetString(body, "state");
      if (state.empty()) return JsonValueResponse(200, RenderPull(repo, *pr));
      Outcome o = model_.SetState(who, full, number, state);
      return FromOutcome(o, RenderPull(repo, *model_.GetPull(full, number)));
    }
    std::string sub = n_parts >= 6 ? parts[5] : "";
    if (n_parts == 6 && sub == "merge" && m == "PUT") {
      std::string sha = GetString(body, "sha");
      PushFirst(&Faults::push_on_merge, *pr, full, number);
      Outcome o = model_.Merge(who, full, number, sha, GetString(body, "merge_method", "merge"));
      auto after = model_.GetPull(full, number);
      return FromOutcome(
          o,
          json::object{{"sha", after->merge_commit_sha}, {"merged", true}, {"message", o.message}});
    }
    if (n_parts == 6 && sub == "reviews" && m == "GET") {
      json::array all;
      for (const auto& r : pr->reviews) all.push_back(RenderReview(repo, number, r));
      HttpResponse r;
      json::array page = Paged(std::move(all), query, path, &r);
      HttpResponse out = JsonValueResponse(200, page);
      out.headers = std::move(r.headers);
      return out;
    }
    if (n_parts == 6 && sub == "files" && m == "GET") {
      HttpResponse r;
      json::array page = Paged(RenderPullFiles(*pr), query, path, &r);
      HttpResponse out = JsonValueResponse(200, page);
      out.headers = std::move(r.headers);
      return out;
    }
    if (n_parts == 6 && sub == "reviews" && m == "POST") {
      PushFirst(&Faults::push_on_review, *pr, full, number);
      Review review;
      Outcome o =
          model_.SubmitReview(who, full, number, GetString(body, "event"),
                              GetString(body, "commit_id"), GetString(body, "body"), &review);
      return FromOutcome(o, RenderReview(repo, number, review));
    }
    if (n_parts == 8 && sub == "reviews" && parts[7] == "dismissals" && m == "PUT") {
      // GitHub requires the message; event, when given, must be DISMISS.
      if (GetString(body, "message").empty() ||
          (body.contains("event") && GetString(body, "event") != "DISMISS")) {
        return GitHubError(422,
                           "Unprocessable Entity: message is required and event must be "
                           "DISMISS");
      }
      Review review;
      Outcome o =
          model_.DismissReview(who, full, number, {.review_id = ToNumber(parts[6])}, &review);
      return FromOutcome(o, RenderReview(repo, number, review));
    }
    if (n_parts == 6 && sub == "update-branch" && m == "PUT") {
      Outcome o = model_.UpdateBranch(who, full, number, GetString(body, "expected_head_sha"));
      return FromOutcome(o, json::object{{"message", o.message}, {"url", path}});
    }
    if (n_parts == 6 && sub == "requested_reviewers" && m == "POST") {
      std::vector<std::string> reviewers;
      if (const auto* arr = body.if_contains("reviewers"); arr && arr->is_array()) {
        for (const auto& v : arr->as_array())
          if (v.is_string()) reviewers.emplace_back(v.as_string());
      }
      Outcome o = model_.RequestReviewers(who, full, number, reviewers);
      return FromOutcome(o, RenderPull(repo, *model_.GetPull(full, number)));
    }
    return GitHubError(404, "Not Found");
  }

  if (what == "commits" && n_parts >= 6 && m == "GET") {
    // The ref is every segment between "commits" and the last: a branch may hold '/'.
    std::string ref = parts[4];
    for (size_t i = 5; i + 1 < n_parts; ++i) ref += "/" + parts[i];
    const std::string& sub = parts.back();
    std::string sha = model_.ResolveRef(full, ref);
    if (sub == "check-runs") {
      json::array all;
      std::vector<PullRequest> prs = model_.PullsForCommit(full, sha);
      std::vector<const PullRequest*> open;
      for (const auto& p : prs)
        if (p.state == "open" && p.head_sha == sha) open.push_back(&p);
      for (const auto& run : model_.CheckRunsFor(full, sha))
        all.push_back(RenderCheckRun(repo, run, open));
      int64_t total = static_cast<int64_t>(all.size());
      HttpResponse r;
      json::array page = Paged(std::move(all), query, path, &r);
      HttpResponse out =
          JsonValueResponse(200, json::object{{"total_count", total}, {"check_runs", page}});
      out.headers = std::move(r.headers);
      return out;
    }
    if (sub == "status") {
      // Combined status: the latest status per context.
      json::array statuses;
      std::vector<std::string> seen;
      bool any_fail = false, any_pending = false;
      for (const auto& st : model_.StatusesFor(full, sha)) {
        if (std::find(seen.begin(), seen.end(), st.context) != seen.end()) continue;
        seen.push_back(st.context);
        any_fail |= st.state == "failure" || st.state == "error";
        any_pending |= st.state == "pending";
        statuses.push_back(RenderStatus(repo, st));
      }
      std::string state = any_fail                      ? "failure"
                          : any_pending || seen.empty() ? "pending"
                                                        : "success";
      return JsonValueResponse(200, json::object{{"state", state},
                                                 {"sha", sha},
                                                 {"total_count", statuses.size()},
                                                 {"statuses", statuses},
                                                 {"repository", RenderRepo(repo)}});
    }
    if (sub == "pulls") {
      json::array all;
      for (const auto& pr : model_.PullsForCommit(full, sha)) {
        all.push_back(RenderPullInList(repo, pr));
      }
      return JsonValueResponse(200, all);
    }
    return GitHubError(404, "Not Found");
  }

  if (what == "contents" && n_parts >= 5 && m == "GET") {
    std::string file;
    for (size_t i = 4; i < n_parts; ++i) file += (i > 4 ? "/" : "") + parts[i];
    auto it = repo.files.find(file);
    if (it == repo.files.end()) return GitHubError(404, "Not Found");
    return JsonValueResponse(200, json::object{{"type", "file"},
                                               {"encoding", "base64"},
                                               {"name", file.substr(file.rfind('/') + 1)},
                                               {"path", file},
                                               {"size", it->second.size()},
                                               {"sha", Base64Encode(file).substr(0, 8)},
                                               {"content", Base64Encode(it->second)}});
  }

  if (what == "issues" && n_parts >= 6) {
    if (parts[4] == "comments" && n_parts == 7 && parts[6] == "reactions") {
      return ServeReactions(request, caller, full, ToNumber(parts[5]), query);
    }
    if (parts[4] == "comments" && n_parts == 6 && m == "PATCH") {
      int64_t id = ToNumber(parts[5]);
      Comment c;
      Outcome o = model_.EditComment(who, full, id, GetString(body, "body"), &c);
      return FromOutcome(o, RenderComment(repo, c));
    }
    int number = ToNumber(parts[4]);
    if (number < 0) return GitHubError(404, "Not Found");
    if (parts[5] == "comments" && n_parts == 6) {
      if (m == "POST") {
        Comment c;
        Outcome o = model_.AddComment(who, full, number, GetString(body, "body"), &c);
        return FromOutcome(o, RenderComment(repo, c));
      }
      if (m == "GET") {
        json::array all;
        for (const auto& c : model_.CommentsFor(full, number))
          all.push_back(RenderComment(repo, c));
        HttpResponse r;
        json::array page = Paged(std::move(all), query, path, &r);
        HttpResponse out = JsonValueResponse(200, page);
        out.headers = std::move(r.headers);
        return out;
      }
    }
    if (parts[5] == "events" && n_parts == 6 && m == "GET") {
      // The PR's state changes as GitHub's issue events, from the effect log: every accepted
      // close, reopen and merge, with who did it.
      json::array all;
      int64_t id = 0;
      for (const Effect& e : model_.Effects()) {
        ++id;
        if (e.repo != full || e.number != number || e.status < 200 || e.status >= 300) continue;
        std::vector<std::string> events;
        if (e.kind == "close") events = {"closed"};
        if (e.kind == "reopen") events = {"reopened"};
        if (e.kind == "merge") events = {"merged", "closed"};  // GitHub records both
        for (const std::string& event : events) {
          all.push_back(json::object{{"id", id},
                                     {"event", event},
                                     {"actor", RenderUser(e.who)},
                                     {"created_at", GitHubTime(e.at)}});
        }
      }
      HttpResponse r;
      json::array page = Paged(std::move(all), query, path, &r);
      HttpResponse out = JsonValueResponse(200, page);
      out.headers = std::move(r.headers);
      return out;
    }
    if (parts[5] == "labels") {
      auto labels_of = [&]() {
        json::array out;
        if (auto pr = model_.GetPull(full, number))
          for (const auto& l : pr->labels) out.push_back(json::object{{"name", l}});
        return out;
      };
      if (n_parts == 6 && m == "POST") {
        std::vector<std::string> labels;
        if (const auto* arr = body.if_contains("labels"); arr && arr->is_array()) {
          for (const auto& v : arr->as_array())
            if (v.is_string()) labels.emplace_back(v.as_string());
        }
        Outcome o = model_.AddLabels(who, full, number, labels);
        return FromOutcome(o, labels_of());
      }
      if (n_parts == 7 && m == "DELETE") {
        Outcome o = model_.RemoveLabel(who, full, number, parts[6]);
        return FromOutcome(o, labels_of());
      }
    }
    return GitHubError(404, "Not Found");
  }

  if (what == "check-runs" && (n_parts == 4 || n_parts == 5)) {
    CheckRun run;
    if (n_parts == 5) {
      if (m != "PATCH") return GitHubError(404, "Not Found");
      run.id = ToNumber(parts[4]);
      if (run.id <= 0) return GitHubError(404, "Not Found");
      run.status = GetString(body, "status");
    } else {
      if (m != "POST") return GitHubError(404, "Not Found");
      run.head_sha = GetString(body, "head_sha");
      run.status = GetString(body, "status", "queued");
    }
    run.name = GetString(body, "name");
    run.conclusion = GetString(body, "conclusion");
    run.external_id = GetString(body, "external_id");
    if (const auto* out = body.if_contains("output"); out && out->is_object()) {
      run.title = GetString(out->as_object(), "title");
      run.summary = GetString(out->as_object(), "summary");
    }
    CheckRun stored;
    Outcome o = model_.UpsertCheckRun(who, full, run, &stored);
    return FromOutcome(o, RenderCheckRun(repo, stored, {}));
  }

  if (what == "statuses" && n_parts == 5 && m == "POST") {
    CommitStatus st;
    st.sha = parts[4];
    st.state = GetString(body, "state");
    st.context = GetString(body, "context", "default");
    st.description = GetString(body, "description");
    st.target_url = GetString(body, "target_url");
    CommitStatus stored;
    Outcome o = model_.SetStatus(who, full, st, &stored);
    return FromOutcome(o, RenderStatus(repo, stored));
  }

  if (what == "installation" && n_parts == 4 && m == "GET") {
    return JsonValueResponse(200, json::object{{"id", repo.installation_id}});
  }
  return GitHubError(404, "Not Found");
}

HttpResponse SimHandler::ServeReactions(const HttpRequest& request, const Caller& caller,
                                        const std::string& full, int64_t comment_id,
                                        const std::map<std::string, std::string>& query) {
  if (comment_id < 0) return GitHubError(404, "Not Found");
  if (request.method == "POST") {
    json::object body;
    HttpResponse error;
    if (!ParseObject(request.body, &body, &error)) return error;
    Reaction reaction;
    Outcome o =
        model_.AddReaction(caller.who, full, comment_id, GetString(body, "content"), &reaction);
    return FromOutcome(o, RenderReaction(reaction));
  }
  if (request.method != "GET") return GitHubError(404, "Not Found");
  auto reactions = model_.ReactionsFor(full, comment_id);
  if (!reactions) return GitHubError(404, "Not Found");
  json::array all;
  for (const Reaction& r : *reactions) all.push_back(RenderReaction(r));
  HttpResponse r;
  json::array page = Paged(std::move(all), query, std::string(request.Path()), &r);
  HttpResponse out = JsonValueResponse(200, page);
  out.headers = std::move(r.headers);
  return out;
}

}  // namespace gatehouse::sim
