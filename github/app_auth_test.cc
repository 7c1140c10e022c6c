#include "github/app_auth.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <map>
#include <thread>

#include "github/auth_config.h"
#include "github/base64.h"
#include "github/client_sim_test_util.h"
#include "github/fake_github_test_util.h"
#include "github/reply_error.h"

namespace gatehouse {
namespace {

using github_testing::FakeGitHub;
using github_testing::GetTestRsaKey;

using client_testing::kStart;

std::vector<std::string> Split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t pos; (pos = s.find(sep, start)) != std::string::npos; start = pos + 1) {
    out.push_back(s.substr(start, pos - start));
  }
  out.push_back(s.substr(start));
  return out;
}

bool VerifyRs256(const std::string& jwt, EVP_PKEY* key) {
  size_t dot = jwt.rfind('.');
  std::string input = jwt.substr(0, dot);
  auto sig = Base64Decode(jwt.substr(dot + 1));
  if (!sig) return false;
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  bool ok =
      EVP_DigestVerifyInit(ctx, nullptr, EVP_sha256(), nullptr, key) == 1 &&
      EVP_DigestVerify(ctx, reinterpret_cast<const unsigned char*>(sig->data()), sig->size(),
                       reinterpret_cast<const unsigned char*>(input.data()), input.size()) == 1;
  EVP_MD_CTX_free(ctx);
  return ok;
}

TEST(Base64Test, UrlEncodingHasNoPaddingAndDecodesBack) {
  EXPECT_EQ(Base64UrlEncode(""), "");
  EXPECT_EQ(Base64UrlEncode("f"), "Zg");
  EXPECT_EQ(Base64UrlEncode("fo"), "Zm8");
  EXPECT_EQ(Base64UrlEncode("foo"), "Zm9v");
  EXPECT_EQ(Base64UrlEncode("\xfb\xff"), "-_8");
  EXPECT_EQ(Base64Decode("-_8").value(), "\xfb\xff");
  EXPECT_EQ(Base64Decode("Zm9v\nYmFy\n").value(), "foobar");
  EXPECT_EQ(Base64Decode("Zm8=").value(), "fo");
  EXPECT_FALSE(Base64Decode("Zm9v!").has_value());
  EXPECT_FALSE(Base64Decode("Z").has_value());
}

TEST(Base64Test, StandardEncodingIsPaddedAndDecodesBack) {
  EXPECT_EQ(Base64Encode(""), "");
  EXPECT_EQ(Base64Encode("f"), "Zg==");
  EXPECT_EQ(Base64Encode("fo"), "Zm8=");
  EXPECT_EQ(Base64Encode("foo"), "Zm9v");
  EXPECT_EQ(Base64Encode("foobar"), "Zm9vYmFy");
  EXPECT_EQ(Base64Encode("\xfb\xff"), "+/8=");
  const std::string bytes("\xfb\xff\x00 gatehouse", 13);
  EXPECT_EQ(Base64Decode(Base64Encode(bytes)).value(), bytes);
}

TEST(ParseTimeTest, ParsesWholeAndFractionalSeconds) {
  EXPECT_EQ(ParseTime("2026-11-30T12:00:00Z").value(), kStart);
  EXPECT_EQ(ParseTime("2026-11-30T12:00:00.250Z").value(), kStart + std::chrono::milliseconds(250));
  EXPECT_EQ(ParseTime(FormatTime(kStart + std::chrono::minutes(61))).value(),
            kStart + std::chrono::minutes(61));
  EXPECT_FALSE(ParseTime("2026-11-30 12:00:00").has_value());
  EXPECT_FALSE(ParseTime("").has_value());
}

TEST(AppJwtSignerTest, SignatureVerifiesAndClaimsAreRight) {
  auto signer = AppJwtSigner::Create(12345, GetTestRsaKey().private_pem);
  ASSERT_TRUE(signer.ok()) << signer.status().ToString();
  auto jwt = (*signer)->Sign(kStart);
  ASSERT_TRUE(jwt.ok());
  auto parts = Split(*jwt, '.');
  ASSERT_EQ(parts.size(), 3u);
  for (const auto& p : parts) {
    EXPECT_EQ(p.find('='), std::string::npos);
    EXPECT_EQ(p.find('+'), std::string::npos);
    EXPECT_EQ(p.find('/'), std::string::npos);
  }
  EXPECT_TRUE(VerifyRs256(*jwt, GetTestRsaKey().pkey));

  auto header = boost::json::parse(Base64Decode(parts[0]).value()).as_object();
  EXPECT_EQ(header.at("alg").as_string(), "RS256");
  EXPECT_EQ(header.at("typ").as_string(), "JWT");
  auto claims = boost::json::parse(Base64Decode(parts[1]).value()).as_object();
  EXPECT_EQ(claims.at("iat").as_int64(), 1796040000 - 60);
  EXPECT_EQ(claims.at("exp").as_int64(), 1796040000 + 9 * 60);
  EXPECT_EQ(claims.at("iss").as_string(), "12345");

  // A tampered payload no longer verifies.
  std::string tampered = parts[0] + "." + Base64UrlEncode(R"({"iss":"999"})") + "." + parts[2];
  EXPECT_FALSE(VerifyRs256(tampered, GetTestRsaKey().pkey));
}

TEST(AppJwtSignerTest, RejectsSomethingThatIsNotAKey) {
  auto signer = AppJwtSigner::Create(1, "-----BEGIN RSA PRIVATE KEY-----\nnope\n");
  ASSERT_FALSE(signer.ok());
  EXPECT_EQ(signer.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(signer.status().message().find("nope"), std::string::npos);
}

class TokenCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto signer = AppJwtSigner::Create(42, GetTestRsaKey().private_pem);
    ASSERT_TRUE(signer.ok());
    signer_ = std::move(signer).value();
    CurlTransportOptions options;
    options.base_url = fake_.base_url();
    auto transport = CurlTransport::Create(options);
    ASSERT_TRUE(transport.ok());
    transport_ = std::move(transport).value();
    cache_ = std::make_unique<InstallationTokenCache>(*transport_, *signer_, clock_);
    fake_.SetRoute([this](const HttpRequest& req) {
      int n = ++issued_;
      // Deliberately unlike a real token's format and length.
      return JsonResponse(
          201,
          boost::json::serialize(boost::json::object{
              {"token", "t" + std::to_string(n) + std::string(static_cast<size_t>(n) * 7, 'x')},
              {"expires_at", FormatTime(clock_->Now() + std::chrono::hours(1))},
              {"path", std::string(req.Path())}}));
    });
  }

  std::shared_ptr<SimClock> clock_ = std::make_shared<SimClock>(kStart);
  FakeGitHub fake_;
  std::unique_ptr<AppJwtSigner> signer_;
  std::unique_ptr<CurlTransport> transport_;
  std::unique_ptr<InstallationTokenCache> cache_;
  std::atomic<int> issued_{0};
};

TEST_F(TokenCacheTest, ExchangesOnceThenCachesAndRefreshesBeforeExpiry) {
  auto t1 = cache_->Token(7);
  ASSERT_TRUE(t1.ok()) << t1.error().ToString();
  EXPECT_EQ(*t1, "t1xxxxxxx");
  auto req = fake_.last();
  EXPECT_EQ(req.method, "POST");
  EXPECT_EQ(req.target, "/app/installations/7/access_tokens");
  std::string auth = req.Header("Authorization");
  ASSERT_TRUE(auth.starts_with("Bearer "));
  EXPECT_TRUE(VerifyRs256(auth.substr(7), GetTestRsaKey().pkey));
  EXPECT_EQ(req.Header("User-Agent"), "gatehouse/0.1");
  EXPECT_EQ(req.Header("X-GitHub-Api-Version"), "2022-11-28");

  EXPECT_EQ(*cache_->Token(7), "t1xxxxxxx");
  clock_->Advance(std::chrono::minutes(54));  // 6 min left: still fresh enough
  EXPECT_EQ(*cache_->Token(7), "t1xxxxxxx");
  EXPECT_EQ(cache_->exchanges(), 1);

  clock_->Advance(std::chrono::minutes(1) + std::chrono::seconds(1));  // < 5 min left
  auto t2 = cache_->Token(7);
  ASSERT_TRUE(t2.ok());
  EXPECT_EQ(*t2, "t2xxxxxxxxxxxxxx");
  EXPECT_EQ(cache_->exchanges(), 2);

  // Another installation has its own token.
  EXPECT_EQ(*cache_->Token(8), "t3" + std::string(21, 'x'));
  EXPECT_EQ(fake_.last().target, "/app/installations/8/access_tokens");
  EXPECT_EQ(*cache_->Token(7), "t2xxxxxxxxxxxxxx");

  cache_->Invalidate(7);
  EXPECT_EQ(*cache_->Token(7), "t4" + std::string(28, 'x'));
  EXPECT_EQ(fake_.request_count(), 4u);
}

TEST_F(TokenCacheTest, FailedExchangesAreTyped) {
  fake_.SetRoute([](const HttpRequest&) { return JsonError(503, "unavailable"); });
  auto r = cache_->Token(7);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, GitHubErrorKind::kTransient);

  fake_.SetRoute([](const HttpRequest&) {
    return JsonResponse(401, R"({"message":"A JSON web token could not be decoded"})");
  });
  r = cache_->Token(7);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, GitHubErrorKind::kUnauthorized);
  EXPECT_NE(r.error().message.find("could not be decoded"), std::string::npos);

  // An installation GitHub does not know: not kNotFound, which callers read as "the
  // resource they asked for is gone".
  fake_.SetRoute([](const HttpRequest&) { return JsonError(404, "Not Found"); });
  r = cache_->Token(7);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, GitHubErrorKind::kUnauthorized);
  EXPECT_NE(r.error().message.find("installation 7 is not known"), std::string::npos);

  fake_.SetRoute([](const HttpRequest&) { return JsonResponse(201, R"({"token":"x"})"); });
  r = cache_->Token(7);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, GitHubErrorKind::kPermanent);
  EXPECT_EQ(cache_->exchanges(), 0);
}

TEST_F(TokenCacheTest, ConcurrentCallersShareOneExchange) {
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int i = 0; i < 8; ++i) {
    threads.emplace_back([&] {
      for (int j = 0; j < 5; ++j) {
        auto t = cache_->Token(7);
        if (!t.ok() || *t != "t1xxxxxxx") ++failures;
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(cache_->exchanges(), 1);
  EXPECT_EQ(fake_.request_count(), 1u);
}

TEST(PersonalTokenSourceTest, AlwaysTheSameToken) {
  PersonalTokenSource source("pat");
  EXPECT_EQ(*source.Token(1), "pat");
  EXPECT_EQ(*source.Token(2), "pat");
}

EnvLookup FakeEnv(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    return it == vars.end() ? std::nullopt : std::optional<std::string>(it->second);
  };
}

TEST(GitHubAuthConfigTest, AppModePersonalModeAndMistakes) {
  auto app = LoadGitHubAuthConfig(FakeEnv({{"GATEHOUSE_GITHUB_APP_ID", "42"},
                                           {"GATEHOUSE_GITHUB_PRIVATE_KEY", "PEM"},
                                           {"GATEHOUSE_GITHUB_API_URL", "https://ghe/api/v3"}}));
  ASSERT_TRUE(app.ok()) << app.status().ToString();
  EXPECT_TRUE(app->app_mode());
  EXPECT_EQ(app->app_id, 42);
  EXPECT_EQ(app->private_key_pem, "PEM");
  EXPECT_EQ(app->api_url, "https://ghe/api/v3");

  auto pat = LoadGitHubAuthConfig(FakeEnv({{"GATEHOUSE_GITHUB_TOKEN", "secret-pat"}}));
  ASSERT_TRUE(pat.ok());
  EXPECT_FALSE(pat->app_mode());
  EXPECT_EQ(pat->api_url, "https://api.github.com");

  for (const auto& env : std::vector<std::map<std::string, std::string>>{
           {},
           {{"GATEHOUSE_GITHUB_APP_ID", "42"}},
           {{"GATEHOUSE_GITHUB_APP_ID", "x1"}, {"GATEHOUSE_GITHUB_PRIVATE_KEY", "PEM"}},
           {{"GATEHOUSE_GITHUB_APP_ID", "42"},
            {"GATEHOUSE_GITHUB_PRIVATE_KEY", "PEM"},
            {"GATEHOUSE_GITHUB_TOKEN", "secret-pat"}},
           {{"GATEHOUSE_GITHUB_TOKEN", "secret-pat"},
            {"GATEHOUSE_GITHUB_TOKEN_FILE", "/nonexistent"}},
       }) {
    auto r = LoadGitHubAuthConfig(FakeEnv(env));
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(r.status().message().find("secret-pat"), std::string::npos);
  }
}

TEST(GitHubAuthConfigTest, MakeTokenSourceBuildsTheRightMode) {
  CurlTransportOptions options;
  options.base_url = "http://127.0.0.1:1";
  auto transport = CurlTransport::Create(options);
  ASSERT_TRUE(transport.ok());
  auto clock = std::make_shared<SimClock>(kStart);
  GitHubAuthConfig pat;
  pat.personal_token = "p";
  auto source = MakeTokenSource(pat, **transport, clock);
  ASSERT_TRUE(source.ok());
  EXPECT_EQ(*(*source)->Token(1), "p");

  GitHubAuthConfig app;
  app.app_id = 5;
  app.private_key_pem = GetTestRsaKey().private_pem;
  EXPECT_TRUE(MakeTokenSource(app, **transport, clock).ok());
  app.private_key_pem = "garbage";
  EXPECT_FALSE(MakeTokenSource(app, **transport, clock).ok());
}

}  // namespace
}  // namespace gatehouse
