// The simulator over loopback: App JWT -> token exchange, REST guards, ETags, pagination,
// faults and the control API.
#include "sim/rest.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>

#include <boost/json.hpp>
#include <memory>

#include "github/base64.h"
#include "http/server.h"
#include "http/test_client.h"
#include "sim/jwt.h"
#include "sim/model.h"

namespace gatehouse::sim {
namespace {

namespace json = boost::json;
using http_testing::BuildRequest;
using http_testing::ClientResponse;
using http_testing::RoundTrip;

constexpr int64_t kRestStart = 1'800'000'000;

std::string B64Url(std::string_view data) {
  std::string s = Base64Encode(data);
  for (char& c : s) c = c == '+' ? '-' : c == '/' ? '_' : c;
  while (!s.empty() && s.back() == '=') s.pop_back();
  return s;
}

// A fresh RSA key per test process; nothing is read from or written to disk.
struct TestKey {
  TestKey() : key(EVP_RSA_gen(2048), EVP_PKEY_free) {
    BIO* bio = BIO_new(BIO_s_mem());
    PEM_write_bio_PUBKEY(bio, key.get());
    char* data = nullptr;
    long len = BIO_get_mem_data(bio, &data);
    public_pem.assign(data, static_cast<size_t>(len));
    BIO_free(bio);
  }
  std::string Sign(const std::string& payload) const {
    std::string signing = B64Url(R"({"alg":"RS256","typ":"JWT"})") + "." + B64Url(payload);
    EVP_MD_CTX* ctx = EVP_MD_CTX_new();
    EVP_DigestSignInit(ctx, nullptr, EVP_sha256(), nullptr, key.get());
    size_t len = 0;
    EVP_DigestSign(ctx, nullptr, &len, reinterpret_cast<const unsigned char*>(signing.data()),
                   signing.size());
    std::string sig(len, '\0');
    EVP_DigestSign(ctx, reinterpret_cast<unsigned char*>(sig.data()), &len,
                   reinterpret_cast<const unsigned char*>(signing.data()), signing.size());
    EVP_MD_CTX_free(ctx);
    sig.resize(len);
    return signing + "." + B64Url(sig);
  }
  std::string Jwt(int64_t iat, int64_t exp, const std::string& iss = "42") const {
    return Sign(R"({"iat":)" + std::to_string(iat) + R"(,"exp":)" + std::to_string(exp) +
                R"(,"iss":")" + iss + R"("})");
  }
  std::unique_ptr<EVP_PKEY, decltype(&EVP_PKEY_free)> key;
  std::string public_pem;
};

const TestKey& Key() {
  static const TestKey* key = new TestKey();
  return *key;
}

class SimRestTest : public ::testing::Test {
 protected:
  SimRestTest()
      : clock_(std::make_shared<SimClock>(FromMicros(kRestStart * 1'000'000))),
        model_(clock_, ModelOptions{.mergeable_delay = std::chrono::seconds(3),
                                    .token_ttl = std::chrono::minutes(60)}),
        handler_(model_, SimHandlerOptions{.clock = clock_,
                                           .app_id = "42",
                                           .app_public_key_pem = Key().public_pem,
                                           .insecure_any_token = false,
                                           .rate_limit = 100}) {
    HttpServerOptions options;
    options.listen = "127.0.0.1:0";
    auto server = HttpServer::Start(options, handler_);
    EXPECT_TRUE(server.ok());
    server_ = std::move(server).value();
    EXPECT_EQ(Control("POST", "/_sim/repos",
                      R"({"owner":"acme","name":"app","installation_id":7,
                          "files":{"docs/policy.yml":"merge: true\n"}})")
                  .status,
              201);
  }
  ~SimRestTest() override { server_->Stop(std::chrono::seconds(1)); }

  ClientResponse Call(const std::string& method, const std::string& target,
                      const std::string& body = "",
                      std::vector<std::pair<std::string, std::string>> headers = {}) {
    if (!token_.empty()) headers.emplace_back("Authorization", "Bearer " + token_);
    return RoundTrip(server_->port(), BuildRequest(method, target, headers, body));
  }
  ClientResponse Control(const std::string& method, const std::string& target,
                         const std::string& body = "") {
    return RoundTrip(server_->port(), BuildRequest(method, target, {}, body));
  }
  void Login() {
    ClientResponse r = RoundTrip(
        server_->port(),
        BuildRequest(
            "POST", "/app/installations/7/access_tokens",
            {{"Authorization", "Bearer " + Key().Jwt(kRestStart - 30, kRestStart + 540)}},
            ""));
    ASSERT_EQ(r.status, 201) << r.body;
    token_ = std::string(json::parse(r.body).at("token").as_string());
  }
  json::object OpenPull() {
    ClientResponse r = Control("POST", "/_sim/repos/acme/app/pulls", R"({"title":"t"})");
    EXPECT_EQ(r.status, 201) << r.body;
    return json::parse(r.body).as_object();
  }

  std::shared_ptr<SimClock> clock_;
  Model model_;
  SimHandler handler_;
  std::unique_ptr<HttpServer> server_;
  std::string token_;
};

TEST_F(SimRestTest, JwtExchangeAndTokenExpiry) {
  EXPECT_EQ(Call("GET", "/repos/acme/app/pulls").status, 401);
  // Wrong key, wrong issuer, expired: all 401.
  std::string forged = Key().Jwt(kRestStart, kRestStart + 500);
  // Flip a full-bit character of the signature (the last one may carry only padding bits).
  char& c = forged[forged.size() - 10];
  c = c == 'A' ? 'B' : 'A';
  for (const std::string& jwt :
       {forged, Key().Jwt(kRestStart, kRestStart + 500, "43"),
        Key().Jwt(kRestStart - 700, kRestStart - 100), std::string("not.a.jwt")}) {
    ClientResponse r =
        RoundTrip(server_->port(), BuildRequest("POST", "/app/installations/7/access_tokens",
                                                {{"Authorization", "Bearer " + jwt}}, ""));
    EXPECT_EQ(r.status, 401) << jwt;
  }
  Login();
  ClientResponse r = Call("GET", "/repos/acme/app/pulls");
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.Header("x-ratelimit-limit"), "100");
  EXPECT_EQ(r.Header("x-ratelimit-remaining"), "99");
  EXPECT_EQ(r.Header("x-ratelimit-reset"), std::to_string(kRestStart + 3600));
  clock_->Advance(std::chrono::minutes(60));
  EXPECT_EQ(Call("GET", "/repos/acme/app/pulls").status, 401);
}

TEST_F(SimRestTest, MergeGuardsOverRestAndTheEffectLog) {
  Login();
  json::object pr = OpenPull();
  std::string head(pr.at("head").at("sha").as_string());
  ClientResponse got = Call("GET", "/repos/acme/app/pulls/1");
  ASSERT_EQ(got.status, 200);
  EXPECT_TRUE(json::parse(got.body).at("mergeable").is_null());
  EXPECT_EQ(Call("PUT", "/repos/acme/app/pulls/1/merge", R"({"sha":")" + head + "\"}").status, 405);
  clock_->Advance(std::chrono::seconds(3));
  EXPECT_EQ(json::parse(Call("GET", "/repos/acme/app/pulls/1").body).at("mergeable"), true);
  ClientResponse stale = Call("PUT", "/repos/acme/app/pulls/1/merge", R"({"sha":"abc"})");
  EXPECT_EQ(stale.status, 409);
  EXPECT_EQ(json::parse(stale.body).at("message"),
            "Head branch was modified. Review and try the merge again.");
  EXPECT_EQ(
      Call("PUT", "/repos/acme/app/pulls/1/update-branch", R"({"expected_head_sha":"abc"})").status,
      422);
  EXPECT_EQ(Call("PUT", "/repos/acme/app/pulls/1/merge", R"({"sha":")" + head + "\"}").status, 200);
  EXPECT_EQ(Call("POST", "/repos/acme/app/pulls/1/reviews",
                 R"({"event":"APPROVE","commit_id":")" + head + "\"}")
                .status,
            422);

  ClientResponse effects = Control("GET", "/_sim/effects?kind=merge");
  ASSERT_EQ(effects.status, 200);
  json::array list = json::parse(effects.body).as_array();
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0].at("status"), 405);
  EXPECT_EQ(list[1].at("status"), 409);
  EXPECT_EQ(list[2].at("status"), 200);
  EXPECT_EQ(list[2].at("who"), "installation:7");
  EXPECT_EQ(list[2].at("sha"), json::value(head));
  EXPECT_EQ(list[2].at("number"), 1);
}

TEST_F(SimRestTest, EtagPaginationContentsAndLabels) {
  Login();
  for (int i = 0; i < 5; ++i) OpenPull();
  ClientResponse page1 = Call("GET", "/repos/acme/app/pulls?per_page=2");
  ASSERT_EQ(page1.status, 200);
  EXPECT_EQ(json::parse(page1.body).as_array().size(), 2u);
  EXPECT_NE(page1.Header("link").find("page=2>; rel=\"next\""), std::string::npos);
  EXPECT_NE(page1.Header("link").find("page=3>; rel=\"last\""), std::string::npos);
  ClientResponse page3 = Call("GET", "/repos/acme/app/pulls?per_page=2&page=3");
  EXPECT_EQ(json::parse(page3.body).as_array().size(), 1u);
  EXPECT_EQ(page3.Header("link").find("rel=\"next\""), std::string::npos);

  std::string etag = page1.Header("etag");
  ASSERT_FALSE(etag.empty());
  ClientResponse again =
      Call("GET", "/repos/acme/app/pulls?per_page=2", "", {{"If-None-Match", etag}});
  EXPECT_EQ(again.status, 304);
  // A 304 is free: the remaining count did not move.
  EXPECT_EQ(again.Header("x-ratelimit-remaining"), page3.Header("x-ratelimit-remaining"));
  EXPECT_TRUE(again.body.empty());
  EXPECT_EQ(Call("POST", "/repos/acme/app/issues/5/labels", R"({"labels":["ready"]})").status, 200);
  EXPECT_EQ(Call("GET", "/repos/acme/app/pulls?per_page=2", "", {{"If-None-Match", etag}}).status,
            200);
  EXPECT_EQ(Call("DELETE", "/repos/acme/app/issues/5/labels/ready").status, 200);
  EXPECT_EQ(Call("DELETE", "/repos/acme/app/issues/5/labels/ready").status, 404);

  ClientResponse contents = Call("GET", "/repos/acme/app/contents/docs/policy.yml");
  ASSERT_EQ(contents.status, 200);
  EXPECT_EQ(json::parse(contents.body).at("content"), json::value(Base64Encode("merge: true\n")));
  EXPECT_EQ(Call("GET", "/repos/acme/app/contents/nope").status, 404);
}

// The installation's repository listing pages and is conditional like any other list.
TEST_F(SimRestTest, InstallationRepositoriesPageAndAnswer304WhenUnchanged) {
  Login();
  ClientResponse first = Call("GET", "/installation/repositories?per_page=100");
  ASSERT_EQ(first.status, 200);
  EXPECT_EQ(json::parse(first.body).at("repositories").as_array().size(), 1u);
  const std::string etag = first.Header("etag");
  ASSERT_FALSE(etag.empty());
  ClientResponse again =
      Call("GET", "/installation/repositories?per_page=100", "", {{"If-None-Match", etag}});
  EXPECT_EQ(again.status, 304);
  EXPECT_TRUE(again.body.empty());
  ClientResponse paged = Call("GET", "/installation/repositories?per_page=1&page=1");
  EXPECT_EQ(paged.Header("link").find("rel=\"next\""), std::string::npos) << "one repository";
}

TEST_F(SimRestTest, ChecksStatusesCommentsReviewsOverRest) {
  Login();
  json::object pr = OpenPull();
  std::string head(pr.at("head").at("sha").as_string());
  ClientResponse created =
      Call("POST", "/repos/acme/app/check-runs",
           R"({"name":"gatehouse","head_sha":")" + head + R"(","status":"in_progress"})");
  ASSERT_EQ(created.status, 201) << created.body;
  int64_t id = json::parse(created.body).at("id").as_int64();
  EXPECT_EQ(Call("PATCH", "/repos/acme/app/check-runs/" + std::to_string(id),
                 R"({"conclusion":"success"})")
                .status,
            200);
  ClientResponse runs = Call("GET", "/repos/acme/app/commits/" + head + "/check-runs");
  json::value rv = json::parse(runs.body);
  EXPECT_EQ(rv.at("total_count"), 1);
  EXPECT_EQ(rv.at("check_runs").at(0).at("conclusion"), "success");
  EXPECT_EQ(rv.at("check_runs").at(0).at("pull_requests").at(0).at("number"), 1);
  EXPECT_EQ(Control("POST", "/_sim/repos/acme/app/statuses/" + head,
                    R"({"state":"pending","context":"ci/x"})")
                .status,
            201);
  json::value combined = json::parse(Call("GET", "/repos/acme/app/commits/feature/status").body);
  EXPECT_EQ(combined.at("state"), "pending");
  EXPECT_EQ(combined.at("sha"), json::value(head));
  ClientResponse comment =
      Call("POST", "/repos/acme/app/issues/1/comments", R"({"body":"<!-- gatehouse -->"})");
  ASSERT_EQ(comment.status, 201);
  int64_t cid = json::parse(comment.body).at("id").as_int64();
  EXPECT_EQ(Call("PATCH", "/repos/acme/app/issues/comments/" + std::to_string(cid),
                 R"({"body":"edited"})")
                .status,
            200);
  ClientResponse approval = Call("POST", "/repos/acme/app/pulls/1/reviews",
                                 R"({"event":"APPROVE","commit_id":")" + head + "\"}");
  EXPECT_EQ(approval.status, 200);
  EXPECT_EQ(json::parse(Call("GET", "/repos/acme/app/pulls/1/reviews").body).as_array().size(), 1u);
  // Dismissing it: the message is required; a second dismissal is refused as on GitHub.
  const std::string dismissals = "/repos/acme/app/pulls/1/reviews/" +
                                 std::to_string(json::parse(approval.body).at("id").as_int64()) +
                                 "/dismissals";
  EXPECT_EQ(Call("PUT", dismissals, R"({"event":"DISMISS"})").status, 422);
  ClientResponse dismissed = Call("PUT", dismissals, R"({"message":"stale","event":"DISMISS"})");
  ASSERT_EQ(dismissed.status, 200) << dismissed.body;
  EXPECT_EQ(json::parse(dismissed.body).at("state"), "DISMISSED");
  EXPECT_EQ(Call("PUT", dismissals, R"({"message":"again"})").status, 422);
  EXPECT_EQ(Call("PUT", "/repos/acme/app/pulls/1/reviews/999999/dismissals",
                 R"({"message":"none"})")
                .status,
            404);
  EXPECT_EQ(
      Call("POST", "/repos/acme/app/pulls/1/requested_reviewers", R"({"reviewers":["alice"]})")
          .status,
      201);
  EXPECT_EQ(
      json::parse(Call("GET", "/repos/acme/app/commits/" + head + "/pulls").body).as_array().size(),
      1u);
  EXPECT_EQ(Call("PATCH", "/repos/acme/app/pulls/1", R"({"state":"closed"})").status, 200);
  EXPECT_EQ(json::parse(Control("GET", "/_sim/state").body)
                .at("repos")
                .at(0)
                .at("pulls")
                .at(0)
                .at("state"),
            "closed");
}

// GET /_sim/requests counts what the installation's rate limit counts: a served request
// costs, a 304 and a request a fault refused do not; DELETE starts the count afresh.
TEST_F(SimRestTest, TheRequestTallyCountsWhatTheRateLimitCounts) {
  Login();
  OpenPull();
  ASSERT_EQ(Control("DELETE", "/_sim/requests").status, 200);
  ClientResponse first = Call("GET", "/repos/acme/app/pulls/1");
  ASSERT_EQ(first.status, 200);
  ASSERT_EQ(
      Call("GET", "/repos/acme/app/pulls/1", "", {{"If-None-Match", first.Header("etag")}}).status,
      304);
  ASSERT_EQ(Call("GET", "/repos/acme/app/pulls/99").status, 404);
  ASSERT_EQ(Control("PUT", "/_sim/faults", R"({"server_errors":1})").status, 200);
  ASSERT_EQ(Call("GET", "/repos/acme/app/pulls/1").status, 502);
  ClientResponse after = Call("GET", "/repos/acme/app/pulls/1");
  ASSERT_EQ(after.status, 200);

  json::value doc = json::parse(Control("GET", "/_sim/requests").body);
  const json::object& total = doc.at("total").as_object();
  EXPECT_EQ(total.at("requests"), 5);
  EXPECT_EQ(total.at("costing"), 3);  // the two 200s and the 404
  EXPECT_EQ(total.at("not_modified"), 1);
  EXPECT_EQ(total.at("errors"), 2);
  EXPECT_EQ(doc.at("windows").at("7").at("costing"), 3);
  // The rate limit agrees: three requests were counted between the first answer and the last.
  EXPECT_EQ(std::stoi(first.Header("x-ratelimit-remaining")) -
                std::stoi(after.Header("x-ratelimit-remaining")),
            2);
  bool found = false;
  for (const auto& e : doc.at("endpoints").as_array()) {
    if (e.at("endpoint") == "/repos/{owner}/{repo}/pulls/{n}" && e.at("method") == "GET") {
      found = true;
      EXPECT_EQ(e.at("requests"), 5);
    }
  }
  EXPECT_TRUE(found) << doc;
  ASSERT_EQ(Control("DELETE", "/_sim/requests").status, 200);
  EXPECT_EQ(json::parse(Control("GET", "/_sim/requests").body).at("total").at("requests"), 0);
}

TEST_F(SimRestTest, FaultsAndExhaustedLimit) {
  Login();
  ASSERT_EQ(Control("PUT", "/_sim/faults",
                    R"({"secondary_rate_limits":1,"retry_after_seconds":30,"server_errors":1})")
                .status,
            200);
  ClientResponse limited = Call("GET", "/repos/acme/app/pulls");
  EXPECT_EQ(limited.status, 403);
  EXPECT_EQ(limited.Header("retry-after"), "30");
  EXPECT_EQ(Call("GET", "/repos/acme/app/pulls").status, 502);
  EXPECT_EQ(Call("GET", "/repos/acme/app/pulls").status, 200);
  // Latency delays the answer, not its content (no timing is asserted).
  ASSERT_EQ(Control("PUT", "/_sim/faults", R"({"latency_ms":20})").status, 200);
  EXPECT_EQ(Call("GET", "/repos/acme/app/pulls").status, 200);
  ASSERT_EQ(Control("PUT", "/_sim/faults", R"({"primary_exhausted":true})").status, 200);
  ClientResponse exhausted = Call("GET", "/repos/acme/app/pulls");
  EXPECT_EQ(exhausted.status, 403);
  EXPECT_EQ(exhausted.Header("x-ratelimit-remaining"), "0");
}

TEST_F(SimRestTest, ConnectionResetFaultResetsWithoutAnAnswerOrAnEffect) {
  Login();
  json::object pr = OpenPull();
  std::string head(pr.at("head").at("sha").as_string());
  ASSERT_EQ(Control("PUT", "/_sim/faults", R"({"connection_resets":2})").status, 200);
  EXPECT_EQ(json::parse(Control("GET", "/_sim/faults").body).at("connection_resets"), 2);

  auto connection = http_testing::TestConnection::Connect(server_->port());
  ASSERT_NE(connection, nullptr);
  ASSERT_TRUE(connection->Send(
      BuildRequest("GET", "/repos/acme/app/pulls/1", {{"Authorization", "Bearer " + token_}}, "")));
  EXPECT_TRUE(connection->ReadsReset());
  // A reset merge never reached the model: no effect is recorded.
  EXPECT_EQ(Call("PUT", "/repos/acme/app/pulls/1/merge", R"({"sha":")" + head + R"("})").status, 0);
  EXPECT_EQ(json::parse(Control("GET", "/_sim/effects?kind=merge").body).as_array().size(), 0u);
  // The control API and the token exchange are never faulted; after N resets REST answers.
  EXPECT_EQ(Control("GET", "/_sim/state").status, 200);
  EXPECT_EQ(Call("GET", "/repos/acme/app/pulls/1").status, 200);
  EXPECT_EQ(json::parse(Control("GET", "/_sim/faults").body).at("connection_resets"), 0);
}

TEST_F(SimRestTest, PullFieldsFilesAndListShapes) {
  Login();
  ClientResponse created = Control(
      "POST", "/_sim/repos/acme/app/pulls",
      R"({"title":"bot","author":"renovate[bot]","author_type":"Bot","author_association":"NONE",
          "files":["a.cc","b/c.h","d.md"],"additions":10,"deletions":4})");
  ASSERT_EQ(created.status, 201) << created.body;
  OpenPull();  // #2: the defaults
  json::value one = json::parse(Call("GET", "/repos/acme/app/pulls/1").body);
  EXPECT_EQ(one.at("author_association"), "NONE");
  EXPECT_EQ(one.at("user").at("type"), "Bot");
  EXPECT_EQ(one.at("changed_files"), 3);
  EXPECT_EQ(one.at("additions"), 10);
  EXPECT_EQ(one.at("base").at("sha").as_string().size(), 40u);
  EXPECT_TRUE(one.at("closed_at").is_null());
  EXPECT_TRUE(one.at("merged_at").is_null());
  json::value two = json::parse(Call("GET", "/repos/acme/app/pulls/2").body);
  EXPECT_EQ(two.at("author_association"), "CONTRIBUTOR");
  EXPECT_EQ(two.at("user").at("type"), "User");
  EXPECT_EQ(two.at("changed_files"), 1);

  // Lists carry GitHub's "simple" PR: no size, no mergeability.
  json::value list = json::parse(Call("GET", "/repos/acme/app/pulls").body);
  ASSERT_EQ(list.as_array().size(), 2u);
  EXPECT_EQ(list.at(1).at("author_association"), "NONE");
  EXPECT_FALSE(list.at(1).as_object().contains("changed_files"));
  EXPECT_FALSE(list.at(1).as_object().contains("mergeable"));

  ClientResponse files = Call("GET", "/repos/acme/app/pulls/1/files?per_page=2");
  ASSERT_EQ(files.status, 200);
  json::value page = json::parse(files.body);
  ASSERT_EQ(page.as_array().size(), 2u);
  EXPECT_EQ(page.at(0).at("filename"), "a.cc");
  EXPECT_EQ(page.at(0).at("additions"), 4);
  EXPECT_EQ(page.at(0).at("changes"), 6);
  EXPECT_NE(files.Header("link").find("rel=\"next\""), std::string::npos);
  EXPECT_EQ(json::parse(Call("GET", "/repos/acme/app/pulls/1/files?per_page=2&page=2").body)
                .as_array()
                .size(),
            1u);
  // A push may replace the files.
  ASSERT_EQ(
      Control("POST", "/_sim/repos/acme/app/pulls/1/push", R"({"files":["only.txt"]})").status,
      200);
  json::value after = json::parse(Call("GET", "/repos/acme/app/pulls/1/files").body);
  ASSERT_EQ(after.as_array().size(), 1u);
  EXPECT_EQ(after.at(0).at("filename"), "only.txt");
  EXPECT_EQ(json::parse(Call("GET", "/repos/acme/app/pulls/1").body).at("changed_files"), 1);
  EXPECT_EQ(Call("GET", "/repos/acme/app/pulls/9/files").status, 404);
}

TEST_F(SimRestTest, ControlLabelsDraftReopenAndEffectHeads) {
  json::object pr = OpenPull();
  const std::string head(pr.at("head").at("sha").as_string());
  // Any label name is valid; none has to be declared first.
  ClientResponse labeled =
      Control("POST", "/_sim/repos/acme/app/pulls/1/labels",
              R"({"user":"alice","labels":["ready-to-merge","pending-closure"]})");
  ASSERT_EQ(labeled.status, 200) << labeled.body;
  EXPECT_EQ(json::parse(labeled.body).at("labels").as_array().size(), 2u);
  EXPECT_EQ(Control("DELETE", "/_sim/repos/acme/app/pulls/1/labels/pending-closure",
                    R"({"user":"alice"})")
                .status,
            200);
  EXPECT_EQ(Control("DELETE", "/_sim/repos/acme/app/pulls/1/labels/pending-closure",
                    R"({"user":"alice"})")
                .status,
            404);
  ClientResponse draft =
      Control("POST", "/_sim/repos/acme/app/pulls/1/draft", R"({"user":"alice","draft":true})");
  ASSERT_EQ(draft.status, 200) << draft.body;
  EXPECT_EQ(json::parse(draft.body).at("draft"), true);
  EXPECT_EQ(json::parse(Control("POST", "/_sim/repos/acme/app/pulls/1/draft",
                                R"({"user":"alice","draft":false})")
                            .body)
                .at("draft"),
            false);
  EXPECT_EQ(Control("POST", "/_sim/repos/acme/app/pulls/1/close", R"({"user":"alice"})").status,
            200);
  EXPECT_EQ(Control("POST", "/_sim/repos/acme/app/pulls/1/reopen", R"({"user":"alice"})").status,
            200);

  json::array effects = json::parse(Control("GET", "/_sim/effects?number=1").body).as_array();
  std::vector<std::string> kinds;
  for (const auto& e : effects) {
    kinds.emplace_back(e.at("kind").as_string());
    if (e.at("kind") == "create_pull") continue;
    EXPECT_EQ(e.at("head"), json::value(head));
    EXPECT_EQ(e.at("who"), "alice");
  }
  EXPECT_EQ(kinds,
            (std::vector<std::string>{"create_pull", "label_add", "label_remove", "label_remove",
                                      "convert_to_draft", "ready_for_review", "close", "reopen"}));
  EXPECT_EQ(effects[0].at("head"), "");

  // This handler sends no webhooks, so there is no target to set.
  EXPECT_EQ(Control("PUT", "/_sim/webhook-url", R"({"url":"http://127.0.0.1:1/webhook"})").status,
            409);
}

TEST(SimInsecureTest, AnyTokenIsAcceptedWhenAskedFor) {
  auto clock = std::make_shared<SimClock>(FromMicros(kRestStart * 1'000'000));
  Model model(clock, {});
  ASSERT_TRUE(model.CreateRepo("acme", "app", 3, {}).ok());
  SimHandler handler(model, {.clock = clock, .insecure_any_token = true});
  HttpRequest request{.method = "GET",
                      .target = "/repos/acme/app/pulls",
                      .headers = {{"Authorization", "Bearer whatever"}},
                      .body = "",
                      .peer = ""};
  EXPECT_EQ(handler.Serve(request).status, 200);
  request.headers.clear();
  EXPECT_EQ(handler.Serve(request).status, 401);
}

}  // namespace
}  // namespace gatehouse::sim
