#include "sim/app_grants.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>

namespace gatehouse::sim {
namespace {

namespace json = boost::json;

Result<AppGrant> ParseGrant(const json::object& o, const std::string& where) {
  AppGrant g = AppGrants::DefaultGrant();
  if (const json::value* p = o.if_contains("permissions")) {
    if (!p->is_object()) return InvalidArgument(where + "permissions must be an object");
    g.permissions.clear();
    for (const auto& [name, access] : p->as_object()) {
      if (!access.is_string() || (access.as_string() != "read" && access.as_string() != "write")) {
        return InvalidArgument(where + "permissions." + std::string(name) +
                               " must be \"read\" or \"write\"");
      }
      g.permissions[std::string(name)] = std::string(access.as_string());
    }
  }
  if (const json::value* e = o.if_contains("events")) {
    if (!e->is_array()) return InvalidArgument(where + "events must be an array of names");
    g.events.clear();
    for (const json::value& name : e->as_array()) {
      if (!name.is_string() || name.as_string().empty()) {
        return InvalidArgument(where + "events must be an array of names");
      }
      g.events.emplace_back(name.as_string());
    }
  }
  return g;
}

}  // namespace

AppGrant AppGrants::DefaultGrant() {
  AppGrant g;
  g.permissions = {{"metadata", "read"}, {"pull_requests", "write"}, {"contents", "write"},
                   {"checks", "write"},  {"statuses", "read"},       {"actions", "read"},
                   {"issues", "write"}};
  g.events = {"pull_request", "pull_request_review", "check_run", "check_suite", "workflow_run",
              "status",       "issue_comment"};
  return g;
}

const AppGrant& AppGrants::For(int64_t installation_id) const {
  auto it = installations.find(installation_id);
  return it == installations.end() ? app : it->second;
}

Result<AppGrants> ParseAppGrants(const json::object& body) {
  AppGrants out;
  GH_ASSIGN_OR_RETURN(out.app, ParseGrant(body, "app: "));
  if (const json::value* inst = body.if_contains("installations")) {
    if (!inst->is_object()) return InvalidArgument("app: installations must be an object");
    for (const auto& [id_text, grant] : inst->as_object()) {
      char* end = nullptr;
      const std::string id_str(id_text);
      const long long id = std::strtoll(id_str.c_str(), &end, 10);
      if (id_str.empty() || *end != '\0' || id <= 0) {
        return InvalidArgument("app: installations keys must be installation ids, not " + id_str);
      }
      if (!grant.is_object()) {
        return InvalidArgument("app: installations." + id_str + " must be an object");
      }
      GH_ASSIGN_OR_RETURN(out.installations[id],
                          ParseGrant(grant.as_object(), "app: installations." + id_str + "."));
    }
  }
  if (const json::value* off = body.if_contains("clock_offset_seconds")) {
    if (!off->is_int64()) return InvalidArgument("app: clock_offset_seconds must be an integer");
    out.clock_offset = std::chrono::seconds(off->as_int64());
  }
  return out;
}

json::object RenderGrant(const AppGrant& grant) {
  json::object permissions;
  for (const auto& [name, access] : grant.permissions) permissions[name] = access;
  json::array events;
  for (const std::string& e : grant.events) events.emplace_back(e);
  return json::object{{"permissions", std::move(permissions)}, {"events", std::move(events)}};
}

json::object RenderAppGrants(const AppGrants& grants) {
  json::object o = RenderGrant(grants.app);
  json::object inst;
  for (const auto& [id, grant] : grants.installations)
    inst[std::to_string(id)] = RenderGrant(grant);
  o["installations"] = std::move(inst);
  o["clock_offset_seconds"] =
      std::chrono::duration_cast<std::chrono::seconds>(grants.clock_offset).count();
  return o;
}

std::string HttpDate(Time t) {
  const std::time_t secs = static_cast<std::time_t>(
      std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count());
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[64];
  std::strftime(buf, sizeof(buf), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  return buf;
}

}  // namespace gatehouse::sim
