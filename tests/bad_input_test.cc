// Bad input at the front door, end to end (docs/RELIABILITY.md, "Bad input"): every kind of
// request GitHub would never send, or an attacker might, gets its precise status, a counter
// (inbox.rejected.<reason>, in the funnel's `rejected`), and no inbox row; the server keeps
// serving. Deliveries that are well-formed but useless (an unknown event) are stored and end
// `ignored` with a reason: nothing accepted is dropped silently.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "tests/ingress_harness.h"

namespace gatehouse {
namespace {

namespace fs = std::filesystem;
using http_testing::BuildRequest;
using http_testing::RoundTrip;
using http_testing::TestConnection;
using ingress_testing::ExpectBalanced;
using ingress_testing::Ingress;
using ingress_testing::kSecret;
using ingress_testing::ReadFile;

std::string Fixture() {
  return ReadFile(fs::path(GATEHOUSE_FIXTURES) / "pull_request" / "opened.payload.json");
}

struct BadRequest {
  std::string name;  // also the delivery id it carries, when it carries one
  std::string request;
  int status;
  std::string counter;  // inbox.rejected.<counter>
};

std::string Post(const std::string& id, const std::string& body,
                 std::vector<std::pair<std::string, std::string>> headers) {
  std::vector<std::pair<std::string, std::string>> all = {{"Content-Type", "application/json"}};
  if (!id.empty()) all.emplace_back("X-GitHub-Delivery", id);
  all.insert(all.end(), headers.begin(), headers.end());
  return BuildRequest("POST", "/webhook", all, body);
}

std::string Signed(const std::string& body) { return "sha256=" + HmacSha256Hex(kSecret, body); }

std::vector<BadRequest> BadRequests() {
  const std::string fixture = Fixture();
  const std::string truncated = fixture.substr(0, fixture.size() / 2);
  std::string deep = "{\"a\":";
  deep.append(100'000, '[');
  deep.append(100'000, ']');
  deep += "}";
  const std::string array = "[1,2,3]";
  return {
      {"bad-signature", Post("bad-signature", fixture,
                             {{"X-GitHub-Event", "pull_request"},
                              {"X-Hub-Signature-256", "sha256=" + HmacSha256Hex("wrong", fixture)}}),
       401, "signature"},
      {"no-signature", Post("no-signature", fixture, {{"X-GitHub-Event", "pull_request"}}), 401,
       "signature"},
      {"sha1-only", Post("sha1-only", fixture,
                         {{"X-GitHub-Event", "pull_request"}, {"X-Hub-Signature", "sha1=00"}}),
       401, "signature"},
      {"no-event", Post("no-event", fixture, {{"X-Hub-Signature-256", Signed(fixture)}}), 400,
       "headers"},
      {"no-delivery", Post("", fixture,
                           {{"X-GitHub-Event", "pull_request"},
                            {"X-Hub-Signature-256", Signed(fixture)}}),
       400, "headers"},
      {"not-json", Post("not-json", "hello",
                        {{"X-GitHub-Event", "pull_request"}, {"X-Hub-Signature-256", Signed("hello")}}),
       400, "json"},
      {"truncated", Post("truncated", truncated,
                         {{"X-GitHub-Event", "pull_request"},
                          {"X-Hub-Signature-256", Signed(truncated)}}),
       400, "json"},
      {"deep", Post("deep", deep,
                    {{"X-GitHub-Event", "pull_request"}, {"X-Hub-Signature-256", Signed(deep)}}),
       400, "json"},
      {"array", Post("array", array,
                     {{"X-GitHub-Event", "pull_request"}, {"X-Hub-Signature-256", Signed(array)}}),
       400, "json"},
      {"get", BuildRequest("GET", "/webhook", {}, ""), 405, "method"},
  };
}

TEST(BadInputTest, EveryBadRequestGetsItsStatusACounterAndNoRow) {
  Ingress ingress;
  std::map<std::string, int64_t> expected;
  for (const BadRequest& bad : BadRequests()) {
    EXPECT_EQ(RoundTrip(ingress.port(), bad.request).status, bad.status) << bad.name;
    expected["inbox.rejected." + bad.counter] += 1;
  }
  // 26 MiB: over GitHub's own 25 MiB cap, refused from the Content-Length before the body.
  {
    auto c = TestConnection::Connect(ingress.port());
    ASSERT_NE(c, nullptr);
    const size_t size = 26u << 20;
    ASSERT_TRUE(c->Send("POST /webhook HTTP/1.1\r\nHost: test\r\nX-GitHub-Event: pull_request\r\n"
                        "X-GitHub-Delivery: huge\r\nContent-Type: application/json\r\n"
                        "Content-Length: " +
                        std::to_string(size) + "\r\n\r\n"));
    EXPECT_EQ(c->Read().status, 413);
    expected["inbox.rejected.too_large"] += 1;
  }
  // The server is still serving, and a good delivery after all that is accepted.
  const std::string good = Fixture();
  EXPECT_EQ(ingress.Post("pull_request", "good", good).status, 202);
  EXPECT_EQ(RoundTrip(ingress.port(), BuildRequest("GET", "/healthz", {}, "")).status, 200);
  ASSERT_TRUE(ingress.WaitRouted());
  ingress.StopEngine();  // writes the rejection counters it holds

  auto counters = ingress.store().GetCounters();
  ASSERT_TRUE(counters.ok());
  int64_t rejected = 0;
  for (const auto& [name, n] : expected) {
    EXPECT_EQ((*counters)[name], n) << name;
    rejected += n;
  }
  for (const BadRequest& bad : BadRequests()) {
    auto row = ingress.store().inbox().GetDelivery(bad.name);
    ASSERT_TRUE(row.ok());
    EXPECT_FALSE(row->has_value()) << bad.name << " was stored";
  }
  EXPECT_FALSE(ingress.store().inbox().GetDelivery("huge")->has_value());
  auto funnel = ingress.store().inbox().GetFunnel();
  ASSERT_TRUE(funnel.ok());
  EXPECT_EQ(funnel->rejected, rejected);
  EXPECT_EQ(funnel->received, rejected + 1);
  ExpectBalanced(*funnel);
}

// A slowloris client dribbles its header one byte at a time, each byte well inside any
// per-read timeout: the header deadline counts from the connection's start, so it is cut off
// anyway, and the server goes on serving others meanwhile.
TEST(BadInputTest, ASlowlorisHeaderIsCutOffAtTheHeaderDeadline) {
  Ingress ingress([](HttpServerOptions& o) { o.header_timeout = std::chrono::milliseconds(300); });
  auto slow = TestConnection::Connect(ingress.port());
  ASSERT_NE(slow, nullptr);
  const std::string header = "POST /webhook HTTP/1.1\r\nHost: test\r\nX-GitHub-Event: ping\r\n";
  bool cut = false;
  const auto start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < header.size() * 100 && !cut; ++i) {
    // The attack's own pace (not a wait for a result): one byte per 20 ms.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    cut = !slow->Send(std::string(1, header[i % header.size()]));
    if (i == 3) {
      EXPECT_EQ(ingress.Post("pull_request", "meanwhile", Fixture()).status, 202);
    }
  }
  if (!cut) cut = slow->ReadsEof() || slow->ReadsReset();
  EXPECT_TRUE(cut) << "the dribbling connection was never closed";
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(30));
  auto row = ingress.store().inbox().GetDelivery("meanwhile");
  ASSERT_TRUE(row.ok());
  EXPECT_TRUE(row->has_value());
}

// An event gatehouse has no use for is still a delivery GitHub made: stored, answered 202, and
// ended `ignored` with the reason, never dropped.
TEST(BadInputTest, AnUnknownEventIsStoredAndEndsIgnoredWithItsReason) {
  Ingress ingress;
  EXPECT_EQ(ingress.Post("made_up_event", "unknown-1", "{\"action\":\"whatever\"}").status, 202);
  ASSERT_TRUE(ingress.WaitRouted());
  InboxEntry e = ingress.Delivery("unknown-1");
  EXPECT_EQ(e.state, InboxState::kIgnored);
  EXPECT_NE(e.state_reason.find("made_up_event"), std::string::npos) << e.state_reason;
  auto funnel = ingress.store().inbox().GetFunnel();
  ASSERT_TRUE(funnel.ok());
  EXPECT_EQ(funnel->ignored, 1);
  ExpectBalanced(*funnel);
}

}  // namespace
}  // namespace gatehouse
