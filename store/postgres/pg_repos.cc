// PgStore: what routing learns besides signals — the repositories gatehouse covers (with
// their App installation), small per-PR facts, and the PR heads used to resolve commits. As
// SQLite (store/sqlite/sqlite_repos.cc). Every write is one upsert or delete by key, atomic on
// its own, so concurrent writers need no locks beyond the row locks these statements take.
#include <string>

#include "base/ascii.h"
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

Status PgStore::ApplyLearnedInTx(PgConn& c, const RouteDecision& d, Time now) {
  for (const RepoInstallation& r : d.repos) {
    // COALESCE: a payload without `installation` says nothing about it, so a known id stays.
    Result<PgResult> up = c.ExecPrepared(
        "repos_upsert",
        "INSERT INTO repositories (repo, installation_id, updated_at) VALUES ($1, $2, $3) "
        "ON CONFLICT (repo) DO UPDATE SET "
        "installation_id = COALESCE(excluded.installation_id, repositories.installation_id), "
        "updated_at = excluded.updated_at",
        {PgParam::Text(AsciiLower(r.repo)),
         r.installation_id ? PgParam::Int(*r.installation_id) : PgParam::Null(), PgParam::At(now)});
    GH_RETURN_IF_ERROR(up.status().WithContext("recording repository " + r.repo));
  }
  for (const std::string& repo : d.repos_removed) {
    Result<PgResult> del =
        c.ExecPrepared("repos_delete", "DELETE FROM repositories WHERE repo = $1",
                       {PgParam::Text(AsciiLower(repo))});
    GH_RETURN_IF_ERROR(del.status().WithContext("forgetting repository " + repo));
  }
  for (const PrFact& f : d.facts) {
    // Deliveries may be routed out of order; the fact learned later (by `at`) wins.
    Result<PgResult> up = c.ExecPrepared(
        "facts_upsert",
        "INSERT INTO pr_facts (subject, name, value, at) VALUES ($1, $2, $3, $4) "
        "ON CONFLICT (subject, name) DO UPDATE SET value = excluded.value, at = excluded.at "
        "WHERE excluded.at >= pr_facts.at",
        {PgParam::Text(f.subject), PgParam::Text(f.name), PgParam::Text(f.value),
         PgParam::At(f.at)});
    GH_RETURN_IF_ERROR(up.status().WithContext("recording fact " + f.name + " of " + f.subject));
  }
  return Status::Ok();
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
               [&](PgConn& c) -> Status { return ApplyLearnedInTx(c, learned, now); })
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
