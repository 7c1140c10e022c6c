// SecretsScanner: each detector on a planted credential, each near miss that must stay quiet,
// the diff walking (only added lines, new-file line numbers), the verdict, and the executor.
// Credentials are assembled at run time from a deterministic generator, so this file holds none.
#include "review/secrets_scanner.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace gatehouse::review {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

// `n` characters of `alphabet`, pseudo-random but the same on every run.
std::string Chars(
    size_t n, uint32_t seed,
    std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") {
  std::string s;
  uint32_t x = seed * 2654435761u + 12345u;
  for (size_t i = 0; i < n; ++i) {
    x = x * 1664525u + 1013904223u;
    s += alphabet[(x >> 16) % alphabet.size()];
  }
  return s;
}
std::string Upper(size_t n, uint32_t seed) {
  return Chars(n, seed, "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");
}

class SecretsScannerTest : public ::testing::Test {
 protected:
  std::vector<std::string> Kinds(std::string_view line) const {
    std::vector<std::string> kinds;
    for (const auto& hit : scanner_.ScanLine(line)) kinds.push_back(hit.kind);
    return kinds;
  }
  void ExpectQuiet(std::string_view line) const {
    EXPECT_THAT(Kinds(line), ::testing::IsEmpty()) << line;
  }

  SecretsScanner scanner_;
};

TEST_F(SecretsScannerTest, PrivateKeys) {
  for (const char* header :
       {"-----BEGIN RSA PRIVATE KEY-----", "-----BEGIN PRIVATE KEY-----",
        "-----BEGIN EC PRIVATE KEY-----", "-----BEGIN OPENSSH PRIVATE KEY-----",
        "-----BEGIN ENCRYPTED PRIVATE KEY-----", "-----BEGIN PGP PRIVATE KEY BLOCK-----"}) {
    EXPECT_THAT(Kinds(std::string("key = \"") + header + "\\n"), ElementsAre("private key"))
        << header;
  }
  ExpectQuiet("-----BEGIN PUBLIC KEY-----");
  ExpectQuiet("-----BEGIN CERTIFICATE-----");
  ExpectQuiet("-----BEGIN OPENSSH PUBLIC KEY-----");
}

TEST_F(SecretsScannerTest, AwsKeys) {
  EXPECT_THAT(Kinds("aws_access_key_id = AKIA" + Upper(16, 1)), ElementsAre("AWS access key id"));
  EXPECT_THAT(Kinds("\"ASIA" + Upper(16, 2) + "\""), ElementsAre("AWS access key id"));
  ExpectQuiet("AKIA" + Upper(15, 3));         // too short
  ExpectQuiet("XAKIA" + Upper(16, 4));        // inside a longer word
  ExpectQuiet("AKIA" + Upper(16, 5) + "Z9");  // too long
  ExpectQuiet("akia" + Chars(16, 6));         // lower case

  const std::string secret =
      Chars(40, 7, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/+");
  EXPECT_THAT(Kinds("aws_secret_access_key = " + secret), ElementsAre("AWS secret access key"));
  EXPECT_THAT(Kinds("AWS_SECRET_ACCESS_KEY: \"" + secret + "\""),
              ElementsAre("AWS secret access key"));
  // Not 40 characters: not the AWS format, though still a high-entropy assignment.
  EXPECT_THAT(Kinds("aws_secret_access_key = " + secret.substr(0, 39) + "!"),
              ElementsAre("high-entropy value assigned to aws_secret_access_key"));
}

TEST_F(SecretsScannerTest, GitHubTokens) {
  for (const char* prefix : {"ghp_", "gho_", "ghu_", "ghs_", "ghr_"}) {
    EXPECT_THAT(Kinds("GH=" + std::string(prefix) + Chars(36, 8)), ElementsAre("GitHub token"))
        << prefix;
  }
  EXPECT_THAT(Kinds("github_pat_" + Chars(22, 9) + "_" + Chars(59, 10)),
              ElementsAre("GitHub token"));
  ExpectQuiet("ghp_" + Chars(35, 11));  // one short
  ExpectQuiet("ghx_" + Chars(36, 12));  // unknown prefix
}

TEST_F(SecretsScannerTest, SlackTokensAndWebhooks) {
  EXPECT_THAT(Kinds("SLACK=xoxb-123456789012-1234567890123-" + Chars(24, 13)),
              ElementsAre("Slack token"));
  EXPECT_THAT(Kinds("xoxp-1234-5678-9012-" + Chars(32, 14, "0123456789abcdef")),
              ElementsAre("Slack token"));
  ExpectQuiet("set SLACK to xoxb-your-token");
  EXPECT_THAT(Kinds("url: https://hooks.slack.com/services/T" + Upper(8, 15) + "/B" +
                    Upper(10, 16) + "/" + Chars(24, 17)),
              ElementsAre("Slack webhook URL"));
  ExpectQuiet("see https://hooks.slack.com/services/ for the docs");
}

TEST_F(SecretsScannerTest, GoogleAndStripeKeys) {
  EXPECT_THAT(
      Kinds("const k = 'AIza" +
            Chars(35, 18, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") +
            "';"),
      ElementsAre("Google API key"));
  ExpectQuiet("AIza" + Chars(34, 19));  // too short
  EXPECT_THAT(Kinds("STRIPE=sk_live_" + Chars(24, 20)), ElementsAre("Stripe live key"));
  EXPECT_THAT(Kinds("rk_live_" + Chars(30, 21)), ElementsAre("Stripe live key"));
  ExpectQuiet("pk_live_" + Chars(24, 22));  // publishable, not secret
}

TEST_F(SecretsScannerTest, HighEntropyAssignments) {
  EXPECT_THAT(Kinds("client_secret = \"" + Chars(24, 23) + "\""),
              ElementsAre("high-entropy value assigned to client_secret"));
  EXPECT_THAT(Kinds("  DB_PASSWORD: '" + Chars(32, 24) + "'"),
              ElementsAre("high-entropy value assigned to DB_PASSWORD"));
  EXPECT_THAT(Kinds("export API_KEY=" + Chars(40, 25)),
              ElementsAre("high-entropy value assigned to API_KEY"));
  EXPECT_THAT(Kinds("{\"auth_token\": \"" + Chars(30, 26) + "\"}"),
              ElementsAre("high-entropy value assigned to auth_token"));
  EXPECT_THAT(Kinds("settings.secret_key := '" + Chars(28, 27) + "'"),
              ElementsAre("high-entropy value assigned to settings.secret_key"));
}

TEST_F(SecretsScannerTest, NearMissesStayQuiet) {
  ExpectQuiet("commit = \"da39a3ee5e6b4b0d3255bfef95601890afd80709\"");  // a git SHA
  ExpectQuiet("token: da39a3ee5e6b4b0d3255bfef95601890afd80709");        // a SHA as a value
  ExpectQuiet("secret_hash = \"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"");
  ExpectQuiet("request_token = \"123e4567-e89b-12d3-a456-426614174000\"");  // a UUID
  ExpectQuiet("id: 123e4567-e89b-12d3-a456-426614174000");
  ExpectQuiet(R"(<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJ)"
              R"(AAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==">)");
  ExpectQuiet("blob = " +
              Chars(400, 28, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"));
  ExpectQuiet("password = \"\"");
  ExpectQuiet("password = ''");
  ExpectQuiet("password = \"hunter2\"");  // short
  ExpectQuiet("token = os.environ[\"GITHUB_TOKEN\"]");
  ExpectQuiet("token = os.environ.get(\"GITHUB_TOKEN\")");
  ExpectQuiet("const token = process.env.GITHUB_TOKEN_FOR_DEPLOYMENTS_2;");
  ExpectQuiet("api_key: ${{ secrets.OPENAI_API_KEY }}");
  ExpectQuiet("api_key = $OPENAI_API_KEY_FROM_THE_VAULT_1");
  ExpectQuiet("api_key = \"your_api_key_here_0123456789\"");
  ExpectQuiet("password = \"xxxxxxxxxxxxxxxxxxxxxxxx1\"");
  ExpectQuiet("token_count = 12345678901234567890123");      // digits only
  ExpectQuiet("max_tokens = response_tokens_budget_limit");  // no digit
  ExpectQuiet("token = \"refresh_token_v2_expired_at\"");    // words, not a credential
  ExpectQuiet("secret_name: my-secret-password-2024-abc");
  ExpectQuiet("password = \"xK9\"  # short");
}

TEST_F(SecretsScannerTest, MessagesShowOnlyAPrefix) {
  const std::string token = "ghp_" + Chars(36, 29);
  auto hits = scanner_.ScanLine("token = \"" + token + "\"");
  ASSERT_EQ(hits.size(), 1u);  // the specific kind, not also the high-entropy rule
  EXPECT_EQ(hits[0].kind, "GitHub token");
  EXPECT_EQ(hits[0].preview, "ghp_…");

  int64_t added = 0;
  auto findings =
      scanner_.ScanPatch("cfg.py", "@@ -0,0 +1 @@\n+token = \"" + token + "\"\n", &added);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].message,
            "GitHub token added (ghp_…): remove it from the change and revoke it");
  EXPECT_THAT(findings[0].message, Not(HasSubstr(token.substr(0, 5))));
  EXPECT_EQ(findings[0].severity, decide::Severity::kBlocking);

  auto pem = scanner_.ScanLine("-----BEGIN RSA PRIVATE KEY-----");
  ASSERT_EQ(pem.size(), 1u);
  EXPECT_EQ(pem[0].preview, "");
}

TEST_F(SecretsScannerTest, OnlyAddedLinesWithNewFileLineNumbers) {
  const std::string key = "AKIA" + Upper(16, 30);
  const std::string patch =
      "@@ -1,4 +1,5 @@\n"
      " line one\n"
      "-old = " +
      key +
      "\n"  // removed: not reported
      "+new = " +
      key +
      "\n"  // new line 2
      " " +
      key +
      " in context\n"  // context: not reported
      "+++counter;\n"  // the added line "++counter;", new line 4
      " last\n"
      "@@ -20,2 +21,4 @@ def f():\n"
      " x = 1\n"
      "+y = \"" +
      key +
      "\"\n"  // new line 22
      "+z = 3\n"
      " w = 4\n"
      "\\ No newline at end of file\n";
  int64_t added = 0;
  auto findings = scanner_.ScanPatch("src/app.py", patch, &added);
  EXPECT_EQ(added, 4);
  ASSERT_EQ(findings.size(), 2u);
  EXPECT_EQ(findings[0].path, "src/app.py");
  EXPECT_EQ(findings[0].line, 2);
  EXPECT_EQ(findings[1].line, 22);
  EXPECT_THAT(findings[1].message, HasSubstr("AWS access key id"));
}

TEST_F(SecretsScannerTest, FileHeadersAreNotAddedLines) {
  const std::string key = "AKIA" + Upper(16, 31);
  const std::string patch =
      "diff --git a/x b/x\n"
      "--- a/x\n"
      "+++ b/" +
      key +
      "\n"
      "@@ -1 +1,2 @@\n"
      " a\n"
      "+b\n"
      "diff --git a/y b/y\n"
      "+++ b/" +
      key +
      "\n"
      "@@ -0,0 +1 @@\n"
      "+" +
      key + "\n";
  int64_t added = 0;
  auto findings = scanner_.ScanPatch("x", patch, &added);
  EXPECT_EQ(added, 2);
  ASSERT_EQ(findings.size(), 1u);
  EXPECT_EQ(findings[0].line, 1);
}

TEST_F(SecretsScannerTest, VerdictAndSummary) {
  decide::ReviewRequest clean;
  clean.files.push_back({"a.txt", "added", 3, 0, "@@ -0,0 +1,3 @@\n+a\n+b\n+c\n"});
  clean.files.push_back({"logo.png", "added", 0, 0, ""});  // binary: no patch
  auto ok = scanner_.Scan(clean);
  EXPECT_EQ(ok.verdict, decide::ReviewVerdict::kApprove);
  EXPECT_EQ(ok.summary, "no credentials found in 3 added lines");
  EXPECT_TRUE(ok.findings.empty());

  decide::ReviewRequest dirty;
  dirty.files.push_back(
      {"k.pem", "added", 1, 0, "@@ -0,0 +1 @@\n+-----BEGIN EC PRIVATE KEY-----\n"});
  auto bad = scanner_.Scan(dirty);
  EXPECT_EQ(bad.verdict, decide::ReviewVerdict::kRequestChanges);
  EXPECT_EQ(bad.summary, "found 1 possible credential in 1 added line");
  ASSERT_EQ(bad.findings.size(), 1u);
  EXPECT_EQ(bad.findings[0].path, "k.pem");
  EXPECT_EQ(bad.findings[0].line, 1);
  EXPECT_EQ(bad.blockers(), 1);
}

TEST_F(SecretsScannerTest, AtMost200FindingsAreListed) {
  std::string patch = "@@ -0,0 +1,250 @@\n";
  for (int i = 0; i < 250; ++i) patch += "+AKIA" + Upper(16, 100 + static_cast<uint32_t>(i)) + "\n";
  decide::ReviewRequest request;
  request.files.push_back({"keys.txt", "added", 250, 0, patch});
  auto result = scanner_.Scan(request);
  EXPECT_EQ(result.findings.size(), 200u);
  EXPECT_EQ(result.summary,
            "found 250 possible credentials in 250 added lines (the first 200 are listed)");
}

TEST_F(SecretsScannerTest, AFileWithoutAPatchIsNotScannedSoNotApproved) {
  decide::ReviewRequest request;
  request.files.push_back({"a.txt", "added", 2, 0, "@@ -0,0 +1,2 @@\n+a\n+b\n"});
  request.files.push_back({"big.sql", "modified", 9000, 12, ""});  // too large for a patch
  request.files.push_back({"logo.png", "added", 0, 0, ""});        // nothing added: nothing missed
  auto result = scanner_.Scan(request);
  EXPECT_EQ(result.verdict, decide::ReviewVerdict::kComment);
  EXPECT_EQ(result.summary,
            "no credentials found in 2 added lines; 1 file could not be scanned (GitHub sent no "
            "patch)");
  ASSERT_EQ(result.findings.size(), 1u);
  EXPECT_EQ(result.findings[0].path, "big.sql");
  EXPECT_EQ(result.findings[0].line, 0);
  EXPECT_EQ(result.findings[0].severity, decide::Severity::kInfo);
  EXPECT_EQ(result.findings[0].message, "not scanned: GitHub sent no patch");
  EXPECT_EQ(result.blockers(), 0);

  // A blocking finding elsewhere still asks for changes; the unscanned file is listed after it.
  request.files.push_back(
      {"k.pem", "added", 1, 0, "@@ -0,0 +1 @@\n+-----BEGIN EC PRIVATE KEY-----\n"});
  auto dirty = scanner_.Scan(request);
  EXPECT_EQ(dirty.verdict, decide::ReviewVerdict::kRequestChanges);
  EXPECT_EQ(dirty.summary,
            "found 1 possible credential in 3 added lines; 1 file could not be scanned (GitHub "
            "sent no patch)");
  ASSERT_EQ(dirty.findings.size(), 2u);
  EXPECT_EQ(dirty.findings[0].path, "k.pem");
  EXPECT_EQ(dirty.findings[1].path, "big.sql");
  EXPECT_EQ(dirty.blockers(), 1);
}

TEST_F(SecretsScannerTest, AtMost20UnscannedFilesAreListed) {
  decide::ReviewRequest request;
  for (int i = 0; i < 25; ++i) {
    request.files.push_back({"blob" + std::to_string(i) + ".bin", "added", 10, 0, ""});
  }
  auto result = scanner_.Scan(request);
  EXPECT_EQ(result.verdict, decide::ReviewVerdict::kComment);
  EXPECT_EQ(result.summary,
            "no credentials found in 0 added lines; 25 files could not be scanned (GitHub sent "
            "no patch; the first 20 are listed)");
  ASSERT_EQ(result.findings.size(), 20u);
  EXPECT_EQ(result.findings[0].path, "blob0.bin");
  EXPECT_EQ(result.findings[19].path, "blob19.bin");

  // With 250 credentials as well, the findings still fit in 200: 180 blocking and 20 info.
  std::string patch = "@@ -0,0 +1,250 @@\n";
  for (int i = 0; i < 250; ++i) patch += "+AKIA" + Upper(16, 100 + static_cast<uint32_t>(i)) + "\n";
  request.files.push_back({"keys.txt", "added", 250, 0, patch});
  auto full = scanner_.Scan(request);
  EXPECT_EQ(full.verdict, decide::ReviewVerdict::kRequestChanges);
  ASSERT_EQ(full.findings.size(), 200u);
  EXPECT_EQ(full.blockers(), 180);
  EXPECT_EQ(full.summary,
            "found 250 possible credentials in 250 added lines (the first 180 are listed); 25 "
            "files could not be scanned (GitHub sent no patch; the first 20 are listed)");
}

TEST(ShannonEntropyTest, BitsPerCharacter) {
  EXPECT_DOUBLE_EQ(ShannonEntropy(""), 0);
  EXPECT_DOUBLE_EQ(ShannonEntropy("aaaa"), 0);
  EXPECT_DOUBLE_EQ(ShannonEntropy("abab"), 1);
  EXPECT_DOUBLE_EQ(ShannonEntropy("abcd"), 2);
}

TEST(SecretsExecutorTest, ReviewsAndHonoursCancel) {
  SecretsExecutor executor;
  decide::ReviewRequest request;
  request.files.push_back(
      {"a", "added", 1, 0, "@@ -0,0 +1 @@\n+STRIPE=sk_live_" + Chars(24, 40) + "\n"});
  auto out = executor.Review(request, std::chrono::seconds(5), nullptr);
  ASSERT_EQ(out.kind, ExecOutcome::Kind::kResult);
  EXPECT_EQ(out.result.verdict, decide::ReviewVerdict::kRequestChanges);
  EXPECT_EQ(out.result.findings.size(), 1u);

  decide::ReviewRequest no_patch;
  no_patch.files.push_back({"huge.json", "added", 40000, 0, ""});
  auto unscanned = executor.Review(no_patch, std::chrono::seconds(5), nullptr);
  ASSERT_EQ(unscanned.kind, ExecOutcome::Kind::kResult);
  EXPECT_EQ(unscanned.result.verdict, decide::ReviewVerdict::kComment);
  ASSERT_EQ(unscanned.result.findings.size(), 1u);
  EXPECT_EQ(unscanned.result.findings[0].message, "not scanned: GitHub sent no patch");

  auto cancelled = executor.Review(request, std::chrono::seconds(5), [] { return true; });
  EXPECT_EQ(cancelled.kind, ExecOutcome::Kind::kCancelled);
}

}  // namespace
}  // namespace gatehouse::review
