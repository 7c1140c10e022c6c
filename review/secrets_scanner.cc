#include "review/secrets_scanner.h"

#include <re2/re2.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "review/review_json.h"

namespace gatehouse::review {

// A specific credential format; group 1 is the credential (or, for PEM, the header). Outside
// the anonymous namespace: SecretsScanner::Patterns holds pointers to these.
struct SecretDetector {
  const char* kind;
  const char* pattern;
  bool show_preview;
};

namespace {

using decide::ReviewFinding;
using decide::ReviewResult;
using re2::StringPiece;

// The patterns are constants of this file: failing to compile one is a bug, caught at once.
std::unique_ptr<RE2> Compile(const char* pattern) {
  RE2::Options options;
  options.set_log_errors(false);
  auto re = std::make_unique<RE2>(pattern, options);
  if (!re->ok()) {
    std::fprintf(stderr, "secrets_scanner: bad pattern %s: %s\n", pattern, re->error().c_str());
    std::abort();
  }
  return re;
}

constexpr SecretDetector kDetectors[] = {
    {"private key", R"((-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----))", false},
    {"AWS access key id", R"(\b((?:AKIA|ASIA)[A-Z0-9]{16})\b)", true},
    {"AWS secret access key",
     R"((?i)aws[a-z0-9_.\-]*secret[a-z0-9_.\-]*["']?\s*(?::=|=>|[:=])\s*["']?)"
     R"(([a-z0-9/+]{40})(?:[^a-z0-9/+=]|$))",
     true},
    {"GitHub token", R"(\b((?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{36,251})\b)", true},
    {"GitHub token", R"(\b(github_pat_[A-Za-z0-9_]{22,251})\b)", true},
    {"Slack token", R"(\b(xox[abprs]-(?:[0-9]+-)+[0-9A-Za-z]{8,}))", true},
    {"Slack webhook URL",
     R"((https://hooks\.slack\.com/services/T[A-Z0-9]{6,}/B[A-Z0-9]{6,}/[A-Za-z0-9]{16,}))", true},
    {"Google API key", R"(\b(AIza[0-9A-Za-z_\-]{35})(?:[^0-9A-Za-z_\-]|$))", true},
    {"Stripe live key", R"(\b((?:sk|rk)_live_[0-9A-Za-z]{24,}))", true},
};

// name [:=] value, the value double-quoted (2), single-quoted (3) or bare (4).
constexpr const char* kAssignment =
    R"re((?i)([a-z0-9_.\-]*(?:secret|token|passwd|password|pwd|api[_\-]?key|access[_\-]?key|)re"
    R"re(private[_\-]?key|auth[_\-]?key|credentials?)[a-z0-9_.\-]*)["']?\s*(?::=|=>|[:=])\s*)re"
    R"re((?:"([^"\s]+)"|'([^'\s]+)'|([a-z0-9+/=_\-.~]+)))re";

constexpr size_t kMinSecretLength = 20;

std::string Preview(std::string_view secret) {
  size_t end = std::min<size_t>(4, secret.size());
  while (end > 0 && end < secret.size() &&
         (static_cast<unsigned char>(secret[end]) & 0xC0) == 0x80) {
    --end;
  }
  return std::string(secret.substr(0, end)) + "…";
}

bool IsAllHex(std::string_view s) {
  for (char c : s) {
    if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

bool HasLetterAndDigit(std::string_view s) {
  bool letter = false, digit = false;
  for (char c : s) {
    letter |= std::isalpha(static_cast<unsigned char>(c)) != 0;
    digit |= std::isdigit(static_cast<unsigned char>(c)) != 0;
  }
  return letter && digit;
}

bool IsPlaceholder(std::string_view s) {
  std::string lower(s);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* word : {"example", "placeholder", "changeme", "your_", "your-", "xxxx", "****",
                           "dummy", "redacted", "<", "sample"}) {
    if (lower.find(word) != std::string::npos) return true;
  }
  return false;
}

}  // namespace

double ShannonEntropy(std::string_view s) {
  if (s.empty()) return 0;
  size_t counts[256] = {0};
  for (char c : s) ++counts[static_cast<unsigned char>(c)];
  double bits = 0;
  const double n = static_cast<double>(s.size());
  for (size_t count : counts) {
    if (count == 0) continue;
    const double p = static_cast<double>(count) / n;
    bits -= p * std::log2(p);
  }
  return bits;
}

struct SecretsScanner::Patterns {
  std::vector<std::pair<const SecretDetector*, std::unique_ptr<RE2>>> detectors;
  std::unique_ptr<RE2> assignment = Compile(kAssignment);
  std::unique_ptr<RE2> uuid =
      Compile(R"([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})");
  std::unique_ptr<RE2> dotted_name =
      Compile(R"([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+)");
  // Words and numbers joined by separators: a name ("deploy_token_v2"), not a credential.
  std::unique_ptr<RE2> wordish = Compile(R"([A-Za-z]*[0-9]*(?:[_\-./][A-Za-z]*[0-9]*)*)");
  std::unique_ptr<RE2> hunk = Compile(R"(@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@.*)");

  Patterns() {
    for (const SecretDetector& d : kDetectors) detectors.emplace_back(&d, Compile(d.pattern));
  }

  // Whether an assigned value looks like a credential rather than code, an id or a digest.
  bool LooksLikeSecret(std::string_view value, bool quoted) const {
    if (value.size() < kMinSecretLength || !HasLetterAndDigit(value)) return false;
    if (IsAllHex(value) || RE2::FullMatch(value, *uuid)) return false;
    const char first = value.front();
    if (first == '$' || first == '%' || first == '{') return false;
    if (!quoted && RE2::FullMatch(value, *dotted_name)) return false;  // os.environ.X
    if (IsPlaceholder(value) || RE2::FullMatch(value, *wordish)) return false;
    // A random 20-character secret scores about 4.0 bits, so short values get a lower bar.
    const double threshold = std::min(4.0, std::log2(static_cast<double>(value.size())) - 1.0);
    return ShannonEntropy(value) >= threshold;
  }
};

SecretsScanner::SecretsScanner() : patterns_(std::make_unique<const Patterns>()) {}
SecretsScanner::~SecretsScanner() = default;

std::vector<SecretHit> SecretsScanner::ScanLine(std::string_view line) const {
  std::vector<SecretHit> hits;
  for (const auto& [detector, re] : patterns_->detectors) {
    StringPiece found;
    if (!RE2::PartialMatch(line, *re, &found)) continue;
    bool seen = false;
    for (const auto& h : hits) seen |= h.kind == detector->kind;
    if (seen) continue;
    hits.push_back({detector->kind, detector->show_preview ? Preview(found) : ""});
  }
  if (!hits.empty()) return hits;

  StringPiece input(line);
  StringPiece name, double_quoted, single_quoted, bare;
  while (RE2::FindAndConsume(&input, *patterns_->assignment, &name, &double_quoted, &single_quoted,
                             &bare)) {
    const bool quoted = !double_quoted.empty() || !single_quoted.empty();
    const std::string_view value =
        !double_quoted.empty() ? double_quoted : (!single_quoted.empty() ? single_quoted : bare);
    if (!patterns_->LooksLikeSecret(value, quoted)) continue;
    hits.push_back({"high-entropy value assigned to " + std::string(name), Preview(value)});
    break;
  }
  return hits;
}

std::vector<ReviewFinding> SecretsScanner::ScanPatch(std::string_view path, std::string_view patch,
                                                     int64_t* added_lines) const {
  std::vector<ReviewFinding> findings;
  bool in_hunk = false;
  int64_t new_line = 0, old_left = 0, new_left = 0;
  while (!patch.empty()) {
    const size_t eol = patch.find('\n');
    std::string_view line = patch.substr(0, eol);
    patch.remove_prefix(eol == std::string_view::npos ? patch.size() : eol + 1);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);

    if (line.starts_with("@@")) {
      StringPiece a, b, c, d;
      in_hunk = RE2::FullMatch(line, *patterns_->hunk, &a, &b, &c, &d);
      if (!in_hunk) continue;
      new_line = std::atoll(std::string(c).c_str());
      old_left = b.empty() ? 1 : std::atoll(std::string(b).c_str());
      new_left = d.empty() ? 1 : std::atoll(std::string(d).c_str());
      continue;
    }
    if (!in_hunk) continue;  // "diff --git", "--- a/x", "+++ b/x", ...
    // Within a hunk's counts, "+++x" is the added line "++x"; past them it is a file header.
    const bool counted = old_left > 0 || new_left > 0;
    if (!counted &&
        (line.starts_with("+++") || line.starts_with("---") || line.starts_with("diff "))) {
      in_hunk = false;
      continue;
    }
    const char tag = line.empty() ? ' ' : line.front();
    if (tag == '+') {
      ++*added_lines;
      for (auto& hit : ScanLine(line.substr(1))) {
        std::string message = hit.kind + " added";
        if (!hit.preview.empty()) message += " (" + hit.preview + ")";
        message += ": remove it from the change and revoke it";
        findings.push_back(
            {std::string(path), new_line, decide::Severity::kBlocking, std::move(message)});
      }
      ++new_line;
      --new_left;
    } else if (tag == '-') {
      --old_left;
    } else if (tag == ' ') {
      ++new_line;
      --old_left;
      --new_left;
    } else if (tag != '\\') {  // "\ No newline at end of file" counts nothing
      in_hunk = false;
    }
  }
  return findings;
}

namespace {

// At most this many files without a patch are listed, each as an info finding.
constexpr size_t kMaxUnscannedListed = 20;
constexpr char kNotScanned[] = "not scanned: GitHub sent no patch";

std::string Plural(int64_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// What scanning a request's files found, file by file.
struct ScanTally {
  std::vector<ReviewFinding> findings;  // blocking, in file order
  int64_t added_lines = 0;
  // Files that add lines but came without a patch (GitHub omits it for large and binary
  // files): their additions were never read, so the scan cannot vouch for them.
  std::vector<std::string> unscanned;

  void Add(const SecretsScanner& scanner, const decide::ChangedFile& file) {
    if (file.additions > 0 && file.patch.empty()) {
      unscanned.push_back(file.path);
      return;
    }
    for (auto& f : scanner.ScanPatch(file.path, file.patch, &added_lines)) {
      findings.push_back(std::move(f));
    }
  }
};

// A clean scan approves only when every added line was read; unscanned files make it a
// comment, and any blocking finding a request for changes.
ReviewResult SecretsResult(ScanTally tally) {
  ReviewResult result;
  const std::string lines = Plural(tally.added_lines, "added line", "added lines");
  const size_t listed_unscanned = std::min(tally.unscanned.size(), kMaxUnscannedListed);
  const size_t max_blocking = kMaxFindings - listed_unscanned;
  std::vector<ReviewFinding>& findings = tally.findings;
  if (!findings.empty()) {
    result.verdict = decide::ReviewVerdict::kRequestChanges;
    result.summary = "found " +
                     Plural(static_cast<int64_t>(findings.size()), "possible credential",
                            "possible credentials") +
                     " in " + lines;
    if (findings.size() > max_blocking) {
      result.summary += " (the first " + std::to_string(max_blocking) + " are listed)";
      findings.resize(max_blocking);
    }
  } else {
    result.verdict =
        tally.unscanned.empty() ? decide::ReviewVerdict::kApprove : decide::ReviewVerdict::kComment;
    result.summary = "no credentials found in " + lines;
  }
  if (!tally.unscanned.empty()) {
    const auto count = static_cast<int64_t>(tally.unscanned.size());
    result.summary +=
        "; " + Plural(count, "file", "files") + " could not be scanned (GitHub sent no patch";
    if (tally.unscanned.size() > listed_unscanned) {
      result.summary += "; the first " + std::to_string(listed_unscanned) + " are listed";
    }
    result.summary += ")";
    for (size_t i = 0; i < listed_unscanned; ++i) {
      findings.push_back({tally.unscanned[i], 0, decide::Severity::kInfo, kNotScanned});
    }
  }
  result.findings = std::move(findings);
  return result;
}

}  // namespace

ReviewResult SecretsScanner::Scan(const decide::ReviewRequest& request) const {
  ScanTally tally;
  for (const auto& file : request.files) tally.Add(*this, file);
  return SecretsResult(std::move(tally));
}

ExecOutcome SecretsExecutor::Review(const decide::ReviewRequest& request, Duration /*timeout*/,
                                    const CancelProbe& cancelled) {
  ScanTally tally;
  for (const auto& file : request.files) {
    if (cancelled && cancelled()) return ExecOutcome::Cancelled("cancelled while scanning");
    tally.Add(scanner_, file);
  }
  return ExecOutcome::Ok(SecretsResult(std::move(tally)));
}

}  // namespace gatehouse::review
