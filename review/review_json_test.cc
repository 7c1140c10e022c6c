// The request and result JSON: encodings read back field by field, the result's round trip,
// and every validation error with its exact message.
#include "review/review_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace gatehouse::review {
namespace {

using decide::ReviewFinding;
using decide::ReviewResult;
using decide::ReviewVerdict;
using decide::Severity;
using ::testing::HasSubstr;

std::string ErrorOf(std::string_view json) {
  auto r = ParseReviewResult(json);
  EXPECT_FALSE(r.ok()) << json;
  if (r.ok()) return "";
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  return r.status().message();
}

TEST(ReviewJsonTest, RequestCarriesEveryField) {
  decide::ReviewRequest req;
  req.repo = "acme/app";
  req.number = 12;
  req.role = "security";
  req.head_sha = "h1";
  req.base_sha = "b1";
  req.title = "Add \"quotes\"\n";
  req.body = "body";
  req.author = "octocat";
  req.files.push_back({"src/a.cc", "modified", 3, 1, "@@ -1 +1,3 @@\n+x\n"});
  req.prior_findings.push_back({"src/a.cc", 7, Severity::kBlocking, "leak"});
  req.prior_head_sha = "h0";

  auto v = boost::json::parse(EncodeReviewRequest(req)).as_object();
  EXPECT_EQ(v.at("repo"), "acme/app");
  EXPECT_EQ(v.at("number"), 12);
  EXPECT_EQ(v.at("role"), "security");
  EXPECT_EQ(v.at("head_sha"), "h1");
  EXPECT_EQ(v.at("base_sha"), "b1");
  EXPECT_EQ(v.at("title"), "Add \"quotes\"\n");
  EXPECT_EQ(v.at("body"), "body");
  EXPECT_EQ(v.at("author"), "octocat");
  EXPECT_EQ(v.at("prior_head_sha"), "h0");
  const auto& file = v.at("files").as_array().at(0).as_object();
  EXPECT_EQ(file.at("path"), "src/a.cc");
  EXPECT_EQ(file.at("status"), "modified");
  EXPECT_EQ(file.at("additions"), 3);
  EXPECT_EQ(file.at("deletions"), 1);
  EXPECT_EQ(file.at("patch"), "@@ -1 +1,3 @@\n+x\n");
  const auto& prior = v.at("prior_findings").as_array().at(0).as_object();
  EXPECT_EQ(prior.at("path"), "src/a.cc");
  EXPECT_EQ(prior.at("line"), 7);
  EXPECT_EQ(prior.at("severity"), "blocking");
  EXPECT_EQ(prior.at("message"), "leak");
}

TEST(ReviewJsonTest, EmptyRequestHasEmptyArrays) {
  auto v = boost::json::parse(EncodeReviewRequest({})).as_object();
  EXPECT_TRUE(v.at("files").as_array().empty());
  EXPECT_TRUE(v.at("prior_findings").as_array().empty());
  EXPECT_EQ(v.at("prior_head_sha"), "");
}

TEST(ReviewJsonTest, ResultRoundTrips) {
  ReviewResult r;
  r.verdict = ReviewVerdict::kRequestChanges;
  r.summary = "two problems — one blocking";
  r.findings.push_back({"a.py", 3, Severity::kBlocking, "sql injection"});
  r.findings.push_back({"b.py", 0, Severity::kWarning, "naming"});
  r.findings.push_back({"c.py", 9, Severity::kInfo, "nit"});
  auto back = ParseReviewResult(EncodeReviewResult(r));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, r);

  for (auto verdict : {ReviewVerdict::kApprove, ReviewVerdict::kComment}) {
    ReviewResult plain;
    plain.verdict = verdict;
    auto again = ParseReviewResult(EncodeReviewResult(plain));
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(*again, plain);
  }
}

TEST(ReviewJsonTest, OptionalFieldsDefault) {
  auto r = ParseReviewResult(
      R"({"verdict":"comment","summary":"","findings":[{"path":"x","message":"m"}],"extra":1})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->verdict, ReviewVerdict::kComment);
  EXPECT_EQ(r->summary, "");
  ASSERT_EQ(r->findings.size(), 1u);
  EXPECT_EQ(r->findings[0].line, 0);
  EXPECT_EQ(r->findings[0].severity, Severity::kInfo);

  auto no_findings = ParseReviewResult(R"({"verdict":"approve","summary":"ok"})");
  ASSERT_TRUE(no_findings.ok());
  EXPECT_TRUE(no_findings->findings.empty());
}

TEST(ReviewJsonTest, RejectsWhatIsNotOneJsonObject) {
  EXPECT_THAT(ErrorOf(""), HasSubstr("not JSON: "));
  EXPECT_THAT(ErrorOf("verdict: approve"), HasSubstr("not JSON: "));
  EXPECT_THAT(ErrorOf(R"({"verdict":"approve","summary":""} trailing)"), HasSubstr("not JSON: "));
  EXPECT_THAT(ErrorOf(R"({"verdict":"approve","summary":""}{})"), HasSubstr("not JSON: "));
  EXPECT_EQ(ErrorOf("[1,2]"), "result: expected a JSON object, got an array");
  EXPECT_EQ(ErrorOf("\"approve\""), "result: expected a JSON object, got a string");
  EXPECT_EQ(ErrorOf("null"), "result: expected a JSON object, got null");
  // Whitespace around the one value is fine.
  EXPECT_TRUE(ParseReviewResult(" \n{\"verdict\":\"approve\",\"summary\":\"\"}\n ").ok());
}

TEST(ReviewJsonTest, VerdictAndSummaryErrors) {
  EXPECT_EQ(ErrorOf(R"({"summary":""})"), "verdict: missing");
  EXPECT_EQ(ErrorOf(R"({"verdict":"lgtm","summary":""})"),
            R"(verdict: expected one of approve, comment, request_changes, got "lgtm")");
  EXPECT_EQ(ErrorOf(R"({"verdict":1,"summary":""})"),
            "verdict: expected one of approve, comment, request_changes, got a number");
  EXPECT_EQ(ErrorOf(R"({"verdict":"approve"})"), "summary: missing");
  EXPECT_EQ(ErrorOf(R"({"verdict":"approve","summary":null})"),
            "summary: expected a string, got null");
}

TEST(ReviewJsonTest, FindingErrors) {
  auto with = [](std::string findings) {
    return R"({"verdict":"comment","summary":"s","findings":)" + findings + "}";
  };
  EXPECT_EQ(ErrorOf(with("{}")), "findings: expected an array, got an object");
  EXPECT_EQ(ErrorOf(with("[1]")), "findings[0]: expected an object, got a number");
  EXPECT_EQ(ErrorOf(with(R"([{"path":"a","message":"m"},{"message":"m"}])")),
            "findings[1].path: missing");
  EXPECT_EQ(ErrorOf(with(R"([{"path":"","message":"m"}])")),
            "findings[0].path: expected a non-empty string");
  EXPECT_EQ(ErrorOf(with(R"([{"path":3,"message":"m"}])")),
            "findings[0].path: expected a non-empty string, got a number");
  EXPECT_EQ(ErrorOf(with(R"([{"path":"a","line":-1,"message":"m"}])")),
            "findings[0].line: expected an integer >= 0, got -1");
  EXPECT_EQ(ErrorOf(with(R"([{"path":"a","line":1.5,"message":"m"}])")),
            "findings[0].line: expected an integer >= 0, got a number");
  EXPECT_EQ(ErrorOf(with(R"([{"path":"a","line":"3","message":"m"}])")),
            "findings[0].line: expected an integer >= 0, got a string");
  EXPECT_EQ(ErrorOf(with(R"([{"path":"a","line":18446744073709551615,"message":"m"}])")),
            "findings[0].line: line number too large");
  EXPECT_EQ(
      ErrorOf(with(R"([{"path":"a"},{"path":"b"},{"path":"c","severity":"high","message":"m"}])")),
      "findings[0].message: missing");
  EXPECT_EQ(ErrorOf(with(R"([{"path":"a","message":"m"},{"path":"b","message":"m"},)"
                         R"({"path":"c","severity":"high","message":"m"}])")),
            R"(findings[2].severity: expected one of info, warning, blocking, got "high")");
  EXPECT_EQ(ErrorOf(with(R"([{"path":"a","severity":true,"message":"m"}])")),
            "findings[0].severity: expected one of info, warning, blocking, got a boolean");
  EXPECT_EQ(ErrorOf(with(R"([{"path":"a","message":""}])")),
            "findings[0].message: expected a non-empty string");
}

TEST(ReviewJsonTest, AtMost200Findings) {
  auto many = [](int n) {
    std::string s = R"({"verdict":"comment","summary":"s","findings":[)";
    for (int i = 0; i < n; ++i) s += std::string(i ? "," : "") + R"({"path":"a","message":"m"})";
    return s + "]}";
  };
  auto ok = ParseReviewResult(many(200));
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->findings.size(), 200u);
  EXPECT_EQ(ErrorOf(many(201)), "findings: at most 200 allowed, got 201");
}

TEST(ReviewJsonTest, LongMessagesAreClippedOnACharacterBoundary) {
  // 4095 ASCII bytes then a 3-byte character straddling the 4 KiB limit.
  std::string message = std::string(4095, 'x') + "\xE2\x80\x94" + "tail";
  ReviewResult r;
  r.findings.push_back({"a", 1, Severity::kInfo, message});
  auto back = ParseReviewResult(EncodeReviewResult(r));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->findings[0].message, std::string(4095, 'x'));

  r.findings[0].message = std::string(4096, 'y');
  back = ParseReviewResult(EncodeReviewResult(r));
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->findings[0].message.size(), 4096u);
}

}  // namespace
}  // namespace gatehouse::review
