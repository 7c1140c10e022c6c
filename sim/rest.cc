#include "sim/rest.h"

#include <algorithm>
#include <cctype>

#include "github/signature.h"
#include "sim/jwt.h"
#include "sim/paged.h"
#include "sim/render.h"

namespace gatehouse::sim {
namespace json = boost::json;

namespace {

// Pagination links name the simulator itself (as GitHub's name api.github.com), so a client
// that only follows links on its own base URL can page through.
void NameSelfInLinks(const HttpRequest& request, HttpResponse* response) {
  const std::string host = request.Header("Host");
  if (host.empty()) return;
  const std::string github = "https://api.github.com";
  for (auto& [name, value] : response->headers) {
    if (name != "Link") continue;
    for (size_t at = value.find(github); at != std::string::npos; at = value.find(github, at)) {
      value.replace(at, github.size(), "http://" + host);
      at += host.size();
    }
  }
}

}  // namespace

int ToNumber(const std::string& s) {
  if (s.empty() || s.size() > 9 ||
      !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return -1;
  return std::stoi(s);
}

HttpResponse FromOutcome(const Outcome& o, const boost::json::value& body) {
  if (!o.ok()) return GitHubError(o.status, o.message);
  return JsonValueResponse(o.status, body);
}

HttpResponse GitHubError(int status, std::string_view message) {
  json::object o{{"message", message},
                 {"documentation_url", "https://docs.github.com/rest"},
                 {"status", std::to_string(status)}};
  return JsonResponse(status, json::serialize(o));
}

HttpResponse JsonValueResponse(int status, const json::value& v) {
  return JsonResponse(status, json::serialize(v));
}

bool ParseObject(const std::string& body, json::object* out, HttpResponse* error) {
  if (body.empty()) {
    *out = {};
    return true;
  }
  boost::system::error_code ec;
  json::value v = json::parse(body, ec);
  if (ec || !v.is_object()) {
    *error = GitHubError(400, "Problems parsing JSON");
    return false;
  }
  *out = std::move(v.as_object());
  return true;
}

std::string GetString(const json::object& o, std::string_view key, std::string fallback) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr || !v->is_string()) return fallback;
  return std::string(v->as_string());
}

int64_t GetInt(const json::object& o, std::string_view key, int64_t fallback) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr) return fallback;
  if (v->is_int64()) return v->as_int64();
  if (v->is_uint64()) return static_cast<int64_t>(v->as_uint64());
  return fallback;
}

bool GetBool(const json::object& o, std::string_view key, bool fallback) {
  const json::value* v = o.if_contains(key);
  return v != nullptr && v->is_bool() ? v->as_bool() : fallback;
}

SimHandler::SimHandler(Model& model, SimHandlerOptions options)
    : model_(model), options_(std::move(options)), chat_(options_.clock, options_.openai_api_key) {}

void SimHandler::Handle(HttpRequest request, Responder respond) {
  if (FakeChatCompletions::Handles(request.Path())) {
    // A scripted step's own latency; REST faults do not apply to the model endpoint.
    ChatAnswer answer = chat_.Serve(request);
    if (answer.latency.count() <= 0) {
      respond(std::move(answer.response));
      return;
    }
    delay_line_.After(answer.latency, [respond = std::move(respond),
                                       response = std::move(answer.response)]() mutable {
      respond(std::move(response));
    });
    return;
  }
  HttpResponse response = Serve(request);
  int64_t latency = 0;
  if (request.Path().rfind("/_sim/", 0) != 0) {
    MutexLock lock(&mu_);
    latency = faults_.latency_ms;
  }
  if (latency <= 0) {
    respond(std::move(response));
    return;
  }
  delay_line_.After(std::chrono::milliseconds(latency),
                    [respond = std::move(respond), response = std::move(response)]() mutable {
                      respond(std::move(response));
                    });
}

HttpResponse SimHandler::Serve(const HttpRequest& request) {
  std::string_view path = request.Path();
  if (path.rfind("/_sim/", 0) == 0) return ServeControl(request);
  if (FakeChatCompletions::Handles(path)) return chat_.Serve(request).response;
  HttpResponse response = ServeRest(request);
  // GitHub dates every answer; gatehouse doctor compares it with its own clock.
  Duration offset{0};
  {
    MutexLock lock(&mu_);
    offset = grants_.clock_offset;
  }
  response.headers.emplace_back("Date", HttpDate(options_.clock->Now() + offset));
  return response;
}

bool SimHandler::InstallationExists(int64_t id) const {
  for (const auto& repo : model_.Repos())
    if (repo.installation_id == id) return true;
  return false;
}

int64_t SimHandler::NowEpochSeconds() const { return ToMicros(options_.clock->Now()) / 1'000'000; }

void SimHandler::SettleExhaustionLocked(int64_t now_s) {
  if (faults_.primary_exhausted_until_s == 0 || now_s < faults_.primary_exhausted_until_s) return;
  faults_.primary_exhausted_until_s = 0;
  windows_.clear();
  graphql_windows_.clear();
}

bool SimHandler::Admit(const HttpRequest& request, int64_t installation_id, HttpResponse* out,
                       std::vector<std::pair<std::string, std::string>>* headers, LostAnswer* lost,
                       Spend spend) {
  MutexLock lock(&mu_);
  const int64_t now_s = NowEpochSeconds();
  SettleExhaustionLocked(now_s);
  RateWindow& w = (spend.graphql ? graphql_windows_ : windows_)[installation_id];
  if (w.reset_epoch_s <= now_s) {
    w.reset_epoch_s = now_s + 3600;
    w.remaining = options_.rate_limit;
  }
  // An exhaustion fault hides the window without spending it: once cleared, the budget is
  // what it was.
  const bool timed = faults_.primary_exhausted_until_s > now_s;
  const bool exhausted = faults_.primary_exhausted || timed;
  const int64_t reset = timed ? faults_.primary_exhausted_until_s : w.reset_epoch_s;
  bool refused = true;
  auto secondary = [&](int64_t retry_after_seconds) {
    *out = GitHubError(403,
                       "You have exceeded a secondary rate limit. Please wait a few minutes "
                       "before you try again.");
    out->headers.emplace_back("Retry-After", std::to_string(retry_after_seconds));
  };
  auto reset_connection = [&] {
    // As a network failure would be: the request has no effect.
    *out = GitHubError(502, "connection reset by the simulator");
    out->reset_connection = true;
  };
  *lost = LostAnswer::kNone;
  auto admit = [&] {
    w.remaining = std::max<int64_t>(0, w.remaining - spend.points);
    refused = false;
  };
  const bool effect = IsMutatingMethod(request.method) && !spend.graphql;
  std::optional<AimedFault> aimed = TakeAimedFault(&faults_.aimed, request.method, request.Path());
  if (!aimed && spend.reads != nullptr) {
    for (const std::string& path : *spend.reads) {
      if ((aimed = TakeAimedFault(&faults_.aimed, "GET", path))) break;
    }
  }
  if (aimed) {
    if (LostAnswerOf(*aimed) != LostAnswer::kNone) {
      // The call goes through (as aimed rules come before the limit, even on an exhausted
      // window); only its answer is lost.
      *lost = LostAnswerOf(*aimed);
      admit();
    } else if (aimed->fault == "connection_reset") {
      reset_connection();
    } else if (aimed->fault == "secondary_rate_limit") {
      secondary(aimed->retry_after_seconds);
    } else if (aimed->fault == "graphql_timeout" && spend.timed_out != nullptr) {
      *spend.timed_out = true;
      admit();
    } else {
      *out = GitHubError(aimed->status, "Server Error");
    }
  } else if (faults_.connection_resets > 0) {
    --faults_.connection_resets;
    reset_connection();
  } else if (exhausted || w.remaining < spend.points) {
    *out = GitHubError(403, "API rate limit exceeded for installation.");
  } else if (faults_.secondary_rate_limits > 0) {
    --faults_.secondary_rate_limits;
    secondary(faults_.retry_after_seconds);
  } else if (faults_.server_errors > 0) {
    --faults_.server_errors;
    *out = GitHubError(faults_.server_error_status, "Server Error");
  } else {
    admit();
    if (effect && faults_.lost_answer_resets > 0) {
      --faults_.lost_answer_resets;
      *lost = LostAnswer::kReset;
    } else if (effect && faults_.lost_answer_502s > 0) {
      --faults_.lost_answer_502s;
      *lost = LostAnswer::kBadGateway;
    }
  }
  const int64_t remaining = exhausted ? 0 : w.remaining;
  headers->emplace_back("X-RateLimit-Limit", std::to_string(options_.rate_limit));
  headers->emplace_back("X-RateLimit-Remaining", std::to_string(remaining));
  headers->emplace_back("X-RateLimit-Reset", std::to_string(reset));
  headers->emplace_back("X-RateLimit-Used", std::to_string(options_.rate_limit - remaining));
  headers->emplace_back("X-RateLimit-Resource", spend.graphql ? "graphql" : "core");
  return !refused;
}

std::optional<HttpResponse> SimHandler::CheckAppJwt(const HttpRequest& request) {
  std::string auth = request.Header("Authorization");
  if (auth.rfind("Bearer ", 0) != 0)
    return GitHubError(401, "A JSON web token could not be decoded");
  std::string jwt = auth.substr(7);
  if (!options_.app_public_key_pem.empty()) {
    auto claims = VerifyAppJwt(jwt, options_.app_public_key_pem, options_.clock->Now());
    if (!claims.ok()) return GitHubError(401, claims.status().message());
    if (!options_.app_id.empty() && claims->iss != options_.app_id) {
      return GitHubError(401, "JWT: iss is not this App");
    }
  } else if (!options_.insecure_any_token) {
    return GitHubError(401, "the simulator has no App public key configured");
  }
  return std::nullopt;
}

HttpResponse LoseAnswer(LostAnswer how) {
  if (how == LostAnswer::kReset) {
    HttpResponse out = GitHubError(502, "connection reset by the simulator after the call");
    out.reset_connection = true;
    return out;
  }
  // What a proxy in front of GitHub answers when GitHub's own answer did not reach it: no
  // rate-limit headers, no JSON from GitHub.
  return HttpResponse{.status = 502,
                      .content_type = "text/html",
                      .body = "<html><body><h1>502 Bad Gateway</h1></body></html>",
                      .headers = {},
                      .reset_connection = false};
}

HttpResponse SimHandler::ServeAccessToken(const HttpRequest& request, int64_t installation_id) {
  if (auto refused = CheckAppJwt(request)) return *refused;
  if (!InstallationExists(installation_id)) return GitHubError(404, "Not Found");
  Time expires;
  std::string token = model_.IssueToken(installation_id, &expires);
  json::object body{{"token", token},
                    {"expires_at", GitHubTime(expires)},
                    {"permissions", {{"pull_requests", "write"}, {"checks", "write"}}},
                    {"repository_selection", "all"}};
  return JsonValueResponse(201, body);
}

HttpResponse SimHandler::ServeRest(const HttpRequest& request) {
  std::vector<std::string> parts = PathSegments(request.Path());
  if (parts.size() == 4 && parts[0] == "app" && parts[1] == "installations" &&
      parts[3] == "access_tokens" && request.method == "POST") {
    int id = ToNumber(parts[2]);
    if (id < 0) return GitHubError(404, "Not Found");
    return ServeAccessToken(request, id);
  }
  if (parts.size() >= 3 && parts[0] == "app" && parts[1] == "hook" && parts[2] == "deliveries") {
    return ServeHookDeliveries(request, parts);
  }
  if (auto app = ServeApp(request, parts)) {
    NameSelfInLinks(request, &*app);
    return *app;
  }
  std::string auth = request.Header("Authorization");
  std::string token;
  if (auth.rfind("Bearer ", 0) == 0) token = auth.substr(7);
  if (auth.rfind("token ", 0) == 0) token = auth.substr(6);
  Caller caller;
  if (options_.insecure_any_token && !token.empty()) {
    caller.installation_id = 0;
  } else if (auto inst = model_.TokenInstallation(token)) {
    caller.installation_id = *inst;
  } else {
    return GitHubError(401, "Bad credentials");
  }
  if (parts.size() == 1 && parts[0] == "user" && request.method == "GET") {
    // The token's user. An installation token has none (GitHub: 403). Any token (insecure
    // mode) acts as the App's installations, so its user is the login its writes show.
    if (caller.installation_id != 0) {
      return GitHubError(403, "Resource not accessible by integration");
    }
    return JsonValueResponse(200, RenderUser(AppLogin()));
  }
  if (parts.size() == 2 && parts[0] == "installation" && parts[1] == "repositories" &&
      request.method == "GET") {
    // The repositories this token's installation can see (all of them for any-token mode),
    // paginated as GitHub does (per_page at most 100).
    boost::json::array repos;
    for (const Repository& r : model_.Repos()) {
      if (caller.installation_id == 0 || r.installation_id == caller.installation_id) {
        repos.push_back(RenderRepo(r));
      }
    }
    HttpResponse response{.status = 200,
                          .content_type = "application/json",
                          .body = "",
                          .headers = {},
                          .reset_connection = false};
    boost::json::object body;
    body["total_count"] = static_cast<int64_t>(repos.size());
    body["repositories"] =
        Paged(std::move(repos), ParseQuery(request.target), std::string(request.Path()), &response);
    response.body = boost::json::serialize(body);
    // Conditional like every GitHub list: an unchanged page is a 304 that costs nothing.
    const std::string etag = "W/\"" + Sha256Hex(response.body).substr(0, 40) + "\"";
    if (request.Header("If-None-Match") == etag) {
      response.status = 304;
      response.content_type.clear();
      response.body.clear();
    }
    response.headers.emplace_back("ETag", etag);
    // GitHub counts a 200 against the installation's limit; the simulator's window does not
    // (it is outside the faults' counters), the tally does.
    requests_.Record(std::to_string(caller.installation_id), request.method, request.target,
                     response.status, response.status != 304);
    NameSelfInLinks(request, &response);
    return response;
  }
  if (parts.size() == 1 && parts[0] == "graphql" && request.method == "POST") {
    return ServeGraphql(request, caller.installation_id);
  }
  if (parts.size() < 4 || parts[0] != "repos") return GitHubError(404, "Not Found");
  auto repo = model_.GetRepo(parts[1] + "/" + parts[2]);
  // A token only sees its installation's repositories; others do not exist for it.
  if (!repo || (caller.installation_id != 0 && repo->installation_id != caller.installation_id))
    return GitHubError(404, "Not Found");
  caller.installation_id = repo->installation_id;
  caller.who = "installation:" + std::to_string(repo->installation_id);

  HttpResponse refused;
  std::vector<std::pair<std::string, std::string>> headers;
  LostAnswer lost = LostAnswer::kNone;
  bool admitted = Admit(request, caller.installation_id, &refused, &headers, &lost, Spend{});
  HttpResponse response =
      admitted ? ServeRepo(request, caller, parts, ParseQuery(request.target)) : refused;
  const std::string window = std::to_string(caller.installation_id);
  // The call has taken effect (the model applied it and logged it); its answer never arrives.
  if (lost != LostAnswer::kNone) {
    requests_.Record(window, request.method, request.target, 502, true);
    return LoseAnswer(lost);
  }
  if (request.method == "GET" && response.status == 200) {
    std::string etag = "W/\"" + Sha256Hex(response.body).substr(0, 40) + "\"";
    if (request.Header("If-None-Match") == etag) {
      response = HttpResponse{
          .status = 304, .content_type = "", .body = "", .headers = {}, .reset_connection = false};
      // GitHub does not count a 304 against the primary rate limit.
      MutexLock lock(&mu_);
      int64_t remaining = ++windows_[caller.installation_id].remaining;
      for (auto& [name, value] : headers) {
        if (name == "X-RateLimit-Remaining") value = std::to_string(remaining);
        if (name == "X-RateLimit-Used") value = std::to_string(options_.rate_limit - remaining);
      }
    }
    response.headers.emplace_back("ETag", etag);
  }
  requests_.Record(window, request.method, request.target, response.status,
                   admitted && response.status != 304);
  for (auto& h : headers) response.headers.push_back(std::move(h));
  NameSelfInLinks(request, &response);
  return response;
}

}  // namespace gatehouse::sim
