// The front door end to end, in one process: a real HTTP server on loopback, the real
// webhook handler with signatures, the inbox writer on a real SQLite file, and the router.
// Every payload in ../shared/fixtures/github-webhooks is posted, signed, and followed to its
// terminal state.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <filesystem>

#include "tests/ingress_harness.h"

namespace gatehouse {
namespace {

namespace fs = std::filesystem;
using http_testing::ClientResponse;
using ingress_testing::ExpectBalanced;
using ingress_testing::Ingress;
using ingress_testing::ReadFile;


TEST(IngressTest, EveryFixtureIsAcceptedAndEndsRoutedIgnoredOrVisiblyUnresolved) {
  Ingress ingress;
  std::vector<std::pair<std::string, std::string>> posted;  // (event/file, delivery id)
  int n = 0;
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(GATEHOUSE_FIXTURES)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_GT(files.size(), 100u) << "fixtures missing at " << GATEHOUSE_FIXTURES;
  for (const fs::path& file : files) {
    const std::string event = file.parent_path().filename().string();
    const std::string id = "fixture-" + std::to_string(++n);
    ClientResponse r = ingress.Post(event, id, ReadFile(file));
    ASSERT_EQ(r.status, event == "ping" ? 200 : 202) << file << ": " << r.body;
    posted.emplace_back(event + "/" + file.filename().string(), id);
  }
  ASSERT_TRUE(ingress.WaitRouted());

  std::map<std::string, InboxEntry> by_name;
  int unresolved = 0;
  for (const auto& [name, id] : posted) {
    InboxEntry e = ingress.Delivery(id);
    by_name[name] = e;
    EXPECT_NE(e.state, InboxState::kDead) << name << ": " << e.state_reason;
    EXPECT_NE(e.state, InboxState::kAccepted) << name;
    if (e.state == InboxState::kUnresolved) {
      ++unresolved;
      // Only checks and statuses without a PR list may wait for a SHA lookup.
      EXPECT_TRUE(name.rfind("status/", 0) == 0 || name.rfind("check_", 0) == 0 ||
                  name.rfind("workflow_run/", 0) == 0)
          << name;
    }
    if (e.state == InboxState::kIgnored) {
      EXPECT_FALSE(e.state_reason.empty()) << name;
    }
  }
  // The PR-related ones, with the keys their payloads name.
  for (const char* action :
       {"opened", "reopened", "synchronize", "edited", "ready_for_review", "converted_to_draft",
        "closed", "labeled", "unlabeled", "review_requested"}) {
    const std::string name = std::string("pull_request/") + action + ".payload.json";
    if (!by_name.count(name)) continue;  // not every action has a fixture (edited has none)
    EXPECT_EQ(by_name[name].state, InboxState::kRouted) << name;
  }
  EXPECT_EQ(by_name["pull_request/assigned.payload.json"].state, InboxState::kIgnored);
  EXPECT_EQ(by_name["pull_request_review/submitted.payload.json"].state, InboxState::kRouted);
  EXPECT_EQ(by_name["check_run/completed.payload.json"].state, InboxState::kRouted);
  EXPECT_EQ(by_name["check_suite/completed.payload.json"].state, InboxState::kRouted);
  EXPECT_EQ(by_name["check_run/created.payload.json"].state, InboxState::kIgnored);
  EXPECT_EQ(by_name["ping/payload.json"].state, InboxState::kIgnored);
  EXPECT_EQ(by_name["star/created.payload.json"].state, InboxState::kIgnored);
  EXPECT_EQ(by_name["installation/created.payload.json"].state, InboxState::kRouted);
  // The status fixture's commit is the head of no PR gatehouse has seen.
  EXPECT_EQ(by_name["status/payload.json"].state, InboxState::kUnresolved);

  auto pr = ingress.store().work().GetWorkItem("codertocat/hello-world#2");
  ASSERT_TRUE(pr.ok() && pr->has_value());
  EXPECT_GE((*pr)->requested_gen, 10) << "each routed PR event is one signal on one item";

  auto funnel = ingress.store().inbox().GetFunnel();
  ASSERT_TRUE(funnel.ok());
  EXPECT_EQ(funnel->received, static_cast<int64_t>(posted.size()));
  EXPECT_EQ(funnel->dead, 0);
  EXPECT_EQ(funnel->in_flight, unresolved);
  EXPECT_EQ(funnel->unresolved, unresolved);
  ExpectBalanced(*funnel);
}

TEST(IngressTest, ACheckWithoutPullRequestsIsResolvedByAKnownHead) {
  Ingress ingress;
  const fs::path root = GATEHOUSE_FIXTURES;
  const std::string pr = ReadFile(root / "pull_request" / "synchronize.payload.json");
  ASSERT_EQ(ingress.Post("pull_request", "pr-1", pr).status, 202);
  ASSERT_TRUE(ingress.WaitRouted());
  const std::string head =
      boost::json::parse(pr).at("pull_request").at("head").at("sha").as_string().c_str();
  // A status on that head (the fixture, moved to the PR's commit): statuses carry no PR list.
  boost::json::value status = boost::json::parse(ReadFile(root / "status" / "payload.json"));
  status.as_object()["sha"] = head;
  ASSERT_EQ(ingress.Post("status", "st-1", boost::json::serialize(status)).status, 202);
  ASSERT_TRUE(ingress.WaitRouted());
  InboxEntry e = ingress.Delivery("st-1");
  EXPECT_EQ(e.state, InboxState::kRouted) << e.state_reason;
  auto item = ingress.store().work().GetWorkItem("codertocat/hello-world#2");
  ASSERT_TRUE(item.ok() && item->has_value());
  EXPECT_EQ((*item)->requested_gen, 2);
  EXPECT_NE(std::find((*item)->reasons.begin(), (*item)->reasons.end(), "status"),
            (*item)->reasons.end());
}

TEST(IngressTest, DuplicatesConflictsAndBadRequestsAreCountedNotRouted) {
  Ingress ingress;
  const std::string body =
      ReadFile(fs::path(GATEHOUSE_FIXTURES) / "pull_request" / "opened.payload.json");
  EXPECT_EQ(ingress.Post("pull_request", "dup-1", body).status, 202);
  EXPECT_EQ(ingress.Post("pull_request", "dup-1", body).status, 200);
  EXPECT_EQ(ingress.Post("pull_request", "dup-1", body + " ").status, 409);
  EXPECT_EQ(ingress.Post("pull_request", "bad-sig", body, "wrong secret").status, 401);
  EXPECT_EQ(ingress.Post("pull_request", "bad-json", "{not json").status, 400);
  ASSERT_TRUE(ingress.WaitRouted());
  auto item = ingress.store().work().GetWorkItem("codertocat/hello-world#2");
  ASSERT_TRUE(item.ok() && item->has_value());
  EXPECT_EQ((*item)->requested_gen, 1) << "the duplicate and the conflict routed nothing";
  EXPECT_FALSE(ingress.store().inbox().GetDelivery("bad-sig")->has_value());
  EXPECT_FALSE(ingress.store().inbox().GetDelivery("bad-json")->has_value());
}

}  // namespace
}  // namespace gatehouse
