#include "app/doctor.h"

#include <time.h>

#include <boost/json.hpp>
#include <cstdlib>
#include <map>
#include <memory>
#include <utility>

#include "app/app_manifest.h"
#include "app/clock_skew.h"
#include "github/app_auth.h"
#include "github/transport.h"
#include "store/open_store.h"

namespace gatehouse::app {
namespace {

namespace json = boost::json;
using Severity = Finding::Severity;

constexpr Duration kJwtAheadLimit = std::chrono::seconds(60);       // iat is now - 60 s
constexpr Duration kJwtBehindLimit = std::chrono::seconds(9 * 60);  // exp is now + 9 min
constexpr Duration kSkewWarning = std::chrono::seconds(10);

int AccessRank(const std::string& access) {
  return access == "write" ? 2 : access == "read" ? 1 : 0;
}

std::string Seconds(Duration d) {
  return std::to_string(std::chrono::duration_cast<std::chrono::seconds>(d).count()) + " s";
}

class Doctor {
 public:
  explicit Doctor(const DoctorOptions& options)
      : options_(options), clock_(options.clock ? options.clock : std::make_shared<RealClock>()) {}

  std::vector<Finding> Run() {
    CheckSecrets();
    if (CheckCredentials()) {
      if (options_.github->app_mode()) {
        CheckApp();
      } else {
        CheckPersonalToken();
      }
    }
    CheckDatabase();
    return std::move(findings_);
  }

 private:
  void Add(Severity s, std::string check, std::string message) {
    findings_.push_back(Finding{s, std::move(check), std::move(message)});
  }

  void CheckSecrets() {
    if (!options_.secrets_error.empty()) {
      Add(Severity::kFail, "webhook secret", options_.secrets_error);
    } else if (options_.webhook_secrets.empty()) {
      Add(Severity::kFail, "webhook secret",
          "not set: put the App's webhook secret in GATEHOUSE_WEBHOOK_SECRET (or a file named by "
          "GATEHOUSE_WEBHOOK_SECRET_FILE); without it gatehouse serve refuses to start");
    } else if (options_.webhook_secrets.front().size() < 16) {
      Add(Severity::kWarn, "webhook secret",
          "set, but only " + std::to_string(options_.webhook_secrets.front().size()) +
              " characters: anyone who guesses it can send gatehouse webhooks; use 32 random "
              "characters or more (openssl rand -hex 32)");
    } else {
      Add(Severity::kOk, "webhook secret",
          "set (" + std::to_string(options_.webhook_secrets.front().size()) + " characters" +
              (options_.webhook_secrets.size() > 1 ? ", and a previous one for a rotation" : "") +
              ")");
    }
  }

  bool CheckCredentials() {
    if (!options_.github_error.empty()) {
      Add(Severity::kFail, "credentials", options_.github_error);
      return false;
    }
    if (!options_.github) {
      Add(Severity::kFail, "credentials",
          "none: set GATEHOUSE_GITHUB_APP_ID and GATEHOUSE_GITHUB_PRIVATE_KEY_FILE (the App's "
          "id and the private key GitHub generated for it), or GATEHOUSE_GITHUB_TOKEN; without "
          "them gatehouse serve only logs what it would do");
      return false;
    }
    CurlTransportOptions curl;
    curl.base_url = options_.github->api_url;
    curl.connect_timeout = std::chrono::seconds(10);
    curl.total_timeout = std::chrono::seconds(20);
    auto transport = CurlTransport::Create(curl);
    if (!transport.ok()) {
      Add(Severity::kFail, "credentials",
          "GATEHOUSE_GITHUB_API_URL " + options_.github->api_url + ": " +
              transport.status().message());
      return false;
    }
    transport_ = std::move(transport).value();
    if (options_.github->app_mode()) {
      auto signer = AppJwtSigner::Create(options_.github->app_id, options_.github->private_key_pem);
      if (!signer.ok()) {
        Add(Severity::kFail, "credentials",
            "the App's private key does not parse: " + signer.status().message() +
                " (use the .pem file GitHub generated, PKCS#1 or PKCS#8)");
        return false;
      }
      signer_ = std::move(signer).value();
      Add(Severity::kOk, "credentials",
          "App " + std::to_string(options_.github->app_id) + " with an RSA private key, against " +
              options_.github->api_url);
    } else {
      Add(Severity::kOk, "credentials", "a personal token, against " + options_.github->api_url);
    }
    return true;
  }

  // One GET; the reply, or nullopt with a failure added. Authorization: the App JWT or token.
  std::optional<HttpReply> Get(const std::string& target, const std::string& check,
                               const std::string& method = "GET") {
    HttpCall call;
    call.method = method;
    call.target = target;
    if (signer_) {
      auto jwt = signer_->Sign(clock_->Now());
      if (!jwt.ok()) {
        Add(Severity::kFail, check, "cannot sign an App JWT: " + jwt.status().message());
        return std::nullopt;
      }
      call.headers.emplace_back("Authorization", "Bearer " + *jwt);
    } else {
      call.headers.emplace_back("Authorization", "token " + options_.github->personal_token);
    }
    auto reply = transport_->Send(call);
    if (!reply.ok()) {
      Add(Severity::kFail, check,
          "GitHub did not answer " + method + " " + target + " at " + options_.github->api_url +
              ": " + reply.status().message());
      return std::nullopt;
    }
    if (!clock_checked_) CheckClock(*reply);
    return std::move(reply).value();
  }

  void CheckClock(const HttpReply& reply) {
    clock_checked_ = true;
    const std::string date = reply.Header("date");
    const std::optional<Time> theirs = ParseHttpDate(date);
    if (!theirs) {
      Add(Severity::kWarn, "clock",
          date.empty() ? "GitHub's answer had no Date header: the clock was not compared"
                       : "GitHub's Date header '" + date + "' does not parse");
      return;
    }
    const Duration ahead = clock_->Now() - *theirs;  // > 0: this host is ahead
    const Duration size = ahead < Duration::zero() ? -ahead : ahead;
    const std::string how = ahead >= Duration::zero() ? "ahead of" : "behind";
    if (ahead > kJwtAheadLimit || -ahead > kJwtBehindLimit) {
      Add(Severity::kFail, "clock",
          "this host's clock is " + Seconds(size) + " " + how +
              " GitHub's: GitHub refuses App JWTs from a clock more than 60 s ahead or 9 min "
              "behind. Synchronise it (systemd-timesyncd, chrony)");
    } else if (size > kSkewWarning) {
      Add(Severity::kWarn, "clock",
          "this host's clock is " + Seconds(size) + " " + how +
              " GitHub's: within what App JWTs allow, but keep it synchronised");
    } else {
      Add(Severity::kOk, "clock", "within " + Seconds(kSkewWarning) + " of GitHub's Date header");
    }
  }

  static std::optional<json::value> Json(const HttpReply& reply) {
    boost::system::error_code ec;
    json::value v = json::parse(reply.body, ec);
    if (ec) return std::nullopt;
    return v;
  }

  // What `granted` lacks of what gatehouse needs, one line each with why; "" when nothing.
  static std::string Missing(const json::value& granted) {
    std::string out;
    const json::object* perms = nullptr;
    if (const json::object* o = granted.if_object()) {
      if (const json::value* p = o->if_contains("permissions")) perms = p->if_object();
    }
    for (const AppPermission& need : AppPermissions()) {
      std::string have;
      if (perms != nullptr) {
        if (const json::value* v = perms->if_contains(need.name); v && v->is_string()) {
          have = std::string(v->as_string());
        }
      }
      if (AccessRank(have) < AccessRank(std::string(need.access))) {
        out += "\n      " + std::string(need.name) + ": " + std::string(need.access) +
               (have.empty() ? " (not granted)" : " (only " + have + ")") + " — " +
               std::string(need.why);
      }
    }
    std::map<std::string, bool> events;
    if (const json::object* o = granted.if_object()) {
      if (const json::value* e = o->if_contains("events"); e && e->is_array()) {
        for (const json::value& name : e->as_array()) {
          if (name.is_string()) events[std::string(name.as_string())] = true;
        }
      }
    }
    for (const AppEvent& need : AppEvents()) {
      if (!events.count(std::string(need.name))) {
        out += "\n      event " + std::string(need.name) + " (not subscribed) — " +
               std::string(need.why);
      }
    }
    return out;
  }

  void CheckApp() {
    auto app = Get("/app", "GitHub");
    if (!app) return;
    if (app->status == 401) {
      Add(Severity::kFail, "GitHub",
          "GitHub refused the App JWT (401): GATEHOUSE_GITHUB_APP_ID is not this key's App, the "
          "key was revoked, or this host's clock is off (see clock)");
      return;
    }
    auto doc = Json(*app);
    if (app->status != 200 || !doc || !doc->is_object()) {
      Add(Severity::kFail, "GitHub", "GET /app answered " + std::to_string(app->status));
      return;
    }
    const json::object& a = doc->as_object();
    const std::string slug = a.contains("slug") && a.at("slug").is_string()
                                 ? std::string(a.at("slug").as_string())
                                 : std::string("?");
    Add(Severity::kOk, "GitHub",
        "the App JWT is accepted: App '" + slug + "', acting as " + slug + "[bot]");
    const std::string missing = Missing(*doc);
    if (missing.empty()) {
      Add(Severity::kOk, "permissions",
          "the App asks for every permission and event gatehouse needs");
    } else {
      Add(Severity::kFail, "permissions",
          "the App does not ask for everything gatehouse needs; add these in the App's settings "
          "(Permissions & events), then accept them on each installation:" +
              missing);
    }
    CheckWebhookConfig();
    CheckInstallations();
    auto deliveries = Get("/app/hook/deliveries?per_page=1", "recovery");
    if (deliveries && deliveries->status == 200) {
      Add(Severity::kOk, "recovery",
          "the App's webhook deliveries are readable: deliveries GitHub could not make while "
          "gatehouse was down are recovered");
    } else if (deliveries) {
      Add(Severity::kWarn, "recovery",
          "GET /app/hook/deliveries answered " + std::to_string(deliveries->status) +
              ": missed deliveries cannot be recovered (is a webhook URL set on the App?)");
    }
  }

  // GitHub's side of the webhook: signed (a secret is set there) and pointed somewhere.
  void CheckWebhookConfig() {
    auto reply = Get("/app/hook/config", "webhook");
    if (!reply) return;
    auto doc = reply->status == 200 ? Json(*reply) : std::nullopt;
    const json::object* o = doc ? doc->if_object() : nullptr;
    if (o == nullptr) {
      Add(Severity::kWarn, "webhook",
          "GET /app/hook/config answered " + std::to_string(reply->status) +
              ": the App's webhook was not checked");
      return;
    }
    const json::value* url = o->if_contains("url");
    const std::string target = url && url->is_string() ? std::string(url->as_string()) : "";
    const json::value* secret = o->if_contains("secret");
    const bool signed_ = secret && secret->is_string() && !secret->as_string().empty();
    if (target.empty()) {
      Add(Severity::kFail, "webhook",
          "the App has no webhook URL: GitHub sends gatehouse nothing. Set it in the App's "
          "settings (General > Webhook URL) to gatehouse's address and --webhook-path");
    } else if (!signed_) {
      Add(Severity::kFail, "webhook",
          "the App's webhook to " + target +
              " has no secret: GitHub sends unsigned deliveries, which gatehouse refuses. Set "
              "the App's webhook secret to GATEHOUSE_WEBHOOK_SECRET");
    } else {
      Add(Severity::kOk, "webhook",
          "GitHub signs deliveries to " + target +
              " (that the secret is GATEHOUSE_WEBHOOK_SECRET shows when the first one arrives "
              "and is not refused with 401)");
    }
  }

  void CheckInstallations() {
    auto list = Get("/app/installations?per_page=100", "installations");
    if (!list) return;
    auto doc = list->status == 200 ? Json(*list) : std::nullopt;
    if (!doc || !doc->is_array()) {
      Add(Severity::kFail, "installations",
          "GET /app/installations answered " + std::to_string(list->status));
      return;
    }
    if (doc->as_array().empty()) {
      Add(Severity::kFail, "installations",
          "the App is not installed anywhere: install it on the repositories gatehouse should "
          "act on (the App's page, Install App)");
      return;
    }
    for (const json::value& inst : doc->as_array()) {
      const json::object* o = inst.if_object();
      if (o == nullptr || !o->contains("id") || !o->at("id").is_int64()) continue;
      const int64_t id = o->at("id").as_int64();
      std::string account = "?";
      if (const json::value* acc = o->if_contains("account"); acc && acc->is_object()) {
        if (const json::value* login = acc->as_object().if_contains("login");
            login && login->is_string()) {
          account = std::string(login->as_string());
        }
      }
      const std::string name = "installation " + std::to_string(id) + " (" + account + ")";
      if (const json::value* s = o->if_contains("suspended_at"); s && !s->is_null()) {
        Add(Severity::kFail, "installations", name + " is suspended: gatehouse cannot act there");
        continue;
      }
      const std::string missing = Missing(inst);
      if (!missing.empty()) {
        Add(Severity::kFail, "installations",
            name +
                " has not accepted everything gatehouse needs; its owner accepts new "
                "permissions in Settings > GitHub Apps > " +
                "Configure:" + missing);
      }
      auto token = Get("/app/installations/" + std::to_string(id) + "/access_tokens",
                       "installations", "POST");
      if (!token) continue;
      if (token->status != 201) {
        Add(Severity::kFail, "installations",
            name + ": GitHub refused an installation token (" + std::to_string(token->status) +
                ")");
      } else if (missing.empty()) {
        Add(Severity::kOk, "installations", name + ": every permission and event, and a token");
      }
    }
  }

  void CheckPersonalToken() {
    auto user = Get("/user", "GitHub");
    if (!user) return;
    auto doc = user->status == 200 ? Json(*user) : std::nullopt;
    if (!doc || !doc->is_object() || !doc->as_object().contains("login")) {
      Add(Severity::kFail, "GitHub",
          "GitHub refused the personal token (" + std::to_string(user->status) +
              "): check GATEHOUSE_GITHUB_TOKEN");
      return;
    }
    Add(Severity::kOk, "GitHub",
        "the token is accepted: acting as " +
            std::string(doc->as_object().at("login").as_string()));
    Add(Severity::kWarn, "recovery",
        "a personal token cannot read an App's webhook deliveries: deliveries GitHub could not "
        "make while gatehouse was down are not recovered (the sweep still finds their PRs)");
  }

  void CheckDatabase() {
    if (options_.db_url.empty()) return;
    StoreOptions store_options;
    store_options.must_exist = true;
    store_options.pool_size = 1;
    store_options.listen = false;
    auto store = OpenStore(options_.db_url, store_options);
    if (!store.ok()) {
      Add(Severity::kFail, "database",
          DescribeStoreUrl(options_.db_url) + ": " + store.status().message());
      return;
    }
    if (Status w = (*store)->CheckWritable(); !w.ok()) {
      Add(Severity::kFail, "database",
          DescribeStoreUrl(options_.db_url) + " does not take writes: " + w.message());
      return;
    }
    auto version = (*store)->SchemaVersion();
    Add(Severity::kOk, "database",
        DescribeStoreUrl(options_.db_url) + " opens and takes writes" +
            (version.ok() ? ", schema version " + std::to_string(*version) : std::string()));
    if (Status skew = CheckClockSkew(**store, clock_->Now(), std::chrono::seconds(60));
        !skew.ok()) {
      Add(Severity::kFail, "database", skew.message());
    }
  }

  const DoctorOptions& options_;
  ClockPtr clock_;
  std::unique_ptr<CurlTransport> transport_;
  std::unique_ptr<AppJwtSigner> signer_;
  bool clock_checked_ = false;
  std::vector<Finding> findings_;
};

}  // namespace

std::optional<Time> ParseHttpDate(const std::string& text) {
  std::tm tm{};
  const char* end = strptime(text.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  if (end == nullptr || *end != '\0') return std::nullopt;
  const time_t secs = timegm(&tm);
  if (secs == static_cast<time_t>(-1)) return std::nullopt;
  return Time(std::chrono::seconds(secs));
}

std::vector<Finding> CheckSetup(const DoctorOptions& options) { return Doctor(options).Run(); }

}  // namespace gatehouse::app
