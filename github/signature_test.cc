#include "github/signature.h"

#include <gtest/gtest.h>

namespace gatehouse {
namespace {

// https://docs.github.com/en/webhooks/using-webhooks/validating-webhook-deliveries
constexpr char kGitHubSecret[] = "It's a Secret to Everybody";
constexpr char kGitHubBody[] = "Hello, World!";
constexpr char kGitHubDigest[] = "757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17";

TEST(SignatureTest, Sha256KnownVectors) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(SignatureTest, HmacMatchesGitHubsPublishedVector) {
  EXPECT_EQ(HmacSha256Hex(kGitHubSecret, kGitHubBody), kGitHubDigest);
}

TEST(SignatureTest, VerifiesGitHubsPublishedVector) {
  std::string header = std::string("sha256=") + kGitHubDigest;
  EXPECT_TRUE(VerifySignature256(header, kGitHubBody, {kGitHubSecret}));
}

TEST(SignatureTest, AcceptsEitherSecretDuringRotation) {
  std::string header = std::string("sha256=") + kGitHubDigest;
  EXPECT_TRUE(VerifySignature256(header, kGitHubBody, {"new secret", kGitHubSecret}));
  EXPECT_TRUE(VerifySignature256(header, kGitHubBody, {kGitHubSecret, "old secret"}));
  EXPECT_FALSE(VerifySignature256(header, kGitHubBody, {"new secret", "old secret"}));
}

TEST(SignatureTest, AcceptsUpperCaseHex) {
  std::string digest = kGitHubDigest;
  for (char& c : digest) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_TRUE(VerifySignature256("sha256=" + digest, kGitHubBody, {kGitHubSecret}));
}

TEST(SignatureTest, RejectsWrongBodyOrSecret) {
  std::string header = std::string("sha256=") + kGitHubDigest;
  EXPECT_FALSE(VerifySignature256(header, "Hello, World?", {kGitHubSecret}));
  EXPECT_FALSE(VerifySignature256(header, kGitHubBody, {"It's a secret to everybody"}));
}

TEST(SignatureTest, RejectsMalformedHeaders) {
  std::string digest = kGitHubDigest;
  const std::vector<std::string> secrets = {kGitHubSecret};
  for (const std::string& header : {
           std::string(),
           digest,                                  // no prefix
           "sha1=" + digest,                        // another algorithm
           "SHA256=" + digest,                      // the prefix is lower-case
           "sha256=" + digest.substr(1),            // 63 digits
           "sha256=" + digest + "0",                // 65 digits
           "sha256=" + digest.substr(0, 63) + "g",  // not hex
           "sha256= " + digest.substr(1),           // a space
           "sha256=" + digest + "\n",               // trailing garbage
       }) {
    EXPECT_FALSE(VerifySignature256(header, kGitHubBody, secrets)) << header;
  }
}

TEST(SignatureTest, EmptySecretsVerifyNothing) {
  // The HMAC under an empty key is well defined; an unset secret must still not accept it.
  std::string header = "sha256=" + HmacSha256Hex("", kGitHubBody);
  EXPECT_FALSE(VerifySignature256(header, kGitHubBody, {""}));
  EXPECT_FALSE(VerifySignature256(header, kGitHubBody, {}));
  EXPECT_FALSE(VerifySignature256(header, kGitHubBody, {"", ""}));
}

}  // namespace
}  // namespace gatehouse
