// SimHandler: the simulator's HTTP face. It serves
//   - the GitHub REST subset gatehouse uses (under /repos/..., /app/...), over the Model,
//     with GitHub's auth (App JWT -> installation token -> Bearer), ETags and 304s,
//     X-RateLimit-* headers and GitHub-shaped JSON and errors ({"message": ...});
//   - the control API under /_sim/ (docs/SIMULATOR.md), which sets up and moves the world
//     and reads the effect log; it needs no auth (the simulator listens on loopback);
//   - a fake OpenAI-compatible chat-completions endpoint at any POST path ending in
//     /chat/completions (sim/chat_completions.h), scripted through /_sim/openai.
//
// Faults set through the control API apply to the REST API only, never to /_sim/.
//
// Thread-safety: Handle may be called concurrently (the HttpServer contract); it answers
// synchronously and never blocks on the network.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <map>
#include <string>

#include "base/clock.h"
#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "http/handler.h"
#include "http/query.h"
#include "sim/app_grants.h"
#include "sim/chat_completions.h"
#include "sim/delay_line.h"
#include "sim/faults.h"
#include "sim/model.h"
#include "sim/request_tally.h"
#include "sim/webhooks.h"

namespace gatehouse::sim {

struct SimHandlerOptions {
  ClockPtr clock{};
  // The App's id (the JWT's `iss`); empty accepts any issuer.
  std::string app_id{};
  // PEM of the App's RSA public key. Empty: App JWTs are refused unless insecure_any_token.
  std::string app_public_key_pem{};
  // Accept any non-empty Bearer token (and any App JWT) — for quick local runs only.
  bool insecure_any_token = false;
  int64_t rate_limit = 5000;  // per installation per hour, as GitHub's default
  // Where /_sim/faults sends delivery faults (webhook_*) and /_sim/webhook-url sets the
  // target; null when webhooks are off (then /_sim/webhook-url answers 409).
  WebhookSender* webhooks = nullptr;
  // The API key the fake chat-completions endpoint expects as its Bearer token; empty accepts
  // any (PUT /_sim/openai can set it later).
  std::string openai_api_key{};
};

class SimHandler final : public HttpHandler {
 public:
  // `model` must outlive the handler.
  SimHandler(Model& model, SimHandlerOptions options);

  void Handle(HttpRequest request, Responder respond) override;

  // Synchronous core of Handle, for tests and for the scenario runner (a chat step's latency
  // is not waited for here).
  HttpResponse Serve(const HttpRequest& request);

  FakeChatCompletions& chat() { return chat_; }
  // Every API request served, as the rate limit counts it (GET/DELETE /_sim/requests).
  RequestTally& requests() { return requests_; }

 private:
  struct Caller {
    int64_t installation_id = 0;  // 0: any (insecure mode)
    std::string who;
  };
  struct RateWindow {
    int64_t remaining = 0;
    int64_t reset_epoch_s = 0;
  };

  HttpResponse ServeRest(const HttpRequest& request);
  HttpResponse ServeControl(const HttpRequest& request);  // sim/control.cc
  // /_sim/openai and /_sim/openai/script (sim/control.cc).
  HttpResponse ServeChatControl(const HttpRequest& request, const boost::json::object& body,
                                const std::vector<std::string>& parts);
  HttpResponse ServeRepo(const HttpRequest& request, const Caller& caller,
                         const std::vector<std::string>& parts,
                         const std::map<std::string, std::string>& query);
  // The git data API's refs (GET /git/ref/heads/{b}, POST /git/refs, PATCH and DELETE
  // /git/refs/heads/{b}) and POST /merges (sim/rest_git.cc); `parts` as ServeRepo's. nullopt
  // for other paths.
  std::optional<HttpResponse> ServeGit(const HttpRequest& request, const Caller& caller,
                                       const std::vector<std::string>& parts,
                                       const boost::json::object& body);
  // GET (list) and POST (create) /repos/{o}/{r}/issues/comments/{id}/reactions.
  HttpResponse ServeReactions(const HttpRequest& request, const Caller& caller,
                              const std::string& full, int64_t comment_id,
                              const std::map<std::string, std::string>& query);
  HttpResponse ServeAccessToken(const HttpRequest& request, int64_t installation_id);
  // GET /app, GET /app/installations, GET /app/installations/{id} (App JWT), with what the
  // App asks for and each installation accepted (sim/rest_app.cc); nullopt for other paths.
  std::optional<HttpResponse> ServeApp(const HttpRequest& request,
                                       const std::vector<std::string>& parts);
  // GET and PUT /_sim/app (sim/rest_app.cc).
  HttpResponse ServeAppControl(const HttpRequest& request, const boost::json::object& body);
  // GET /app/hook/deliveries, GET /app/hook/deliveries/{id}, POST .../{id}/attempts: the App's
  // webhook delivery attempts (sim/delivery_log.h), App JWT required (sim/rest_hook_deliveries.cc).
  HttpResponse ServeHookDeliveries(const HttpRequest& request,
                                   const std::vector<std::string>& parts);
  // The answer of an admitted deliveries call (before the rate-limit headers are added).
  HttpResponse AnswerHookDeliveries(const HttpRequest& request,
                                    const std::vector<std::string>& parts);
  // Aimed faults (only those: the counters are for /repos/ calls) and the App's own rate
  // window for an App-JWT call; as Admit.
  bool AdmitAppCall(const HttpRequest& request, HttpResponse* out,
                    std::vector<std::pair<std::string, std::string>>* headers);
  // nullopt when the request carries a valid App JWT; else the 401 to answer.
  std::optional<HttpResponse> CheckAppJwt(const HttpRequest& request);
  // Applies faults (aimed rules first, then the counters) and the primary limit; fills `out`
  // and returns false when the request is refused. Adds the X-RateLimit-* headers to
  // `headers` either way. A refused request does not count against the limit. An admitted
  // request whose answer a lost-answer fault takes sets `*lost`: it is served (its effect is
  // applied and counts against the limit), and then its answer is replaced (LoseAnswer).
  // `spend` says which window pays: REST's `core` (1 per request) or, for POST /graphql, the
  // `graphql` window (the query's cost in points; a query is no effect, so no lost-answer
  // counter applies to it).
  struct Spend {
    bool graphql = false;
    int64_t points = 1;
    // A GraphQL query's REST reads (graphql::RestReadsOf): aimed GET rules match them too.
    const std::vector<std::string>* reads = nullptr;
    // GraphQL: set when an aimed graphql_timeout rule took the query (it is admitted).
    bool* timed_out = nullptr;
  };
  bool Admit(const HttpRequest& request, int64_t installation_id, HttpResponse* out,
             std::vector<std::pair<std::string, std::string>>* headers, LostAnswer* lost,
             Spend spend);
  // POST /graphql (sim/rest_graphql.cc): a query over the model (sim/graphql_execute.h), for
  // a caller whose token named installation `installation_id` (0: any).
  HttpResponse ServeGraphql(const HttpRequest& request, int64_t installation_id);
  // When a timed exhaustion (primary_exhausted_until_s) has passed: every installation's
  // window starts afresh, as at GitHub's reset, and the fault is over.
  void SettleExhaustionLocked(int64_t now_s) REQUIRES(mu_);
  int64_t NowEpochSeconds() const;
  bool InstallationExists(int64_t id) const;
  // The push_on_merge / push_on_review race: while `count` (one of faults_'s counters) is not
  // spent and `pr` is open, spends one and pushes a new head as the PR's author, before the
  // call it precedes is served.
  void PushFirst(int64_t Faults::*count, const PullRequest& pr, const std::string& full,
                 int number);

  Model& model_;
  SimHandlerOptions options_;
  Mutex mu_;
  Faults faults_ GUARDED_BY(mu_);
  AppGrants grants_ GUARDED_BY(mu_);
  std::map<int64_t, RateWindow> windows_ GUARDED_BY(mu_);
  std::map<int64_t, RateWindow> graphql_windows_ GUARDED_BY(mu_);  // the points of POST /graphql
  FakeChatCompletions chat_;
  RequestTally requests_;
  DelayLine delay_line_;
};

// Helpers shared with control.cc and rest_repo.cc.
// A non-negative decimal path segment (at most 9 digits), or -1.
int ToNumber(const std::string& s);
// The model's outcome as a response: its error, or `body` with its status.
HttpResponse FromOutcome(const Outcome& o, const boost::json::value& body);
HttpResponse GitHubError(int status, std::string_view message);
// The answer of a call whose answer a lost-answer fault takes (the call itself was served):
// kReset resets the connection without a response; kBadGateway is a bare 502 page.
HttpResponse LoseAnswer(LostAnswer how);
HttpResponse JsonValueResponse(int status, const boost::json::value& v);
// Parses a JSON object body; false (and `error` filled) when it is not one. An empty body
// is an empty object.
bool ParseObject(const std::string& body, boost::json::object* out, HttpResponse* error);
std::string GetString(const boost::json::object& o, std::string_view key,
                      std::string fallback = "");
int64_t GetInt(const boost::json::object& o, std::string_view key, int64_t fallback);
bool GetBool(const boost::json::object& o, std::string_view key, bool fallback);

}  // namespace gatehouse::sim
