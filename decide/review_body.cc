// How review results show on GitHub. See decide/review_body.h.
#include "decide/review_body.h"

#include <algorithm>
#include <charconv>
#include <set>
#include <utility>

#include "decide/reviewers_config.h"

namespace gatehouse::decide {
namespace {

constexpr size_t kMaxMessageBytes = 1000;
constexpr size_t kMaxSummaryBytes = 8000;
constexpr size_t kShortSha = 7;

// `text` with every "<!--" escaped, so untrusted text can never open a (marker) comment.
std::string NoComments(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text.substr(i, 4) == "<!--") {
      out += "&lt;!--";
      i += 3;
    } else {
      out += text[i];
    }
  }
  return out;
}

// Cut to at most `max` bytes, on a UTF-8 character boundary, marked with an ellipsis.
std::string Truncate(std::string text, size_t max) {
  if (text.size() <= max) return text;
  size_t cut = max;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  text.resize(cut);
  return text + "…";
}

// One line of untrusted text: line breaks become spaces.
std::string OneLine(std::string_view text, size_t max) {
  std::string out = NoComments(text);
  for (char& c : out) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return Truncate(std::move(out), max);
}

// A path in a code span: backticks cannot end it early.
std::string CodeSpan(std::string_view text) {
  std::string out = OneLine(text, kMaxMessageBytes);
  std::replace(out.begin(), out.end(), '`', '\'');
  return "`" + out + "`";
}

std::string Location(const ReviewFinding& f) {
  if (f.path.empty()) return "(general)";
  return CodeSpan(f.line > 0 ? f.path + ":" + std::to_string(f.line) : f.path);
}

std::string Plural(int n, std::string_view one, std::string_view many) {
  return std::to_string(n) + " " + std::string(n == 1 ? one : many);
}

void AppendFindingList(std::string& out, const std::vector<ReviewFinding>& findings,
                       bool with_severity) {
  const size_t listed = std::min(findings.size(), kMaxListedFindings);
  for (size_t i = 0; i < listed; ++i) {
    const ReviewFinding& f = findings[i];
    out += "- " + Location(f);
    if (with_severity) {
      const std::string_view sev = SeverityName(f.severity);
      out += f.severity == Severity::kBlocking ? " **" + std::string(sev) + "**"
                                               : " " + std::string(sev);
    }
    out += ": " + OneLine(f.message, kMaxMessageBytes) + "\n";
  }
  if (findings.size() > listed)
    out += "- and " + std::to_string(findings.size() - listed) + " more\n";
}

bool IsAlnum(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  });
}

// Reads "key=value" up to the next space from the front of `rest`.
std::optional<std::string_view> TakeField(std::string_view& rest, std::string_view key) {
  if (rest.substr(0, key.size() + 1) != std::string(key) + "=") return std::nullopt;
  rest.remove_prefix(key.size() + 1);
  const size_t end = rest.find(' ');
  if (end == std::string_view::npos) return std::nullopt;
  std::string_view value = rest.substr(0, end);
  rest.remove_prefix(end + 1);
  return value;
}

// "request_changes · 1 blocker", "queued", "dead: the reason".
std::string RoleStatus(const RoleReview& r) {
  if (r.result && (r.state == "done" || r.state == "finished")) {
    std::string s = "**" + std::string(ReviewVerdictName(r.result->verdict)) + "**";
    if (r.result->blockers() > 0) s += " · " + Plural(r.result->blockers(), "blocker", "blockers");
    if (r.state == "finished") s += " (not posted yet)";
    return s;
  }
  std::string s = r.state == "missing" ? "no review yet" : r.state;
  if (!r.reason.empty()) s += ": " + OneLine(r.reason, kMaxMessageBytes);
  return s;
}

}  // namespace

std::string ReviewMarkerText(std::string_view role, std::string_view head_sha, int64_t run_id) {
  return std::string(kReviewMarkerPrefix) + "role=" + std::string(role) +
         " head=" + std::string(head_sha) + " run=" + std::to_string(run_id) + " -->";
}

std::optional<ReviewMarker> ParseReviewMarker(std::string_view body) {
  const size_t at = body.rfind(kReviewMarkerPrefix);
  if (at == std::string_view::npos) return std::nullopt;
  std::string_view rest = body.substr(at + kReviewMarkerPrefix.size());
  auto role = TakeField(rest, "role");
  if (!role) return std::nullopt;
  auto head = TakeField(rest, "head");
  if (!head) return std::nullopt;
  auto run = TakeField(rest, "run");
  if (!run || rest.substr(0, 3) != "-->") return std::nullopt;
  if (!IsValidRoleName(*role) || !IsAlnum(*head)) return std::nullopt;
  int64_t id = 0;
  auto [end, ec] = std::from_chars(run->data(), run->data() + run->size(), id);
  if (ec != std::errc() || end != run->data() + run->size() || id <= 0) return std::nullopt;
  return ReviewMarker{std::string(*role), std::string(*head), id};
}

std::string_view ReviewEventFor(ReviewVerdict verdict) {
  switch (verdict) {
    case ReviewVerdict::kApprove:
      return "APPROVE";
    case ReviewVerdict::kComment:
      return "COMMENT";
    case ReviewVerdict::kRequestChanges:
      return "REQUEST_CHANGES";
  }
  return "COMMENT";
}

std::vector<ReviewFinding> ResolvedFindings(const std::vector<ReviewFinding>& prior,
                                            const std::vector<ReviewFinding>& current) {
  std::set<std::pair<std::string, std::string>> open;
  for (const ReviewFinding& f : current) open.emplace(f.path, f.message);
  std::set<std::pair<std::string, std::string>> seen;
  std::vector<ReviewFinding> out;
  for (const ReviewFinding& f : prior) {
    auto key = std::make_pair(f.path, f.message);
    if (open.count(key) || !seen.insert(key).second) continue;
    out.push_back(f);
  }
  return out;
}

std::string RenderReviewBody(std::string_view role, std::string_view head_sha, int64_t run_id,
                             const ReviewResult& result,
                             const std::vector<ReviewFinding>& prior_findings,
                             std::string_view prior_head_sha) {
  std::string out = "### gatehouse · " + std::string(role) +
                    " review: " + std::string(ReviewVerdictName(result.verdict));
  if (result.blockers() > 0) out += " (" + Plural(result.blockers(), "blocker", "blockers") + ")";
  out += "\n\n";
  if (!result.summary.empty()) {
    out += Truncate(NoComments(result.summary), kMaxSummaryBytes) + "\n\n";
  }
  if (result.findings.empty()) {
    out += "No findings.\n";
  } else {
    out += "**Findings**\n";
    AppendFindingList(out, result.findings, /*with_severity=*/true);
  }
  if (!prior_head_sha.empty() && prior_head_sha != head_sha) {
    const auto resolved = ResolvedFindings(prior_findings, result.findings);
    if (!resolved.empty()) {
      out += "\n**Resolved since `" + std::string(prior_head_sha.substr(0, kShortSha)) + "`**\n";
      AppendFindingList(out, resolved, /*with_severity=*/false);
    }
  }
  out += "\n" + ReviewMarkerText(role, head_sha, run_id);
  return out;
}

std::string RenderReviewsSection(const PrSnapshot& pr, const GateVerdict& verdict) {
  if (pr.role_reviews.empty()) return "";
  int with_verdict = 0;
  int blockers = 0;
  for (const RoleReview& r : pr.role_reviews) {
    if (!r.result || (r.state != "done" && r.state != "finished")) continue;
    ++with_verdict;
    blockers += r.result->blockers();
  }
  std::string out = "\n**Reviews** — " + Plural(with_verdict, "AI reviewer", "AI reviewers") +
                    " · " + Plural(blockers, "blocker", "blockers") + " · readiness " +
                    std::to_string(verdict.score) + "/100\n";
  for (const RoleReview& r : pr.role_reviews) {
    out += "- `" + r.role + "` (" + (r.required ? "required" : "advisory");
    if (!r.reviewer.empty()) out += ", " + OneLine(r.reviewer, kMaxMessageBytes);
    out += "): " + RoleStatus(r) + "\n";
  }
  return out;
}

}  // namespace gatehouse::decide
