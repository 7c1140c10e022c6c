// SqliteStore: what routing learns besides signals — the repositories gatehouse covers (with
// their App installation) and small per-PR facts.
#include <string>

#include "base/ascii.h"
#include "store/sqlite/sqlite_store.h"

namespace gatehouse {
namespace {


RepoInstallation ReadRepo(const sqlite::Stmt& q) {
  RepoInstallation r;
  r.repo = q.Text(0);
  if (!q.IsNull(1)) r.installation_id = q.Int(1);
  return r;
}

}  // namespace

Status SqliteStore::ApplyLearnedInTx(const RouteDecision& d, Time now) {
  for (const RepoInstallation& r : d.repos) {
    // COALESCE: a payload without `installation` says nothing about it, so a known id stays.
    GH_ASSIGN_OR_RETURN(auto up,
                        db_->Prepare("INSERT INTO repositories (repo, installation_id, "
                                     "updated_at) VALUES (?1, ?2, ?3) "
                                     "ON CONFLICT (repo) DO UPDATE SET "
                                     "installation_id = COALESCE(excluded.installation_id,"
                                     " installation_id), updated_at = excluded.updated_at"));
    up->Bind(1, AsciiLower(r.repo)).Bind(3, now);
    if (r.installation_id) {
      up->Bind(2, *r.installation_id);
    } else {
      up->BindNull(2);
    }
    GH_RETURN_IF_ERROR(up->Run().WithContext("recording repository " + r.repo));
  }
  for (const std::string& repo : d.repos_removed) {
    GH_ASSIGN_OR_RETURN(auto del, db_->Prepare("DELETE FROM repositories WHERE repo = ?1"));
    del->Bind(1, AsciiLower(repo));
    GH_RETURN_IF_ERROR(del->Run().WithContext("forgetting repository " + repo));
  }
  for (const PrFact& f : d.facts) {
    // Deliveries may be routed out of order; the fact learned later (by `at`) wins.
    GH_ASSIGN_OR_RETURN(auto up, db_->Prepare("INSERT INTO pr_facts (subject, name, value, at) "
                                              "VALUES (?1, ?2, ?3, ?4) "
                                              "ON CONFLICT (subject, name) DO UPDATE SET "
                                              "value = excluded.value, at = excluded.at "
                                              "WHERE excluded.at >= pr_facts.at"));
    up->Bind(1, f.subject).Bind(2, f.name).Bind(3, f.value).Bind(4, f.at);
    GH_RETURN_IF_ERROR(up->Run().WithContext("recording fact " + f.name + " of " + f.subject));
  }
  return Status::Ok();
}

Status SqliteStore::RecordLearned(std::span<const RepoInstallation> repos,
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
  MutexLock lock(&mu_);
  return db_
      ->WriteTransaction(Durability::kRecoverable,
                         [&]() REQUIRES(mu_) -> Status { return ApplyLearnedInTx(learned, now); })
      .WithContext("recording what was learned");
}

Result<std::vector<RepoInstallation>> SqliteStore::ListRepositories() {
  MutexLock lock(&mu_);
  GH_ASSIGN_OR_RETURN(auto q, db_->Prepare("SELECT repo, installation_id FROM repositories "
                                           "ORDER BY repo"));
  std::vector<RepoInstallation> out;
  while (true) {
    GH_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    out.push_back(ReadRepo(*q));
  }
  return out;
}

Result<std::optional<RepoInstallation>> SqliteStore::GetRepository(std::string_view repo) {
  MutexLock lock(&mu_);
  GH_ASSIGN_OR_RETURN(auto q, db_->Prepare("SELECT repo, installation_id FROM repositories "
                                           "WHERE repo = ?1"));
  q->Bind(1, AsciiLower(repo));
  GH_ASSIGN_OR_RETURN(bool row, q->Step());
  if (!row) return std::optional<RepoInstallation>();
  return std::optional<RepoInstallation>(ReadRepo(*q));
}

Result<std::vector<PrFact>> SqliteStore::GetPrFacts(std::string_view subject) {
  MutexLock lock(&mu_);
  GH_ASSIGN_OR_RETURN(auto q, db_->Prepare("SELECT subject, name, value, at FROM pr_facts "
                                           "WHERE subject = ?1 ORDER BY name"));
  q->Bind(1, subject);
  std::vector<PrFact> out;
  while (true) {
    GH_ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    out.push_back(PrFact{q->Text(0), q->Text(1), q->Text(2), q->TimeAt(3)});
  }
  return out;
}

}  // namespace gatehouse
