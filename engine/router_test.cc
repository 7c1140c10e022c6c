// The router over the real GitHub payloads in ../shared/fixtures/github-webhooks (from
// octokit/webhooks), plus synthetic payloads for the shapes real traffic rarely shows:
// missing and mistyped fields, fork PRs, comments that do or do not address gatehouse.
#include "engine/router.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "base/subject.h"
#include "decide/pr_facts.h"

namespace gatehouse {
namespace {

namespace fs = std::filesystem;
namespace json = boost::json;
using Kind = RouteResult::Kind;
using Heads = std::vector<std::pair<std::string, std::string>>;

const fs::path kFixtures = GATEHOUSE_FIXTURES;

// The fixtures' PR: Codertocat/Hello-World#2 at this head.
constexpr const char kHelloKey[] = "codertocat/hello-world#2";
constexpr const char kHelloHead[] = "ec26c3e57ca3a959ca5aad62de7213c562f8c821";

json::value ParseFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  json::error_code ec;
  json::value v = json::parse(text.str(), ec);
  if (!in || ec) {
    ADD_FAILURE() << path << ": " << (ec ? ec.message() : "unreadable");
    return nullptr;
  }
  return v;
}

json::value Fixture(const std::string& relative) { return ParseFile(kFixtures / relative); }

// Every fixture file: (event, path). The event is the folder name, as GitHub's
// X-GitHub-Event header would say.
std::vector<std::pair<std::string, fs::path>> AllFixtures() {
  std::vector<std::pair<std::string, fs::path>> out;
  for (const auto& entry : fs::recursive_directory_iterator(kFixtures)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".json") continue;
    out.emplace_back(entry.path().parent_path().filename().string(), entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::string> Keys(const RouteResult& r) {
  std::vector<std::string> v;
  for (const auto& t : r.signals) v.push_back(t.key);
  return v;
}

std::vector<std::string> Reasons(const RouteResult& r) {
  std::vector<std::string> v;
  for (const auto& t : r.signals) v.push_back(t.reason);
  return v;
}

// What every result must look like, whatever the input: the store rejects malformed keys and
// reasons, and an ignored delivery must say why.
void ExpectWellFormed(const RouteResult& r, const std::string& context) {
  static const std::regex kKey("[a-z0-9._-]+/[a-z0-9._-]+#[1-9][0-9]*");
  static const std::regex kReason("[a-z0-9_.:-]+");
  static const std::regex kRepo("[a-z0-9._-]+/[a-z0-9._-]+");
  static const std::regex kSha("[0-9a-f]{40}([0-9a-f]{24})?");
  SCOPED_TRACE(context);
  switch (r.kind) {
    case Kind::kIgnore:
      EXPECT_FALSE(r.why.empty());
      EXPECT_TRUE(r.signals.empty());
      break;
    case Kind::kRoute:
      for (const auto& t : r.signals) {
        EXPECT_TRUE(std::regex_match(t.key, kKey)) << t.key;
        EXPECT_TRUE(std::regex_match(t.reason, kReason)) << t.reason;
      }
      if (r.signals.empty()) {
        EXPECT_FALSE(r.why.empty());
      }
      break;
    case Kind::kResolveBySha:
      EXPECT_TRUE(r.signals.empty());
      EXPECT_TRUE(std::regex_match(r.repo, kRepo)) << r.repo;
      EXPECT_TRUE(std::regex_match(r.sha, kSha)) << r.sha;
      EXPECT_TRUE(std::regex_match(r.reason, kReason)) << r.reason;
      break;
  }
  for (const auto& [key, sha] : r.heads) {
    EXPECT_TRUE(std::regex_match(key, kKey)) << key;
    EXPECT_TRUE(sha.empty() || std::regex_match(sha, kSha)) << sha;
  }
  for (const auto& repo : r.repos) {
    EXPECT_TRUE(std::regex_match(repo.repo, kRepo)) << repo.repo;
    EXPECT_TRUE(!repo.installation_id || *repo.installation_id > 0);
  }
  for (const auto& repo : r.repos_removed) EXPECT_TRUE(std::regex_match(repo, kRepo)) << repo;
  static const std::regex kFactName("[a-z_]+");
  for (const auto& f : r.facts) {
    EXPECT_TRUE(std::regex_match(f.subject, kKey)) << f.subject;
    EXPECT_TRUE(std::regex_match(f.name, kFactName)) << f.name;
    EXPECT_FALSE(f.value.empty());
  }
}

const std::vector<std::string> kUsedEvents = {
    "pull_request",  "pull_request_review", "check_run",
    "check_suite",   "workflow_run",        "status",
    "issue_comment", "installation",        "installation_repositories"};

// --- (a) every real payload -------------------------------------------------------------

TEST(RouterFixturesTest, EveryFixtureRoutesOrSaysWhyNot) {
  const auto fixtures = AllFixtures();
  // Guard against a vacuous pass when the fixture folder is missing or moved.
  ASSERT_GE(fixtures.size(), 200u) << "fixtures not found under " << kFixtures;
  int routed = 0, ignored = 0, by_sha = 0;
  for (const auto& [event, path] : fixtures) {
    const json::value payload = ParseFile(path);
    const RouteResult r = RouteWebhook(event, payload);
    ExpectWellFormed(r, path.string());
    const bool used = std::find(kUsedEvents.begin(), kUsedEvents.end(), event) != kUsedEvents.end();
    if (!used && event != "ping") {
      EXPECT_EQ(r.kind, Kind::kIgnore) << path;
      EXPECT_EQ(r.why, "event " + event + " is not used") << path;
    }
    routed += r.kind == Kind::kRoute;
    ignored += r.kind == Kind::kIgnore;
    by_sha += r.kind == Kind::kResolveBySha;
  }
  // pull_request x9, pull_request_review x2, check_run, check_suite, installation x6,
  // installation_repositories x2.
  EXPECT_EQ(routed, 21);
  EXPECT_EQ(by_sha, 2);  // status, workflow_run/completed (empty PR list)
  EXPECT_EQ(ignored, static_cast<int>(fixtures.size()) - 23);
}

// Every payload under every used event name: the wrong shape for the event must be ignored
// with a reason, never crash or produce a malformed key.
TEST(RouterFixturesTest, EveryFixtureUnderEveryUsedEventIsWellFormed) {
  for (const auto& [real_event, path] : AllFixtures()) {
    const json::value payload = ParseFile(path);
    for (const auto& event : kUsedEvents) {
      ExpectWellFormed(RouteWebhook(event, payload), event + " <- " + path.string());
    }
  }
}

// --- (b) the PR-related fixtures, exactly ------------------------------------------------

struct Expected {
  std::string event;
  std::string file;
  Kind kind;
  std::vector<std::string> keys;
  std::vector<std::string> reasons;
  Heads heads;
  std::string why = {};   // exact, when set
  std::string repo = {};  // kResolveBySha
  std::string sha = {};   // kResolveBySha
};

const Heads kOpenHead = {{kHelloKey, kHelloHead}};
const Heads kClosedHead = {{kHelloKey, ""}};

std::vector<Expected> PrFixtureExpectations() {
  const std::vector<std::string> hello = {kHelloKey};
  return {
      {"pull_request", "opened", Kind::kRoute, hello, {"opened"}, kOpenHead},
      {"pull_request", "reopened", Kind::kRoute, hello, {"reopened"}, kOpenHead},
      {"pull_request", "synchronize", Kind::kRoute, hello, {"pushed"}, kOpenHead},
      {"pull_request", "ready_for_review", Kind::kRoute, hello, {"ready-for-review"}, kOpenHead},
      {"pull_request",
       "converted_to_draft",
       Kind::kRoute,
       hello,
       {"converted-to-draft"},
       kOpenHead},
      {"pull_request", "closed", Kind::kRoute, hello, {"closed"}, kClosedHead},
      {"pull_request", "labeled", Kind::kRoute, hello, {"labeled"}, kOpenHead},
      {"pull_request", "unlabeled", Kind::kRoute, hello, {"unlabeled"}, kOpenHead},
      {"pull_request", "review_requested", Kind::kRoute, hello, {"review-requested"}, kOpenHead},
      // Unused actions still teach the head.
      {"pull_request",
       "assigned",
       Kind::kIgnore,
       {},
       {},
       kOpenHead,
       "pull_request.assigned is not used"},
      {"pull_request",
       "unassigned",
       Kind::kIgnore,
       {},
       {},
       kOpenHead,
       "pull_request.unassigned is not used"},
      {"pull_request",
       "locked",
       Kind::kIgnore,
       {},
       {},
       kOpenHead,
       "pull_request.locked is not used"},
      {"pull_request",
       "unlocked",
       Kind::kIgnore,
       {},
       {},
       kOpenHead,
       "pull_request.unlocked is not used"},
      {"pull_request",
       "review_request_removed",
       Kind::kIgnore,
       {},
       {},
       kOpenHead,
       "pull_request.review_request_removed is not used"},
      {"pull_request_review", "submitted", Kind::kRoute, hello, {"reviewed"}, {}},
      {"pull_request_review", "dismissed", Kind::kRoute, hello, {"review-dismissed"}, {}},
      {"check_run", "completed", Kind::kRoute, hello, {"ci-completed"}, {}},
      {"check_run", "created", Kind::kIgnore, {}, {}, {}, "check_run.created is not used"},
      {"check_run", "rerequested", Kind::kIgnore, {}, {}, {}, "check_run.rerequested is not used"},
      {"check_run",
       "requested_action",
       Kind::kIgnore,
       {},
       {},
       {},
       "check_run.requested_action is not used"},
      {"check_suite", "completed", Kind::kRoute, hello, {"ci-completed"}, {}},
      {"check_suite", "requested", Kind::kIgnore, {}, {}, {}, "check_suite.requested is not used"},
      {"check_suite",
       "rerequested",
       Kind::kIgnore,
       {},
       {},
       {},
       "check_suite.rerequested is not used"},
      // The workflow_run fixture lists no PRs: resolved by its head SHA.
      {"workflow_run",
       "completed",
       Kind::kResolveBySha,
       {},
       {},
       {},
       "",
       "octo-org/octo-repo",
       "3484a3fb816e0859fd6e1cea078d76385ff50625"},
      {"workflow_run",
       "requested",
       Kind::kIgnore,
       {},
       {},
       {},
       "workflow_run.requested is not used"},
      {"status",
       "",
       Kind::kResolveBySha,
       {},
       {},
       {},
       "",
       "codertocat/hello-world",
       "6113728f27ae82c7b1a177c8d03f9e96e0adf246"},
      // The fixture comments are on issue #1, a plain issue.
      {"issue_comment",
       "created",
       Kind::kIgnore,
       {},
       {},
       {},
       "issue_comment on a plain issue, not a pull request"},
      {"issue_comment", "edited", Kind::kIgnore, {}, {}, {}, "issue_comment.edited is not used"},
      {"issue_comment", "deleted", Kind::kIgnore, {}, {}, {}, "issue_comment.deleted is not used"},
      {"installation", "created", Kind::kRoute, {}, {}, {}, "installation recorded: created"},
      {"installation", "deleted", Kind::kRoute, {}, {}, {}, "installation recorded: deleted"},
      {"installation", "suspend", Kind::kRoute, {}, {}, {}, "installation recorded: suspend"},
      {"installation_repositories",
       "added",
       Kind::kRoute,
       {},
       {},
       {},
       "installation recorded: added"},
      {"installation_repositories",
       "removed",
       Kind::kRoute,
       {},
       {},
       {},
       "installation recorded: removed"},
      {"ping", "", Kind::kIgnore, {}, {}, {}, "ping"},
  };
}

TEST(RouterFixturesTest, PrRelatedFixturesRouteExactly) {
  for (const Expected& e : PrFixtureExpectations()) {
    const std::string file =
        e.event + "/" + (e.file.empty() ? "payload.json" : e.file + ".payload.json");
    SCOPED_TRACE(file);
    const RouteResult r = RouteWebhook(e.event, Fixture(file));
    EXPECT_EQ(r.kind, e.kind);
    EXPECT_EQ(Keys(r), e.keys);
    EXPECT_EQ(Reasons(r), e.reasons);
    EXPECT_EQ(r.heads, e.heads);
    if (!e.why.empty()) {
      EXPECT_EQ(r.why, e.why);
    }
    if (e.kind == Kind::kResolveBySha) {
      EXPECT_EQ(r.repo, e.repo);
      EXPECT_EQ(r.sha, e.sha);
      EXPECT_EQ(r.reason, e.event == "status" ? "status" : "ci-completed");
    }
  }
}

// --- (c) synthetic payloads ----------------------------------------------------------------

// A copy of a fixture with one change applied.
json::value Edited(const std::string& file, const std::function<void(json::object&)>& edit) {
  json::value v = Fixture(file);
  if (json::object* o = v.if_object()) edit(*o);
  return v;
}

constexpr const char kOpened[] = "pull_request/opened.payload.json";
constexpr const char kCheckRun[] = "check_run/completed.payload.json";
constexpr const char kComment[] = "issue_comment/created.payload.json";

TEST(RouterTest, SubjectKeyLowerCasesOwnerAndRepo) {
  EXPECT_EQ(Subject::PullRequest("Acme/App", 12)->key(), "acme/app#12");
  EXPECT_EQ(Subject::PullRequest("Codertocat/Hello-World", 2)->key(), "codertocat/hello-world#2");
  EXPECT_EQ(Subject::PullRequest("acme/app.js_x-1", 7)->key(), "acme/app.js_x-1#7");
}

TEST(RouterTest, MissingRepositoryIsIgnoredNamingTheField) {
  const std::pair<const char*, const char*> files[] = {
      {"pull_request", kOpened},
      {"pull_request_review", "pull_request_review/submitted.payload.json"},
      {"check_run", kCheckRun},
      {"status", "status/payload.json"},
  };
  for (const auto& [event, file] : files) {
    const RouteResult r =
        RouteWebhook(event, Edited(file, [](json::object& o) { o.erase("repository"); }));
    EXPECT_EQ(r.kind, Kind::kIgnore) << event;
    EXPECT_EQ(r.why, "repository.full_name is missing") << event;
    EXPECT_TRUE(r.heads.empty()) << event;
  }
}

TEST(RouterTest, MalformedRepositoryNamesAreIgnored) {
  for (const json::value& name :
       {json::value("no-slash"), json::value("a/b/c"), json::value("/repo"), json::value("acme/"),
        json::value("acme/app#1"), json::value("ac me/app"), json::value(42)}) {
    const RouteResult r = RouteWebhook("pull_request", Edited(kOpened, [&](json::object& o) {
                                         o["repository"].as_object()["full_name"] = name;
                                       }));
    EXPECT_EQ(r.kind, Kind::kIgnore) << json::serialize(name);
    EXPECT_NE(r.why.find("repository.full_name"), std::string::npos) << r.why;
    EXPECT_TRUE(r.heads.empty());
  }
}

TEST(RouterTest, PullRequestNumberMustBeAPositiveInteger) {
  for (const json::value& n :
       {json::value("2"), json::value(2.0), json::value(0), json::value(-3), json::value(true),
        json::value(json::array{2}), json::value(static_cast<uint64_t>(1) << 63)}) {
    const RouteResult r = RouteWebhook("pull_request", Edited(kOpened, [&](json::object& o) {
                                         o["pull_request"].as_object()["number"] = n;
                                       }));
    EXPECT_EQ(r.kind, Kind::kIgnore) << json::serialize(n);
    EXPECT_EQ(r.why.rfind("pull_request.number is ", 0), 0u) << r.why;
    EXPECT_TRUE(r.heads.empty());
  }
}

TEST(RouterTest, PullRequestNumberFallsBackToTopLevelNumber) {
  const RouteResult r = RouteWebhook("pull_request", Edited(kOpened, [](json::object& o) {
                                       o["pull_request"].as_object().erase("number");
                                       o["number"] = 17;
                                     }));
  EXPECT_EQ(r.kind, Kind::kRoute);
  EXPECT_EQ(Keys(r), std::vector<std::string>{"codertocat/hello-world#17"});
  EXPECT_EQ(r.heads, (Heads{{"codertocat/hello-world#17", kHelloHead}}));

  // Without the pull_request object there is no head to learn, but the PR is still signalled.
  const RouteResult bare =
      RouteWebhook("pull_request", json::parse(R"({"action":"synchronize","number":5,
                                      "repository":{"full_name":"Acme/App"}})"));
  EXPECT_EQ(bare.kind, Kind::kRoute);
  EXPECT_EQ(Keys(bare), std::vector<std::string>{"acme/app#5"});
  EXPECT_EQ(Reasons(bare), std::vector<std::string>{"pushed"});
  EXPECT_TRUE(bare.heads.empty());

  const RouteResult none = RouteWebhook("pull_request", Edited(kOpened, [](json::object& o) {
                                          o["pull_request"].as_object().erase("number");
                                          o.erase("number");
                                        }));
  EXPECT_EQ(none.kind, Kind::kIgnore);
  EXPECT_EQ(none.why, "number is missing");
}

TEST(RouterTest, WrongTypesAreIgnoredNotCrashed) {
  struct Case {
    const char* event;
    const char* payload;
    const char* why;
  };
  const Case cases[] = {
      {"pull_request", R"([])", "payload is not a JSON object"},
      {"pull_request", R"(null)", "payload is not a JSON object"},
      {"pull_request", R"("opened")", "payload is not a JSON object"},
      {"pull_request", R"({})", "action is missing"},
      {"pull_request", R"({"action":7})", "action is not a string (got integer)"},
      {"pull_request", R"({"action":"opened","repository":"acme/app","number":1})",
       "repository.full_name is missing"},
      {"pull_request", R"({"action":"opened","repository":{"full_name":"a/b"},"pull_request":[]})",
       "number is missing"},
      {"pull_request_review", R"({"action":"submitted","repository":{"full_name":"a/b"}})",
       "pull_request.number is missing"},
      {"pull_request_review", R"({"action":"edited"})", "pull_request_review.edited is not used"},
      {"check_run", R"({"action":"completed"})", "check_run is missing or not an object"},
      {"check_run", R"({"action":"completed","check_run":{},"repository":{"full_name":"a/b"}})",
       "check_run.head_sha is missing"},
      {"check_run",
       R"({"action":"completed","check_run":{"pull_requests":{}},"repository":{"full_name":"a/b"}})",
       "check_run.pull_requests is not an array"},
      {"check_suite",
       R"({"action":"completed","check_suite":{"pull_requests":[],"head_sha":"abc"},
           "repository":{"full_name":"a/b"}})",
       "check_suite.head_sha is not a commit SHA"},
      {"workflow_run", R"({"action":"completed","workflow_run":"x"})",
       "workflow_run is missing or not an object"},
      {"status", R"({})", "repository.full_name is missing"},
      {"status", R"({"repository":{"full_name":"a/b"},"sha":null})", "sha is missing"},
      {"issue_comment", R"({})", "action is missing"},
      {"issue_comment", R"({"action":"created"})", "issue is missing"},
      {"issue_comment", R"({"action":"created","issue":{"pull_request":{}}})",
       "comment.body is missing"},
      {"issue_comment",
       R"({"action":"created","issue":{"pull_request":{}},"comment":{"body":"/gatehouse"}})",
       "repository.full_name is missing"},
      {"issue_comment",
       R"({"action":"created","issue":{"pull_request":{},"number":"3"},
           "comment":{"body":"/gatehouse"},"repository":{"full_name":"a/b"}})",
       "issue.number is not an integer (got string)"},
      {"", R"({})", "event (empty) is not used"},
      {"push", R"({})", "event push is not used"},
      {"ping", R"(17)", "ping"},
  };
  for (const Case& c : cases) {
    const RouteResult r = RouteWebhook(c.event, json::parse(c.payload));
    EXPECT_EQ(r.kind, Kind::kIgnore) << c.event << " " << c.payload;
    EXPECT_EQ(r.why, c.why) << c.event << " " << c.payload;
  }
}

TEST(RouterTest, EmptyObjectUnderEveryUsedEvent) {
  for (const auto& event : kUsedEvents) {
    const RouteResult r = RouteWebhook(event, json::object{});
    ExpectWellFormed(r, event);
    EXPECT_TRUE(r.signals.empty()) << event;
    if (event == "installation" || event == "installation_repositories") {
      EXPECT_EQ(r.kind, Kind::kRoute);
      EXPECT_EQ(r.why, "installation recorded: (no action)");
    } else {
      EXPECT_EQ(r.kind, Kind::kIgnore) << event;
    }
  }
}

TEST(RouterTest, LongActionNamesAreClippedInWhy) {
  const std::string action(10000, 'x');
  const RouteResult r =
      RouteWebhook("pull_request", Edited(kOpened, [&](json::object& o) { o["action"] = action; }));
  EXPECT_EQ(r.kind, Kind::kIgnore);
  EXPECT_LT(r.why.size(), 120u);
}

// Removing, nulling or retyping any single member anywhere in a PR-related payload never
// produces a malformed result.
TEST(RouterTest, EverySingleFieldMutationIsWellFormed) {
  const std::pair<const char*, const char*> files[] = {
      {"pull_request", kOpened},
      {"pull_request_review", "pull_request_review/submitted.payload.json"},
      {"check_run", kCheckRun},
      {"check_suite", "check_suite/completed.payload.json"},
      {"workflow_run", "workflow_run/completed.payload.json"},
      {"status", "status/payload.json"},
      {"issue_comment", kComment},
  };
  const json::value replacements[] = {nullptr, json::value("x"), json::value(-1),
                                      json::value(json::array{}), json::value(json::object{})};
  int mutations = 0;
  for (const auto& [event, file] : files) {
    const json::value original = Fixture(file);
    // Paths to every object member, as sequences of keys and array indexes.
    std::vector<std::vector<json::value>> paths;
    std::function<void(const json::value&, std::vector<json::value>&)> walk =
        [&](const json::value& v, std::vector<json::value>& path) {
          if (const json::object* o = v.if_object()) {
            for (const auto& kv : *o) {
              path.emplace_back(kv.key());
              paths.push_back(path);
              walk(kv.value(), path);
              path.pop_back();
            }
          } else if (const json::array* a = v.if_array()) {
            for (size_t i = 0; i < a->size(); ++i) {
              path.emplace_back(i);
              walk((*a)[i], path);
              path.pop_back();
            }
          }
        };
    std::vector<json::value> path;
    walk(original, path);
    for (const auto& p : paths) {
      for (int variant = -1; variant < static_cast<int>(std::size(replacements)); ++variant) {
        json::value copy = original;
        json::value* parent = &copy;
        for (size_t i = 0; i + 1 < p.size(); ++i) {
          parent = p[i].is_string() ? &parent->as_object()[p[i].as_string()]
                                    : &parent->as_array()[p[i].to_number<size_t>()];
        }
        json::object& holder = parent->as_object();
        const json::string_view last = p.back().as_string();
        if (variant < 0) {
          holder.erase(last);
        } else {
          holder[last] = replacements[variant];
        }
        ExpectWellFormed(RouteWebhook(event, copy), file);
        ++mutations;
      }
    }
  }
  EXPECT_GT(mutations, 1000);
}

TEST(RouterTest, ChecksSignalEveryListedPrOnce) {
  const RouteResult r = RouteWebhook("check_run", Edited(kCheckRun, [](json::object& o) {
                                       json::array& prs =
                                           o["check_run"].as_object()["pull_requests"].as_array();
                                       json::value second = prs[0];
                                       second.as_object()["number"] = 3;
                                       prs.push_back(second);
                                       prs.push_back(prs[0]);  // listed twice: one signal
                                     }));
  EXPECT_EQ(r.kind, Kind::kRoute);
  EXPECT_EQ(Keys(r), (std::vector<std::string>{kHelloKey, "codertocat/hello-world#3"}));
  EXPECT_EQ(Reasons(r), (std::vector<std::string>{"ci-completed", "ci-completed"}));
}

TEST(RouterTest, ChecksWithAnEmptyPrListResolveByHeadSha) {
  for (const char* event : {"check_run", "check_suite"}) {
    const std::string file = std::string(event) + "/completed.payload.json";
    const RouteResult r = RouteWebhook(event, Edited(file, [&](json::object& o) {
                                         o[event].as_object()["pull_requests"] = json::array{};
                                       }));
    EXPECT_EQ(r.kind, Kind::kResolveBySha) << event;
    EXPECT_EQ(r.repo, "codertocat/hello-world");
    EXPECT_EQ(r.sha, kHelloHead);
    EXPECT_EQ(r.reason, "ci-completed");
    EXPECT_TRUE(r.signals.empty());
  }
  // A missing list is treated like an empty one: resolved, not dropped.
  const RouteResult missing = RouteWebhook("check_run", Edited(kCheckRun, [](json::object& o) {
                                             o["check_run"].as_object().erase("pull_requests");
                                           }));
  EXPECT_EQ(missing.kind, Kind::kResolveBySha);
}

// GitHub also lists PRs into *other* repositories whose head is this commit; those are not
// this repository's PR numbers.
TEST(RouterTest, ChecksSkipPullRequestsIntoOtherRepositories) {
  const RouteResult r = RouteWebhook(
      "check_run", Edited(kCheckRun, [](json::object& o) {
        json::object& pr = o["check_run"].as_object()["pull_requests"].as_array()[0].as_object();
        pr["base"].as_object()["repo"].as_object()["id"] = 999;
      }));
  EXPECT_EQ(r.kind, Kind::kResolveBySha);
  EXPECT_EQ(r.sha, kHelloHead);
}

TEST(RouterTest, ChecksThatAreNotCompletedAreIgnored) {
  const RouteResult r = RouteWebhook(
      "check_run", Edited(kCheckRun, [](json::object& o) { o["action"] = "created"; }));
  EXPECT_EQ(r.kind, Kind::kIgnore);
  EXPECT_EQ(r.why, "check_run.created is not used");
}

// gatehouse's own check run and suite report a pass's verdict; a pass for them would only
// re-read what gatehouse just wrote (issue 15: each cost a wasted pass).
TEST(RouterTest, GatehousesOwnChecksAreIgnored) {
  RouteStamp ours;
  ours.own_login = "gatehouse-dev[bot]";
  for (const char* event : {"check_run", "check_suite"}) {
    const std::string file = std::string(event) + "/completed.payload.json";
    const json::value payload = Edited(file, [&](json::object& o) {
      o[event].as_object()["app"].as_object()["slug"] = "Gatehouse-Dev";
    });
    const RouteResult mine = RouteWebhook(event, payload, ours);
    EXPECT_EQ(mine.kind, Kind::kIgnore) << event;
    EXPECT_EQ(mine.why, std::string(event) + " of gatehouse's own App is its report, not an input");
    // Another App's, or when gatehouse does not know its slug yet: routed.
    RouteStamp other;
    other.own_login = "gatehouse[bot]";
    EXPECT_EQ(RouteWebhook(event, payload, other).kind, Kind::kRoute) << event;
    EXPECT_EQ(RouteWebhook(event, payload).kind, Kind::kRoute) << event;
  }
  // A check run named `gatehouse` is left out of the gate whoever made it: never routed.
  const RouteResult named = RouteWebhook("check_run", Edited(kCheckRun, [](json::object& o) {
                                           o["check_run"].as_object()["name"] = "gatehouse";
                                         }));
  EXPECT_EQ(named.kind, Kind::kIgnore);
  EXPECT_EQ(named.why, "the gatehouse check run is gatehouse's report, not an input");
}

TEST(RouterTest, GatehousesOwnLabelsAndReviewsAreIgnored) {
  RouteStamp ours;
  ours.own_login = "gatehouse[bot]";
  const auto by = [](const char* file, const char* login) {
    return Edited(file, [&](json::object& o) { o["sender"].as_object()["login"] = login; });
  };
  for (const char* action : {"labeled", "unlabeled"}) {
    const json::value mine = Edited("pull_request/labeled.payload.json", [&](json::object& o) {
      o["action"] = action;
      o["sender"].as_object()["login"] = "Gatehouse[bot]";
    });
    const RouteResult r = RouteWebhook("pull_request", mine, ours);
    EXPECT_EQ(r.kind, Kind::kIgnore) << action;
    EXPECT_EQ(r.why, std::string("pull_request.") + action + " by gatehouse itself");
    EXPECT_FALSE(r.heads.empty()) << "the head is still learned";
  }
  EXPECT_EQ(
      RouteWebhook("pull_request", by("pull_request/labeled.payload.json", "alice"), ours).kind,
      Kind::kRoute);
  // Not knowing its login yet, gatehouse routes everything.
  EXPECT_EQ(
      RouteWebhook("pull_request", by("pull_request/labeled.payload.json", "gatehouse[bot]")).kind,
      Kind::kRoute);
  // Closing is routed whoever did it (a close ends the PR's review runs).
  EXPECT_EQ(
      RouteWebhook("pull_request", by("pull_request/closed.payload.json", "gatehouse[bot]"), ours)
          .kind,
      Kind::kRoute);

  const char* review = "pull_request_review/submitted.payload.json";
  const RouteResult approval =
      RouteWebhook("pull_request_review", by(review, "gatehouse[bot]"), ours);
  EXPECT_EQ(approval.kind, Kind::kIgnore);
  EXPECT_EQ(approval.why, "pull_request_review.submitted by gatehouse itself");
  EXPECT_EQ(RouteWebhook("pull_request_review", by(review, "alice"), ours).kind, Kind::kRoute);
}

TEST(RouterTest, StatusRoutesAnyStateBySha) {
  for (const char* state : {"pending", "success", "failure", "error"}) {
    const RouteResult r = RouteWebhook(
        "status", Edited("status/payload.json", [&](json::object& o) { o["state"] = state; }));
    EXPECT_EQ(r.kind, Kind::kResolveBySha) << state;
    EXPECT_EQ(r.reason, "status");
  }
  const RouteResult upper =
      RouteWebhook("status", Edited("status/payload.json", [](json::object& o) {
                     o["sha"] = "6113728F27AE82C7B1A177C8D03F9E96E0ADF246";
                     o.erase("state");
                   }));
  EXPECT_EQ(upper.kind, Kind::kResolveBySha);
  EXPECT_EQ(upper.sha, "6113728f27ae82c7b1a177c8d03f9e96e0adf246");
}

// The fixture comment, moved onto a pull request and given `body`.
json::value PrComment(const json::value& body) {
  return Edited(kComment, [&](json::object& o) {
    json::object& issue = o["issue"].as_object();
    issue["pull_request"] = {
        {"url", "https://api.github.com/repos/Codertocat/Hello-World/pulls/1"}};
    o["comment"].as_object()["body"] = body;
  });
}

TEST(RouterTest, IssueCommentAddressingGatehouseIsACommand) {
  for (const char* body : {"/gatehouse merge", "@gatehouse please re-check", "/GATEHOUSE",
                           "\r\n  \n  @Gatehouse: rebase\r\nthanks", "@gatehouse[bot] merge",
                           "@gatehouse-app review security"}) {
    const RouteResult r = RouteWebhook("issue_comment", PrComment(body));
    EXPECT_EQ(r.kind, Kind::kRoute) << body;
    EXPECT_EQ(Keys(r), std::vector<std::string>{"codertocat/hello-world#1"}) << body;
    EXPECT_EQ(Reasons(r), std::vector<std::string>{"command"}) << body;
  }
}

// The comment is kept as a fact named by its id, as it was created: the pass parses the line
// against its own login, and an edit (not routed) can never make a second command.
TEST(RouterTest, IssueCommentCommandIsRecordedAsAFactOfItsId) {
  const RouteResult r =
      RouteWebhook("issue_comment", PrComment("\n  @gatehouse review security  \nplease"),
                   RouteStamp{FromMicros(7'000'000), {}});
  ASSERT_EQ(r.facts.size(), 1u);
  EXPECT_EQ(r.facts[0].subject, "codertocat/hello-world#1");
  EXPECT_EQ(r.facts[0].name, "command:492700400");
  EXPECT_EQ(r.facts[0].value, "Codertocat OWNER @gatehouse review security");
  EXPECT_EQ(r.facts[0].at, FromMicros(7'000'000));
  auto parsed = decide::ParseCommandFact(r.facts[0].name, r.facts[0].value);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->comment_id, 492700400);
  EXPECT_EQ(parsed->login, "Codertocat");
  EXPECT_EQ(parsed->association, "OWNER");
  EXPECT_EQ(parsed->line, "@gatehouse review security");
}

// `refresh` by someone with write access (the fixture's author is the OWNER) also asks for the
// PR's dead work item back; another command, another author, or gatehouse itself does not.
TEST(RouterTest, ARefreshCommandAsksForTheDeadPrBack) {
  const RouteStamp stamp{FromMicros(7'000'000), {}, "gatehouse[bot]"};
  RouteResult r = RouteWebhook("issue_comment", PrComment("@gatehouse refresh"), stamp);
  EXPECT_EQ(r.rearm, std::vector<std::string>{"codertocat/hello-world#1"});
  EXPECT_EQ(Keys(r), std::vector<std::string>{"codertocat/hello-world#1"}) << "and a pass";
  r = RouteWebhook("issue_comment", PrComment("/gatehouse refresh"), RouteStamp{});
  EXPECT_EQ(r.rearm.size(), 1u) << "/gatehouse needs no login";
  EXPECT_TRUE(RouteWebhook("issue_comment", PrComment("@gatehouse merge"), stamp).rearm.empty());
  EXPECT_TRUE(RouteWebhook("issue_comment", PrComment("@someone refresh"), stamp).rearm.empty());
  json::value outsider = PrComment("/gatehouse refresh");
  outsider.as_object()["comment"].as_object()["author_association"] = "CONTRIBUTOR";
  EXPECT_TRUE(RouteWebhook("issue_comment", outsider, stamp).rearm.empty());
}

// A review run's own review is not a trigger: its verdict is in the store already.
TEST(RouterTest, AReviewRunsOwnReviewIsIgnored) {
  const RouteResult r = RouteWebhook(
      "pull_request_review", Edited("pull_request_review/submitted.payload.json", [](json::object& o) {
        o["review"].as_object()["body"] =
            "Looks fine.\n<!-- gatehouse:review role=security head=abc run=3 -->";
      }));
  EXPECT_EQ(r.kind, Kind::kIgnore);
  EXPECT_EQ(r.why, "pull_request_review by a gatehouse review run");
}

TEST(RouterTest, IssueCommentNotAddressingGatehouseIsIgnored) {
  for (const json::value& body :
       {json::value("You are totally right!"), json::value("thanks\n/gatehouse merge"),
        json::value("> /gatehouse merge\nwhy did this run?"), json::value("@ gatehouse merge"),
        json::value("/gatehousekeeping"), json::value("gatehouse merge"), json::value(""),
        json::value("   \n\t\n")}) {
    const RouteResult r = RouteWebhook("issue_comment", PrComment(body));
    EXPECT_EQ(r.kind, Kind::kIgnore) << json::serialize(body);
    EXPECT_EQ(r.why, "issue_comment does not address gatehouse (/gatehouse or @<app>)");
    EXPECT_TRUE(r.facts.empty());
  }
  // A null body (GitHub's empty comment) addresses no one either.
  const RouteResult null_body = RouteWebhook("issue_comment", PrComment(nullptr));
  EXPECT_EQ(null_body.kind, Kind::kIgnore);
  EXPECT_EQ(null_body.why, "issue_comment does not address gatehouse (/gatehouse or @<app>)");
}

TEST(RouterTest, CommandOnAPlainIssueIsIgnored) {
  const RouteResult r = RouteWebhook("issue_comment", Edited(kComment, [](json::object& o) {
                                       o["comment"].as_object()["body"] = "/gatehouse merge";
                                     }));
  EXPECT_EQ(r.kind, Kind::kIgnore);
  EXPECT_EQ(r.why, "issue_comment on a plain issue, not a pull request");
}

TEST(RouterTest, AddressesGatehouse) {
  EXPECT_TRUE(AddressesGatehouse("/gatehouse"));
  EXPECT_TRUE(AddressesGatehouse("  @GateHouse merge  "));
  EXPECT_TRUE(AddressesGatehouse("\n\n/gatehouse\tmerge"));
  EXPECT_TRUE(AddressesGatehouse("@gatehouse, merge"));
  EXPECT_FALSE(AddressesGatehouse(""));
  EXPECT_FALSE(AddressesGatehouse("/gatehouse_x"));
  EXPECT_FALSE(AddressesGatehouse("/gatehouse2"));
  EXPECT_FALSE(AddressesGatehouse("/gate"));
  EXPECT_FALSE(AddressesGatehouse("hi\n@gatehouse"));
  EXPECT_FALSE(AddressesGatehouse("`/gatehouse merge`"));
}

TEST(RouterTest, ClosedPullRequestForgetsItsHead) {
  const RouteResult r = RouteWebhook("pull_request", Edited(kOpened, [](json::object& o) {
                                       o["action"] = "closed";
                                       o["pull_request"].as_object()["state"] = "closed";
                                     }));
  EXPECT_EQ(r.kind, Kind::kRoute);
  EXPECT_EQ(r.heads, kClosedHead);
  // An unknown state or a malformed head teaches nothing, but the PR is still signalled.
  const RouteResult odd = RouteWebhook("pull_request", Edited(kOpened, [](json::object& o) {
                                         o["pull_request"].as_object()["head"].as_object()["sha"] =
                                             "not-a-sha";
                                       }));
  EXPECT_EQ(odd.kind, Kind::kRoute);
  EXPECT_TRUE(odd.heads.empty());
}

// --- (d) what routing learns besides signals ---------------------------------------------

using Repos = std::vector<RepoInstallation>;
using Names = std::vector<std::string>;

std::vector<std::pair<std::string, std::string>> Facts(const RouteResult& r) {
  std::vector<std::pair<std::string, std::string>> v;
  for (const auto& f : r.facts) {
    EXPECT_EQ(f.subject, kHelloKey);
    v.emplace_back(f.name, f.value);
  }
  return v;
}

void ExpectRepos(const RouteResult& r, const Repos& repos, const Names& removed,
                 const std::string& context) {
  SCOPED_TRACE(context);
  ASSERT_EQ(r.repos.size(), repos.size());
  for (size_t i = 0; i < repos.size(); ++i) {
    EXPECT_EQ(r.repos[i].repo, repos[i].repo);
    EXPECT_EQ(r.repos[i].installation_id, repos[i].installation_id);
  }
  EXPECT_EQ(r.repos_removed, removed);
}

TEST(RouterLearnsTest, InstallationFixturesAddAndRemoveTheirRepositories) {
  struct Case {
    std::string file;
    Repos repos;
    Names removed;
  };
  const std::vector<Case> cases = {
      {"installation/created", {{"codertocat/hello-world", 957387}}, {}},
      {"installation/created.with-requester", {{"codertocat/hello-world", 957387}}, {}},
      {"installation/new_permissions_accepted", {{"codertocat/hello-world", 957387}}, {}},
      {"installation/deleted", {}, {"octocat/hello-world"}},
      {"installation/suspend", {}, {}},
      {"installation/unsuspend", {}, {}},
      {"installation_repositories/added", {{"codertocat/space", 957387}}, {}},
      {"installation_repositories/removed", {}, {"octocat/hello-world"}},
  };
  for (const Case& c : cases) {
    const std::string event = c.file.substr(0, c.file.find('/'));
    const RouteResult r = RouteWebhook(event, Fixture(c.file + ".payload.json"));
    EXPECT_EQ(r.kind, Kind::kRoute) << c.file;
    ExpectRepos(r, c.repos, c.removed, c.file);
  }
}

// Any payload naming a repository teaches it, used or not, with its installation when the
// payload names one (App webhooks do; repository webhooks in personal-token mode do not).
TEST(RouterLearnsTest, EveryPayloadWithARepositoryTeachesIt) {
  int with_installation = 0, without = 0;
  for (const auto& [event, path] : AllFixtures()) {
    if (event == "installation" || event == "installation_repositories" || event == "repository") {
      continue;
    }
    const json::value payload = ParseFile(path);
    const json::object* root = payload.if_object();
    if (root == nullptr) continue;
    const json::value* repo = root->if_contains("repository");
    const json::value* name =
        repo != nullptr && repo->is_object() ? repo->as_object().if_contains("full_name") : nullptr;
    const RouteResult r = RouteWebhook(event, payload);
    if (name == nullptr || !name->is_string()) {
      EXPECT_TRUE(r.repos.empty()) << path;
      continue;
    }
    std::optional<int64_t> installation;
    const json::value* inst = root->if_contains("installation");
    if (inst != nullptr && inst->is_object()) {
      installation = inst->as_object().at("id").as_int64();
    }
    std::string lower(name->as_string());
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    ExpectRepos(r, {{lower, installation}}, {}, path.string());
    ++(installation ? with_installation : without);
  }
  EXPECT_GT(with_installation, 20);
  EXPECT_GT(without, 20);
  ExpectRepos(RouteWebhook("pull_request", Fixture(kOpened)), {{"codertocat/hello-world", 1}}, {},
              "pull_request/opened");
  ExpectRepos(RouteWebhook("check_run", Fixture(kCheckRun)),
              {{"codertocat/hello-world", std::nullopt}}, {}, "check_run/completed");
  // A malformed name or installation teaches nothing wrong.
  const RouteResult bad = RouteWebhook("pull_request", Edited(kOpened, [](json::object& o) {
                                         o["repository"].as_object()["full_name"] = "no slash";
                                         o["installation"].as_object()["id"] = "1";
                                       }));
  EXPECT_TRUE(bad.repos.empty());
  const RouteResult bad_id = RouteWebhook("pull_request", Edited(kOpened, [](json::object& o) {
                                            o["installation"].as_object()["id"] = -4;
                                          }));
  ExpectRepos(bad_id, {{"codertocat/hello-world", std::nullopt}}, {}, "negative installation");
}

TEST(RouterLearnsTest, RenamedTransferredAndDeletedRepositoriesForgetTheOldName) {
  constexpr const char kRenamed[] = "repository/renamed.payload.json";
  // The fixture's rename keeps the name (case aside): nothing is forgotten.
  ExpectRepos(RouteWebhook("repository", Fixture(kRenamed)), {{"octocoders/hello-world", 1}}, {},
              "renamed, same name");
  ExpectRepos(
      RouteWebhook(
          "repository",
          Edited(kRenamed,
                 [](json::object& o) {
                   o["changes"].as_object()["repository"].as_object()["name"].as_object()["from"] =
                       "Old-Name";
                 })),
      {{"octocoders/hello-world", 1}}, {"octocoders/old-name"}, "renamed");
  ExpectRepos(RouteWebhook("repository", Fixture("repository/transferred.payload.json")),
              {{"octocoders/hello-world", std::nullopt}}, {"octocat/hello-world"}, "transferred");
  ExpectRepos(RouteWebhook("repository", Edited(kRenamed,
                                                [](json::object& o) {
                                                  o["action"] = "deleted";
                                                  o.erase("changes");
                                                })),
              {}, {"octocoders/hello-world"}, "deleted");
}

TEST(RouterLearnsTest, ReopenedRecordsWhoAndWithWhatRole) {
  constexpr const char kReopened[] = "pull_request/reopened.payload.json";
  // The author (OWNER in the fixture) reopened it.
  EXPECT_EQ(Facts(RouteWebhook("pull_request", Fixture(kReopened))),
            (std::vector<std::pair<std::string, std::string>>{{"reopened", "Codertocat OWNER"}}));
  const RouteResult contributor =
      RouteWebhook("pull_request", Edited(kReopened, [](json::object& o) {
                     o["pull_request"].as_object()["author_association"] = "CONTRIBUTOR";
                   }));
  EXPECT_EQ(
      Facts(contributor),
      (std::vector<std::pair<std::string, std::string>>{{"reopened", "Codertocat CONTRIBUTOR"}}));
  // Someone else reopened it: only a user with write access can.
  const RouteResult other = RouteWebhook("pull_request", Edited(kReopened, [](json::object& o) {
                                           o["sender"].as_object()["login"] = "maintainer";
                                           o["pull_request"].as_object()["author_association"] =
                                               "CONTRIBUTOR";
                                         }));
  EXPECT_EQ(
      Facts(other),
      (std::vector<std::pair<std::string, std::string>>{{"reopened", "maintainer COLLABORATOR"}}));
  const RouteResult no_sender =
      RouteWebhook("pull_request", Edited(kReopened, [](json::object& o) { o.erase("sender"); }));
  EXPECT_EQ(no_sender.kind, Kind::kRoute);
  EXPECT_TRUE(no_sender.facts.empty());
}

TEST(RouterLearnsTest, ClosedRecordsWhoAndWhetherItMerged) {
  constexpr const char kClosed[] = "pull_request/closed.payload.json";
  EXPECT_EQ(Facts(RouteWebhook("pull_request", Fixture(kClosed))),
            (std::vector<std::pair<std::string, std::string>>{{"closed_by", "Codertocat"}}));
  const RouteResult merged = RouteWebhook("pull_request", Edited(kClosed, [](json::object& o) {
                                            o["pull_request"].as_object()["merged"] = true;
                                            o["sender"].as_object()["login"] = "merger";
                                          }));
  EXPECT_EQ(Facts(merged),
            (std::vector<std::pair<std::string, std::string>>{{"closed_by", "merger merged"}}));
  // Other actions teach no facts.
  for (const char* action : {"opened", "labeled", "assigned"}) {
    const RouteResult r = RouteWebhook(
        "pull_request", Fixture(std::string("pull_request/") + action + ".payload.json"));
    EXPECT_TRUE(r.facts.empty()) << action;
  }
}

// A push is stamped with GitHub's time for it (pull_request.updated_at), not the delivery's
// arrival: a late delivery of an old push must not look newer than a push after it.
TEST(RouterLearnsTest, SynchronizeRecordsThePushAtGitHubsTime) {
  constexpr const char kSync[] = "pull_request/synchronize.payload.json";
  const RouteStamp arrived{ParseTime("2026-11-30T12:00:00Z").value(), std::chrono::seconds(1)};
  const RouteResult r = RouteWebhook("pull_request", Fixture(kSync), arrived);
  ASSERT_EQ(r.facts.size(), 1u);
  EXPECT_EQ(r.facts[0].subject, kHelloKey);
  EXPECT_EQ(r.facts[0].name, "pushed");
  EXPECT_EQ(r.facts[0].value, "ec26c3e57ca3a959ca5aad62de7213c562f8c821");
  EXPECT_NE(r.facts[0].at, arrived.received_at) << "GitHub's time, not the delivery's";
  EXPECT_EQ(r.facts[0].at, ParseTime("2019-05-15T15:20:33Z").value());
  // Without a usable time the push cannot be ordered: no fact, but still routed.
  for (const char* bad : {"", "yesterday"}) {
    const RouteResult no_time = RouteWebhook("pull_request", Edited(kSync, [&](json::object& o) {
                                               o["pull_request"].as_object()["updated_at"] = bad;
                                             }));
    EXPECT_EQ(no_time.kind, Kind::kRoute);
    EXPECT_TRUE(no_time.facts.empty()) << bad;
  }
}

// What the router emits is what the store takes: every signal carries the stamp's debounce,
// and a fact the payload does not time is the delivery's, at its arrival.
TEST(RouterLearnsTest, SignalsAndUntimedFactsCarryTheStamp) {
  const RouteStamp arrived{ParseTime("2026-11-30T12:00:00Z").value(), std::chrono::seconds(3)};
  const RouteResult reopened =
      RouteWebhook("pull_request", Fixture("pull_request/reopened.payload.json"), arrived);
  ASSERT_EQ(reopened.signals.size(), 1u);
  EXPECT_EQ(reopened.signals[0].debounce, std::chrono::seconds(3));
  ASSERT_EQ(reopened.facts.size(), 1u);
  EXPECT_EQ(reopened.facts[0].name, "reopened");
  EXPECT_EQ(reopened.facts[0].at, arrived.received_at);

  const RouteResult checks = RouteWebhook("check_run", Fixture(kCheckRun), arrived);
  ASSERT_FALSE(checks.signals.empty());
  for (const Signal& s : checks.signals) EXPECT_EQ(s.debounce, std::chrono::seconds(3)) << s.key;
}

}  // namespace
}  // namespace gatehouse
