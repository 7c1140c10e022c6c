// gatehouse audit OWNER/REPO#N: one pull request's history — the audit log (verdicts and
// actions planned, skipped, executed, superseded, ...) and its rows in the action ledger.
#include <boost/json.hpp>
#include <cstdio>
#include <string>

#include "admin/views.h"
#include "app/commands.h"
#include "app/common.h"
#include "base/log.h"
#include "base/subject.h"

namespace gatehouse::app {
namespace {

constexpr const char kAuditUsage[] =
    R"(Usage: gatehouse audit OWNER/REPO#N [--limit N] [--json] [--db URL]

A pull request's history, oldest first: every verdict, every action planned, skipped (and
why), executed, reconciled, superseded or failed, one line each:

  TIME                      KIND        HEAD     SUMMARY

then the PR's rows in the action ledger (kind, detail, head, state, attempts, result), then its
review runs (docs/REVIEWERS.md): role, head, trigger, state, reviewer, how many times a
reviewer was started, the role mailbox's failed attempts, and how the run ended (or its last
error while it waits or retries); the audit lines above say when each was assigned, started,
answered, posted or ended.
OWNER/REPO#N is case-insensitive. A pull request with no history prints "no history for
OWNER/REPO#N" and exits 0. docs/AUDIT.md describes what is recorded.

Options:
  --limit N      only the last N audit entries (default 200; the ledger is always complete)
  --json         one JSON object {"subject", "audit": [...], "actions": [...],
                 "review_runs": [...]}
  --db URL       a SQLite file (sqlite:PATH or PATH; default ./gatehouse.db)
                 or postgresql://USER@HOST:PORT/DB; default $GATEHOUSE_DATABASE_URL
  --log-level L  debug|info|warn|error|off (default warn)
  -h, --help     this text
)";


std::string ShortSha(const std::string& sha) { return sha.empty() ? "-" : sha.substr(0, 7); }

// Summaries and results are meant to be one line; keep the table a table if one is not.
std::string OneLine(std::string s) {
  for (char& c : s) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return s;
}

void PrintTable(const std::string& subject, const std::vector<AuditEntry>& audit,
                const std::vector<ActionRecord>& actions, size_t limit) {
  std::printf("%s: %zu audit entr%s%s\n", subject.c_str(), audit.size(),
              audit.size() == 1 ? "y" : "ies",
              audit.size() == limit ? (" (the last " + std::to_string(limit) + ")").c_str() : "");
  for (const AuditEntry& e : audit) {
    std::printf("%s  %-10s  %-7s  %s\n", FormatTime(e.at).c_str(), e.kind.c_str(),
                ShortSha(e.head_sha).c_str(), OneLine(e.summary).c_str());
  }
  std::printf("\nactions (ledger): %zu\n", actions.size());
  if (actions.empty()) return;
  std::printf("  %-18s %-20s %-7s  %-10s %3s  %s\n", "KIND", "DETAIL", "HEAD", "STATE", "TRY",
              "RESULT");
  for (const ActionRecord& a : actions) {
    std::printf("  %-18s %-20s %-7s  %-10s %3d  %s\n", a.key.kind.c_str(),
                a.key.detail.empty() ? "-" : OneLine(a.key.detail).c_str(),
                ShortSha(a.key.head_sha).c_str(), std::string(ActionStateName(a.state)).c_str(),
                a.attempts, OneLine(a.result).c_str());
  }
}

// A PR's review runs (docs/REVIEWERS.md, "Accounting"): each run's assignment, starts and how
// it ended, with its role mailbox's attempts and last error.
struct RunView {
  ReviewRun run;
  std::optional<WorkItem> mailbox;
  std::vector<ActionRecord> posts;  // the run mailbox's ledger rows for this run
};

Result<std::vector<RunView>> ReadRuns(Store& store, const std::string& subject) {
  GH_ASSIGN_OR_RETURN(std::vector<ReviewRun> runs, store.reviews().ListRuns(subject));
  std::vector<RunView> out;
  for (ReviewRun& r : runs) {
    RunView v;
    const std::string key = ReviewWorkKey(r.key.subject, r.key.role);
    GH_ASSIGN_OR_RETURN(v.mailbox, store.work().GetWorkItem(key));
    GH_ASSIGN_OR_RETURN(std::vector<ActionRecord> rows, store.ledger().ListActions(key));
    for (ActionRecord& a : rows) {
      if (a.key.detail == "run:" + std::to_string(r.id)) v.posts.push_back(std::move(a));
    }
    v.run = std::move(r);
    out.push_back(std::move(v));
  }
  return out;
}

void PrintRuns(const std::vector<RunView>& runs) {
  std::printf("\nreview runs: %zu\n", runs.size());
  if (runs.empty()) return;
  std::printf("  %-4s %-12s %-7s %-14s %-10s %-14s %6s %8s  %s\n", "ID", "ROLE", "HEAD",
              "TRIGGER", "STATE", "REVIEWER", "STARTS", "ATTEMPTS", "OUTCOME");
  for (const RunView& v : runs) {
    const ReviewRun& r = v.run;
    std::string outcome = r.reason;
    if (!IsTerminal(r.state) && v.mailbox && !v.mailbox->last_error.empty()) {
      outcome = "last error: " + v.mailbox->last_error;
    }
    std::printf("  %-4lld %-12s %-7s %-14s %-10s %-14s %6d %8d  %s\n", static_cast<long long>(r.id),
                r.key.role.c_str(), ShortSha(r.key.head_sha).c_str(), r.key.trigger.c_str(),
                std::string(RunStateName(r.state)).c_str(),
                r.reviewer.empty() ? "-" : r.reviewer.c_str(), r.starts,
                v.mailbox ? v.mailbox->attempts : 0, OneLine(outcome).c_str());
  }
}

}  // namespace

int RunAudit(int argc, char** argv) {
  Flags flags({"db", "limit", "log-level"}, {"json"});
  Status parsed = flags.Parse(argc, argv, 1);
  if (!parsed.ok()) {
    PrintError("audit", parsed.message());
    std::fputs(kAuditUsage, stderr);
    return kExitUsage;
  }
  if (flags.Has("help")) {
    std::fputs(kAuditUsage, stdout);
    return kExitOk;
  }
  if (flags.positional().size() != 1) {
    PrintError("audit", "expected exactly one OWNER/REPO#N");
    std::fputs(kAuditUsage, stderr);
    return kExitUsage;
  }
  const std::optional<Subject> subject = Subject::Parse(flags.positional()[0]);
  if (!subject) {
    PrintError("audit", "'" + flags.positional()[0] + "' is not OWNER/REPO#N");
    return kExitUsage;
  }
  auto limit = flags.GetInt("limit", 200, 1, 1'000'000);
  if (!limit.ok()) {
    PrintError("audit", limit.status().message());
    return kExitUsage;
  }
  SetLogLevel(LogLevel::kWarn);
  if (flags.Has("log-level") && !ApplyLogLevel(flags)) return kExitUsage;
  auto store = OpenStoreFromFlags(flags, /*must_exist=*/true);
  if (!store.ok()) {
    PrintError("audit", store.status().ToString());
    return kExitFailure;
  }
  if (flags.Has("json")) {
    // The same document as the admin API's timeline (admin/views.h).
    auto timeline = admin::TimelineView(**store, subject->key(), static_cast<size_t>(*limit));
    if (!timeline.ok()) {
      PrintError("audit", timeline.status().ToString());
      return kExitFailure;
    }
    std::printf("%s\n", boost::json::serialize(*timeline).c_str());
    return kExitOk;
  }
  auto audit = (*store)->audit().ListAudit(subject->key(), static_cast<size_t>(*limit));
  auto actions = (*store)->ledger().ListActions(subject->key());
  auto runs = ReadRuns(**store, subject->key());
  if (!audit.ok() || !actions.ok() || !runs.ok()) {
    const Status bad = !audit.ok() ? audit.status()
                       : !actions.ok() ? actions.status()
                                       : runs.status();
    PrintError("audit", bad.ToString());
    return kExitFailure;
  }
  if (audit->empty() && actions->empty() && runs->empty()) {
    std::printf("no history for %s\n", subject->key().c_str());
    return kExitOk;
  }
  PrintTable(subject->key(), *audit, *actions, static_cast<size_t>(*limit));
  PrintRuns(*runs);
  return kExitOk;
}

}  // namespace gatehouse::app
