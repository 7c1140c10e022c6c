// What routing learns besides signals: the repositories an installation adds and removes, a
// repository's new name, and the PR facts (who reopened or closed it, when a push landed) that
// the pass reads from the store instead of from GitHub.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "engine/router.h"
#include "engine/router_test_util.h"

namespace gatehouse {
namespace {

using namespace router_testing;  // NOLINT(google-build-using-namespace): the tests' own toolkit

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
