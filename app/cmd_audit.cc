// gatehouse audit OWNER/REPO#N: one pull request's history — the audit log (verdicts and
// actions planned, skipped, executed, superseded, ...) and its rows in the action ledger.
#include <boost/json.hpp>
#include <cstdio>
#include <string>

#include "app/admin_client.h"
#include "app/commands.h"
#include "app/common.h"
#include "app/json_fields.h"
#include "base/log.h"
#include "base/subject.h"

namespace gatehouse::app {
namespace {

constexpr const char kAuditUsage[] =
    R"(Usage: gatehouse audit OWNER/REPO#N [--limit N] [--json] [--db URL | --server URL]

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
  --json         the admin API's timeline document {"subject", "work", "audit": [...],
                 "actions": [...], "review_runs": [...]} (docs/ADMIN_API.md)
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

std::string Cell(const boost::json::value& v, std::string_view name) {
  std::string text = OneLine(TextOf(v, name));
  return text.empty() ? "-" : text;
}

void PrintTable(const boost::json::value& timeline, size_t limit) {
  const boost::json::array& audit = ArrayOf(timeline, "audit");
  const boost::json::array& actions = ArrayOf(timeline, "actions");
  std::printf("%s: %zu audit entr%s%s\n", TextOf(timeline, "subject").c_str(), audit.size(),
              audit.size() == 1 ? "y" : "ies",
              audit.size() == limit ? (" (the last " + std::to_string(limit) + ")").c_str() : "");
  for (const boost::json::value& e : audit) {
    std::printf("%s  %-10s  %-7s  %s\n", TextOf(e, "at").c_str(), TextOf(e, "kind").c_str(),
                ShortSha(TextOf(e, "head_sha")).c_str(), OneLine(TextOf(e, "summary")).c_str());
  }
  std::printf("\nactions (ledger): %zu\n", actions.size());
  if (actions.empty()) return;
  std::printf("  %-18s %-20s %-7s  %-10s %3s  %s\n", "KIND", "DETAIL", "HEAD", "STATE", "TRY",
              "RESULT");
  for (const boost::json::value& a : actions) {
    std::printf("  %-18s %-20s %-7s  %-10s %3lld  %s\n", TextOf(a, "kind").c_str(),
                Cell(a, "detail").c_str(), ShortSha(TextOf(a, "head_sha")).c_str(),
                TextOf(a, "state").c_str(), static_cast<long long>(IntOf(a, "attempts")),
                OneLine(TextOf(a, "result")).c_str());
  }
}

// A PR's review runs (docs/REVIEWERS.md, "Accounting"): each run's assignment, starts and how
// it ended, with its role mailbox's attempts and last error.
void PrintRuns(const boost::json::array& runs) {
  std::printf("\nreview runs: %zu\n", runs.size());
  if (runs.empty()) return;
  std::printf("  %-4s %-12s %-7s %-14s %-10s %-14s %6s %8s  %s\n", "ID", "ROLE", "HEAD",
              "TRIGGER", "STATE", "REVIEWER", "STARTS", "ATTEMPTS", "OUTCOME");
  for (const boost::json::value& r : runs) {
    const boost::json::value* found = FieldOf(r, "mailbox");
    const boost::json::value mailbox = found != nullptr ? *found : boost::json::value();
    std::string outcome = TextOf(r, "reason");
    RunState state;
    const bool terminal = ParseRunState(TextOf(r, "state"), &state) && IsTerminal(state);
    if (!terminal && !TextOf(mailbox, "last_error").empty()) {
      outcome = "last error: " + TextOf(mailbox, "last_error");
    }
    std::printf("  %-4lld %-12s %-7s %-14s %-10s %-14s %6lld %8lld  %s\n",
                static_cast<long long>(IntOf(r, "id")), TextOf(r, "role").c_str(),
                ShortSha(TextOf(r, "head_sha")).c_str(), TextOf(r, "trigger").c_str(),
                TextOf(r, "state").c_str(), Cell(r, "reviewer").c_str(),
                static_cast<long long>(IntOf(r, "starts")),
                static_cast<long long>(IntOf(mailbox, "attempts")), OneLine(outcome).c_str());
  }
}

}  // namespace

int RunAudit(int argc, char** argv) {
  Flags flags({"db", "limit", "log-level", "server", "token-file"}, {"json"});
  Status parsed = flags.Parse(argc, argv, 1);
  if (!parsed.ok()) {
    PrintError("audit", parsed.message());
    std::fprintf(stderr, "%s%s", kAuditUsage, kAdminClientOptions);
    return kExitUsage;
  }
  if (flags.Has("help")) {
    std::printf("%s%s", kAuditUsage, kAdminClientOptions);
    return kExitOk;
  }
  if (flags.positional().size() != 1) {
    PrintError("audit", "expected exactly one OWNER/REPO#N");
    std::fprintf(stderr, "%s%s", kAuditUsage, kAdminClientOptions);
    return kExitUsage;
  }
  const std::optional<Subject> subject = Subject::Parse(flags.positional()[0]);
  if (!subject) {
    PrintError("audit", "'" + flags.positional()[0] + "' is not OWNER/REPO#N");
    return kExitUsage;
  }
  auto limit = flags.GetInt("limit", 200, 1, 100'000);  // the API's ceiling
  if (!limit.ok()) {
    PrintError("audit", limit.status().message());
    return kExitUsage;
  }
  SetLogLevel(LogLevel::kWarn);
  if (flags.Has("log-level") && !ApplyLogLevel(flags)) return kExitUsage;
  auto client = OpenAdminClient(flags, /*must_exist=*/true);
  if (!client.ok()) {
    PrintError("audit", client.status().ToString());
    return client.status().code() == StatusCode::kInvalidArgument ? kExitUsage : kExitFailure;
  }
  // The admin API's timeline (admin/views.h), from the server or the database.
  auto timeline = (*client)->Call(
      "GET", "/api/v1/prs/" + Encode(subject->owner()) + "/" + Encode(subject->repo_name()) + "/" +
                 std::to_string(subject->number()) + "/timeline?limit=" + std::to_string(*limit));
  if (!timeline.ok()) {
    PrintError("audit", timeline.status().ToString());
    return kExitFailure;
  }
  if (flags.Has("json")) {
    std::printf("%s\n", boost::json::serialize(*timeline).c_str());
    return kExitOk;
  }
  if (ArrayOf(*timeline, "audit").empty() && ArrayOf(*timeline, "actions").empty() &&
      ArrayOf(*timeline, "review_runs").empty()) {
    std::printf("no history for %s\n", subject->key().c_str());
    return kExitOk;
  }
  PrintTable(*timeline, static_cast<size_t>(*limit));
  PrintRuns(ArrayOf(*timeline, "review_runs"));
  return kExitOk;
}

}  // namespace gatehouse::app
