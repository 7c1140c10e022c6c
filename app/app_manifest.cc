// See app/app_manifest.h.
#include "app/app_manifest.h"

#include <boost/json.hpp>

namespace gatehouse::app {
namespace {

namespace json = boost::json;

// "https://host[:port]" of an http(s) URL, or "" when `url` is not one.
std::string Origin(std::string_view url) {
  size_t scheme_end = std::string_view::npos;
  if (url.rfind("https://", 0) == 0) scheme_end = 8;
  if (url.rfind("http://", 0) == 0) scheme_end = 7;
  if (scheme_end == std::string_view::npos) return "";
  const size_t host_end = url.find_first_of("/?#", scheme_end);
  const std::string_view origin = url.substr(0, host_end);
  if (origin.size() == scheme_end) return "";  // no host
  return std::string(origin);
}

void Pretty(const json::value& v, int indent, std::string* out) {
  const std::string pad(static_cast<size_t>(indent) * 2, ' ');
  const std::string inner(static_cast<size_t>(indent + 1) * 2, ' ');
  if (v.is_object()) {
    const json::object& o = v.as_object();
    if (o.empty()) {
      *out += "{}";
      return;
    }
    *out += "{\n";
    size_t i = 0;
    for (const auto& kv : o) {
      *out += inner + json::serialize(json::value(kv.key())) + ": ";
      Pretty(kv.value(), indent + 1, out);
      *out += ++i < o.size() ? ",\n" : "\n";
    }
    *out += pad + "}";
  } else if (v.is_array()) {
    const json::array& a = v.as_array();
    if (a.empty()) {
      *out += "[]";
      return;
    }
    *out += "[\n";
    for (size_t i = 0; i < a.size(); ++i) {
      *out += inner;
      Pretty(a[i], indent + 1, out);
      *out += i + 1 < a.size() ? ",\n" : "\n";
    }
    *out += pad + "]";
  } else {
    *out += json::serialize(v);
  }
}

}  // namespace

const std::vector<AppPermission>& AppPermissions() {
  static const std::vector<AppPermission> kPermissions = {
      {"metadata", "read", "every App has it: repositories, their installation and collaborators"},
      {"pull_requests", "write",
       "read PRs, their files and reviews; approve, request changes, dismiss its own stale "
       "reviews, close, update the branch, request reviewers"},
      {"contents", "write",
       "read .github/gatehouse.yml from the default branch, and merge (GitHub requires "
       "contents: write to merge a pull request)"},
      {"checks", "write", "read check runs for the gate; write the gatehouse check run"},
      {"statuses", "read", "read commit statuses for the gate"},
      {"actions", "read", "GitHub sends workflow_run events only to Apps that may read Actions"},
      {"issues", "write",
       "labels, the summary comment, replies and reactions to commands, the issue events that "
       "show who closed or reopened a PR"},
  };
  return kPermissions;
}

const std::vector<AppEvent>& AppEvents() {
  static const std::vector<AppEvent> kEvents = {
      {"pull_request", "opened, pushed to, edited, labelled, closed, reopened: a new pass"},
      {"pull_request_review", "approvals and dismissals change the gate"},
      {"check_run", "a check finished: the gate may be green now"},
      {"check_suite", "a suite finished (CI that reports suites)"},
      {"workflow_run", "a GitHub Actions run finished"},
      {"status", "a commit status changed (CI that reports statuses)"},
      {"issue_comment", "commands to gatehouse in PR comments"},
  };
  return kEvents;
}

std::string RenderManifest(const ManifestOptions& options, std::string* error) {
  if (options.webhook_url.empty()) {
    *error = "--webhook-url is required: the URL GitHub POSTs webhooks to, e.g. "
             "https://gatehouse.example.com/webhook";
    return "";
  }
  const std::string origin = Origin(options.webhook_url);
  if (origin.empty()) {
    *error = "--webhook-url " + options.webhook_url + " is not an http(s)://HOST/... URL";
    return "";
  }
  const std::string homepage = options.homepage_url.empty() ? origin : options.homepage_url;
  if (Origin(homepage).empty()) {
    *error = "--homepage-url " + homepage + " is not an http(s)://HOST/... URL";
    return "";
  }
  if (!options.redirect_url.empty() && Origin(options.redirect_url).empty()) {
    *error = "--redirect-url " + options.redirect_url + " is not an http(s)://HOST/... URL";
    return "";
  }
  if (options.name.empty() || options.name.size() > 34) {
    *error = "--name must be 1 to 34 characters (GitHub's limit for an App's name)";
    return "";
  }
  json::object permissions;
  for (const AppPermission& p : AppPermissions()) permissions[p.name] = p.access;
  json::array events;
  for (const AppEvent& e : AppEvents()) events.emplace_back(e.name);
  json::object manifest{
      {"name", options.name},
      {"url", homepage},
      {"description",
       "gatehouse: acts on each pull request exactly once (merge, approve, close, label, "
       "comment, reviewers), never losing a webhook."},
      {"hook_attributes", json::object{{"url", options.webhook_url}, {"active", true}}},
      {"public", options.is_public},
      {"default_permissions", std::move(permissions)},
      {"default_events", std::move(events)},
  };
  if (!options.redirect_url.empty()) manifest["redirect_url"] = options.redirect_url;
  std::string out;
  Pretty(manifest, 0, &out);
  return out + "\n";
}

std::string RenderWhy() {
  std::string out = "Repository permissions:\n";
  for (const AppPermission& p : AppPermissions()) {
    std::string head = "  " + std::string(p.name) + ": " + std::string(p.access);
    head.resize(std::max<size_t>(head.size() + 1, 26), ' ');
    out += head + std::string(p.why) + "\n";
  }
  out += "Webhook events:\n";
  for (const AppEvent& e : AppEvents()) {
    std::string head = "  " + std::string(e.name);
    head.resize(std::max<size_t>(head.size() + 1, 26), ' ');
    out += head + std::string(e.why) + "\n";
  }
  return out;
}

}  // namespace gatehouse::app
