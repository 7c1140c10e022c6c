// Signed webhooks: payload shapes against the real fixtures, signatures verified with
// gatehouse's own VerifySignature256, and delivery faults (duplicates, reordering), received
// by a real HttpServer on loopback.
#include "sim/webhooks.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <condition_variable>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>

#include "github/signature.h"
#include "http/server.h"
#include "sim/model.h"
#include "sim/render.h"
#include "sim/rest.h"
#include "sim/webhook_sink_test_util.h"

namespace gatehouse::sim {
namespace {

namespace json = boost::json;

constexpr int64_t kWebhooksStart = 1'800'000'000;

using sim_testing::Fixture;
using sim_testing::WebhookSink;

// Every key the fixture has at `path` (one level) that a router reads must be in ours too.
void ExpectKeys(const json::object& ours, const json::object& fixture,
                const std::vector<std::string>& keys) {
  for (const auto& k : keys) {
    EXPECT_TRUE(fixture.contains(k)) << "fixture lacks " << k;
    EXPECT_TRUE(ours.contains(k)) << "payload lacks " << k;
    if (ours.contains(k) && fixture.contains(k)) {
      EXPECT_EQ(ours.at(k).kind(), fixture.at(k).kind()) << k;
    }
  }
}

TEST(SimWebhookTest, SignedDeliveriesShapedLikeGitHubs) {
  WebhookSink sink;
  HttpServerOptions options;
  options.listen = "127.0.0.1:0";
  auto server = HttpServer::Start(options, sink);
  ASSERT_TRUE(server.ok());
  auto clock = std::make_shared<SimClock>(FromMicros(kWebhooksStart * 1'000'000));
  Model model(clock, {});
  WebhookSender sender({.url = "http://127.0.0.1:" + std::to_string((*server)->port()) + "/webhook",
                        .secret = "s3cret",
                        .timeout_ms = 10'000});
  model.SetListener(
      [&](const Notification& n) { sender.Enqueue(n.event, json::serialize(RenderWebhook(n))); });
  ASSERT_TRUE(model.CreateRepo("acme", "app", 9, {}).ok());
  auto pr = model.CreatePull("acme/app", NewPull{});
  ASSERT_TRUE(pr.ok());
  CheckRun run;
  run.name = "ci";
  run.head_sha = pr->head_sha;
  run.conclusion = "success";
  ASSERT_TRUE(model.UpsertCheckRun("ci", "acme/app", run, nullptr).ok());

  HttpRequest opened = sink.WaitFor(1);
  HttpRequest completed = sink.WaitFor(2);
  EXPECT_TRUE(VerifySignature256(opened.Header("X-Hub-Signature-256"), opened.body, {"s3cret"}));
  EXPECT_TRUE(
      VerifySignature256(completed.Header("X-Hub-Signature-256"), completed.body, {"s3cret"}));
  EXPECT_FALSE(VerifySignature256(opened.Header("X-Hub-Signature-256"), opened.body, {"other"}));
  EXPECT_EQ(opened.Header("X-GitHub-Event"), "pull_request");
  EXPECT_EQ(completed.Header("X-GitHub-Event"), "check_run");
  EXPECT_NE(opened.Header("X-GitHub-Delivery"), completed.Header("X-GitHub-Delivery"));
  EXPECT_FALSE(opened.Header("X-GitHub-Delivery").empty());

  json::object o = json::parse(opened.body).as_object();
  json::object fo = Fixture("pull_request", "opened");
  ExpectKeys(o, fo, {"action", "number", "pull_request", "repository", "installation", "sender"});
  ExpectKeys(o.at("pull_request").as_object(), fo.at("pull_request").as_object(),
             {"number", "state", "draft", "head", "base", "user", "labels", "mergeable", "merged",
              "title"});
  EXPECT_EQ(o.at("action"), "opened");
  EXPECT_EQ(o.at("repository").at("full_name"), "acme/app");
  EXPECT_EQ(o.at("installation").at("id"), 9);
  EXPECT_EQ(o.at("pull_request").at("head").at("sha"), json::value(pr->head_sha));

  json::object c = json::parse(completed.body).as_object();
  json::object fc = Fixture("check_run", "completed");
  ExpectKeys(c.at("check_run").as_object(), fc.at("check_run").as_object(),
             {"head_sha", "status", "conclusion", "name", "pull_requests", "id"});
  EXPECT_EQ(c.at("action"), "completed");
  EXPECT_EQ(c.at("check_run").at("pull_requests").at(0).at("number"), pr->number);
  HttpRequest suite = sink.WaitFor(3);
  EXPECT_EQ(suite.Header("X-GitHub-Event"), "check_suite");
  json::object s = json::parse(suite.body).as_object();
  ExpectKeys(s.at("check_suite").as_object(),
             Fixture("check_suite", "completed").at("check_suite").as_object(),
             {"head_sha", "status", "conclusion", "pull_requests", "head_branch"});

  ASSERT_TRUE(
      model.SubmitReview("alice", "acme/app", pr->number, "APPROVE", pr->head_sha, "", nullptr)
          .ok());
  ASSERT_TRUE(model.AddComment("bob", "acme/app", pr->number, "/merge", nullptr).ok());
  CommitStatus st;
  st.sha = pr->head_sha;
  st.state = "success";
  ASSERT_TRUE(model.SetStatus("ci", "acme/app", st, nullptr).ok());
  ASSERT_TRUE(model.Push("alice", "acme/app", pr->number, "").ok());

  HttpRequest review = sink.WaitFor(4);
  EXPECT_EQ(review.Header("X-GitHub-Event"), "pull_request_review");
  json::object r = json::parse(review.body).as_object();
  json::object fr = Fixture("pull_request_review", "submitted");
  ExpectKeys(r, fr, {"action", "review", "pull_request", "repository", "installation"});
  ExpectKeys(r.at("review").as_object(), fr.at("review").as_object(),
             {"state", "commit_id", "user", "id"});
  EXPECT_EQ(r.at("review").at("state"), "approved") << "webhooks spell states in lower case";

  HttpRequest comment = sink.WaitFor(5);
  EXPECT_EQ(comment.Header("X-GitHub-Event"), "issue_comment");
  json::object cm = json::parse(comment.body).as_object();
  json::object fcm = Fixture("issue_comment", "created");
  ExpectKeys(cm, fcm, {"action", "issue", "comment", "repository"});
  EXPECT_EQ(cm.at("installation").at("id"), 9);
  ExpectKeys(cm.at("issue").as_object(), fcm.at("issue").as_object(), {"number", "state"});
  EXPECT_EQ(cm.at("issue").at("number"), pr->number);

  HttpRequest status = sink.WaitFor(6);
  EXPECT_EQ(status.Header("X-GitHub-Event"), "status");
  json::object sv = json::parse(status.body).as_object();
  std::ifstream in(std::string(SIM_FIXTURES) + "/status/payload.json");
  std::stringstream ss;
  ss << in.rdbuf();
  ExpectKeys(sv, json::parse(ss.str()).as_object(),
             {"sha", "state", "context", "repository", "commit"});
  EXPECT_EQ(sv.at("installation").at("id"), 9);

  HttpRequest sync = sink.WaitFor(7);
  json::object sy = json::parse(sync.body).as_object();
  EXPECT_EQ(sy.at("action"), "synchronize");
  EXPECT_NE(sy.at("pull_request").at("head").at("sha"), json::value(pr->head_sha));
  EXPECT_TRUE(VerifySignature256(sync.Header("X-Hub-Signature-256"), sync.body, {"s3cret"}));
  ExpectKeys(sy, Fixture("pull_request", "synchronize"),
             {"action", "number", "pull_request", "before", "after", "repository", "sender"});
  EXPECT_EQ(sy.at("before"), json::value(pr->head_sha));
  EXPECT_EQ(sy.at("after"), sy.at("pull_request").at("head").at("sha"));

  ASSERT_TRUE(
      model.DismissReview("maintainer", "acme/app", pr->number, {.reviewer = "alice"}, nullptr)
          .ok());
  HttpRequest dismissed = sink.WaitFor(8);
  EXPECT_EQ(dismissed.Header("X-GitHub-Event"), "pull_request_review");
  json::object d = json::parse(dismissed.body).as_object();
  json::object fd = Fixture("pull_request_review", "dismissed");
  ExpectKeys(d, fd, {"action", "review", "pull_request", "repository", "installation", "sender"});
  ExpectKeys(d.at("review").as_object(), fd.at("review").as_object(),
             {"state", "commit_id", "user", "id", "submitted_at"});
  EXPECT_EQ(d.at("action"), "dismissed");
  EXPECT_EQ(d.at("review").at("state"), fd.at("review").at("state"));
  EXPECT_EQ(d.at("review").at("user").at("login"), "alice");
  EXPECT_EQ(d.at("sender").at("login"), "maintainer");

  sender.Stop();
  EXPECT_EQ(sender.delivered(), 8u);
  (*server)->Stop(std::chrono::seconds(1));
}

}  // namespace
}  // namespace gatehouse::sim

namespace gatehouse::sim {
namespace {

TEST(SimWebhookTest, DuplicatedAndReorderedDeliveries) {
  WebhookSink sink;
  HttpServerOptions options;
  options.listen = "127.0.0.1:0";
  auto server = HttpServer::Start(options, sink);
  ASSERT_TRUE(server.ok());
  auto clock = std::make_shared<SimClock>(FromMicros(kWebhooksStart * 1'000'000));
  Model model(clock, {});
  WebhookSender sender({.url = "http://127.0.0.1:" + std::to_string((*server)->port()) + "/webhook",
                        .secret = "s3cret",
                        .timeout_ms = 10'000});
  model.SetListener(
      [&](const Notification& n) { sender.Enqueue(n.event, json::serialize(RenderWebhook(n))); });
  ASSERT_TRUE(model.CreateRepo("acme", "app", 9, {}).ok());
  sender.SetFaults({.duplicates = 1, .reorders = 1, .delay_ms = 0});
  ASSERT_TRUE(model.CreatePull("acme/app", NewPull{}).ok());  // held back, and duplicated
  ASSERT_TRUE(model.CreatePull("acme/app", NewPull{}).ok());  // overtakes it
  HttpRequest first = sink.WaitFor(1);
  HttpRequest second = sink.WaitFor(2);
  HttpRequest third = sink.WaitFor(3);
  EXPECT_EQ(json::parse(first.body).at("number"), 2);
  EXPECT_EQ(json::parse(second.body).at("number"), 1);
  EXPECT_EQ(json::parse(third.body).at("number"), 1);
  EXPECT_EQ(second.Header("X-GitHub-Delivery"), third.Header("X-GitHub-Delivery"));
  EXPECT_EQ(second.body, third.body);
  EXPECT_NE(first.Header("X-GitHub-Delivery"), second.Header("X-GitHub-Delivery"));
  sender.Stop();
  EXPECT_EQ(sender.delivered(), 3u);
  (*server)->Stop(std::chrono::seconds(1));
}

}  // namespace
}  // namespace gatehouse::sim

namespace gatehouse::sim {
namespace {

TEST(SimWebhookTest, TargetSetAtRuntimeAndPeopleActingThroughTheControlApi) {
  WebhookSink sink;
  HttpServerOptions options;
  options.listen = "127.0.0.1:0";
  auto server = HttpServer::Start(options, sink);
  ASSERT_TRUE(server.ok());
  auto clock = std::make_shared<SimClock>(FromMicros(kWebhooksStart * 1'000'000));
  Model model(clock, {});
  WebhookSender sender({.url = "", .secret = "s3cret", .timeout_ms = 10'000});
  model.SetListener(
      [&](const Notification& n) { sender.Enqueue(n.event, json::serialize(RenderWebhook(n))); });
  SimHandler handler(model, {.clock = clock, .insecure_any_token = true, .webhooks = &sender});
  auto control = [&](const std::string& method, const std::string& target,
                     const std::string& body) {
    return handler.Serve(HttpRequest{
        .method = method, .target = target, .headers = {}, .body = body, .peer = "test"});
  };
  ASSERT_EQ(control("POST", "/_sim/repos", R"({"owner":"acme","name":"app"})").status, 201);
  ASSERT_EQ(control("POST", "/_sim/repos/acme/app/pulls", R"({"author":"alice"})").status, 201);
  EXPECT_EQ(sender.dropped(), 1u) << "no target yet: nobody hears the opened event";
  EXPECT_FALSE(sender.WaitForSetUrl(std::chrono::milliseconds(0)));
  EXPECT_EQ(json::parse(control("GET", "/_sim/webhook-url", "").body).at("url"), "");
  EXPECT_EQ(control("PUT", "/_sim/webhook-url", R"({"url":"ftp://x"})").status, 422);

  const std::string url = "http://127.0.0.1:" + std::to_string((*server)->port()) + "/webhook";
  ASSERT_EQ(control("PUT", "/_sim/webhook-url", R"({"url":")" + url + R"("})").status, 200);
  EXPECT_TRUE(sender.WaitForSetUrl(std::chrono::milliseconds(0)));
  EXPECT_EQ(sender.url(), url);

  ASSERT_EQ(control("POST", "/_sim/repos/acme/app/pulls/1/labels",
                    R"({"user":"bob","labels":["needs-human-review","changes-requested"]})")
                .status,
            200);
  ASSERT_EQ(control("DELETE", "/_sim/repos/acme/app/pulls/1/labels/changes-requested",
                    R"({"user":"bob"})")
                .status,
            200);
  ASSERT_EQ(control("POST", "/_sim/repos/acme/app/pulls/1/draft", R"({"user":"alice"})").status,
            200);
  ASSERT_EQ(
      control("POST", "/_sim/repos/acme/app/pulls/1/draft", R"({"user":"alice","draft":false})")
          .status,
      200);
  ASSERT_EQ(control("POST", "/_sim/repos/acme/app/pulls/1/close", R"({"user":"bob"})").status, 200);
  ASSERT_EQ(control("POST", "/_sim/repos/acme/app/pulls/1/reopen", R"({"user":"alice"})").status,
            200);

  struct Want {
    std::string action, sender, label;
    bool draft;
  };
  const std::vector<Want> want = {{"labeled", "bob", "needs-human-review", false},
                                  {"labeled", "bob", "changes-requested", false},
                                  {"unlabeled", "bob", "changes-requested", false},
                                  {"converted_to_draft", "alice", "", true},
                                  {"ready_for_review", "alice", "", false},
                                  {"closed", "bob", "", false},
                                  {"reopened", "alice", "", false}};
  for (size_t i = 0; i < want.size(); ++i) {
    HttpRequest got = sink.WaitFor(i + 1);
    EXPECT_EQ(got.Header("X-GitHub-Event"), "pull_request");
    json::object p = json::parse(got.body).as_object();
    EXPECT_EQ(p.at("action"), json::value(want[i].action)) << i;
    EXPECT_EQ(p.at("sender").at("login"), json::value(want[i].sender)) << i;
    EXPECT_EQ(p.at("pull_request").at("draft"), want[i].draft) << i;
    if (!want[i].label.empty()) {
      EXPECT_EQ(p.at("label").at("name"), json::value(want[i].label));
    }
    if (want[i].action == "converted_to_draft" || want[i].action == "ready_for_review") {
      ExpectKeys(p, Fixture("pull_request", want[i].action),
                 {"action", "number", "pull_request", "repository", "sender"});
    }
    EXPECT_EQ(p.at("pull_request").at("author_association"), "CONTRIBUTOR");
  }
  sender.Stop();
  EXPECT_EQ(sender.delivered(), want.size());
  (*server)->Stop(std::chrono::seconds(1));
}

}  // namespace
}  // namespace gatehouse::sim
