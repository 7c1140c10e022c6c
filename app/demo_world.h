// The demo's built-in world: repositories, their policy files, and one script per pull
// request (steps at offsets, plus waits for a condition gatehouse must bring about, such as
// "the pending-closure label is on").
//
// Pure data, generated deterministically from a seed; app/cmd_demo.cc plays it against a
// running gatehouse-sim through its control API. Plain value types.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/subject.h"

namespace gatehouse::app {

struct DemoRepo {
  std::string owner;
  std::string name;
  int64_t installation_id = 0;
  std::string policy_yaml;  // .github/gatehouse.yml
  // More members of the simulator's POST /_sim/repos body, as a JSON object ("" none): branch
  // protection and the simulator's own CI bot (docs/SIMULATOR.md "Branch protection and CI").
  // A repository with `ci` gets its checks from the simulator, not from the demo's scripts.
  std::string settings_json;
  std::string queue_base;  // the base branch of its merge queue ("" when it has none)
};

struct DemoStep {
  int at_ms = 0;  // after the previous step (a wait resets the base to when it was met)
  // A control-API call ("POST /_sim/..." + JSON body), or, when `wait_state` is set, a wait:
  // poll /_sim/state until the PR is in that state ("open", "closed", "merged") and, if
  // `wait_label` is set, carries that label.
  std::string call;
  std::string body;
  std::string wait_state;
  std::string wait_label;
};

struct DemoPr {
  std::string repo;  // "owner/name"
  int64_t number = 0;
  std::string story;               // what this PR demonstrates
  std::string expected_state;      // its state once gatehouse is done: open, closed, merged
  std::string expected_action;     // a ledger kind that must be `done` for it ("" = none)
  std::vector<std::string> heads;  // the head SHAs its script pushes (CI for others: the CI bot)
  std::vector<DemoStep> steps;
};

// The PR's subject key ("owner/name#N", lower-cased as the store keys it); empty for a
// malformed story, whose checks then fail.
inline std::string DemoSubjectKey(const DemoPr& pr) {
  const std::optional<Subject> s = Subject::PullRequest(pr.repo, pr.number);
  return s ? s->key() : std::string();
}

struct DemoWorld {
  std::vector<DemoRepo> repos;
  std::vector<DemoPr> prs;
  // PUT /_sim/faults before the scripts start. `push_on_merge` makes GitHub see a push land
  // just before some merges (409, `superseded`); the demo's CI bot then runs CI on the new
  // head and gatehouse merges that one.
  std::string faults_json;
};

// `prs_per_repo` pull requests in each of three repositories (two installations); with
// `merge_queue`, a fourth, acme/mono: a strict base branch (up to date and green before a merge)
// whose PRs become ready together and merge through gatehouse's merge queue in batches
// (docs/MERGE_QUEUE.md), one of them breaking only in combination, found by bisection.
DemoWorld BuildDemoWorld(int prs_per_repo, uint64_t seed, bool merge_queue = false);

}  // namespace gatehouse::app
