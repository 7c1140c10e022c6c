// Which repositories a payload teaches: see engine/route_repositories.h.
#include "engine/route_repositories.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cstdint>
#include <optional>

#include "base/ascii.h"
#include "base/subject.h"
#include "engine/route_payload.h"

namespace gatehouse::routing {
namespace {

namespace json = boost::json;

// Calls `fn` with the full_name of every well-formed entry of the array at `path`.
template <typename Fn>
void ForEachRepository(const PayloadReader& in, std::string_view path, Fn fn) {
  const json::value* list = in.Find(path);
  const json::array* repos = list != nullptr ? list->if_array() : nullptr;
  if (repos == nullptr) return;
  for (const json::value& entry : *repos) {
    const json::object* repo = entry.if_object();
    if (repo == nullptr) continue;
    if (auto name = NonEmptyString(PayloadReader(*repo), "full_name")) fn(*name);
  }
}

}  // namespace

void LearnRepositories(std::string_view event, const json::object& root, RouteResult* r) {
  PayloadReader in(root);
  std::optional<int64_t> installation;
  if (const json::value* id = in.Find("installation.id")) {
    if (id->is_int64() && id->get_int64() > 0) installation = id->get_int64();
  }
  auto add = [&](std::string_view name) {
    if (IsRepoFullName(name)) r->repos.push_back({AsciiLower(name), installation});
  };
  auto remove = [&](std::string_view name) {
    if (IsRepoFullName(name)) r->repos_removed.push_back(AsciiLower(name));
  };
  const std::string_view action = NonEmptyString(in, "action").value_or("");
  if (event == "installation") {
    if (action == "deleted") {
      ForEachRepository(in, "repositories", remove);
    } else if (action == "created" || action == "new_permissions_accepted") {
      ForEachRepository(in, "repositories", add);
    }
    return;
  }
  if (event == "installation_repositories") {
    ForEachRepository(in, "repositories_added", add);
    ForEachRepository(in, "repositories_removed", remove);
    return;
  }
  auto full_name = NonEmptyString(in, "repository.full_name");
  if (!full_name) return;
  if (event == "repository") {
    const std::string_view name = NonEmptyString(in, "repository.name").value_or("");
    const std::string_view owner = full_name->substr(0, full_name->find('/'));
    if (action == "deleted") {
      remove(*full_name);
      return;
    }
    if (action == "renamed") {
      if (auto from = NonEmptyString(in, "changes.repository.name.from")) {
        remove(std::string(owner) + "/" + std::string(*from));
      }
    } else if (action == "transferred") {
      auto from = NonEmptyString(in, "changes.owner.from.user.login");
      if (!from) from = NonEmptyString(in, "changes.owner.from.organization.login");
      if (from) remove(std::string(*from) + "/" + std::string(name));
    }
  }
  add(*full_name);
  // A rename that only changes case keeps the repository.
  std::erase_if(r->repos_removed, [&](const std::string& gone) {
    return std::any_of(r->repos.begin(), r->repos.end(),
                       [&](const RepoInstallation& kept) { return kept.repo == gone; });
  });
}

}  // namespace gatehouse::routing
