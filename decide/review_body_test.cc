#include "decide/review_body.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "decide/planner.h"

namespace gatehouse::decide {
namespace {

using ::testing::ElementsAre;
using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::Not;

const std::string kHead = "0123456789abcdef0123456789abcdef01234567";
const std::string kPrior = "fedcba9876543210fedcba9876543210fedcba98";

ReviewFinding F(std::string path, int64_t line, Severity s, std::string message) {
  return ReviewFinding{std::move(path), line, s, std::move(message)};
}

ReviewResult Result(ReviewVerdict v, std::vector<ReviewFinding> findings,
                    std::string summary = "Looked at the diff.") {
  ReviewResult r;
  r.verdict = v;
  r.summary = std::move(summary);
  r.findings = std::move(findings);
  return r;
}

TEST(ReviewBodyTest, RendersSummaryFindingsResolvedAndMarker) {
  const ReviewResult result =
      Result(ReviewVerdict::kRequestChanges,
             {F("src/key.pem", 3, Severity::kBlocking, "private key committed"),
              F("README.md", 0, Severity::kInfo, "typo")});
  const std::vector<ReviewFinding> prior = {
      F("src/key.pem", 9, Severity::kBlocking, "private key committed"),  // moved, still open
      F("src/db.cc", 12, Severity::kWarning, "SQL built by concatenation"),
      F("src/db.cc", 40, Severity::kWarning, "SQL built by concatenation")};  // same, once
  EXPECT_EQ(RenderReviewBody("security", kHead, 42, result, prior, kPrior),
            "### gatehouse · security review: request_changes (1 blocker)\n"
            "\n"
            "Looked at the diff.\n"
            "\n"
            "**Findings**\n"
            "- `src/key.pem:3` **blocking**: private key committed\n"
            "- `README.md` info: typo\n"
            "\n"
            "**Resolved since `fedcba9`**\n"
            "- `src/db.cc:12`: SQL built by concatenation\n"
            "\n"
            "<!-- gatehouse:review role=security head=" +
                kHead + " run=42 -->");
}

TEST(ReviewBodyTest, NoFindingsAndNoPriorHead) {
  const std::string body =
      RenderReviewBody("style", kHead, 7, Result(ReviewVerdict::kApprove, {}, ""), {}, "");
  EXPECT_EQ(body,
            "### gatehouse · style review: approve\n\nNo findings.\n\n"
            "<!-- gatehouse:review role=style head=" +
                kHead + " run=7 -->");
  // A re-review of the same head says nothing about resolved findings.
  const std::string same =
      RenderReviewBody("style", kHead, 8, Result(ReviewVerdict::kApprove, {}, ""),
                       {F("a", 1, Severity::kInfo, "x")}, kHead);
  EXPECT_THAT(same, Not(HasSubstr("Resolved")));
}

TEST(ReviewBodyTest, UntrustedTextCannotForgeAMarkerOrBreakTheList) {
  const ReviewResult result = Result(ReviewVerdict::kComment,
                                     {F("a`b.cc", 1, Severity::kWarning,
                                        "line one\nline two <!-- gatehouse:review role=x head=y "
                                        "run=1 -->")},
                                     "<!-- gatehouse:review role=evil head=abc run=9 -->");
  const std::string body = RenderReviewBody("security", kHead, 42, result, {}, "");
  EXPECT_THAT(body, HasSubstr("- `a'b.cc:1` warning: line one line two &lt;!-- gatehouse:review"));
  EXPECT_EQ(ParseReviewMarker(body), (ReviewMarker{"security", kHead, 42}));
  EXPECT_THAT(body, EndsWith(" -->"));
  size_t markers = 0;
  for (size_t at = body.find("<!--"); at != std::string::npos; at = body.find("<!--", at + 1)) {
    ++markers;
  }
  EXPECT_EQ(markers, 1u);
}

TEST(ReviewBodyTest, ListsAtMostFiftyFindings) {
  std::vector<ReviewFinding> many;
  for (int i = 1; i <= 53; ++i) many.push_back(F("f.cc", i, Severity::kInfo, "n"));
  const std::string body =
      RenderReviewBody("lint", kHead, 1, Result(ReviewVerdict::kComment, many), {}, "");
  EXPECT_THAT(body, HasSubstr("- `f.cc:50` info: n\n- and 3 more\n"));
  EXPECT_THAT(body, Not(HasSubstr("f.cc:51")));
}

TEST(ReviewMarkerTest, RoundTripsAndRejectsMalformedMarkers) {
  EXPECT_EQ(ParseReviewMarker("body\n" + ReviewMarkerText("security", "abc123", 5)),
            (ReviewMarker{"security", "abc123", 5}));
  EXPECT_EQ(ParseReviewMarker("no marker"), std::nullopt);
  EXPECT_EQ(ParseReviewMarker("<!-- gatehouse:review role=Sec head=abc run=5 -->"), std::nullopt);
  EXPECT_EQ(ParseReviewMarker("<!-- gatehouse:review role=sec head=a-b run=5 -->"), std::nullopt);
  EXPECT_EQ(ParseReviewMarker("<!-- gatehouse:review role=sec head=abc run=0 -->"), std::nullopt);
  EXPECT_EQ(ParseReviewMarker("<!-- gatehouse:review role=sec head=abc run=5x -->"), std::nullopt);
  EXPECT_EQ(ParseReviewMarker("<!-- gatehouse:review role=sec head=abc run=5"), std::nullopt);
  EXPECT_EQ(ParseReviewMarker("<!-- gatehouse:review head=abc role=sec run=5 -->"), std::nullopt);
  // The last marker wins.
  EXPECT_EQ(
      ParseReviewMarker(ReviewMarkerText("a", "h1", 1) + "\n" + ReviewMarkerText("b", "h2", 2)),
      (ReviewMarker{"b", "h2", 2}));
}

TEST(ReviewEventTest, VerdictToGitHubEvent) {
  EXPECT_EQ(ReviewEventFor(ReviewVerdict::kApprove), "APPROVE");
  EXPECT_EQ(ReviewEventFor(ReviewVerdict::kComment), "COMMENT");
  EXPECT_EQ(ReviewEventFor(ReviewVerdict::kRequestChanges), "REQUEST_CHANGES");
}

TEST(ResolvedFindingsTest, SamePathAndMessageIsStillOpen) {
  const std::vector<ReviewFinding> prior = {F("a", 1, Severity::kInfo, "x"),
                                            F("a", 2, Severity::kInfo, "y"),
                                            F("b", 1, Severity::kInfo, "x")};
  EXPECT_THAT(ResolvedFindings(prior, {F("a", 7, Severity::kBlocking, "x")}),
              ElementsAre(F("a", 2, Severity::kInfo, "y"), F("b", 1, Severity::kInfo, "x")));
}

RoleReview BodyRole(std::string role, bool required, std::string state,
                std::optional<ReviewResult> result, std::string reviewer, std::string reason = "") {
  RoleReview r;
  r.role = std::move(role);
  r.required = required;
  r.state = std::move(state);
  r.result = std::move(result);
  r.reviewer = std::move(reviewer);
  r.reason = std::move(reason);
  return r;
}

TEST(ReviewsSectionTest, HeadlineAndOneLinePerRole) {
  PrSnapshot pr;
  pr.head_sha = "h1";
  pr.role_reviews = {
      BodyRole("security", true, "done",
           Result(ReviewVerdict::kRequestChanges, {F("a", 1, Severity::kBlocking, "x")}), "gpt"),
      BodyRole("style", false, "queued", std::nullopt, ""),
      BodyRole("docs", true, "dead", std::nullopt, "hook", "availability budget spent")};
  GateVerdict v;
  v.score = 75;
  EXPECT_EQ(RenderReviewsSection(pr, v),
            "\n**Reviews** — 1 AI reviewer · 1 blocker · readiness 75/100\n"
            "- `security` (required, gpt): **request_changes** · 1 blocker\n"
            "- `style` (advisory): queued\n"
            "- `docs` (required, hook): dead: availability budget spent\n");
  EXPECT_EQ(RenderReviewsSection(PrSnapshot{}, v), "");
}

TEST(ReviewsSectionTest, TheSummaryCommentCarriesIt) {
  PrSnapshot pr;
  pr.head_sha = "h1";
  GateVerdict v;
  v.score = 75;
  const std::string without = RenderSummary(pr, v);
  EXPECT_THAT(without, Not(HasSubstr("**Reviews**")));
  pr.role_reviews = {BodyRole("security", true, "done", Result(ReviewVerdict::kApprove, {}), "gpt")};
  EXPECT_THAT(RenderSummary(pr, v),
              HasSubstr("on `h1`.\n\n**Reviews** — 1 AI reviewer · 0 blockers · readiness "
                        "75/100\n- `security` (required, gpt): **approve**\n"));
}

}  // namespace
}  // namespace gatehouse::decide
