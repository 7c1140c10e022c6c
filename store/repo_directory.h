// RepoDirectory: what gatehouse learned about repositories and pull requests besides signals —
// the repositories it covers with their App installation, the last known head of each open PR
// (to resolve a check or status that names only a commit), and small per-PR facts.
//
// Routing writes it in the same transaction as a delivery's decision (Inbox::ApplyRouting);
// RecordLearned writes what is learned elsewhere. Implementations are thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"

namespace gatehouse {

// A repository gatehouse knows about ("owner/repo", lower-case) and the App installation
// that covers it. `installation_id` is absent in personal-token mode or when no delivery for
// the repository has named its installation yet.
struct RepoInstallation {
  std::string repo;
  std::optional<int64_t> installation_id;
};

// A small fact about a pull request learned from a webhook that a pass cannot read back from
// the REST endpoints it uses, e.g. ("acme/app#12", "reopened", "alice CONTRIBUTOR"). One value
// per (subject, name); the one with the later `at` wins.
struct PrFact {
  std::string subject;  // "owner/repo#12"
  std::string name;     // e.g. "reopened", "closed_by"
  std::string value;
  Time at;  // when it was learned (the delivery's received_at)
};

class RepoDirectory {
 public:
  virtual ~RepoDirectory() = default;

  // Every known repository, ordered by repo.
  virtual Result<std::vector<RepoInstallation>> ListRepositories() = 0;
  // One repository ("owner/repo", ASCII case-insensitive); nullopt when unknown or removed.
  virtual Result<std::optional<RepoInstallation>> GetRepository(std::string_view repo) = 0;
  // A subject's facts, ordered by name; empty when none.
  virtual Result<std::vector<PrFact>> GetPrFacts(std::string_view subject) = 0;

  // Open pull requests of `repo` ("owner/repo", lower-case) whose last known head is `sha`,
  // as subject keys.
  virtual Result<std::vector<std::string>> PullRequestsWithHead(std::string_view repo,
                                                                std::string_view sha) = 0;

  // Records repositories and PR facts learned outside routing (the sweeper's installation
  // listings, a pass's first sight of a head), with the same rules as RouteDecision::repos and
  // ::facts: a null installation never overwrites a known one; per (subject, name) the later
  // `at` wins. One transaction; recoverable durability (all of it can be learned again).
  virtual Status RecordLearned(std::span<const RepoInstallation> repos,
                               std::span<const PrFact> facts, Time now) = 0;
};

}  // namespace gatehouse
