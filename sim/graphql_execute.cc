#include "sim/graphql_execute.h"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "github/base64.h"
#include "sim/app_identity.h"
#include "sim/graphql_cursor.h"
#include "sim/graphql_leaf_fields.h"
#include "sim/graphql_model_reads.h"
#include "sim/graphql_schema.h"
#include "sim/render.h"

namespace gatehouse::sim::graphql {
namespace json = boost::json;
namespace {

// One object being resolved: its runtime type and what it stands for. Pointers point into
// the Executor's snapshot, which outlives the resolution.
struct Obj {
  std::string type;
  const Repository* repo = nullptr;      // Repository
  const PullRequest* pr = nullptr;       // PullRequest
  const Review* review = nullptr;        // PullRequestReview
  const Comment* comment = nullptr;      // IssueComment
  const json::object* file = nullptr;    // PullRequestChangedFile (as REST renders it)
  const CheckRun* run = nullptr;         // CheckRun, CheckSuite (its run's suite)
  const CommitStatus* status = nullptr;  // StatusContext
  std::string text = {};                 // Commit/Status/rollup: SHA; Label: name;
                                         // User/Bot: raw model login; App: its creator
  std::vector<Obj> items = {};           // a connection's every item
  size_t begin = 0, end = 0;             // a connection's page; an edge's index in begin
};

class Executor {
 public:
  Executor(const Model& model, int64_t installation_id, const RateLimitView& rate)
      : installation_(installation_id), rate_(rate), reads_(model) {}

  json::object Run(const Document& doc) {
    json::object data;
    Resolve(Obj{.type = "Query"}, doc.selections, &data, {});
    json::object out{{"data", std::move(data)}};
    if (!errors_.empty()) out["errors"] = std::move(errors_);
    return out;
  }

 private:
  using Path = std::vector<std::string>;

  void Resolve(const Obj& obj, const std::vector<Selection>& selections, json::object* out,
               const Path& path) {
    for (const Selection& sel : selections) {
      if (sel.fragment) {
        if (FragmentApplies(sel.on, obj.type)) Resolve(obj, sel.selections, out, path);
        continue;
      }
      Path at = path;
      at.push_back(sel.key);
      json::value v = sel.name == "__typename" ? json::value(obj.type) : Field(obj, sel, at);
      json::value* existing = out->if_contains(sel.key);
      if (existing != nullptr && existing->is_object() && v.is_object()) {
        for (auto& [k, inner] : v.as_object()) existing->as_object()[k] = std::move(inner);
      } else {
        (*out)[sel.key] = std::move(v);
      }
    }
  }

  json::value Object(const Obj& obj, const Selection& sel, const Path& path) {
    json::object out;
    Resolve(obj, sel.selections, &out, path);
    return out;
  }

  void NotFound(const Selection& sel, const Path& path, std::string message) {
    json::array at;
    for (const auto& p : path) at.push_back(json::value(p));
    errors_.push_back(json::object{
        {"type", "NOT_FOUND"},
        {"path", std::move(at)},
        {"locations", json::array{json::object{{"line", sel.line}, {"column", sel.column}}}},
        {"message", std::move(message)}});
  }

  json::value Field(const Obj& o, const Selection& sel, const Path& path) {
    const std::string& t = o.type;
    if (t == "Query") return QueryField(sel, path);
    if (t == "RateLimit") return RateLimitField(sel);
    if (t == "Repository") {
      repo_ = o.repo;  // everything below it is resolved inside this call
      return RepositoryField(sel, path);
    }
    if (t == "PullRequest") return PullField(*o.pr, sel, path);
    if (t == "User" || t == "Bot") return ActorField(t, o.text, sel.name);
    if (t == "Label")
      return sel.name == "id" ? json::value("LA_" + Base64Encode(o.text)) : json::value(o.text);
    if (t == "PullRequestReview") return ReviewField(*o.review, sel, path);
    if (t == "IssueComment") return CommentField(*o.comment, sel, path);
    if (t == "PullRequestChangedFile") return FileField(*o.file, sel.name);
    if (t == "PullRequestCommit") {
      if (sel.name == "id") return Str("PURC_" + Base64Encode(o.text));
      return Object(Obj{.type = "Commit", .text = o.text}, sel, path);
    }
    if (t == "Commit") return CommitField(o.text, sel, path);
    if (t == "Status") return StatusField(o.text, sel, path);
    if (t == "StatusContext") return StatusContextField(*o.status, sel, path);
    if (t == "StatusCheckRollup") return RollupField(o.text, sel, path);
    if (t == "CheckRun") return CheckRunField(*o.run, sel, path);
    if (t == "CheckSuite") return CheckSuiteField(*o.run, sel, path);
    if (t == "App") return AppField(o.text, sel.name);
    if (t == "Blob") return BlobField(o.text, sel.name);
    if (t == "PageInfo") return PageInfoField(o.begin, o.end, std::stoul(o.text), sel.name);
    if (t.ends_with("Connection")) return ConnectionField(o, sel, path);
    if (t.ends_with("Edge")) return EdgeField(o, sel, path);
    return nullptr;  // Validate admits no other field
  }

  json::value QueryField(const Selection& sel, const Path& path) {
    if (sel.name == "rateLimit") return Object(Obj{.type = "RateLimit"}, sel, path);
    // repository(owner, name)
    const std::string full = sel.StringArg("owner") + "/" + sel.StringArg("name");
    const Repository* repo = reads_.Repo(full, installation_);
    if (repo == nullptr) {
      NotFound(sel, path, "Could not resolve to a Repository with the name '" + full + "'.");
      return nullptr;
    }
    return Object(Obj{.type = "Repository", .repo = repo}, sel, path);
  }

  json::value RateLimitField(const Selection& sel) const {
    const std::string& f = sel.name;
    if (f == "cost") return rate_.cost;
    if (f == "limit") return rate_.limit;
    if (f == "remaining") return rate_.remaining;
    if (f == "used") return rate_.limit - rate_.remaining;
    if (f == "nodeCount") return 0;
    return Str(GitHubTime(Time(std::chrono::seconds(rate_.reset_epoch_s))));  // resetAt
  }

  json::value RepositoryField(const Selection& sel, const Path& path) {
    const Repository& r = *repo_;
    const std::string& f = sel.name;
    if (f == "id") return NodeId("R", r.id);
    if (f == "databaseId") return r.id;
    if (f == "name") return Str(r.name);
    if (f == "nameWithOwner") return Str(r.full_name());
    if (f == "url") return Str("https://github.com/" + r.full_name());
    if (f == "owner") return Object(ActorObj(r.owner, "User"), sel, path);
    if (f == "object" && sel.args.contains("oid")) {
      // object(oid:): a commit the repository knows; null for any other oid (as GitHub).
      const std::string oid = sel.StringArg("oid");
      if (!reads_.KnowsCommit(r, oid)) return nullptr;
      return Object(Obj{.type = "Commit", .text = oid}, sel, path);
    }
    if (f == "object") {
      // object(expression: "HEAD:path" or "<default branch>:path"): a file of the default
      // branch as a Blob whose oid follows its content; null when there is none (as GitHub).
      const std::string expr = sel.StringArg("expression");
      const size_t colon = expr.find(':');
      if (colon == std::string::npos) return nullptr;
      const std::string rev = expr.substr(0, colon);
      if (rev != "HEAD" && rev != r.default_branch) return nullptr;
      auto file = r.files.find(expr.substr(colon + 1));
      if (file == r.files.end()) return nullptr;
      return Object(Obj{.type = "Blob", .text = file->second}, sel, path);
    }
    if (f == "pullRequests") {
      // states: one enum literal or a list of them (GitHub coerces the one into a list).
      std::vector<std::string> states;
      if (auto st = sel.args.find("states"); st != sel.args.end()) {
        if (st->second.is_string()) states.emplace_back(st->second.as_string());
        if (const auto* list = st->second.if_array()) {
          for (const json::value& v : *list)
            if (v.is_string()) states.emplace_back(v.as_string());
        }
      }
      for (const std::string& st : states) {
        if (st != "OPEN" && st != "CLOSED" && st != "MERGED") {
          NotFound(sel, path,
                   "Argument 'states' on Field 'pullRequests' has an invalid value (" + st +
                       "). Expected type '[PullRequestState!]'.");
          return nullptr;
        }
      }
      std::vector<Obj> items;
      for (const PullRequest* p : reads_.Pulls(r, states))
        items.push_back(Obj{.type = "PullRequest", .pr = p});
      return Page("PullRequestConnection", std::move(items), sel, path);
    }
    // pullRequest(number)
    auto it = sel.args.find("number");
    const int64_t number =
        it != sel.args.end() && it->second.is_int64() ? it->second.as_int64() : 0;
    const PullRequest* pr = reads_.Pull(r, number);
    if (pr == nullptr) {
      NotFound(
          sel, path,
          "Could not resolve to a PullRequest with the number of " + std::to_string(number) + ".");
      return nullptr;
    }
    return Object(Obj{.type = "PullRequest", .pr = pr}, sel, path);
  }

  // A model user as GraphQL shows it: the App (installation:*) and *[bot] logins are Bots
  // whose login has no "[bot]".
  static Obj ActorObj(const std::string& raw, const std::string& type_hint) {
    const std::string shown = ShownLogin(raw);
    const bool bot =
        raw.starts_with("installation:") || shown.ends_with("[bot]") || type_hint == "Bot";
    return Obj{.type = bot ? "Bot" : "User", .text = raw};
  }

  json::value PullField(const PullRequest& pr, const Selection& sel, const Path& path) {
    const std::string& f = sel.name;
    if (f == "id") return NodeId("PR", pr.id);
    if (f == "databaseId") return pr.id;
    if (f == "fullDatabaseId") return Str(std::to_string(pr.id));
    if (f == "number") return pr.number;
    if (f == "title") return Str(pr.title);
    if (f == "body") return Str(pr.body);
    if (f == "url")
      return Str("https://github.com/" + repo_->full_name() + "/pull/" + std::to_string(pr.number));
    if (f == "state") return Str(pr.merged ? "MERGED" : Upper(pr.state));
    if (f == "isDraft") return pr.draft;
    if (f == "merged") return pr.merged;
    if (f == "mergeable") {
      return !pr.mergeable ? "UNKNOWN" : *pr.mergeable ? "MERGEABLE" : "CONFLICTING";
    }
    if (f == "mergeStateStatus") return Str(Upper(pr.mergeable_state));
    if (f == "headRefOid") return Str(pr.head_sha);
    if (f == "headRefName") return Str(pr.head_ref);
    if (f == "baseRefOid") return Str(pr.base_sha);
    if (f == "baseRefName") return Str(pr.base_ref);
    if (f == "author") return Object(ActorObj(pr.author, pr.author_type), sel, path);
    if (f == "authorAssociation") return Str(pr.author_association);
    if (f == "changedFiles") return pr.changed_files;
    if (f == "additions") return pr.additions;
    if (f == "deletions") return pr.deletions;
    if (f == "createdAt") return Str(GitHubTime(pr.created_at));
    if (f == "updatedAt") return Str(GitHubTime(pr.updated_at));
    if (f == "closedAt") return OptTimeValue(pr.closed_at);
    if (f == "mergedAt") return OptTimeValue(pr.merged_at);
    if (f == "repository") return Object(Obj{.type = "Repository", .repo = repo_}, sel, path);
    std::vector<Obj> items;
    if (f == "labels") {
      for (const auto& l : pr.labels) items.push_back(Obj{.type = "Label", .text = l});
      return Page("LabelConnection", std::move(items), sel, path);
    }
    if (f == "reviews") {
      for (const Review& r : pr.reviews)
        items.push_back(Obj{.type = "PullRequestReview", .review = &r});
      return Page("PullRequestReviewConnection", std::move(items), sel, path);
    }
    if (f == "files") {
      for (const json::value& file : FilesOf(pr))
        items.push_back(Obj{.type = "PullRequestChangedFile", .file = &file.as_object()});
      return Page("PullRequestChangedFileConnection", std::move(items), sel, path);
    }
    if (f == "comments") {
      for (const Comment& c : CommentsOf(pr.number))
        items.push_back(Obj{.type = "IssueComment", .comment = &c});
      return Page("IssueCommentConnection", std::move(items), sel, path);
    }
    for (const auto& sha : pr.commits)
      items.push_back(Obj{.type = "PullRequestCommit", .text = sha});
    return Page("PullRequestCommitConnection", std::move(items), sel, path);  // commits
  }

  json::value ReviewField(const Review& r, const Selection& sel, const Path& path) {
    const std::string& f = sel.name;
    if (f == "id") return NodeId("PRR", r.id);
    if (f == "databaseId") return r.id;
    if (f == "fullDatabaseId") return Str(std::to_string(r.id));
    if (f == "author") return Object(ActorObj(r.user, ""), sel, path);
    if (f == "state") return Str(r.state);
    if (f == "body") return Str(r.body);
    if (f == "submittedAt") return Str(GitHubTime(r.submitted_at));
    return Object(Obj{.type = "Commit", .text = r.commit_id}, sel, path);  // commit
  }

  json::value CommentField(const Comment& c, const Selection& sel, const Path& path) {
    const std::string& f = sel.name;
    if (f == "id") return NodeId("IC", c.id);
    if (f == "databaseId") return c.id;
    if (f == "fullDatabaseId") return Str(std::to_string(c.id));
    if (f == "author") return Object(ActorObj(c.user, ""), sel, path);
    if (f == "authorAssociation") return Str(c.author_association);
    if (f == "body") return Str(c.body);
    if (f == "createdAt") return Str(GitHubTime(c.created_at));
    return Str(GitHubTime(c.updated_at));  // updatedAt
  }

  // Reads in the repository being resolved.
  const json::array& FilesOf(const PullRequest& pr) { return reads_.FilesOf(*repo_, pr); }
  const std::vector<Comment>& CommentsOf(int number) { return reads_.CommentsOf(*repo_, number); }
  const std::vector<CheckRun>& RunsOf(const std::string& sha) { return reads_.RunsOf(*repo_, sha); }
  const std::vector<CommitStatus>& StatusesOf(const std::string& sha) {
    return reads_.StatusesOf(*repo_, sha);
  }
  std::string CombinedState(const std::string& sha) { return reads_.CombinedState(*repo_, sha); }

  json::value CommitField(const std::string& sha, const Selection& sel, const Path& path) {
    const std::string& f = sel.name;
    if (f == "id") return Str("C_" + Base64Encode(sha));
    if (f == "oid") return Str(sha);
    if (f == "abbreviatedOid") return Str(sha.substr(0, 7));
    if (f == "status") {
      if (StatusesOf(sha).empty()) return nullptr;
      return Object(Obj{.type = "Status", .text = sha}, sel, path);
    }
    if (RunsOf(sha).empty() && StatusesOf(sha).empty()) return nullptr;  // statusCheckRollup
    return Object(Obj{.type = "StatusCheckRollup", .text = sha}, sel, path);
  }

  json::value StatusField(const std::string& sha, const Selection& sel, const Path& path) {
    const std::string& f = sel.name;
    if (f == "id") return Str("SC_" + Base64Encode(sha));
    if (f == "state") return Str(CombinedState(sha));
    if (f == "commit") return Object(Obj{.type = "Commit", .text = sha}, sel, path);
    json::array contexts;
    for (const CommitStatus& st : StatusesOf(sha))
      contexts.push_back(Object(Obj{.type = "StatusContext", .status = &st}, sel, path));
    return contexts;
  }

  json::value StatusContextField(const CommitStatus& st, const Selection& sel, const Path& path) {
    const std::string& f = sel.name;
    if (f == "id") return NodeId("SC", st.id);
    if (f == "context") return Str(st.context);
    if (f == "state") return Str(Upper(st.state));
    if (f == "description") return Str(st.description);
    if (f == "targetUrl")
      return st.target_url.empty() ? json::value(nullptr) : json::value(st.target_url);
    if (f == "createdAt") return Str(GitHubTime(st.created_at));
    return Object(Obj{.type = "Commit", .text = st.sha}, sel, path);  // commit
  }

  json::value RollupField(const std::string& sha, const Selection& sel, const Path& path) {
    const std::string& f = sel.name;
    if (f == "id") return Str("SCR_" + Base64Encode(sha));
    if (f == "commit") return Object(Obj{.type = "Commit", .text = sha}, sel, path);
    if (f == "state") {
      bool fail = CombinedState(sha) == "FAILURE";
      bool pending = !StatusesOf(sha).empty() && CombinedState(sha) == "PENDING";
      for (const CheckRun& r : RunsOf(sha)) {
        if (r.status != "completed") {
          pending = true;
        } else if (r.conclusion != "success" && r.conclusion != "neutral" &&
                   r.conclusion != "skipped") {
          fail = true;
        }
      }
      return fail ? "FAILURE" : pending ? "PENDING" : "SUCCESS";
    }
    std::vector<Obj> items;  // contexts: the check runs, then the statuses
    for (const CheckRun& r : RunsOf(sha)) items.push_back(Obj{.type = "CheckRun", .run = &r});
    for (const CommitStatus& st : StatusesOf(sha))
      items.push_back(Obj{.type = "StatusContext", .status = &st});
    return Page("StatusCheckRollupContextConnection", std::move(items), sel, path);
  }

  json::value CheckRunField(const CheckRun& r, const Selection& sel, const Path& path) {
    const std::string& f = sel.name;
    if (f == "id") return NodeId("CR", r.id);
    if (f == "databaseId") return r.id;
    if (f == "name") return Str(r.name);
    if (f == "status") return Str(Upper(r.status));
    if (f == "conclusion")
      return r.conclusion.empty() ? json::value(nullptr) : json::value(Upper(r.conclusion));
    if (f == "externalId")
      return r.external_id.empty() ? json::value(nullptr) : json::value(r.external_id);
    if (f == "title") return r.title.empty() ? json::value(nullptr) : json::value(r.title);
    if (f == "summary") return r.summary.empty() ? json::value(nullptr) : json::value(r.summary);
    if (f == "startedAt") return Str(GitHubTime(r.started_at));
    if (f == "completedAt") return OptTimeValue(r.completed_at);
    return Object(Obj{.type = "CheckSuite", .run = &r}, sel, path);  // checkSuite
  }

  // A run's suite: every run of its App on its SHA (the simulator keeps no suites of its own).
  json::value CheckSuiteField(const CheckRun& r, const Selection& sel, const Path& path) {
    const std::string& f = sel.name;
    if (f == "id") return Str("CS_" + Base64Encode(r.head_sha + " " + ShownAppSlug(r.app)));
    if (f == "commit") return Object(Obj{.type = "Commit", .text = r.head_sha}, sel, path);
    return Object(Obj{.type = "App", .text = r.app}, sel, path);  // app
  }

  // A connection over `items`, paged by first/last/after/before (validated).
  json::value Page(std::string type, std::vector<Obj> items, const Selection& sel,
                   const Path& path) {
    Obj conn{.type = std::move(type)};
    const PageBounds bounds = PageOf(items.size(), sel.args);
    if (!bounds.bad_cursor.empty()) {
      NotFound(sel, path, "`" + bounds.bad_cursor + "` does not appear to be a valid cursor.");
      return nullptr;
    }
    conn.items = std::move(items);
    conn.begin = bounds.begin;
    conn.end = bounds.end;
    return Object(conn, sel, path);
  }

  json::value ConnectionField(const Obj& conn, const Selection& sel, const Path& path) {
    const std::string& f = sel.name;
    if (f == "totalCount") return static_cast<int64_t>(conn.items.size());
    if (f == "pageInfo") {
      Obj info{.type = "PageInfo", .begin = conn.begin, .end = conn.end};
      info.text = std::to_string(conn.items.size());
      return Object(info, sel, path);
    }
    json::array out;
    std::string edge_type = conn.type;
    edge_type.replace(edge_type.size() - std::string_view("Connection").size(), std::string::npos,
                      "Edge");
    for (size_t i = conn.begin; i < conn.end; ++i) {
      if (f == "nodes") {
        out.push_back(Object(conn.items[i], sel, path));
      } else {  // edges
        Obj edge{.type = edge_type, .begin = i};
        edge.items.push_back(conn.items[i]);
        out.push_back(Object(edge, sel, path));
      }
    }
    return out;
  }

  json::value EdgeField(const Obj& edge, const Selection& sel, const Path& path) {
    if (sel.name == "cursor") return Cursor(edge.begin);
    return Object(edge.items.front(), sel, path);  // node
  }

  const int64_t installation_;
  const RateLimitView rate_;
  ModelReads reads_;  // what this query read, each thing once
  json::array errors_;
  const Repository* repo_ = nullptr;  // the repository being resolved
};

}  // namespace

json::object Execute(const Document& doc, const Model& model, int64_t installation_id,
                     const RateLimitView& rate) {
  return Executor(model, installation_id, rate).Run(doc);
}

}  // namespace gatehouse::sim::graphql
