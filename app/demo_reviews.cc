// The demo's reviewers. See app/demo_reviews.h.
#include "app/demo_reviews.h"

#include <sys/stat.h>

#include <boost/json.hpp>
#include <fstream>
#include <set>
#include <tuple>

#include "app/json_fields.h"
#include "decide/review_body.h"

namespace gatehouse::app {
namespace {

namespace json = boost::json;

// A style reviewer as a shell script: it counts the TODO markers the patches add and comments.
constexpr char kLintBot[] = R"(#!/bin/sh
# gatehouse demo's command reviewer: the review request JSON on stdin, the result on stdout.
todos=$(grep -o '+[^"]*TODO' | wc -l)
if [ "$todos" -gt 0 ]; then
  printf '{"verdict":"comment","summary":"%s added TODO marker(s); fine for now.","findings":[]}' "$todos"
else
  printf '{"verdict":"approve","summary":"Style looks consistent.","findings":[]}'
fi
)";


}  // namespace

std::string WriteDemoReviewers(const std::string& dir, const std::string& sim_url) {
  const std::string script = dir + "/lint-bot.sh", file = dir + "/reviewers.yml";
  {
    std::ofstream out(script);
    out << kLintBot;
    if (!out) return "";
  }
  ::chmod(script.c_str(), 0755);
  std::ofstream out(file);
  out << "# gatehouse demo's reviewers (docs/REVIEWERS.md)\n"
         "availability_budget: 1h\n"
         "reviewers:\n"
         "  - name: "
      << kDemoPausedReviewer
      << "\n"
         "    roles: [style]\n"
         "    executor: {type: command, argv: ["
      << script
      << "]}\n"
         "    concurrency: 2\n"
         "    timeout: 30s\n"
         "  - name: secrets\n"
         "    roles: [secrets]\n"
         "    executor: {type: \"builtin:secrets\"}\n"
         "    concurrency: 4\n"
         "  - name: gpt\n"
         "    roles: [security]\n"
         "    executor: {type: openai, base_url: \""
      << sim_url << "/v1\", model: demo-model, api_key_env: " << kDemoOpenAiKeyEnv
      << "}\n"
         "    concurrency: 3\n"
         "    timeout: 30s\n";
  return out ? file : "";
}

ReviewChecks CheckReviews(Store& store, SimControl& sim, const DemoWorld& world) {
  ReviewChecks c;
  if (auto f = store.reviews().GetReviewFunnel(); f.ok()) {
    c.funnel = *f;
  } else {
    c.problems.push_back("review funnel: " + f.status().ToString());
  }
  const ReviewFunnel& f = c.funnel;
  if (f.requested != f.done + f.cancelled + f.superseded + f.dead + f.in_flight) {
    c.problems.push_back("the review funnel does not balance");
  }
  if (f.in_flight > 0) c.problems.push_back(std::to_string(f.in_flight) + " review runs in flight");
  if (f.dead > 0) c.problems.push_back(std::to_string(f.dead) + " review runs dead");
  for (const DemoPr& pr : world.prs) {
    auto runs = store.reviews().ListRuns(DemoSubjectKey(pr));
    if (!runs.ok()) continue;
    for (const ReviewRun& r : *runs) ++c.runs[r.key.role][std::string(RunStateName(r.state))];
  }
  // Every marked review on the simulator's PRs, by (repo, PR, role, head).
  const json::value state = sim.GetJson("/_sim/state");
  std::set<std::tuple<std::string, std::string, std::string, std::string>> seen;
  const json::object* root = state.if_object();
  const json::value* repos = root != nullptr ? root->if_contains("repos") : nullptr;
  if (repos == nullptr || !repos->is_array()) {
    c.problems.push_back("the simulator's state could not be read");
    return c;
  }
  for (const json::value& repo : repos->as_array()) {
    const json::value* pulls = repo.as_object().if_contains("pulls");
    if (pulls == nullptr || !pulls->is_array()) continue;
    for (const json::value& pull : pulls->as_array()) {
      const json::value* reviews = pull.as_object().if_contains("reviews");
      if (reviews == nullptr || !reviews->is_array()) continue;
      for (const json::value& review : reviews->as_array()) {
        auto marker = decide::ParseReviewMarker(StringOf(review, "body"));
        if (!marker) continue;
        ++c.reviews_posted;
        const std::string number = json::serialize(pull.as_object().at("number"));
        if (!seen.insert({StringOf(repo, "full_name"), number, marker->role, marker->head_sha}).second) {
          ++c.duplicate_reviews;
        }
      }
    }
  }
  if (c.duplicate_reviews > 0) {
    c.problems.push_back(std::to_string(c.duplicate_reviews) + " duplicate reviews");
  }
  return c;
}

}  // namespace gatehouse::app
