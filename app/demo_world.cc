// The demo's world. See app/demo_world.h.
#include "app/demo_world.h"

#include <algorithm>
#include <boost/json.hpp>
#include <random>

#include "decide/digest.h"

namespace gatehouse::app {
namespace {

namespace json = boost::json;

// Required checks ci and lint, one approval, and every action class on `auto`; a short grace
// period so that closures happen while the demo watches (the pass that labels a PR pending-closure
// schedules its own recheck for when the grace ends: decide/recheck.h).
constexpr char kPolicy[] = R"(version: 1
rules:
  required_checks:
    mode: block
    checks: [ci, lint]
    missing_after: 10m
  approvals:
    mode: block
    min: 1
actions:
  autonomy: auto
  merge_method: squash
  close_grace: 3s
)";

// acme/api also has reviewers (docs/REVIEWERS.md): the secrets scanner and a model's security
// review are required, the style script is advisory.
constexpr char kReviews[] = R"(reviews:
  roles:
    - role: secrets
      required: true
    - role: security
      required: true
    - role: style
)";

// A patch that plants a credential (AWS's documented example key id).
constexpr char kPlantedPatch[] =
    "@@ -0,0 +1,3 @@\n+REGION=us-east-1\n+AWS_ACCESS_KEY_ID=AKIAIOSFODNN7EXAMPLE\n+RETRIES=3\n";

// acme/mono: a merge queue on a strict base, tested in batches of four on an integration
// branch; its CI is the simulator's CI bot (the check `ci`). No approvals, so that the queue is
// what the repository shows.
constexpr char kQueuePolicy[] = R"(version: 1
rules:
  required_checks:
    mode: block
    checks: [ci]
  approvals:
    mode: off
actions:
  autonomy: auto
merge_queue:
  enabled: true
  method: integration_branch
  batch_size: 4
)";

// The PR of acme/mono that breaks in combination: its own head is green, any tested state
// with it is red.
constexpr int kQueueBreaker = 3;

std::string Sha(const std::string& repo, int64_t number, int push) {
  // 40 hex digits, deterministic per (repo, PR, push): three stable digests of it.
  const std::string what = repo + "/" + std::to_string(number) + "/" + std::to_string(push);
  return (decide::StableDigest(what) + decide::StableDigest(what + "/1") +
          decide::StableDigest(what + "/2"))
      .substr(0, 40);
}

class Script {
 public:
  Script(DemoPr& pr) : pr_(pr), base_("/_sim/repos/" + pr.repo) {}

  void Call(int after_ms, const std::string& method_path, json::object body) {
    pr_.steps.push_back(DemoStep{after_ms, method_path, json::serialize(body), "", ""});
  }
  void Pull(int after_ms, const std::string& what, json::object body) {
    Call(after_ms, "POST " + base_ + "/pulls/" + std::to_string(pr_.number) + what,
         std::move(body));
  }
  void Check(int after_ms, const std::string& sha, const std::string& name,
             const std::string& status, const std::string& conclusion) {
    json::object body{{"head_sha", sha}, {"name", name}, {"status", status}};
    if (!conclusion.empty()) body["conclusion"] = conclusion;
    Call(after_ms, "POST " + base_ + "/check-runs", std::move(body));
  }
  void Status(int after_ms, const std::string& sha, const std::string& context,
              const std::string& state) {
    Call(after_ms, "POST " + base_ + "/statuses/" + sha,
         json::object{{"state", state}, {"context", context}});
  }
  void Wait(const std::string& state, const std::string& label) {
    pr_.steps.push_back(DemoStep{0, "", "", state, label});
  }
  // A CI storm on `sha`: queued and running check runs and pending statuses, then the
  // results, all within a few hundred milliseconds.
  void CiStorm(int after_ms, const std::string& sha, bool green, std::mt19937_64& rng) {
    Check(after_ms, sha, "ci", "queued", "");
    Check(0, sha, "lint", "in_progress", "");
    for (int i = 1; i <= 3; ++i)
      Status(static_cast<int>(rng() % 40), sha, "build/" + std::to_string(i), "pending");
    Check(static_cast<int>(100 + rng() % 200), sha, "ci", "in_progress", "");
    for (int i = 1; i <= 3; ++i)
      Status(static_cast<int>(rng() % 60), sha, "build/" + std::to_string(i), "success");
    Check(static_cast<int>(rng() % 100), sha, "lint", "completed", "success");
    Check(static_cast<int>(rng() % 100), sha, "ci", "completed", green ? "success" : "failure");
  }

 private:
  DemoPr& pr_;
  std::string base_;
};

}  // namespace

namespace {

// acme/mono's PRs: opened close together, each green on its own head (the simulator's CI bot),
// so that they become ready together and the queue batches them. At least kMinQueuePrs of them,
// so that even a small demo has batches left after the bisection and shows CI runs saved.
constexpr int kMinQueuePrs = 8;
void AddQueueRepo(DemoWorld& world, int prs_per_repo) {
  const int prs = std::max(prs_per_repo, kMinQueuePrs);
  DemoRepo repo{"acme", "mono", 1, kQueuePolicy, "", "main"};
  json::array failing_later;
  if (prs >= kQueueBreaker) failing_later.push_back(kQueueBreaker);
  repo.settings_json = json::serialize(json::object{
      {"protection",
       json::object{{"strict", true}, {"required_checks", json::array{"ci"}}, {"enforce", false}}},
      {"ci", json::object{{"checks", json::array{"ci"}},
                          {"duration_ms", 1500},
                          {"failing_later", std::move(failing_later)}}}});
  const std::string full = "acme/mono";
  world.repos.push_back(std::move(repo));
  for (int i = 0; i < prs; ++i) {
    DemoPr pr;
    pr.repo = full;
    pr.number = i + 1;
    const std::string sha = Sha(full, pr.number, 1);
    pr.heads = {sha};
    const bool breaker = pr.number == kQueueBreaker;
    pr.story = breaker ? "breaks only in combination: bisected out of its batch, left open"
                       : "ready together on a strict base: merged by the queue in a tested batch";
    pr.expected_state = breaker ? "open" : "merged";
    pr.expected_action = "queue_enter";
    Script s(pr);
    s.Call(0, "POST /_sim/repos/" + full + "/pulls",
           json::object{{"title", "Mono change " + std::to_string(i + 1)},
                        {"author", "dev" + std::to_string(i % 4)},
                        {"author_association", "MEMBER"},
                        {"head_sha", sha},
                        {"head_ref", "mono-" + std::to_string(i + 1)}});
    world.prs.push_back(std::move(pr));
  }
}

}  // namespace

DemoWorld BuildDemoWorld(int prs_per_repo, uint64_t seed, bool merge_queue) {
  DemoWorld world;
  world.repos = {{"acme", "api", 1, std::string(kPolicy) + kReviews, "", ""},
                 {"acme", "web", 1, kPolicy, "", ""},
                 {"globex", "tools", 2, kPolicy, "", ""}};
  world.faults_json = R"({"webhook_duplicates": 25, "webhook_reorders": 15, "push_on_merge": 3})";
  std::mt19937_64 rng(seed);
  int ri = 0;
  for (const DemoRepo& repo : world.repos) {
    const std::string full = repo.owner + "/" + repo.name;
    for (int i = 0; i < prs_per_repo; ++i) {
      DemoPr pr;
      pr.repo = full;
      pr.number = i + 1;
      Script s(pr);
      const std::string sha1 = Sha(full, pr.number, 1);
      const std::string sha2 = Sha(full, pr.number, 2);
      pr.heads = {sha1, sha2};
      const std::string author = "contributor" + std::to_string(i);
      // Staggered openings; numbers follow the order of the `create` steps, which run one
      // after another (see cmd_demo.cc).
      const int start = 400 + 120 * i + 40 * ri;
      // Every story appears among the first six PRs of a repository (so a small --prs still
      // shows them all); the rest are mostly the happy path.
      static constexpr int kStories[12] = {0, 8, 6, 9, 10, 11, 1, 2, 3, 4, 5, 7};
      const int kind = kStories[i % 12];
      json::object create{{"title", "Change " + std::to_string(i + 1)},
                          {"author", author},
                          {"author_association", "CONTRIBUTOR"},
                          {"head_sha", sha1},
                          {"head_ref", "feature-" + std::to_string(i + 1)}};
      if (kind == 11) {
        create["author"] = "maintainer" + std::to_string(i);
        create["author_association"] = "MEMBER";
      }
      // acme/api's seventh PR plants a credential: green and approved, but the required
      // secrets review blocks it.
      const bool planted = ri == 0 && i == 6;
      if (planted) {
        create["files"] =
            json::array{json::object{{"path", "deploy/prod.env"}, {"patch", kPlantedPatch}},
                        json::object{{"path", "README.md"},
                                     {"patch", "@@ -1 +1,2 @@\n # api\n+Deploy notes.\n"}}};
      }
      // The create call is made by the player before the scripts start (numbers must follow
      // creation order); the script's first step is relative to the start of the play.
      s.Call(0, "POST /_sim/repos/" + full + "/pulls", create);
      const int t = start;
      if (planted) {
        pr.story = "a planted credential: the secrets review blocks it; closed after the grace";
        pr.expected_state = "closed";
        pr.expected_action = "close";
        s.CiStorm(t, sha1, true, rng);
        s.Pull(static_cast<int>(rng() % 200), "/reviews",
               json::object{{"user", "lead"}, {"event", "APPROVE"}});
      } else if (kind <= 5) {
        pr.story = "CI storm, approval: merged once";
        pr.expected_state = "merged";
        pr.expected_action = "merge";
        s.CiStorm(t, sha1, true, rng);
        s.Pull(static_cast<int>(rng() % 200), "/reviews",
               json::object{{"user", "lead"}, {"event", "APPROVE"}});
      } else if (kind <= 7) {
        pr.story = "a push lands around the decision: merged exactly once";
        pr.expected_state = "merged";
        pr.expected_action = "merge";
        s.Pull(t, "/reviews", json::object{{"user", "lead"}, {"event", "APPROVE"}});
        s.CiStorm(50, sha1, true, rng);
        // A push lands while gatehouse decides on the green head.
        s.Pull(static_cast<int>(250 + rng() % 250), "/push",
               json::object{{"sha", sha2}, {"user", author}});
        s.CiStorm(600, sha2, true, rng);
      } else if (kind == 8 || kind == 11) {
        pr.story = kind == 8 ? "red CI: labelled pending-closure, closed after the grace"
                             : "red CI by a maintainer: exempt from closing";
        pr.expected_state = kind == 8 ? "closed" : "open";
        pr.expected_action = kind == 8 ? "close" : "";
        s.CiStorm(t, sha1, false, rng);
      } else if (kind == 9) {
        pr.story = "draft-dodge: turned draft while pending closure, closed anyway";
        pr.expected_state = "closed";
        pr.expected_action = "draft_dodge_close";
        s.CiStorm(t, sha1, false, rng);
        s.Wait("open", "pending-closure");
        s.Pull(100, "/draft", json::object{{"user", author}, {"draft", true}});
      } else {
        pr.story = "reopen-reclose: closed by gatehouse, reopened by its author, closed again";
        pr.expected_state = "closed";
        pr.expected_action = "reopen_reclose";
        s.CiStorm(t, sha1, false, rng);
        s.Wait("closed", "");
        s.Pull(200, "/reopen", json::object{{"user", author}});
      }
      world.prs.push_back(std::move(pr));
    }
    ++ri;
  }
  if (merge_queue) AddQueueRepo(world, prs_per_repo);
  return world;
}

}  // namespace gatehouse::app
