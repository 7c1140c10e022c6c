// gatehouse audit OWNER/REPO#N: one pull request's history — the audit log (verdicts and
// actions planned, skipped, executed, superseded, ...) and its rows in the action ledger.
#include <boost/json.hpp>
#include <cstdio>
#include <string>

#include "app/commands.h"
#include "app/common.h"
#include "base/log.h"
#include "base/subject.h"

namespace gatehouse::app {
namespace {

constexpr const char kAuditUsage[] =
    R"(Usage: gatehouse audit OWNER/REPO#N [--limit N] [--json] [--db PATH]

A pull request's history, oldest first: every verdict, every action planned, skipped (and
why), executed, reconciled, superseded or failed, one line each:

  TIME                      KIND        HEAD     SUMMARY

then the PR's rows in the action ledger (kind, detail, head, state, attempts, result).
OWNER/REPO#N is case-insensitive. A pull request with no history prints "no history for
OWNER/REPO#N" and exits 0. docs/AUDIT.md describes what is recorded.

Options:
  --limit N      only the last N audit entries (default 200; the ledger is always complete)
  --json         one JSON object {"subject", "audit": [...], "actions": [...]}
  --db PATH      SQLite database file (default ./gatehouse.db)
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

// The detail column is JSON text: embedded as JSON when it parses, as a string otherwise.
boost::json::value DetailJson(const std::string& detail) {
  if (detail.empty()) return nullptr;
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(detail, ec);
  if (ec) return boost::json::value(detail);
  return v;
}

boost::json::object ToJson(const AuditEntry& e) {
  boost::json::object o;
  o["id"] = e.id;
  o["at"] = FormatTime(e.at);
  o["kind"] = e.kind;
  o["fence"] = e.fence;
  o["head_sha"] = e.head_sha;
  o["summary"] = e.summary;
  o["detail"] = DetailJson(e.detail);
  return o;
}

boost::json::object ToJson(const ActionRecord& a) {
  boost::json::object o;
  o["id"] = a.id;
  o["kind"] = a.key.kind;
  o["detail"] = a.key.detail;
  o["head_sha"] = a.key.head_sha;
  o["state"] = std::string(ActionStateName(a.state));
  o["fence"] = a.fence;
  o["attempts"] = a.attempts;
  o["result"] = a.result;
  o["created_at"] = FormatTime(a.created_at);
  o["updated_at"] = FormatTime(a.updated_at);
  return o;
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
  auto audit = (*store)->audit().ListAudit(subject->key(), static_cast<size_t>(*limit));
  auto actions = (*store)->ledger().ListActions(subject->key());
  if (!audit.ok() || !actions.ok()) {
    PrintError("audit", (!audit.ok() ? audit.status() : actions.status()).ToString());
    return kExitFailure;
  }
  if (flags.Has("json")) {
    boost::json::object o;
    o["subject"] = subject->key();
    boost::json::array entries, ledger;
    for (const AuditEntry& e : *audit) entries.push_back(ToJson(e));
    for (const ActionRecord& a : *actions) ledger.push_back(ToJson(a));
    o["audit"] = std::move(entries);
    o["actions"] = std::move(ledger);
    std::printf("%s\n", boost::json::serialize(o).c_str());
    return kExitOk;
  }
  if (audit->empty() && actions->empty()) {
    std::printf("no history for %s\n", subject->key().c_str());
    return kExitOk;
  }
  PrintTable(subject->key(), *audit, *actions, static_cast<size_t>(*limit));
  return kExitOk;
}

}  // namespace gatehouse::app
