#include "sim/scenario.h"

#include <algorithm>
#include <boost/json.hpp>
#include <iterator>
#include <map>
#include <optional>

namespace gatehouse::sim {
namespace json = boost::json;

namespace {

struct Step {
  int64_t at_ms = 0;
  std::string method;
  std::string target;
  std::string body;
};

Result<Step> ParseStep(const json::value& v) {
  if (!v.is_object()) return InvalidArgument("a step must be an object");
  const json::object& o = v.as_object();
  Step step;
  step.at_ms = GetInt(o, "at_ms", 0);
  std::string call = GetString(o, "call");
  size_t space = call.find(' ');
  if (space == std::string::npos) return InvalidArgument("step.call must be \"METHOD /path\"");
  step.method = call.substr(0, space);
  step.target = call.substr(space + 1);
  if (const json::value* body = o.if_contains("body")) step.body = json::serialize(*body);
  return step;
}

Result<std::vector<Step>> ParseSteps(const json::object& root, std::string_view key) {
  std::vector<Step> steps;
  const json::value* v = root.if_contains(key);
  if (v == nullptr) return steps;
  if (!v->is_array()) return InvalidArgument(std::string(key) + " must be an array");
  for (const auto& s : v->as_array()) {
    GH_ASSIGN_OR_RETURN(Step step, ParseStep(s));
    steps.push_back(std::move(step));
  }
  // Stable: steps at the same instant keep their file order.
  std::stable_sort(steps.begin(), steps.end(),
                   [](const Step& a, const Step& b) { return a.at_ms < b.at_ms; });
  return steps;
}

// How many effects match every field the expectation names (kind, who, who_prefix, repo,
// number, sha, status).
int64_t Matching(const json::object& expect, const std::vector<Effect>& effects) {
  int64_t n = 0;
  for (const auto& e : effects) {
    if (expect.contains("kind") && GetString(expect, "kind") != e.kind) continue;
    if (expect.contains("who") && GetString(expect, "who") != e.who) continue;
    if (expect.contains("who_prefix") && e.who.rfind(GetString(expect, "who_prefix"), 0) != 0)
      continue;
    if (expect.contains("repo") && GetString(expect, "repo") != e.repo) continue;
    if (expect.contains("sha") && GetString(expect, "sha") != e.sha) continue;
    if (expect.contains("number") && GetInt(expect, "number", -1) != e.number) continue;
    if (expect.contains("status") && GetInt(expect, "status", -1) != e.status) continue;
    ++n;
  }
  return n;
}

constexpr std::string_view kEffectKeys[] = {"kind", "who",    "who_prefix", "repo",    "number",
                                            "sha",  "status", "count",      "at_least"};
// Invariants over the App's effects (installation:*), each an expectation of its own.
constexpr std::string_view kInvariantKeys[] = {"no_stale_effects", "no_duplicate_effects"};
constexpr char kAppPrefix[] = "installation:";
constexpr std::string_view kStateKeys[] = {"pull",
                                           "state",
                                           "draft",
                                           "labels",
                                           "labels_absent",
                                           "comments",
                                           "reviews",
                                           "comments_at_least",
                                           "reviews_at_least"};

template <size_t N>
bool Known(std::string_view key, const std::string_view (&keys)[N]) {
  return std::find(std::begin(keys), std::end(keys), key) != std::end(keys);
}

// "owner/name#N" -> ("owner/name", N); false when malformed.
bool ParsePullRef(const std::string& ref, std::string* repo, int* number) {
  size_t hash = ref.rfind('#');
  if (hash == std::string::npos || hash == 0 || ref.find('/') > hash || hash + 1 == ref.size() ||
      ref.size() - hash > 10)
    return false;
  for (size_t i = hash + 1; i < ref.size(); ++i)
    if (ref[i] < '0' || ref[i] > '9') return false;
  *repo = ref.substr(0, hash);
  *number = std::stoi(ref.substr(hash + 1));
  return true;
}

bool IsStringArray(const json::value* v) {
  if (v == nullptr || !v->is_array()) return false;
  return std::all_of(v->as_array().begin(), v->as_array().end(),
                     [](const json::value& s) { return s.is_string(); });
}

bool IsCount(const json::object& o, std::string_view key) {
  const json::value* v = o.if_contains(key);
  return v == nullptr || (v->is_int64() && v->as_int64() >= 0) || v->is_uint64();
}

// An expectation with "pull" is on a pull request's state; any other is on the effect log.
Status ValidateExpectation(const json::value& v) {
  if (!v.is_object()) return InvalidArgument("an expectation must be an object");
  const json::object& o = v.as_object();
  std::string text = json::serialize(o);
  for (std::string_view key : kInvariantKeys) {
    if (!o.contains(key)) continue;
    if (o.size() != 1 || !o.at(key).is_bool() || !o.at(key).as_bool())
      return InvalidArgument("an invariant expectation is {\"" + std::string(key) +
                             "\": true} alone: " + text);
    return Status::Ok();
  }
  if (!o.contains("pull")) {
    for (const auto& [key, value] : o)
      if (!Known(key, kEffectKeys)) return InvalidArgument("unknown field in expectation " + text);
    return Status::Ok();
  }
  for (const auto& [key, value] : o)
    if (!Known(key, kStateKeys)) return InvalidArgument("unknown field in expectation " + text);
  std::string repo;
  int number = 0;
  if (!ParsePullRef(GetString(o, "pull"), &repo, &number))
    return InvalidArgument("expectation.pull must be \"owner/name#N\": " + text);
  if (const json::value* state = o.if_contains("state")) {
    if (!state->is_string() || (state->as_string() != "open" && state->as_string() != "closed" &&
                                state->as_string() != "merged"))
      return InvalidArgument("expectation.state must be open, closed or merged: " + text);
  }
  if (const json::value* draft = o.if_contains("draft"); draft && !draft->is_bool())
    return InvalidArgument("expectation.draft must be a boolean: " + text);
  for (std::string_view key : {"labels", "labels_absent"})
    if (o.contains(key) && !IsStringArray(o.if_contains(key)))
      return InvalidArgument("expectation." + std::string(key) + " must be strings: " + text);
  for (std::string_view key : {"comments", "reviews", "comments_at_least", "reviews_at_least"})
    if (!IsCount(o, key))
      return InvalidArgument("expectation." + std::string(key) + " must be a count: " + text);
  return Status::Ok();
}

// Why a (validated) state expectation does not hold, or "" when it does.
std::string CheckState(const json::object& e, const Model& model) {
  std::string repo;
  int number = 0;
  ParsePullRef(GetString(e, "pull"), &repo, &number);
  std::optional<PullRequest> pr = model.GetPull(repo, number);
  if (!pr) return "no such pull request";
  std::vector<std::string> why;
  std::string state = pr->merged ? "merged" : pr->state;
  if (e.contains("state") && GetString(e, "state") != state) why.push_back("state " + state);
  if (e.contains("draft") && GetBool(e, "draft", false) != pr->draft)
    why.push_back(pr->draft ? "draft" : "not draft");
  auto has_label = [&](const json::value& l) {
    return std::find(pr->labels.begin(), pr->labels.end(), l.as_string()) != pr->labels.end();
  };
  if (const json::value* labels = e.if_contains("labels")) {
    for (const auto& l : labels->as_array())
      if (!has_label(l)) why.push_back("label " + std::string(l.as_string()) + " absent");
  }
  if (const json::value* labels = e.if_contains("labels_absent")) {
    for (const auto& l : labels->as_array())
      if (has_label(l)) why.push_back("label " + std::string(l.as_string()) + " present");
  }
  auto count = [&](std::string_view what, int64_t got) {
    std::string exact(what), at_least = std::string(what) + "_at_least";
    if ((e.contains(exact) && GetInt(e, exact, -1) != got) ||
        (e.contains(at_least) && got < GetInt(e, at_least, 0)))
      why.push_back(std::to_string(got) + " " + exact);
  };
  count("comments", static_cast<int64_t>(model.CommentsFor(repo, number).size()));
  count("reviews", static_cast<int64_t>(pr->reviews.size()));
  std::string out;
  for (const auto& w : why) out += (out.empty() ? "" : ", ") + w;
  return out;
}

std::string Describe(const Effect& e) {
  return "#" + std::to_string(e.seq) + " " + e.who + " " + e.kind + " " + e.repo +
         (e.number ? "#" + std::to_string(e.number) : "") + " sha=" + e.sha + " head=" + e.head +
         " status=" + std::to_string(e.status) + (e.detail.empty() ? "" : " detail=" + e.detail);
}

bool IsAppSuccess(const Effect& e) {
  return e.who.rfind(kAppPrefix, 0) == 0 && e.status >= 200 && e.status < 300;
}

// 2xx App effects bound to a SHA that was no longer the PR's head when the call arrived.
std::vector<std::string> StaleEffects(const std::vector<Effect>& effects) {
  std::vector<std::string> out;
  for (const auto& e : effects) {
    if (IsAppSuccess(e) && !e.sha.empty() && !e.head.empty() && e.sha != e.head)
      out.push_back(Describe(e));
  }
  return out;
}

// Pairs of 2xx App effects that did the same thing twice: same kind (merge, review, close,
// update_branch), repo, number, sha and detail. A close after a reopen of the same PR
// (whoever reopened it) is a new action, not a duplicate.
std::vector<std::string> DuplicateEffects(const std::vector<Effect>& effects) {
  static constexpr std::string_view kKinds[] = {"merge", "review", "close", "update_branch"};
  std::vector<std::string> out;
  std::map<std::string, const Effect*> first;  // key -> the earlier effect
  for (const auto& e : effects) {
    const std::string pr = e.repo + "#" + std::to_string(e.number);
    if (e.kind == "reopen" && e.status >= 200 && e.status < 300) {
      for (auto it = first.begin(); it != first.end();) {
        it = it->first.rfind("close|" + pr + "|", 0) == 0 ? first.erase(it) : std::next(it);
      }
      continue;
    }
    if (!IsAppSuccess(e) || !Known(e.kind, kKinds)) continue;
    std::string key = e.kind + "|" + pr + "|" + e.sha + "|" + e.detail;
    auto [it, inserted] = first.emplace(key, &e);
    if (!inserted) out.push_back(Describe(*it->second) + " and " + Describe(e));
  }
  return out;
}

// Unmet expectations, as failure lines.
std::vector<std::string> Check(const json::array& expects, const Model& model) {
  std::vector<std::string> failures;
  std::vector<Effect> effects = model.Effects();
  for (const auto& v : expects) {
    if (!v.is_object()) continue;
    const json::object& e = v.as_object();
    if (e.contains("no_stale_effects") || e.contains("no_duplicate_effects")) {
      std::vector<std::string> found =
          e.contains("no_stale_effects") ? StaleEffects(effects) : DuplicateEffects(effects);
      if (found.empty()) continue;
      std::string list;
      for (const auto& f : found) list += (list.empty() ? "" : "; ") + f;
      failures.push_back("expected " + json::serialize(e) + ", got " + list);
      continue;
    }
    if (e.contains("pull")) {
      std::string why = CheckState(e, model);
      if (!why.empty()) failures.push_back("expected " + json::serialize(e) + ", got " + why);
      continue;
    }
    int64_t got = Matching(e, effects);
    int64_t want = GetInt(e, "count", -1);
    int64_t at_least = GetInt(e, "at_least", -1);
    bool met = want >= 0 ? got == want : at_least >= 0 ? got >= at_least : got >= 1;
    if (!met)
      failures.push_back("expected " + json::serialize(e) + ", got count " + std::to_string(got));
  }
  return failures;
}

}  // namespace

Result<ScenarioVerdict> RunScenario(const std::string& scenario_json, SimHandler& handler,
                                    const Model& model, std::function<void(Duration)> sleep) {
  boost::system::error_code ec;
  json::value root_value = json::parse(scenario_json, ec);
  if (ec || !root_value.is_object()) return InvalidArgument("scenario is not a JSON object");
  const json::object& root = root_value.as_object();
  GH_ASSIGN_OR_RETURN(std::vector<Step> setup, ParseSteps(root, "setup"));
  GH_ASSIGN_OR_RETURN(std::vector<Step> timeline, ParseSteps(root, "timeline"));
  json::array expects;
  if (const json::value* e = root.if_contains("expect")) {
    if (!e->is_array()) return InvalidArgument("expect must be an array");
    expects = e->as_array();
    for (const auto& x : expects) GH_RETURN_IF_ERROR(ValidateExpectation(x));
  }
  if (const json::value* f = root.if_contains("faults")) {
    setup.push_back({0, "PUT", "/_sim/faults", json::serialize(*f)});
  }
  int64_t timeout_ms = GetInt(root, "timeout_ms", 10'000);
  int64_t settle_ms = GetInt(root, "settle_ms", 500);

  ScenarioVerdict verdict;
  int64_t steps_failed = 0;
  auto play = [&](const Step& step) {
    HttpRequest request{.method = step.method,
                        .target = step.target,
                        .headers = {},
                        .body = step.body,
                        .peer = "scenario"};
    HttpResponse response = handler.Serve(request);
    if (response.status < 200 || response.status >= 300) {
      ++steps_failed;
      verdict.failures.push_back("step " + step.method + " " + step.target + " -> " +
                                 std::to_string(response.status) + " " + response.body);
    }
  };
  for (const Step& step : setup) play(step);
  int64_t now_ms = 0;
  for (const Step& step : timeline) {
    if (step.at_ms > now_ms) {
      sleep(std::chrono::milliseconds(step.at_ms - now_ms));
      now_ms = step.at_ms;
    }
    play(step);
  }
  // Wait for the target to act, then let it settle and check again: an expectation such as
  // "exactly one merge" must still hold after a late duplicate would have arrived.
  constexpr int64_t kPollMs = 50;
  std::vector<std::string> unmet = Check(expects, model);
  for (int64_t waited = 0; !unmet.empty() && waited < timeout_ms; waited += kPollMs) {
    sleep(std::chrono::milliseconds(kPollMs));
    unmet = Check(expects, model);
  }
  if (settle_ms > 0) sleep(std::chrono::milliseconds(settle_ms));
  unmet = Check(expects, model);
  for (auto& u : unmet) verdict.failures.push_back(std::move(u));

  verdict.counts["steps"] = static_cast<int64_t>(setup.size() + timeline.size());
  verdict.counts["steps_failed"] = steps_failed;
  verdict.counts["expectations"] = static_cast<int64_t>(expects.size());
  verdict.counts["unmet"] = static_cast<int64_t>(unmet.size());
  verdict.counts["effects"] = static_cast<int64_t>(model.Effects().size());
  verdict.ok = verdict.failures.empty();
  return verdict;
}

std::string FormatVerdict(const ScenarioVerdict& verdict) {
  std::string line = verdict.ok ? "verdict: ok" : "verdict: FAIL";
  for (const auto& [k, v] : verdict.counts) line += " " + k + "=" + std::to_string(v);
  return line;
}

}  // namespace gatehouse::sim
