// gatehouse doctor's checks (app/doctor.h) against the in-process simulator over loopback: a
// good setup finds nothing to fix; each thing a user gets wrong is named in plain words.
#include "app/doctor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <string>

#include "github/fake_github_test_util.h"
#include "sim/in_process_github_test_util.h"
#include "sim/webhooks.h"
#include "store/open_store.h"
#include "store/store_test_util.h"

namespace gatehouse::app {
namespace {

using ::testing::HasSubstr;
using Severity = Finding::Severity;

class DoctorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    github_.set_webhooks(&sender_);
    ASSERT_NO_FATAL_FAILURE(github_.Start());
    ASSERT_TRUE(github_.model().CreateRepo("acme", "app", 7, {}).ok());
    ASSERT_TRUE(github_.model().CreateRepo("umbrella", "tools", 9, {}).ok());
  }

  DoctorOptions Good() {
    DoctorOptions o;
    GitHubAuthConfig github;
    github.api_url = github_.base_url();
    github.app_id = sim_testing::kAppId;
    github.private_key_pem = github_testing::GetTestRsaKey().private_pem;
    o.github = github;
    o.webhook_secrets = {"0123456789abcdef0123456789abcdef"};
    o.clock = clock_;
    return o;
  }

  // PUT /_sim/app: what the App asks for, what installations accepted, the Date offset.
  void SetApp(const std::string& body) {
    HttpCall call;
    call.method = "PUT";
    call.target = "/_sim/app";
    call.body = body;
    auto reply = github_.transport().Send(call);
    ASSERT_TRUE(reply.ok());
    ASSERT_EQ(reply->status, 200) << reply->body;
  }

  static std::string Report(const std::vector<Finding>& findings) {
    std::string out;
    for (const Finding& f : findings) {
      out += std::string(f.severity == Severity::kFail   ? "FAIL "
                         : f.severity == Severity::kWarn ? "warn "
                                                         : "ok   ") +
             f.check + ": " + f.message + "\n";
    }
    return out;
  }
  static int Count(const std::vector<Finding>& findings, Severity s) {
    int n = 0;
    for (const Finding& f : findings) n += f.severity == s ? 1 : 0;
    return n;
  }
  static std::string Of(const std::vector<Finding>& findings, const std::string& check,
                        Severity s) {
    std::string out;
    for (const Finding& f : findings) {
      if (f.check == check && f.severity == s) out += f.message + "\n";
    }
    return out;
  }

  std::shared_ptr<SimClock> clock_ = std::make_shared<SimClock>(RealClock().Now());
  // The App's webhook: a URL and a secret, as a set-up App has (nothing listens there).
  sim::WebhookSender sender_{
      sim::WebhookSenderOptions{.url = "http://127.0.0.1:9/webhook", .secret = "s3cret-s3cret"}};
  sim_testing::InProcessGitHub github_{clock_};
};

TEST_F(DoctorTest, AGoodSetupHasNothingToFix) {
  testing::TempDir dir;
  const std::string db = dir.File("g.db");
  ASSERT_TRUE(OpenStore(db).ok());
  DoctorOptions options = Good();
  options.db_url = db;
  const auto findings = CheckSetup(options);
  EXPECT_EQ(Count(findings, Severity::kFail), 0) << Report(findings);
  EXPECT_EQ(Count(findings, Severity::kWarn), 0) << Report(findings);
  EXPECT_THAT(Of(findings, "GitHub", Severity::kOk), HasSubstr("gatehouse[bot]"));
  EXPECT_THAT(Of(findings, "installations", Severity::kOk), HasSubstr("installation 7 (acme)"));
  EXPECT_THAT(Of(findings, "installations", Severity::kOk), HasSubstr("installation 9 (umbrella)"));
  EXPECT_THAT(Of(findings, "clock", Severity::kOk), HasSubstr("Date"));
  EXPECT_THAT(Of(findings, "webhook", Severity::kOk),
              HasSubstr("signs deliveries to http://127.0.0.1:9/webhook"));
  EXPECT_THAT(Of(findings, "database", Severity::kOk), HasSubstr("takes writes"));
  EXPECT_THAT(Report(findings), ::testing::Not(HasSubstr("0123456789abcdef"))) << "no secret";
}

TEST_F(DoctorTest, NoSecretAndNoCredentialsAreNamed) {
  DoctorOptions options;
  options.clock = clock_;
  const auto findings = CheckSetup(options);
  EXPECT_THAT(Of(findings, "webhook secret", Severity::kFail),
              HasSubstr("GATEHOUSE_WEBHOOK_SECRET"));
  EXPECT_THAT(Of(findings, "credentials", Severity::kFail), HasSubstr("GATEHOUSE_GITHUB_APP_ID"));
  DoctorOptions short_secret = Good();
  short_secret.webhook_secrets = {"hunter2"};
  EXPECT_THAT(Of(CheckSetup(short_secret), "webhook secret", Severity::kWarn),
              HasSubstr("only 7 characters"));
}

TEST_F(DoctorTest, AnotherAppsKeyIsRefusedByGitHub) {
  DoctorOptions options = Good();
  options.github->app_id = sim_testing::kAppId + 1;
  const auto findings = CheckSetup(options);
  EXPECT_THAT(Of(findings, "GitHub", Severity::kFail), HasSubstr("refused the App JWT"))
      << Report(findings);
  DoctorOptions garbage = Good();
  garbage.github->private_key_pem = "-----BEGIN RSA PRIVATE KEY-----\nnope\n";
  EXPECT_THAT(Of(CheckSetup(garbage), "credentials", Severity::kFail), HasSubstr("does not parse"));
}

TEST_F(DoctorTest, AClockOffGitHubsIsMeasuredFromItsDateHeader) {
  SetApp(R"({"clock_offset_seconds": -30})");  // GitHub 30 s behind: this host 30 s ahead
  auto findings = CheckSetup(Good());
  EXPECT_THAT(Of(findings, "clock", Severity::kWarn), HasSubstr("ahead of")) << Report(findings);
  SetApp(R"({"clock_offset_seconds": 900})");  // this host 15 min behind
  findings = CheckSetup(Good());
  EXPECT_THAT(Of(findings, "clock", Severity::kFail), HasSubstr("behind")) << Report(findings);
}

TEST_F(DoctorTest, MissingPermissionsAreListedWithWhy) {
  // The App lacks contents: write and the status event; installation 9 has not accepted
  // the App's newer checks: write.
  SetApp(R"({"permissions": {"metadata": "read", "pull_requests": "write", "contents": "read",
               "checks": "write", "statuses": "read", "actions": "read", "issues": "write"},
             "events": ["pull_request", "pull_request_review", "check_run", "check_suite",
                        "workflow_run", "issue_comment"],
             "installations": {"9": {"permissions": {"metadata": "read", "pull_requests": "write",
                                       "contents": "write", "checks": "read", "statuses": "read",
                                       "actions": "read", "issues": "write"},
                                     "events": ["pull_request", "pull_request_review",
                                                "check_run", "check_suite", "workflow_run",
                                                "status", "issue_comment"]}}})");
  const auto findings = CheckSetup(Good());
  const std::string app = Of(findings, "permissions", Severity::kFail);
  EXPECT_THAT(app, HasSubstr("contents: write (only read)")) << Report(findings);
  EXPECT_THAT(app, HasSubstr("merge"));  // the why
  EXPECT_THAT(app, HasSubstr("event status (not subscribed)"));
  const std::string installations = Of(findings, "installations", Severity::kFail);
  EXPECT_THAT(installations, HasSubstr("installation 9 (umbrella)")) << Report(findings);
  EXPECT_THAT(installations, HasSubstr("checks: write (only read)"));
  // Installation 7 accepted what the App asks for, so it lacks what the App lacks, no more.
  const size_t seven = installations.find("installation 7 (acme) has not");
  ASSERT_NE(seven, std::string::npos) << installations;
  const std::string seven_text =
      installations.substr(seven, installations.find("installation 9") - seven);
  EXPECT_THAT(seven_text, HasSubstr("contents: write"));
  EXPECT_THAT(seven_text, ::testing::Not(HasSubstr("checks: write")));
}

TEST_F(DoctorTest, AnUnsignedOrMissingWebhookIsNamed) {
  sim::WebhookSender unsigned_sender{
      sim::WebhookSenderOptions{.url = "http://127.0.0.1:9/webhook", .secret = ""}};
  sim_testing::InProcessGitHub unsigned_github{clock_};
  unsigned_github.set_webhooks(&unsigned_sender);
  ASSERT_NO_FATAL_FAILURE(unsigned_github.Start());
  DoctorOptions options = Good();
  options.github->api_url = unsigned_github.base_url();
  auto findings = CheckSetup(options);
  EXPECT_THAT(Of(findings, "webhook", Severity::kFail), HasSubstr("has no secret"))
      << Report(findings);
  sim_testing::InProcessGitHub no_hook{clock_};  // no webhook configured at all
  ASSERT_NO_FATAL_FAILURE(no_hook.Start());
  options.github->api_url = no_hook.base_url();
  findings = CheckSetup(options);
  EXPECT_THAT(Of(findings, "webhook", Severity::kFail), HasSubstr("no webhook URL"))
      << Report(findings);
}

TEST_F(DoctorTest, AnAppInstalledNowhereIsNamed) {
  sim_testing::InProcessGitHub empty{clock_};
  ASSERT_NO_FATAL_FAILURE(empty.Start());
  DoctorOptions options = Good();
  options.github->api_url = empty.base_url();
  const auto findings = CheckSetup(options);
  EXPECT_THAT(Of(findings, "installations", Severity::kFail), HasSubstr("not installed anywhere"))
      << Report(findings);
}

TEST(HttpDateTest, ParsesImfFixdateOnly) {
  auto t = ParseHttpDate("Wed, 02 Dec 2026 14:30:00 GMT");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(std::chrono::duration_cast<std::chrono::seconds>(t->time_since_epoch()).count(),
            1796221800);
  EXPECT_FALSE(ParseHttpDate("2026-12-02T14:30:00Z").has_value());
  EXPECT_FALSE(ParseHttpDate("").has_value());
}

}  // namespace
}  // namespace gatehouse::app
