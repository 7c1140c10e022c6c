// MeteredTransport: every request counted by method, endpoint template and status; the
// templates keep the series bounded whatever the repositories, numbers and SHAs are.
#include "github/metered_transport.h"

#include <gtest/gtest.h>

#include <deque>
#include <string>

namespace gatehouse {
namespace {

TEST(EndpointTemplateTest, NamesNumbersShasAndRepositoriesByRole) {
  EXPECT_EQ(EndpointTemplate("/repos/Acme/app/pulls/12"), "/repos/{owner}/{repo}/pulls/{n}");
  EXPECT_EQ(EndpointTemplate("/repos/acme/app/pulls/12/reviews?per_page=100&page=2"),
            "/repos/{owner}/{repo}/pulls/{n}/reviews");
  EXPECT_EQ(EndpointTemplate("/repos/a/b/commits/0123456789abcdef0123456789abcdef01234567/"
                             "check-runs"),
            "/repos/{owner}/{repo}/commits/{sha}/check-runs");
  EXPECT_EQ(EndpointTemplate("/repos/a/b/contents/.github/gatehouse.yml?ref=main"),
            "/repos/{owner}/{repo}/contents/{path}");
  EXPECT_EQ(EndpointTemplate("/repos/a/b/issues/3/labels/needs%20review"),
            "/repos/{owner}/{repo}/issues/{n}/labels/{name}");
  EXPECT_EQ(EndpointTemplate("/app/installations/42/access_tokens"),
            "/app/installations/{n}/access_tokens");
  EXPECT_EQ(EndpointTemplate("/app/hook/deliveries/12345678901/attempts"),
            "/app/hook/deliveries/{n}/attempts");
  EXPECT_EQ(EndpointTemplate("https://ghe.example/api/v3/repos/a/b/pulls?page=3",
                             "https://ghe.example/api/v3"),
            "/repos/{owner}/{repo}/pulls");
  EXPECT_EQ(EndpointTemplate("http://other.example/installation/repositories?page=2"),
            "/installation/repositories");
  EXPECT_EQ(EndpointTemplate(""), "/");
}

class ScriptedTransport final : public HttpTransport {
 public:
  std::deque<int> statuses;  // 0: no answer
  Result<HttpReply> Send(const HttpCall&) override {
    const int status = statuses.front();
    statuses.pop_front();
    if (status == 0) return Unavailable("connection reset");
    HttpReply r;
    r.status = status;
    return r;
  }
};

TEST(MeteredTransportTest, CountsEveryAnswerAndEveryMissingOne) {
  ScriptedTransport inner;
  inner.statuses = {200, 304, 304, 502, 0};
  metrics::Registry registry;
  MeteredTransport metered(inner, "https://api.github.com", registry);
  HttpCall get;
  get.target = "/repos/acme/app/pulls/1";
  EXPECT_EQ(metered.Send(get)->status, 200);
  EXPECT_EQ(metered.Send(get)->status, 304);
  get.target = "/repos/acme/other/pulls/2";
  EXPECT_EQ(metered.Send(get)->status, 304);
  HttpCall merge;
  merge.method = "PUT";
  merge.target = "/repos/acme/app/pulls/1/merge";
  EXPECT_EQ(metered.Send(merge)->status, 502);
  EXPECT_FALSE(metered.Send(merge).ok()) << "the inner transport's failure is passed on";
  const std::string text = registry.Render();
  EXPECT_NE(text.find("gatehouse_github_requests_total{method=\"GET\",endpoint=\"/repos/{owner}/"
                      "{repo}/pulls/{n}\",status=\"304\"} 2"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("endpoint=\"/repos/{owner}/{repo}/pulls/{n}\",status=\"200\"} 1"),
            std::string::npos);
  EXPECT_NE(text.find("{method=\"PUT\",endpoint=\"/repos/{owner}/{repo}/pulls/{n}/merge\","
                      "status=\"502\"} 1"),
            std::string::npos);
  EXPECT_NE(text.find("/merge\",status=\"none\"} 1"), std::string::npos) << text;
}

}  // namespace
}  // namespace gatehouse
