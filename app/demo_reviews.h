// The demo's reviewers (docs/REVIEWERS.md): a `command` reviewer script, the builtin secrets
// scanner and an `openai` reviewer on gatehouse-sim's fake chat-completions endpoint, written as
// a reviewers file for `gatehouse serve --reviewers`; and what the demo checks of them once the
// world is quiet — the review funnel balanced with nothing in flight or dead, runs per role, and
// no review posted twice for one (PR, role, head).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "app/demo_sim.h"
#include "app/demo_world.h"
#include "store/store.h"

namespace gatehouse::app {

// The reviewer the demo pauses at the start and resumes mid-play.
inline constexpr char kDemoPausedReviewer[] = "lint-bot";
// The API key the fake endpoint expects and the openai reviewer sends (from this variable).
inline constexpr char kDemoOpenAiKeyEnv[] = "GATEHOUSE_DEMO_OPENAI_KEY";

// Writes `dir`/lint-bot.sh and `dir`/reviewers.yml (the openai reviewer on `sim_url`/v1);
// returns the reviewers file's path, or "" when it cannot be written.
std::string WriteDemoReviewers(const std::string& dir, const std::string& sim_url);

struct ReviewChecks {
  ReviewFunnel funnel;
  std::map<std::string, std::map<std::string, int64_t>> runs;  // role -> state -> runs
  int64_t reviews_posted = 0;     // marked reviews on the simulator's PRs
  int64_t duplicate_reviews = 0;  // a second marked review for one (PR, role, head)
  std::vector<std::string> problems;
};

// From gatehouse's database (runs, funnel) and the simulator's state (the posted reviews).
ReviewChecks CheckReviews(Store& store, SimControl& sim, const DemoWorld& world);

}  // namespace gatehouse::app
