#include "sim/expectations.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <optional>
#include <string_view>

#include "base/subject.h"
#include "sim/invariants.h"
#include "sim/rest.h"

namespace gatehouse::sim {
namespace json = boost::json;

namespace {

constexpr std::string_view kEffectKeys[] = {"kind", "who",    "who_prefix", "repo",     "number",
                                            "sha",  "status", "count",      "at_least", "at_most"};
constexpr std::string_view kInvariantKeys[] = {"no_stale_effects", "no_duplicate_effects",
                                               "no_duplicate_summaries", "no_untested_merges"};
constexpr std::string_view kStateKeys[] = {"pull",
                                           "state",
                                           "draft",
                                           "labels",
                                           "labels_absent",
                                           "comments",
                                           "reviews",
                                           "comments_at_least",
                                           "reviews_at_least",
                                           "summary_contains",
                                           "summary_not_contains",
                                           "check_run"};
constexpr std::string_view kCheckRunKeys[] = {"name", "sha", "status", "conclusion"};
constexpr std::string_view kCheckStatuses[] = {"queued", "in_progress", "completed"};
constexpr std::string_view kConclusions[] = {"success", "failure",   "neutral", "cancelled",
                                             "skipped", "timed_out", "stale",   "action_required"};

template <size_t N>
bool Known(std::string_view key, const std::string_view (&keys)[N]) {
  return std::find(std::begin(keys), std::end(keys), key) != std::end(keys);
}

// "owner/name#N" -> ("owner/name", N); false when malformed.
bool ParsePullRef(const std::string& ref, std::string* repo, int* number) {
  const std::optional<Subject> subject = Subject::Parse(ref);
  if (!subject || subject->number() > std::numeric_limits<int>::max()) return false;
  *repo = std::string(subject->repo_full_name());
  *number = static_cast<int>(subject->number());
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

bool IsSha(const json::value& v) {
  if (!v.is_string() || v.as_string().size() != 40) return false;
  return std::all_of(v.as_string().begin(), v.as_string().end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

template <size_t N>
bool IsOneOf(const json::value* v, const std::string_view (&values)[N]) {
  return v != nullptr && v->is_string() && Known(v->as_string(), values);
}

Status ValidateCheckRun(const json::value& v, const std::string& text) {
  if (!v.is_object()) return InvalidArgument("expectation.check_run must be an object: " + text);
  const json::object& o = v.as_object();
  for (const auto& [key, value] : o)
    if (!Known(key, kCheckRunKeys))
      return InvalidArgument("unknown field in expectation.check_run " + text);
  const json::value* name = o.if_contains("name");
  if (name == nullptr || !name->is_string() || name->as_string().empty())
    return InvalidArgument("expectation.check_run.name must be a non-empty string: " + text);
  if (o.contains("sha") && !IsSha(o.at("sha")))
    return InvalidArgument("expectation.check_run.sha must be 40 lower-case hex digits: " + text);
  if (o.contains("status") && !IsOneOf(o.if_contains("status"), kCheckStatuses))
    return InvalidArgument(
        "expectation.check_run.status must be queued, in_progress or completed: " + text);
  if (o.contains("conclusion") && !IsOneOf(o.if_contains("conclusion"), kConclusions))
    return InvalidArgument("expectation.check_run.conclusion must be one of GitHub's: " + text);
  return Status::Ok();
}

Status ValidateState(const json::object& o, const std::string& text) {
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
  for (std::string_view key :
       {"labels", "labels_absent", "summary_contains", "summary_not_contains"})
    if (o.contains(key) && !IsStringArray(o.if_contains(key)))
      return InvalidArgument("expectation." + std::string(key) + " must be strings: " + text);
  for (std::string_view key : {"comments", "reviews", "comments_at_least", "reviews_at_least"})
    if (!IsCount(o, key))
      return InvalidArgument("expectation." + std::string(key) + " must be a count: " + text);
  if (const json::value* run = o.if_contains("check_run"))
    GH_RETURN_IF_ERROR(ValidateCheckRun(*run, text));
  return Status::Ok();
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

// The App's last comment on the PR that starts with the summary marker.
std::optional<Comment> SummaryComment(const Model& model, const std::string& repo, int number) {
  std::optional<Comment> found;
  for (Comment& c : model.CommentsFor(repo, number)) {
    if (IsSummaryComment(c)) found = std::move(c);
  }
  return found;
}

void CheckSummary(const json::object& e, const Model& model, const std::string& repo, int number,
                  std::vector<std::string>* why) {
  if (!e.contains("summary_contains") && !e.contains("summary_not_contains")) return;
  std::optional<Comment> summary = SummaryComment(model, repo, number);
  if (!summary) {
    why->push_back("no summary comment");
    return;
  }
  if (const json::value* texts = e.if_contains("summary_contains")) {
    for (const auto& t : texts->as_array())
      if (summary->body.find(t.as_string()) == std::string::npos)
        why->push_back("summary lacks \"" + std::string(t.as_string()) + "\"");
  }
  if (const json::value* texts = e.if_contains("summary_not_contains")) {
    for (const auto& t : texts->as_array())
      if (summary->body.find(t.as_string()) != std::string::npos)
        why->push_back("summary contains \"" + std::string(t.as_string()) + "\"");
  }
}

// The latest run (highest id) named `check_run.name` on its `sha` (default: the PR's head)
// must have the `status` and `conclusion` it names.
void CheckCheckRun(const json::object& e, const Model& model, const std::string& repo,
                   const PullRequest& pr, std::vector<std::string>* why) {
  const json::value* v = e.if_contains("check_run");
  if (v == nullptr) return;
  const json::object& spec = v->as_object();
  const std::string name = GetString(spec, "name");
  const std::string sha = GetString(spec, "sha", pr.head_sha);
  std::optional<CheckRun> latest;
  for (CheckRun& run : model.CheckRunsFor(repo, sha)) {
    if (run.name == name && (!latest || run.id > latest->id)) latest = std::move(run);
  }
  if (!latest) {
    why->push_back("no check run " + name + " on " + sha);
    return;
  }
  const std::string conclusion = latest->conclusion.empty() ? "none" : latest->conclusion;
  if ((spec.contains("status") && GetString(spec, "status") != latest->status) ||
      (spec.contains("conclusion") && GetString(spec, "conclusion") != latest->conclusion)) {
    why->push_back("check run " + name + " #" + std::to_string(latest->id) + " on " + sha +
                   " status=" + latest->status + " conclusion=" + conclusion);
  }
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
  CheckSummary(e, model, repo, number, &why);
  CheckCheckRun(e, model, repo, *pr, &why);
  std::string out;
  for (const auto& w : why) out += (out.empty() ? "" : ", ") + w;
  return out;
}

// The invariant a (validated) expectation names, or "".
std::string InvariantOf(const json::object& e) {
  for (std::string_view key : kInvariantKeys)
    if (e.contains(key)) return std::string(key);
  return "";
}

}  // namespace

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
  if (o.contains("pull")) return ValidateState(o, text);
  for (const auto& [key, value] : o)
    if (!Known(key, kEffectKeys)) return InvalidArgument("unknown field in expectation " + text);
  return Status::Ok();
}

std::vector<ExpectationResult> EvaluateExpectations(const json::array& expects,
                                                    const Model& model) {
  std::vector<ExpectationResult> results;
  std::vector<Effect> effects = model.Effects();
  for (const auto& v : expects) {
    ExpectationResult& result = results.emplace_back();
    if (!v.is_object()) continue;
    const json::object& e = v.as_object();
    const std::string expected = "expected " + json::serialize(e) + ", got ";
    if (std::string invariant = InvariantOf(e); !invariant.empty()) {
      result.offences = invariant == "no_stale_effects"       ? StaleEffects(effects)
                        : invariant == "no_duplicate_effects" ? DuplicateEffects(effects)
                        : invariant == "no_untested_merges"   ? UntestedMerges(effects)
                                                              : ExtraSummaryComments(model);
      if (result.offences.empty()) continue;
      std::string list;
      for (const auto& f : result.offences) list += (list.empty() ? "" : "; ") + f;
      result.failure = expected + list;
      continue;
    }
    if (e.contains("pull")) {
      std::string why = CheckState(e, model);
      if (!why.empty()) result.failure = expected + why;
      continue;
    }
    int64_t got = Matching(e, effects);
    int64_t want = GetInt(e, "count", -1);
    int64_t at_least = GetInt(e, "at_least", -1);
    int64_t at_most = GetInt(e, "at_most", -1);
    bool met = want >= 0       ? got == want
               : at_least >= 0 ? got >= at_least && (at_most < 0 || got <= at_most)
               : at_most >= 0  ? got <= at_most
                               : got >= 1;
    if (!met) result.failure = expected + "count " + std::to_string(got);
  }
  return results;
}

std::vector<std::string> UnmetExpectations(const json::array& expects, const Model& model) {
  std::vector<std::string> failures;
  for (ExpectationResult& r : EvaluateExpectations(expects, model)) {
    if (!r.met()) failures.push_back(std::move(r.failure));
  }
  return failures;
}

}  // namespace gatehouse::sim
