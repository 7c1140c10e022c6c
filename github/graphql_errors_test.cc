// GraphqlAnswerError: GitHub's `errors` answers, each mapped to the kind its caller acts on.
#include "github/graphql_errors.h"

#include <gtest/gtest.h>

#include <string_view>

namespace gatehouse {
namespace {

const Time kReset = Time(std::chrono::seconds(1'800'000'000));

std::optional<GitHubError> ErrorOf(std::string_view body) {
  return GraphqlAnswerError(boost::json::parse(body), "PullState", kReset);
}

TEST(GraphqlErrorsTest, AnAnswerWithoutErrorsIsNone) {
  EXPECT_FALSE(ErrorOf(R"({"data":{"repository":null}})").has_value());
  EXPECT_FALSE(ErrorOf(R"({"data":{},"errors":[]})").has_value());
}

TEST(GraphqlErrorsTest, EachErrorIsTheKindItsCallerActsOn) {
  struct Case {
    std::string_view body;
    GitHubErrorKind kind;
  };
  const Case cases[] = {
      // The repository or PR is gone.
      {R"({"errors":[{"type":"NOT_FOUND","message":"Could not resolve"}]})",
       GitHubErrorKind::kNotFound},
      {R"({"errors":[{"type":"RATE_LIMITED","message":"spent"}]})", GitHubErrorKind::kRateLimited},
      // The document: a validation error, or one of GitHub's types for a query it will not run.
      {R"({"errors":[{"message":"Field 'x' doesn't exist","extensions":{"code":"undefinedField"}}]})",
       GitHubErrorKind::kPermanent},
      {R"({"errors":[{"type":"MISSING_PAGINATION_BOUNDARIES","message":"first"}]})",
       GitHubErrorKind::kPermanent},
      {R"({"errors":[{"type":"EXCESSIVE_PAGINATION","message":"101"}]})",
       GitHubErrorKind::kPermanent},
      {R"({"errors":[{"type":"MAX_NODE_LIMIT_EXCEEDED","message":"too many"}]})",
       GitHubErrorKind::kPermanent},
      // This one execution.
      {R"({"data":null,"errors":[{"message":"Something went wrong while executing your query."}]})",
       GitHubErrorKind::kTransient},
      {R"({"errors":[{"type":"FORBIDDEN","message":"IP allow list"}]})",
       GitHubErrorKind::kTransient},
      {R"({"errors":[{"type":"INTERNAL","message":"oops"}]})", GitHubErrorKind::kTransient},
      // A type wins over `extensions`: an organisation's SAML enforcement is this execution's.
      {R"({"errors":[{"type":"FORBIDDEN","message":"SAML","extensions":{"saml_failure":true}}]})",
       GitHubErrorKind::kTransient},
  };
  for (const Case& c : cases) {
    auto error = ErrorOf(c.body);
    ASSERT_TRUE(error.has_value()) << c.body;
    EXPECT_EQ(error->kind, c.kind) << c.body;
    EXPECT_EQ(error->http_status, 200) << c.body;
    EXPECT_TRUE(error->message.starts_with("POST /graphql (PullState): ")) << error->message;
  }
  EXPECT_EQ(ErrorOf(R"({"errors":[{"type":"RATE_LIMITED","message":"spent"}]})")->until, kReset);
}

}  // namespace
}  // namespace gatehouse
