#include "sim/scenario.h"

#include <algorithm>
#include <boost/json.hpp>
#include <optional>

#include "sim/expectations.h"

namespace gatehouse::sim {
namespace json = boost::json;

namespace {

struct Step {
  int64_t at_ms = 0;
  std::string method;
  std::string target;
  std::string body;
};

// The longest time a scenario may name (a step's `at_ms`, `timeout_ms`, `settle_ms`): a day.
// Far past any scenario, and far inside what a Duration in microseconds holds (a value near
// INT64_MAX milliseconds overflowed there: scenario_fuzz_test).
constexpr int64_t kMaxScenarioMs = int64_t{24} * 3600 * 1000;

// `key` of `o` in milliseconds (`fallback` when absent), 0 to kMaxScenarioMs.
Result<int64_t> Milliseconds(const json::object& o, std::string_view key, int64_t fallback) {
  const int64_t ms = GetInt(o, key, fallback);
  if (ms < 0 || ms > kMaxScenarioMs) {
    return InvalidArgument(std::string(key) + " must be between 0 and " +
                           std::to_string(kMaxScenarioMs) + " (a day), got " + std::to_string(ms));
  }
  return ms;
}

Result<Step> ParseStep(const json::value& v) {
  if (!v.is_object()) return InvalidArgument("a step must be an object");
  const json::object& o = v.as_object();
  Step step;
  GH_ASSIGN_OR_RETURN(step.at_ms, Milliseconds(o, "at_ms", 0));
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

// When the target (anyone but the control API) last changed the world; nullopt if never.
std::optional<Time> LastTargetEffectAt(const Model& model) {
  const std::vector<Effect> effects = model.Effects();
  for (auto it = effects.rbegin(); it != effects.rend(); ++it) {
    if (it->who != "control") return it->at;
  }
  return std::nullopt;
}

}  // namespace

Result<ScenarioVerdict> RunScenario(const std::string& scenario_json, SimHandler& handler,
                                    const Model& model, std::function<void(Duration)> sleep,
                                    const ScenarioPlay& options) {
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
  if (const json::value* o = root.if_contains("openai")) {
    // The fake chat-completions endpoint's key and script (PUT /_sim/openai).
    setup.insert(setup.begin(), Step{0, "PUT", "/_sim/openai", json::serialize(*o)});
  }
  GH_ASSIGN_OR_RETURN(int64_t timeout_ms, Milliseconds(root, "timeout_ms", 10'000));
  GH_ASSIGN_OR_RETURN(int64_t settle_ms, Milliseconds(root, "settle_ms", 500));

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
  std::vector<std::string> unmet = UnmetExpectations(expects, model);
  if (!options.target) timeout_ms = settle_ms = 0;
  for (int64_t waited = 0; !unmet.empty() && waited < timeout_ms; waited += kPollMs) {
    sleep(std::chrono::milliseconds(kPollMs));
    unmet = UnmetExpectations(expects, model);
  }
  // Settle for settle_ms, and longer while the target is still acting (by at most another
  // timeout_ms): until its last effect is settle_ms old. Each effect may send a webhook that
  // the target resolves through the API, which must still be here to answer.
  if (settle_ms > 0) {
    const Duration settle = std::chrono::milliseconds(settle_ms);
    sleep(settle);
    for (int64_t waited = 0; waited < timeout_ms; waited += kPollMs) {
      const std::optional<Time> last = LastTargetEffectAt(model);
      if (!last || model.Now() - *last >= settle) break;
      sleep(std::chrono::milliseconds(kPollMs));
    }
  }
  unmet = UnmetExpectations(expects, model);
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
