// SimHandler: the App itself, as GitHub serves it to an App JWT (docs/SIMULATOR.md, "The App"):
//
//   GET /app                       the App: id, slug, name, owner, and the permissions and
//                                  events it asks for
//   GET /app/installations         every installation (one per account that has repositories
//                                  in the model), with the permissions and events it accepted
//   GET /app/installations/{id}    one of them; 404 unknown
//   GET /app/hook/config           the App's webhook: url, content_type, insecure_ssl, and
//                                  "secret": "********" when deliveries are signed
//
// and the control API's GET/PUT /_sim/app, which sets what the App asks for, what each
// installation accepted and the Date header's clock offset (sim/app_grants.h).
#include <charconv>
#include <map>
#include <string>

#include "sim/app_identity.h"
#include "sim/paged.h"
#include "sim/render.h"
#include "sim/rest.h"

namespace gatehouse::sim {
namespace json = boost::json;

std::optional<HttpResponse> SimHandler::ServeApp(const HttpRequest& request,
                                                 const std::vector<std::string>& parts) {
  if (parts.empty() || parts[0] != "app" || request.method != "GET") return std::nullopt;
  if (parts.size() == 3 && parts[1] == "hook" && parts[2] == "config") {
    // The App's webhook configuration; GitHub masks a set secret as "********".
    if (auto refused = CheckAppJwt(request)) return *refused;
    json::object config{{"content_type", "json"}, {"insecure_ssl", "0"}};
    config["url"] = options_.webhooks != nullptr ? options_.webhooks->url() : std::string();
    if (options_.webhooks != nullptr && options_.webhooks->has_secret())
      config["secret"] = "********";
    return JsonValueResponse(200, config);
  }
  const bool app = parts.size() == 1;
  const bool list = parts.size() == 2 && parts[1] == "installations";
  const bool one = parts.size() == 3 && parts[1] == "installations";
  if (!app && !list && !one) return std::nullopt;
  if (auto refused = CheckAppJwt(request)) return *refused;
  const int64_t app_id = std::strtoll(options_.app_id.c_str(), nullptr, 10);
  AppGrants grants;
  {
    MutexLock lock(&mu_);
    grants = grants_;
  }
  if (app) {
    json::object o = RenderGrant(grants.app);
    o["id"] = app_id;
    o["slug"] = AppSlug();
    o["name"] = AppSlug();
    o["owner"] = RenderUser("acme");
    return JsonValueResponse(200, o);
  }
  // One installation per installation id the model's repositories carry, its account the
  // owner of its first repository.
  std::map<int64_t, std::string> accounts;
  for (const auto& repo : model_.Repos()) accounts.emplace(repo.installation_id, repo.owner);
  auto render = [&](int64_t id, const std::string& account) {
    json::object o = RenderGrant(grants.For(id));
    o["id"] = id;
    o["app_id"] = app_id;
    o["app_slug"] = AppSlug();
    o["account"] = RenderUser(account);
    o["target_type"] = "Organization";
    o["repository_selection"] = "selected";
    o["suspended_at"] = nullptr;
    return o;
  };
  if (list) {
    // Paginated as GitHub does (per_page at most 100).
    json::array out;
    for (const auto& [id, account] : accounts) out.push_back(render(id, account));
    HttpResponse response = JsonValueResponse(200, json::array{});
    json::array page =
        Paged(std::move(out), ParseQuery(request.target), std::string(request.Path()), &response);
    response.body = json::serialize(page);
    return response;
  }
  int64_t id = 0;
  const std::string& text = parts[2];
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  auto it =
      ec == std::errc() && end == text.data() + text.size() ? accounts.find(id) : accounts.end();
  if (it == accounts.end()) return GitHubError(404, "Not Found");
  return JsonValueResponse(200, render(it->first, it->second));
}

HttpResponse SimHandler::ServeAppControl(const HttpRequest& request, const json::object& body) {
  if (request.method == "PUT") {
    Result<AppGrants> parsed = ParseAppGrants(body);
    if (!parsed.ok()) return GitHubError(400, parsed.status().message());
    MutexLock lock(&mu_);
    grants_ = std::move(parsed).value();
    return JsonValueResponse(200, RenderAppGrants(grants_));
  }
  if (request.method != "GET") return GitHubError(405, "GET or PUT");
  MutexLock lock(&mu_);
  return JsonValueResponse(200, RenderAppGrants(grants_));
}

}  // namespace gatehouse::sim
