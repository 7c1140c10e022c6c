#include "sim/faults.h"

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <iterator>
#include <limits>

namespace gatehouse::sim {
namespace json = boost::json;

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

constexpr std::string_view kTopKeys[] = {"connection_resets",
                                         "server_errors",
                                         "server_error_status",
                                         "secondary_rate_limits",
                                         "retry_after_seconds",
                                         "primary_exhausted",
                                         "primary_exhausted_seconds",
                                         "latency_ms",
                                         "push_on_merge",
                                         "push_on_review",
                                         "lost_answer_resets",
                                         "lost_answer_502s",
                                         "aimed",
                                         "webhook_duplicates",
                                         "webhook_reorders",
                                         "webhook_delay_ms",
                                         "webhook_rules"};
constexpr std::string_view kAimedKeys[] = {"method", "path",   "fault",
                                           "count",  "status", "retry_after_seconds"};
constexpr std::string_view kRuleKeys[] = {"event", "action", "pr", "drop", "delay_ms", "count"};
constexpr std::string_view kAimedFaults[] = {"server_error",         "connection_reset",
                                             "secondary_rate_limit", "lost_answer_reset",
                                             "lost_answer_502",      "graphql_timeout"};

template <size_t N>
bool Known(std::string_view key, const std::string_view (&keys)[N]) {
  return std::find(std::begin(keys), std::end(keys), key) != std::end(keys);
}

template <size_t N>
Status OnlyKnown(const json::object& o, const std::string_view (&keys)[N],
                 const std::string& where) {
  for (const auto& [key, value] : o) {
    if (!Known(key, keys)) {
      return InvalidArgument(where + "unknown field \"" + std::string(key) + "\"");
    }
  }
  return Status::Ok();
}

std::string Name(const std::string& where, std::string_view key) {
  return where + std::string(key);
}

// An integer field in [min, max]; `out` is left alone when the field is absent.
Status ReadInt(const json::object& o, std::string_view key, const std::string& where, int64_t min,
               int64_t max, const char* what, int64_t* out) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr) return Status::Ok();
  int64_t n = 0;
  if (v->is_int64()) {
    n = v->as_int64();
  } else if (v->is_uint64() && v->as_uint64() <= static_cast<uint64_t>(kMax)) {
    n = static_cast<int64_t>(v->as_uint64());
  } else {
    return InvalidArgument(Name(where, key) + " must be " + what);
  }
  if (n < min || n > max) return InvalidArgument(Name(where, key) + " must be " + what);
  *out = n;
  return Status::Ok();
}

Status ReadCount(const json::object& o, std::string_view key, const std::string& where,
                 int64_t* out) {
  return ReadInt(o, key, where, 0, kMax, "a non-negative integer", out);
}

Status ReadPositive(const json::object& o, std::string_view key, const std::string& where,
                    int64_t* out) {
  return ReadInt(o, key, where, 1, kMax, "a positive integer", out);
}

Status ReadErrorStatus(const json::object& o, std::string_view key, const std::string& where,
                       int* out) {
  int64_t status = *out;
  GH_RETURN_IF_ERROR(ReadInt(o, key, where, 400, 599, "an HTTP error status (400-599)", &status));
  *out = static_cast<int>(status);
  return Status::Ok();
}

Status ReadBool(const json::object& o, std::string_view key, const std::string& where, bool* out) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr) return Status::Ok();
  if (!v->is_bool()) return InvalidArgument(Name(where, key) + " must be true or false");
  *out = v->as_bool();
  return Status::Ok();
}

Status ReadString(const json::object& o, std::string_view key, const std::string& where,
                  bool required, std::string* out) {
  const json::value* v = o.if_contains(key);
  if (v == nullptr) {
    return required ? InvalidArgument(Name(where, key) + " is required") : Status::Ok();
  }
  if (!v->is_string() || v->as_string().empty()) {
    return InvalidArgument(Name(where, key) + " must be a non-empty string");
  }
  *out = std::string(v->as_string());
  return Status::Ok();
}

Result<AimedFault> ParseAimed(const json::value& v, const std::string& where) {
  if (!v.is_object()) return InvalidArgument(where + " must be an object");
  const json::object& o = v.as_object();
  const std::string at = where + ".";
  GH_RETURN_IF_ERROR(OnlyKnown(o, kAimedKeys, where + ": "));
  AimedFault rule;
  GH_RETURN_IF_ERROR(ReadString(o, "method", at, false, &rule.method));
  for (char& c : rule.method) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  GH_RETURN_IF_ERROR(ReadString(o, "path", at, true, &rule.path));
  GH_RETURN_IF_ERROR(ReadString(o, "fault", at, true, &rule.fault));
  if (!Known(rule.fault, kAimedFaults)) {
    return InvalidArgument(at + "fault must be server_error, connection_reset, " +
                           "secondary_rate_limit, lost_answer_reset, lost_answer_502 or " +
                           "graphql_timeout, not \"" + rule.fault + "\"");
  }
  if (rule.fault == "graphql_timeout") {
    // Only the GraphQL endpoint itself: a glob that also matched a REST call would fault it.
    if (rule.path != "/graphql" || (!rule.method.empty() && rule.method != "POST")) {
      return InvalidArgument(at + "graphql_timeout applies to POST /graphql only (path " +
                             "\"/graphql\", method POST or absent)");
    }
    rule.method = "POST";
  }
  GH_RETURN_IF_ERROR(ReadPositive(o, "count", at, &rule.count));
  if (o.contains("status") && rule.fault != "server_error") {
    return InvalidArgument(at + "status applies to server_error only");
  }
  if (o.contains("retry_after_seconds") && rule.fault != "secondary_rate_limit") {
    return InvalidArgument(at + "retry_after_seconds applies to secondary_rate_limit only");
  }
  GH_RETURN_IF_ERROR(ReadErrorStatus(o, "status", at, &rule.status));
  GH_RETURN_IF_ERROR(ReadCount(o, "retry_after_seconds", at, &rule.retry_after_seconds));
  return rule;
}

Result<WebhookRule> ParseRule(const json::value& v, const std::string& where) {
  if (!v.is_object()) return InvalidArgument(where + " must be an object");
  const json::object& o = v.as_object();
  const std::string at = where + ".";
  GH_RETURN_IF_ERROR(OnlyKnown(o, kRuleKeys, where + ": "));
  WebhookRule rule;
  GH_RETURN_IF_ERROR(ReadString(o, "event", at, true, &rule.event));
  GH_RETURN_IF_ERROR(ReadString(o, "action", at, false, &rule.action));
  int64_t pr = 0;
  GH_RETURN_IF_ERROR(ReadInt(o, "pr", at, 1, std::numeric_limits<int>::max(),
                             "a positive pull request number", &pr));
  rule.pr = static_cast<int>(pr);
  GH_RETURN_IF_ERROR(ReadBool(o, "drop", at, &rule.drop));
  GH_RETURN_IF_ERROR(ReadPositive(o, "delay_ms", at, &rule.delay_ms));
  GH_RETURN_IF_ERROR(ReadPositive(o, "count", at, &rule.count));
  if (rule.drop && rule.delay_ms > 0) {
    return InvalidArgument(where + ": drop and delay_ms exclude each other");
  }
  if (!rule.drop && rule.delay_ms == 0) {
    return InvalidArgument(where + " needs \"drop\": true or a positive \"delay_ms\"");
  }
  return rule;
}

template <typename Rule>
Status ParseRules(const json::object& body, std::string_view key,
                  Result<Rule> (*parse)(const json::value&, const std::string&),
                  std::vector<Rule>* out) {
  const json::value* v = body.if_contains(key);
  if (v == nullptr) return Status::Ok();
  if (!v->is_array()) return InvalidArgument(std::string(key) + " must be an array of rules");
  for (size_t i = 0; i < v->as_array().size(); ++i) {
    GH_ASSIGN_OR_RETURN(Rule rule,
                        parse(v->as_array()[i], std::string(key) + "[" + std::to_string(i) + "]"));
    out->push_back(std::move(rule));
  }
  return Status::Ok();
}

json::object RenderAimed(const AimedFault& rule) {
  json::object o;
  if (!rule.method.empty()) o["method"] = rule.method;
  o["path"] = rule.path;
  o["fault"] = rule.fault;
  o["count"] = rule.count;
  if (rule.fault == "server_error") o["status"] = rule.status;
  if (rule.fault == "secondary_rate_limit") o["retry_after_seconds"] = rule.retry_after_seconds;
  return o;
}

json::object RenderRule(const WebhookRule& rule) {
  json::object o{{"event", rule.event}};
  if (!rule.action.empty()) o["action"] = rule.action;
  if (rule.pr != 0) o["pr"] = rule.pr;
  if (rule.drop) {
    o["drop"] = true;
  } else {
    o["delay_ms"] = rule.delay_ms;
  }
  o["count"] = rule.count;
  return o;
}

template <typename Rule, typename Match>
std::optional<Rule> Take(std::vector<Rule>* rules, Match match) {
  for (auto it = rules->begin(); it != rules->end(); ++it) {
    if (!match(*it)) continue;
    Rule taken = *it;
    if (--it->count <= 0) rules->erase(it);
    return taken;
  }
  return std::nullopt;
}

}  // namespace

bool AimedFault::Matches(std::string_view m, std::string_view p) const {
  if (!method.empty()) {
    if (m.size() != method.size()) return false;
    for (size_t i = 0; i < m.size(); ++i) {
      if (std::toupper(static_cast<unsigned char>(m[i])) != method[i]) return false;
    }
  }
  return fnmatch(path.c_str(), std::string(p).c_str(), 0) == 0;
}

LostAnswer LostAnswerOf(const AimedFault& rule) {
  if (rule.fault == "lost_answer_reset") return LostAnswer::kReset;
  if (rule.fault == "lost_answer_502") return LostAnswer::kBadGateway;
  return LostAnswer::kNone;
}

bool IsMutatingMethod(std::string_view method) {
  auto is = [&](std::string_view name) {
    if (method.size() != name.size()) return false;
    for (size_t i = 0; i < name.size(); ++i) {
      if (std::toupper(static_cast<unsigned char>(method[i])) != name[i]) return false;
    }
    return true;
  };
  return !is("GET") && !is("HEAD");
}

bool WebhookRule::Matches(std::string_view e, const DeliveryMeta& meta) const {
  if (e != event) return false;
  if (!action.empty() && action != meta.action) return false;
  return pr == 0 || std::find(meta.prs.begin(), meta.prs.end(), pr) != meta.prs.end();
}

Result<FaultSettings> ParseFaultSettings(const json::object& body, int64_t now_epoch_s) {
  GH_RETURN_IF_ERROR(OnlyKnown(body, kTopKeys, ""));
  FaultSettings s;
  Faults& f = s.rest;
  DeliveryFaults& d = s.delivery;
  GH_RETURN_IF_ERROR(ReadCount(body, "connection_resets", "", &f.connection_resets));
  GH_RETURN_IF_ERROR(ReadCount(body, "server_errors", "", &f.server_errors));
  GH_RETURN_IF_ERROR(ReadErrorStatus(body, "server_error_status", "", &f.server_error_status));
  GH_RETURN_IF_ERROR(ReadCount(body, "secondary_rate_limits", "", &f.secondary_rate_limits));
  GH_RETURN_IF_ERROR(ReadCount(body, "retry_after_seconds", "", &f.retry_after_seconds));
  GH_RETURN_IF_ERROR(ReadBool(body, "primary_exhausted", "", &f.primary_exhausted));
  int64_t exhausted_s = 0;
  GH_RETURN_IF_ERROR(ReadCount(body, "primary_exhausted_seconds", "", &exhausted_s));
  if (exhausted_s > 0) f.primary_exhausted_until_s = now_epoch_s + exhausted_s;
  GH_RETURN_IF_ERROR(ReadCount(body, "latency_ms", "", &f.latency_ms));
  GH_RETURN_IF_ERROR(ReadCount(body, "push_on_merge", "", &f.push_on_merge));
  GH_RETURN_IF_ERROR(ReadCount(body, "push_on_review", "", &f.push_on_review));
  GH_RETURN_IF_ERROR(ReadCount(body, "lost_answer_resets", "", &f.lost_answer_resets));
  GH_RETURN_IF_ERROR(ReadCount(body, "lost_answer_502s", "", &f.lost_answer_502s));
  GH_RETURN_IF_ERROR(ParseRules<AimedFault>(body, "aimed", &ParseAimed, &f.aimed));
  GH_RETURN_IF_ERROR(ReadCount(body, "webhook_duplicates", "", &d.duplicates));
  GH_RETURN_IF_ERROR(ReadCount(body, "webhook_reorders", "", &d.reorders));
  GH_RETURN_IF_ERROR(ReadCount(body, "webhook_delay_ms", "", &d.delay_ms));
  GH_RETURN_IF_ERROR(ParseRules<WebhookRule>(body, "webhook_rules", &ParseRule, &d.rules));
  return s;
}

json::object RenderFaultSettings(const Faults& rest, const DeliveryFaults& delivery,
                                 int64_t now_epoch_s) {
  json::array aimed;
  for (const auto& rule : rest.aimed) aimed.push_back(RenderAimed(rule));
  json::array rules;
  for (const auto& rule : delivery.rules) rules.push_back(RenderRule(rule));
  return {{"connection_resets", rest.connection_resets},
          {"server_errors", rest.server_errors},
          {"server_error_status", rest.server_error_status},
          {"secondary_rate_limits", rest.secondary_rate_limits},
          {"retry_after_seconds", rest.retry_after_seconds},
          {"primary_exhausted", rest.primary_exhausted},
          {"primary_exhausted_seconds",
           std::max<int64_t>(0, rest.primary_exhausted_until_s - now_epoch_s)},
          {"latency_ms", rest.latency_ms},
          {"push_on_merge", rest.push_on_merge},
          {"push_on_review", rest.push_on_review},
          {"lost_answer_resets", rest.lost_answer_resets},
          {"lost_answer_502s", rest.lost_answer_502s},
          {"aimed", std::move(aimed)},
          {"webhook_duplicates", delivery.duplicates},
          {"webhook_reorders", delivery.reorders},
          {"webhook_delay_ms", delivery.delay_ms},
          {"webhook_rules", std::move(rules)}};
}

std::optional<AimedFault> TakeAimedFault(std::vector<AimedFault>* rules, std::string_view method,
                                         std::string_view path) {
  return Take(rules, [&](const AimedFault& r) { return r.Matches(method, path); });
}

std::optional<WebhookRule> TakeWebhookRule(std::vector<WebhookRule>* rules, std::string_view event,
                                           const DeliveryMeta& meta) {
  return Take(rules, [&](const WebhookRule& r) { return r.Matches(event, meta); });
}

}  // namespace gatehouse::sim
