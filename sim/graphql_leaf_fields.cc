#include "sim/graphql_leaf_fields.h"

#include "github/base64.h"
#include "github/signature.h"
#include "sim/app_identity.h"
#include "sim/graphql_cursor.h"
#include "sim/render.h"

namespace gatehouse::sim::graphql {
namespace json = boost::json;

std::string Upper(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return out;
}

json::value OptTimeValue(const std::optional<Time>& t) {
  return t ? json::value(GitHubTime(*t)) : json::value(nullptr);
}

json::string NodeId(std::string_view prefix, int64_t id) {
  return json::string(std::string(prefix) + "_" + Base64Encode(std::to_string(id)));
}

json::value ActorField(std::string_view type, const std::string& raw, std::string_view field) {
  const bool bot = type == "Bot";
  std::string login = ShownLogin(raw);
  if (bot && login.ends_with("[bot]")) login.resize(login.size() - 5);
  if (field == "login") return Str(login);
  if (field == "databaseId") return StableUserId(ShownLogin(raw));
  if (field == "id") return NodeId(bot ? "BOT" : "U", StableUserId(ShownLogin(raw)));
  return Str((bot ? "https://github.com/apps/" : "https://github.com/") + login);  // url
}

json::value FileField(const json::object& file, std::string_view field) {
  if (field == "path") return file.at("filename");
  if (field == "additions") return file.at("additions");
  if (field == "deletions") return file.at("deletions");
  // changeType: REST's status upper-cased; REST's "removed" is GraphQL's DELETED.
  const std::string status(file.at("status").as_string());
  return Str(status == "removed" ? "DELETED" : Upper(status));
}

json::value AppField(const std::string& creator, std::string_view field) {
  const std::string slug = ShownAppSlug(creator);
  if (field == "slug") return Str(slug);
  if (field == "name") return Str(slug);
  if (field == "databaseId") return StableUserId(slug);
  return NodeId("A", StableUserId(slug));  // id
}

json::value BlobField(const std::string& content, std::string_view field) {
  const std::string oid =
      Sha256Hex("blob " + std::to_string(content.size()) + '\0' + content).substr(0, 40);
  if (field == "oid") return Str(oid);
  if (field == "byteSize") return static_cast<int64_t>(content.size());
  if (field == "text") return Str(content);
  return Str("B_" + Base64Encode(oid));  // id
}

json::value PageInfoField(size_t begin, size_t end, size_t total, std::string_view field) {
  const bool empty = begin >= end;
  if (field == "hasNextPage") return end < total;
  if (field == "hasPreviousPage") return begin > 0;
  if (field == "startCursor") return empty ? json::value(nullptr) : json::value(Cursor(begin));
  return empty ? json::value(nullptr) : json::value(Cursor(end - 1));  // endCursor
}

}  // namespace gatehouse::sim::graphql
