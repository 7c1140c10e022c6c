// What the router's tests share (engine/router_test.cc, router_fixtures_test.cc,
// router_learns_test.cc, one binary): the real GitHub payloads in
// ../shared/fixtures/github-webhooks (GATEHOUSE_FIXTURES, set by the test's target), the shape
// every RouteResult must have whatever its input, and edited copies of a fixture.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json.hpp>
#include <filesystem>
#include <fstream>
#include <functional>
#include <regex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "engine/router.h"

namespace gatehouse::router_testing {

namespace fs = std::filesystem;
namespace json = boost::json;
using Kind = RouteResult::Kind;
using Heads = std::vector<std::pair<std::string, std::string>>;

inline const fs::path kFixtures = GATEHOUSE_FIXTURES;

// The fixtures' PR: Codertocat/Hello-World#2 at this head.
inline constexpr const char kHelloKey[] = "codertocat/hello-world#2";
inline constexpr const char kHelloHead[] = "ec26c3e57ca3a959ca5aad62de7213c562f8c821";
// The heads a route reports for it: open at kHelloHead, or closed (forgotten).
inline const Heads kOpenHead = {{kHelloKey, kHelloHead}};
inline const Heads kClosedHead = {{kHelloKey, ""}};

inline json::value ParseFile(const fs::path& path) {
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

inline json::value Fixture(const std::string& relative) { return ParseFile(kFixtures / relative); }

// Every fixture file: (event, path). The event is the folder name, as GitHub's
// X-GitHub-Event header would say.
inline std::vector<std::pair<std::string, fs::path>> AllFixtures() {
  std::vector<std::pair<std::string, fs::path>> out;
  for (const auto& entry : fs::recursive_directory_iterator(kFixtures)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".json") continue;
    out.emplace_back(entry.path().parent_path().filename().string(), entry.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

inline std::vector<std::string> Keys(const RouteResult& r) {
  std::vector<std::string> v;
  for (const auto& t : r.signals) v.push_back(t.key);
  return v;
}

inline std::vector<std::string> Reasons(const RouteResult& r) {
  std::vector<std::string> v;
  for (const auto& t : r.signals) v.push_back(t.reason);
  return v;
}

// What every result must look like, whatever the input: the store rejects malformed keys and
// reasons, and an ignored delivery must say why.
inline void ExpectWellFormed(const RouteResult& r, const std::string& context) {
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

inline const std::vector<std::string> kUsedEvents = {
    "pull_request",  "pull_request_review", "check_run",
    "check_suite",   "workflow_run",        "status",
    "issue_comment", "installation",        "installation_repositories"};

// A copy of a fixture with one change applied.
inline json::value Edited(const std::string& file, const std::function<void(json::object&)>& edit) {
  json::value v = Fixture(file);
  if (json::object* o = v.if_object()) edit(*o);
  return v;
}

inline constexpr const char kOpened[] = "pull_request/opened.payload.json";
inline constexpr const char kCheckRun[] = "check_run/completed.payload.json";
inline constexpr const char kComment[] = "issue_comment/created.payload.json";

}  // namespace gatehouse::router_testing
