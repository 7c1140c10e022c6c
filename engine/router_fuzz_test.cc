// libFuzzer target: webhook decoding and routing (engine/router.h).
//
// Input: "EVENT\nBODY" — the first line is X-GitHub-Event, the rest the raw body, decoded as
// the inbox router decodes it (engine/inbox_router.cc: a body that is not JSON goes dead and
// is never routed). Seeds are every real payload of ../shared/fixtures/github-webhooks under
// its own event name (cmake/GatehouseFuzz.cmake), so mutations start from GitHub's shapes.
// What must hold beyond "no crash", for any input:
//  - every signal passes the store's ValidateSignal, names a canonical PR subject key
//    (Subject::Parse(key).key() == key) and carries the stamp's debounce;
//  - an ignored delivery says why and signals nothing; kResolveBySha names a lower-case
//    "owner/repo" and a lower-case SHA;
//  - heads, facts and repositories name canonical keys, SHAs and "owner/repo" names; every
//    fact but "pushed" is stamped with the delivery's arrival;
//  - `why` stays short whatever the sender wrote (event and action names are clipped);
//  - routing is a function: the same input routes the same way twice.
#include <boost/json.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "base/subject.h"
#include "decide/pr_facts.h"
#include "engine/route_payload.h"
#include "engine/router.h"
#include "store/work_queue.h"

namespace gatehouse {
namespace {

using Kind = RouteResult::Kind;

void Check(bool ok, const char* what, std::string_view detail = {}) {
  if (ok) return;
  std::fprintf(stderr, "router_fuzz_test: invariant broken: %s: '%.*s'\n", what,
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

bool IsCanonicalKey(const std::string& key) {
  std::optional<Subject> s = Subject::Parse(key);
  return s && s->key() == key;
}

bool IsLowerRepo(const std::string& repo) {
  if (!IsRepoFullName(repo)) return false;
  for (char c : repo) {
    if (c >= 'A' && c <= 'Z') return false;
  }
  return true;
}

bool IsLowerSha(const std::string& sha) {
  if (!routing::IsSha(sha)) return false;
  for (char c : sha) {
    if (c >= 'A' && c <= 'F') return false;
  }
  return true;
}

// reopened, closed_by, pushed, or command:<comment id> (decide/pr_facts.h).
bool IsFactName(const std::string& name) {
  if (name == decide::kFactReopened || name == decide::kFactClosedBy ||
      name == decide::kFactPushed) {
    return true;
  }
  const std::string_view prefix = decide::kFactCommandPrefix;
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) return false;
  if (name[prefix.size()] == '0') return false;
  for (size_t i = prefix.size(); i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return false;
  }
  return true;
}

// The router's whole output contract, for any input (see the file comment).
void CheckWellFormed(const RouteResult& r, const RouteStamp& stamp) {
  Check(r.why.size() <= 1024, "why is unbounded", r.why);
  switch (r.kind) {
    case Kind::kIgnore:
      Check(!r.why.empty(), "ignored without a why");
      Check(r.signals.empty(), "ignored with signals", r.why);
      break;
    case Kind::kRoute:
      Check(!r.signals.empty() || !r.why.empty(), "routed nothing without a why");
      break;
    case Kind::kResolveBySha:
      Check(r.signals.empty(), "kResolveBySha with signals");
      Check(IsLowerRepo(r.repo), "kResolveBySha repo", r.repo);
      Check(IsLowerSha(r.sha), "kResolveBySha sha", r.sha);
      Check(ValidateSignal(Signal{.key = "x/y#1", .reason = r.reason}).ok(), "kResolveBySha reason",
            r.reason);
      break;
  }
  for (const Signal& s : r.signals) {
    Check(ValidateSignal(s).ok(), "ValidateSignal refuses a signal", s.key + " " + s.reason);
    Check(IsCanonicalKey(s.key), "signal key is not a canonical subject", s.key);
    Check(s.debounce == stamp.debounce, "signal debounce is not the stamp's", s.key);
  }
  for (const auto& [key, sha] : r.heads) {
    Check(IsCanonicalKey(key), "head key", key);
    Check(sha.empty() || IsLowerSha(sha), "head sha", sha);
  }
  for (const RepoInstallation& repo : r.repos) {
    Check(IsLowerRepo(repo.repo), "learned repo", repo.repo);
    Check(!repo.installation_id || *repo.installation_id > 0, "installation id", repo.repo);
  }
  for (const std::string& repo : r.repos_removed) Check(IsLowerRepo(repo), "removed repo", repo);
  for (const PrFact& f : r.facts) {
    Check(IsCanonicalKey(f.subject), "fact subject", f.subject);
    Check(IsFactName(f.name), "fact name", f.name);
    Check(!f.value.empty(), "empty fact value", f.name);
    Check(f.name == "pushed" || f.at == stamp.received_at, "fact not at the arrival", f.name);
  }
}

bool SameResult(const RouteResult& a, const RouteResult& b) {
  if (a.kind != b.kind || a.why != b.why || a.repo != b.repo || a.sha != b.sha ||
      a.reason != b.reason || a.heads != b.heads || a.repos_removed != b.repos_removed ||
      a.signals.size() != b.signals.size() || a.repos.size() != b.repos.size() ||
      a.facts.size() != b.facts.size()) {
    return false;
  }
  for (size_t i = 0; i < a.signals.size(); ++i) {
    if (a.signals[i].key != b.signals[i].key || a.signals[i].reason != b.signals[i].reason) {
      return false;
    }
  }
  for (size_t i = 0; i < a.repos.size(); ++i) {
    if (a.repos[i].repo != b.repos[i].repo ||
        a.repos[i].installation_id != b.repos[i].installation_id) {
      return false;
    }
  }
  for (size_t i = 0; i < a.facts.size(); ++i) {
    const PrFact &x = a.facts[i], &y = b.facts[i];
    if (x.subject != y.subject || x.name != y.name || x.value != y.value || x.at != y.at) {
      return false;
    }
  }
  return true;
}

}  // namespace
}  // namespace gatehouse

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace gatehouse;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t newline = input.find('\n');
  if (newline == std::string_view::npos) return 0;
  const std::string_view event = input.substr(0, newline);
  const std::string_view body = input.substr(newline + 1);

  boost::system::error_code ec;
  boost::json::monotonic_resource arena;
  const boost::json::value payload = boost::json::parse(body, ec, &arena);
  if (ec) return 0;  // the inbox router marks it dead: "body is not valid JSON"

  const RouteStamp stamp{FromMicros(1'800'000'000'000'000), std::chrono::milliseconds(250)};
  const RouteResult first = RouteWebhook(event, payload, stamp);
  CheckWellFormed(first, stamp);
  Check(SameResult(first, RouteWebhook(event, payload, stamp)), "routing is not a function");
  return 0;
}
