// PgStore: what routing learns besides signals — the repositories gatehouse covers (with
// their App installation), small per-PR facts, and the PR heads used to resolve commits. As
// SQLite (store/sqlite/sqlite_repos.cc). Every write is an upsert or delete by key over a batch,
// atomic on its own, so concurrent writers need no locks beyond the row locks these
// statements take (in key order).
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/ascii.h"
#include "store/postgres/pg_array.h"
#include "store/postgres/pg_store.h"

namespace gatehouse::postgres {
namespace {

RepoInstallation ReadRepo(const PgResult& r, int row) {
  RepoInstallation out;
  out.repo = r.Text(row, 0);
  if (!r.IsNull(row, 1)) out.installation_id = r.Int(row, 1);
  return out;
}

}  // namespace

Status PgStore::ApplyLearnedInTx(PgConn& c, const std::vector<const RouteDecision*>& decisions,
                                 Time now) {
  // Folded per key as applying the decisions one by one (each: repos, then repos_removed,
  // then facts) would leave the rows, so each table takes at most two statements per batch.
  // std::map keeps keys in byte order: every writer locks rows in one order.
  struct RepoFold {
    bool deleted = false;   // a removal came; rows before it are gone
    bool upserted = false;  // an upsert came after the last removal
    std::optional<int64_t> installation;  // the last known id since the last removal
  };
  std::map<std::string, RepoFold> repos;
  std::map<std::pair<std::string, std::string>, const PrFact*> facts;
  for (const RouteDecision* d : decisions) {
    for (const RepoInstallation& r : d->repos) {
      RepoFold& f = repos[AsciiLower(r.repo)];
      f.upserted = true;
      // COALESCE: a payload without `installation` says nothing about it, so a known id stays.
      if (r.installation_id) f.installation = r.installation_id;
    }
    for (const std::string& repo : d->repos_removed) {
      RepoFold& f = repos[AsciiLower(repo)];
      f = RepoFold{};
      f.deleted = true;
    }
    for (const PrFact& fact : d->facts) {
      // Deliveries may be routed out of order; the fact learned later (by `at`) wins, and of
      // two learned at the same moment the one applied last.
      const PrFact*& slot = facts[{fact.subject, fact.name}];
      if (slot == nullptr || fact.at >= slot->at) slot = &fact;
    }
  }
  BinaryArray removed(BinaryArray::kText), names(BinaryArray::kText),
      installations(BinaryArray::kInt8);
  for (const auto& [repo, f] : repos) {
    if (f.deleted) removed.Add(repo);
    if (!f.upserted) continue;
    names.Add(repo);
    if (f.installation) {
      installations.AddInt(*f.installation);
    } else {
      installations.AddNull();
    }
  }
  if (removed.size() > 0) {
    Result<PgResult> del =
        c.ExecPrepared("repos_delete_batch", "DELETE FROM repositories WHERE repo = ANY($1::text[])",
                       {removed.Param()});
    GH_RETURN_IF_ERROR(del.status().WithContext("forgetting repositories"));
  }
  if (names.size() > 0) {
    Result<PgResult> up = c.ExecPrepared(
        "repos_upsert_batch",
        "INSERT INTO repositories (repo, installation_id, updated_at) "
        "SELECT t.repo, t.installation_id, $3::BIGINT "
        "FROM unnest($1::text[], $2::int8[]) AS t(repo, installation_id) "
        "ON CONFLICT (repo) DO UPDATE SET "
        "installation_id = COALESCE(excluded.installation_id, repositories.installation_id), "
        "updated_at = excluded.updated_at",
        {names.Param(), installations.Param(), PgParam::At(now)});
    GH_RETURN_IF_ERROR(up.status().WithContext("recording repositories"));
  }
  if (facts.empty()) return Status::Ok();
  BinaryArray subjects(BinaryArray::kText), fact_names(BinaryArray::kText),
      values(BinaryArray::kText), ats(BinaryArray::kInt8);
  for (const auto& [key, f] : facts) {
    subjects.Add(f->subject);
    fact_names.Add(f->name);
    values.Add(f->value);
    ats.AddInt(ToMicros(f->at));
  }
  Result<PgResult> up = c.ExecPrepared(
      "facts_upsert_batch",
      "INSERT INTO pr_facts (subject, name, value, at) "
      "SELECT t.subject, t.name, t.value, t.at "
      "FROM unnest($1::text[], $2::text[], $3::text[], $4::int8[]) AS t(subject, name, value, at) "
      "ON CONFLICT (subject, name) DO UPDATE SET value = excluded.value, at = excluded.at "
      "WHERE excluded.at >= pr_facts.at",
      {subjects.Param(), fact_names.Param(), values.Param(), ats.Param()});
  return up.status().WithContext("recording pull request facts");
}

Status PgStore::RecordLearned(std::span<const RepoInstallation> repos,
                              std::span<const PrFact> facts, Time now) {
  RouteDecision learned;
  learned.repos.assign(repos.begin(), repos.end());
  learned.facts.assign(facts.begin(), facts.end());
  for (const RepoInstallation& r : learned.repos) {
    if (r.repo.empty()) return InvalidArgument("a learned repository needs a name");
  }
  for (const PrFact& f : learned.facts) {
    if (f.subject.empty() || f.name.empty()) {
      return InvalidArgument("a learned fact needs a subject and a name");
    }
  }
  if (learned.repos.empty() && learned.facts.empty()) return Status::Ok();
  return Write(Durability::kRecoverable,
               [&](PgConn& c) -> Status { return ApplyLearnedInTx(c, {&learned}, now); })
      .WithContext("recording what was learned");
}

// Orders are COLLATE "C": byte order, as SQLite's and std::string's, whatever the database's
// collation.
Result<std::vector<RepoInstallation>> PgStore::ListRepositories() {
  std::vector<RepoInstallation> out;
  Status s = Read([&](PgConn& c) -> Status {
    GH_ASSIGN_OR_RETURN(PgResult r, c.ExecPrepared("repos_list",
                                                   "SELECT repo, installation_id FROM repositories "
                                                   "ORDER BY repo COLLATE \"C\""));
    for (int i = 0; i < r.rows(); ++i) out.push_back(ReadRepo(r, i));
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("listing repositories");
  return out;
}

Result<std::optional<RepoInstallation>> PgStore::GetRepository(std::string_view repo) {
  std::optional<RepoInstallation> out;
  Status s = Read([&](PgConn& c) -> Status {
    GH_ASSIGN_OR_RETURN(PgResult r, c.ExecPrepared("repos_get",
                                                   "SELECT repo, installation_id FROM "
                                                   "repositories WHERE repo = $1",
                                                   {PgParam::Text(AsciiLower(repo))}));
    if (r.rows() > 0) out = ReadRepo(r, 0);
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("reading repository " + std::string(repo));
  return out;
}

Result<std::vector<PrFact>> PgStore::GetPrFacts(std::string_view subject) {
  std::vector<PrFact> out;
  Status s = Read([&](PgConn& c) -> Status {
    GH_ASSIGN_OR_RETURN(PgResult r, c.ExecPrepared("facts_get",
                                                   "SELECT subject, name, value, at FROM pr_facts "
                                                   "WHERE subject = $1 ORDER BY name COLLATE \"C\"",
                                                   {PgParam::Text(subject)}));
    for (int i = 0; i < r.rows(); ++i) {
      out.push_back(PrFact{r.Text(i, 0), r.Text(i, 1), r.Text(i, 2), r.TimeAt(i, 3)});
    }
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("reading the facts of " + std::string(subject));
  return out;
}

Result<std::vector<std::string>> PgStore::PullRequestsWithHead(std::string_view repo,
                                                               std::string_view sha) {
  std::vector<std::string> out;
  Status s = Read([&](PgConn& c) -> Status {
    GH_ASSIGN_OR_RETURN(PgResult r, c.ExecPrepared("heads_by_sha",
                                                   "SELECT key FROM pr_heads WHERE repo = $1 AND "
                                                   "head_sha = $2 ORDER BY key COLLATE \"C\"",
                                                   {PgParam::Text(repo), PgParam::Text(sha)}));
    for (int i = 0; i < r.rows(); ++i) out.push_back(r.Text(i, 0));
    return Status::Ok();
  });
  if (!s.ok()) return s.WithContext("finding the pull requests with head " + std::string(sha));
  return out;
}

}  // namespace gatehouse::postgres
