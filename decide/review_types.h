// The review vocabulary (docs/REVIEWERS.md): what a reviewer is asked (ReviewRequest) and what it
// answers (ReviewResult), as plain values shared by the executors (review/), the review pass
// (act/review_pass.h), the store (the result is kept as JSON) and the gate (decide/gate.h reads
// each role's verdict and blockers).
//
// Header-only plain types; safe from any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gatehouse::decide {

enum class ReviewVerdict { kApprove, kComment, kRequestChanges };

inline std::string_view ReviewVerdictName(ReviewVerdict v) {
  switch (v) {
    case ReviewVerdict::kApprove:
      return "approve";
    case ReviewVerdict::kComment:
      return "comment";
    case ReviewVerdict::kRequestChanges:
      return "request_changes";
  }
  return "comment";
}

inline std::optional<ReviewVerdict> ParseReviewVerdict(std::string_view s) {
  if (s == "approve") return ReviewVerdict::kApprove;
  if (s == "comment") return ReviewVerdict::kComment;
  if (s == "request_changes") return ReviewVerdict::kRequestChanges;
  return std::nullopt;
}

// A finding's severity. `blocking` findings block the gate for a required role, whatever the
// verdict; the others are shown but never block.
enum class Severity { kInfo, kWarning, kBlocking };

inline std::string_view SeverityName(Severity s) {
  switch (s) {
    case Severity::kInfo:
      return "info";
    case Severity::kWarning:
      return "warning";
    case Severity::kBlocking:
      return "blocking";
  }
  return "info";
}

inline std::optional<Severity> ParseSeverity(std::string_view s) {
  if (s == "info") return Severity::kInfo;
  if (s == "warning") return Severity::kWarning;
  if (s == "blocking") return Severity::kBlocking;
  return std::nullopt;
}

struct ReviewFinding {
  std::string path;
  int64_t line = 0;  // 1-based line in the new file; 0 = the file as a whole
  Severity severity = Severity::kInfo;
  std::string message;
  bool operator==(const ReviewFinding&) const = default;
};

struct ReviewResult {
  ReviewVerdict verdict = ReviewVerdict::kComment;
  std::string summary;
  std::vector<ReviewFinding> findings;
  bool operator==(const ReviewResult&) const = default;

  int blockers() const {
    int n = 0;
    for (const auto& f : findings) n += f.severity == Severity::kBlocking ? 1 : 0;
    return n;
  }
};

// One changed file of the PR, with its unified-diff hunk text as GitHub's `patch` shows it
// (empty for binary files and for files GitHub does not diff).
struct ChangedFile {
  std::string path;
  std::string status;  // added, modified, removed, renamed, ...
  int additions = 0;
  int deletions = 0;
  std::string patch;
};

struct ReviewRequest {
  std::string repo;  // "owner/name"
  int64_t number = 0;
  std::string role;
  std::string head_sha;
  std::string base_sha;
  std::string title;
  std::string body;
  std::string author;
  std::vector<ChangedFile> files;
  // The findings this role reported on this PR at earlier heads (latest finished run), so a
  // re-review can say which are resolved.
  std::vector<ReviewFinding> prior_findings;
  std::string prior_head_sha;  // the head those findings were made on; "" when none
};

}  // namespace gatehouse::decide
