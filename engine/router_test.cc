// The router over synthetic payloads, edited from the real fixtures, for the shapes real
// traffic rarely shows: missing and mistyped fields, fork PRs, checks and statuses, gatehouse's
// own events, comments that do or do not address gatehouse.
#include "engine/router.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>
#include <vector>

#include "base/subject.h"
#include "decide/pr_facts.h"
#include "engine/router_test_util.h"

namespace gatehouse {
namespace {

using namespace router_testing;  // NOLINT(google-build-using-namespace): the tests' own toolkit

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
  const RouteResult r =
      RouteWebhook("pull_request_review",
                   Edited("pull_request_review/submitted.payload.json", [](json::object& o) {
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

}  // namespace
}  // namespace gatehouse
