#include "sim/graphql_schema.h"

#include <algorithm>
#include <cmath>
#include <optional>

namespace gatehouse::sim::graphql {
namespace json = boost::json;
namespace {

struct FieldDef {
  std::string_view name;
  std::string_view type;  // an object, interface or union below; anything else is a leaf
  std::vector<std::string_view> args = {};
  std::vector<std::string_view> required = {};
  bool connection = false;  // takes first/last/after/before; first or last is required
};

enum class TypeKind { kObject, kInterface, kUnion };

struct TypeDef {
  std::string_view name;
  TypeKind kind;
  // An object: the interfaces and unions it belongs to. An interface or union: "".
  std::vector<std::string_view> belongs_to;
  std::vector<FieldDef> fields;
};

const std::vector<std::string_view> kPageArgs = {"first", "last", "after", "before"};

FieldDef Connection(std::string_view name, std::string_view type) {
  return FieldDef{name, type, kPageArgs, {}, true};
}

// The connection and edge types of `node`: nodes, edges, totalCount and pageInfo.
std::vector<TypeDef> ConnectionTypes(std::string_view connection, std::string_view edge,
                                     std::string_view node) {
  return {
      TypeDef{connection,
              TypeKind::kObject,
              {},
              {{"nodes", node}, {"edges", edge}, {"totalCount", "Int"}, {"pageInfo", "PageInfo"}}},
      TypeDef{edge, TypeKind::kObject, {}, {{"cursor", "String"}, {"node", node}}}};
}

std::vector<TypeDef> BuildSchema() {
  const std::vector<std::string_view> node = {"Node"};
  std::vector<TypeDef> types = {
      {"Query",
       TypeKind::kObject,
       {},
       {{"repository", "Repository", {"owner", "name", "followRenames"}, {"owner", "name"}},
        {"rateLimit", "RateLimit", {"dryRun"}}}},
      {"RateLimit",
       TypeKind::kObject,
       {},
       {{"cost", "Int"},
        {"limit", "Int"},
        {"remaining", "Int"},
        {"resetAt", "DateTime"},
        {"used", "Int"},
        {"nodeCount", "Int"}}},
      {"Node", TypeKind::kInterface, {}, {{"id", "ID"}}},
      {"GitObject", TypeKind::kInterface, {}, {{"id", "ID"}, {"oid", "GitObjectID"}}},
      {"Blob",
       TypeKind::kObject,
       {"Node", "GitObject"},
       {{"id", "ID"}, {"oid", "GitObjectID"}, {"byteSize", "Int"}, {"text", "String"}}},
      {"Actor", TypeKind::kInterface, {}, {{"login", "String"}, {"url", "URI"}}},
      {"RepositoryOwner",
       TypeKind::kInterface,
       {},
       {{"id", "ID"}, {"login", "String"}, {"url", "URI"}}},
      {"User",
       TypeKind::kObject,
       {"Node", "Actor", "RepositoryOwner"},
       {{"id", "ID"}, {"databaseId", "Int"}, {"login", "String"}, {"url", "URI"}}},
      {"Bot",
       TypeKind::kObject,
       {"Node", "Actor"},
       {{"id", "ID"}, {"databaseId", "Int"}, {"login", "String"}, {"url", "URI"}}},
      {"Repository",
       TypeKind::kObject,
       node,
       {{"id", "ID"},
        {"databaseId", "Int"},
        {"name", "String"},
        {"nameWithOwner", "String"},
        {"owner", "RepositoryOwner"},
        {"url", "URI"},
        {"pullRequest", "PullRequest", {"number"}, {"number"}},
        {"object", "GitObject", {"expression", "oid"}},
        {"pullRequests",
         "PullRequestConnection",
         {"first", "last", "after", "before", "states"},
         {},
         true}}},
      {"PullRequest",
       TypeKind::kObject,
       node,
       {{"id", "ID"},
        {"databaseId", "Int"},
        {"fullDatabaseId", "BigInt"},
        {"number", "Int"},
        {"title", "String"},
        {"body", "String"},
        {"url", "URI"},
        {"state", "PullRequestState"},
        {"isDraft", "Boolean"},
        {"merged", "Boolean"},
        {"mergeable", "MergeableState"},
        {"mergeStateStatus", "MergeStateStatus"},
        {"headRefOid", "GitObjectID"},
        {"headRefName", "String"},
        {"baseRefOid", "GitObjectID"},
        {"baseRefName", "String"},
        {"author", "Actor"},
        {"authorAssociation", "CommentAuthorAssociation"},
        {"changedFiles", "Int"},
        {"additions", "Int"},
        {"deletions", "Int"},
        {"createdAt", "DateTime"},
        {"updatedAt", "DateTime"},
        {"closedAt", "DateTime"},
        {"mergedAt", "DateTime"},
        {"repository", "Repository"},
        Connection("labels", "LabelConnection"),
        Connection("reviews", "PullRequestReviewConnection"),
        Connection("comments", "IssueCommentConnection"),
        Connection("files", "PullRequestChangedFileConnection"),
        Connection("commits", "PullRequestCommitConnection")}},
      {"PullRequestChangedFile",
       TypeKind::kObject,
       {},
       {{"path", "String"},
        {"additions", "Int"},
        {"deletions", "Int"},
        {"changeType", "PatchStatus"}}},
      {"IssueComment",
       TypeKind::kObject,
       node,
       {{"id", "ID"},
        {"databaseId", "Int"},
        {"fullDatabaseId", "BigInt"},
        {"author", "Actor"},
        {"authorAssociation", "CommentAuthorAssociation"},
        {"body", "String"},
        {"createdAt", "DateTime"},
        {"updatedAt", "DateTime"}}},
      {"Label", TypeKind::kObject, node, {{"id", "ID"}, {"name", "String"}}},
      {"PullRequestReview",
       TypeKind::kObject,
       node,
       {{"id", "ID"},
        {"databaseId", "Int"},
        {"fullDatabaseId", "BigInt"},
        {"author", "Actor"},
        {"state", "PullRequestReviewState"},
        {"body", "String"},
        {"commit", "Commit"},
        {"submittedAt", "DateTime"}}},
      {"PullRequestCommit", TypeKind::kObject, node, {{"id", "ID"}, {"commit", "Commit"}}},
      {"Commit",
       TypeKind::kObject,
       {"Node", "GitObject"},
       {{"id", "ID"},
        {"oid", "GitObjectID"},
        {"abbreviatedOid", "String"},
        {"status", "Status"},
        {"statusCheckRollup", "StatusCheckRollup"}}},
      {"Status",
       TypeKind::kObject,
       node,
       {{"id", "ID"},
        {"state", "StatusState"},
        {"contexts", "StatusContext"},
        {"commit", "Commit"}}},
      {"StatusContext",
       TypeKind::kObject,
       {"Node", "StatusCheckRollupContext"},
       {{"id", "ID"},
        {"context", "String"},
        {"state", "StatusState"},
        {"description", "String"},
        {"targetUrl", "URI"},
        {"createdAt", "DateTime"},
        {"commit", "Commit"}}},
      {"StatusCheckRollup",
       TypeKind::kObject,
       node,
       {{"id", "ID"},
        {"state", "StatusState"},
        {"commit", "Commit"},
        Connection("contexts", "StatusCheckRollupContextConnection")}},
      {"StatusCheckRollupContext", TypeKind::kUnion, {}, {}},
      {"CheckRun",
       TypeKind::kObject,
       {"Node", "StatusCheckRollupContext"},
       {{"id", "ID"},
        {"databaseId", "Int"},
        {"name", "String"},
        {"status", "CheckStatusState"},
        {"conclusion", "CheckConclusionState"},
        {"externalId", "String"},
        {"title", "String"},
        {"summary", "String"},
        {"startedAt", "DateTime"},
        {"completedAt", "DateTime"},
        {"checkSuite", "CheckSuite"}}},
      {"CheckSuite", TypeKind::kObject, node, {{"id", "ID"}, {"app", "App"}, {"commit", "Commit"}}},
      {"App",
       TypeKind::kObject,
       node,
       {{"id", "ID"}, {"databaseId", "Int"}, {"slug", "String"}, {"name", "String"}}},
      {"PageInfo",
       TypeKind::kObject,
       {},
       {{"hasNextPage", "Boolean"},
        {"hasPreviousPage", "Boolean"},
        {"startCursor", "String"},
        {"endCursor", "String"}}},
  };
  for (auto [conn, edge, of] :
       {std::tuple{"LabelConnection", "LabelEdge", "Label"},
        std::tuple{"PullRequestConnection", "PullRequestEdge", "PullRequest"},
        std::tuple{"PullRequestReviewConnection", "PullRequestReviewEdge", "PullRequestReview"},
        std::tuple{"IssueCommentConnection", "IssueCommentEdge", "IssueComment"},
        std::tuple{"PullRequestChangedFileConnection", "PullRequestChangedFileEdge",
                   "PullRequestChangedFile"},
        std::tuple{"PullRequestCommitConnection", "PullRequestCommitEdge", "PullRequestCommit"},
        std::tuple{"StatusCheckRollupContextConnection", "StatusCheckRollupContextEdge",
                   "StatusCheckRollupContext"}}) {
    for (TypeDef& t : ConnectionTypes(conn, edge, of)) types.push_back(std::move(t));
  }
  return types;
}

const std::vector<TypeDef>& Schema() {
  static const std::vector<TypeDef> schema = BuildSchema();
  return schema;
}

const TypeDef* FindType(std::string_view name) {
  for (const TypeDef& t : Schema())
    if (t.name == name) return &t;
  return nullptr;
}

const FieldDef* FindField(const TypeDef& type, std::string_view name) {
  for (const FieldDef& f : type.fields)
    if (f.name == name) return &f;
  return nullptr;
}

bool BelongsTo(const TypeDef& object, std::string_view abstract) {
  return std::find(object.belongs_to.begin(), object.belongs_to.end(), abstract) !=
         object.belongs_to.end();
}

// Whether a fragment on `on` may appear where the type is `current`: they share a runtime type.
bool CanSpread(const TypeDef& on, const TypeDef& current) {
  if (on.name == current.name) return true;
  if (on.kind == TypeKind::kObject && current.kind == TypeKind::kObject) return false;
  if (on.kind == TypeKind::kObject) return BelongsTo(on, current.name);
  if (current.kind == TypeKind::kObject) return BelongsTo(current, on.name);
  for (const TypeDef& t : Schema()) {
    if (t.kind == TypeKind::kObject && BelongsTo(t, on.name) && BelongsTo(t, current.name))
      return true;
  }
  return false;
}

class Validator {
 public:
  json::array errors;

  void Selections(const std::vector<Selection>& selections, const TypeDef& type) {
    for (const Selection& sel : selections) {
      if (sel.fragment) {
        Fragment(sel, type);
      } else {
        Field(sel, type);
      }
    }
  }

 private:
  // A validation error as GitHub's GraphQL API answers one: graphql-ruby's `extensions.code`
  // naming the rule the document broke.
  void Error(const Selection& at, std::string_view code, std::string message) {
    errors.push_back(json::object{
        {"message", std::move(message)},
        {"locations", json::array{json::object{{"line", at.line}, {"column", at.column}}}},
        {"extensions", json::object{{"code", code}}}});
  }

  // A pagination error, which GitHub answers with a `type` of its own instead.
  void PageError(const Selection& at, std::string_view type, std::string message) {
    errors.push_back(json::object{
        {"type", type},
        {"message", std::move(message)},
        {"locations", json::array{json::object{{"line", at.line}, {"column", at.column}}}}});
  }

  void Fragment(const Selection& sel, const TypeDef& type) {
    const TypeDef* on = &type;
    if (!sel.on.empty()) {
      on = FindType(sel.on);
      if (on == nullptr) {
        Error(sel, "undefinedType",
              "No such type " + sel.on + ", so it can't be a fragment condition");
        return;
      }
      if (!CanSpread(*on, type)) {
        Error(sel, "cannotSpreadFragment",
              "Fragment on " + sel.on + " can't be spread inside " + std::string(type.name));
        return;
      }
    }
    Selections(sel.selections, *on);
  }

  void Field(const Selection& sel, const TypeDef& type) {
    if (sel.name == "__typename") {
      if (!sel.selections.empty())
        Error(sel, "selectionMismatch", "Selections can't be made on scalars (field '__typename')");
      return;
    }
    const FieldDef* field = FindField(type, sel.name);
    if (field == nullptr) {
      Error(sel, "undefinedField",
            "Field '" + sel.name + "' doesn't exist on type '" + std::string(type.name) + "'");
      return;
    }
    for (const auto& [arg, value] : sel.args) {
      if (std::find(field->args.begin(), field->args.end(), arg) == field->args.end()) {
        Error(sel, "argumentNotAccepted",
              "Field '" + sel.name + "' doesn't accept argument '" + arg + "'");
      }
    }
    for (std::string_view arg : field->required) {
      auto it = sel.args.find(std::string(arg));
      if (it == sel.args.end() || it->second.is_null()) {
        Error(sel, "missingRequiredArguments",
              "Field '" + sel.name + "' is missing required arguments: " + std::string(arg));
      }
    }
    if (field->connection) Page(sel);
    const TypeDef* target = FindType(field->type);
    if (target == nullptr && !sel.selections.empty()) {
      Error(sel, "selectionMismatch",
            "Selections can't be made on scalars (field '" + sel.name + "' returns " +
                std::string(field->type) + ")");
    } else if (target != nullptr && sel.selections.empty()) {
      Error(sel, "selectionMismatch",
            "Field must have selections (field '" + sel.name + "' returns " +
                std::string(field->type) + " but has no selections. Did you mean '" + sel.name +
                " { ... }'?)");
    } else if (target != nullptr) {
      Selections(sel.selections, *target);
    }
  }

  // first/last: one of them, an integer from 0 to 100.
  void Page(const Selection& sel) {
    const json::value* first = nullptr;
    const json::value* last = nullptr;
    if (auto it = sel.args.find("first"); it != sel.args.end() && !it->second.is_null())
      first = &it->second;
    if (auto it = sel.args.find("last"); it != sel.args.end() && !it->second.is_null())
      last = &it->second;
    if (first == nullptr && last == nullptr) {
      PageError(sel, "MISSING_PAGINATION_BOUNDARIES",
                "You must provide a `first` or `last` value to properly paginate the `" + sel.name +
                    "` connection.");
      return;
    }
    for (auto [name, v] : {std::pair{"first", first}, std::pair{"last", last}}) {
      if (v == nullptr) continue;
      if (!v->is_int64()) {
        Error(sel, "argumentLiteralsIncompatible",
              std::string("Argument '") + name + "' on Field '" + sel.name +
                  "' has an invalid value. Expected type 'Int'.");
      } else if (v->as_int64() < 0) {
        Error(sel, "argumentLiteralsIncompatible",
              std::string("`") + name + "` on the `" + sel.name +
                  "` connection cannot be less than zero.");
      } else if (v->as_int64() > kMaxPage) {
        PageError(sel, "EXCESSIVE_PAGINATION",
                  "Requesting " + std::to_string(v->as_int64()) + " records on the `" + sel.name +
                      "` connection exceeds the `" + name + "` limit of 100 records.");
      }
    }
  }
};

// The page size a valid connection field asks for.
int64_t PageSize(const Selection& sel) {
  for (const char* name : {"first", "last"}) {
    auto it = sel.args.find(name);
    if (it != sel.args.end() && it->second.is_int64()) return it->second.as_int64();
  }
  return 0;
}

// Requests the connections under `selections` need, each enclosing one's page multiplying.
int64_t Requests(const std::vector<Selection>& selections, const TypeDef& type,
                 int64_t multiplier) {
  int64_t total = 0;
  for (const Selection& sel : selections) {
    if (sel.fragment) {
      const TypeDef* on = sel.on.empty() ? &type : FindType(sel.on);
      if (on != nullptr) total += Requests(sel.selections, *on, multiplier);
      continue;
    }
    const FieldDef* field = FindField(type, sel.name);
    if (field == nullptr) continue;
    const TypeDef* target = FindType(field->type);
    if (target == nullptr) continue;
    int64_t inner = multiplier;
    if (field->connection) {
      total += multiplier;
      inner = multiplier * std::max<int64_t>(PageSize(sel), 1);
    }
    total += Requests(sel.selections, *target, inner);
  }
  return total;
}

}  // namespace

json::array Validate(const Document& doc) {
  Validator v;
  v.Selections(doc.selections, *FindType("Query"));
  return std::move(v.errors);
}

int64_t QueryCost(const Document& doc) {
  const int64_t requests = Requests(doc.selections, *FindType("Query"), 1);
  return std::max<int64_t>(1, std::llround(static_cast<double>(requests) / 100.0));
}

bool FragmentApplies(std::string_view on, std::string_view type) {
  if (on.empty() || on == type) return true;
  const TypeDef* t = FindType(type);
  return t != nullptr && BelongsTo(*t, on);
}

}  // namespace gatehouse::sim::graphql
