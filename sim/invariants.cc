#include "sim/invariants.h"

#include <algorithm>
#include <charconv>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "sim/app_identity.h"

namespace gatehouse::sim {
namespace {

constexpr char kAppPrefix[] = "installation:";

bool IsSuccess(const Effect& e) { return e.status >= 200 && e.status < 300; }

bool IsAppSuccess(const Effect& e) { return e.who.rfind(kAppPrefix, 0) == 0 && IsSuccess(e); }

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Forgets the earlier effects whose key starts with one of `prefixes`.
void Forget(std::map<std::string, const Effect*>* first,
            std::initializer_list<std::string> prefixes) {
  for (auto it = first->begin(); it != first->end();) {
    const bool undone = std::any_of(prefixes.begin(), prefixes.end(), [&](const std::string& p) {
      return it->first.rfind(p, 0) == 0;
    });
    it = undone ? first->erase(it) : std::next(it);
  }
}

}  // namespace

std::string DescribeEffect(const Effect& e) {
  return "#" + std::to_string(e.seq) + " " + e.who + " " + e.kind + " " + e.repo +
         (e.number ? "#" + std::to_string(e.number) : "") + " sha=" + e.sha + " head=" + e.head +
         " status=" + std::to_string(e.status) + (e.detail.empty() ? "" : " detail=" + e.detail);
}

bool IsSummaryComment(const Comment& comment) {
  return ShownLogin(comment.user) == AppLogin() &&
         std::string_view(comment.body).substr(0, kSummaryMarker.size()) == kSummaryMarker;
}

std::vector<std::string> StaleEffects(const std::vector<Effect>& effects) {
  std::set<int64_t> undone;  // reviews the App dismissed
  for (const auto& e : effects) {
    if (e.kind == "dismiss_review" && IsAppSuccess(e) && e.review_id != 0)
      undone.insert(e.review_id);
  }
  std::vector<std::string> out;
  for (const auto& e : effects) {
    if (!IsAppSuccess(e) || e.sha.empty() || e.head.empty() || e.sha == e.head) continue;
    if (e.kind == "dismiss_review") continue;  // it undoes a review of its commit; it acts on none
    if (e.kind == "review") {
      if (e.detail.rfind("COMMENT", 0) == 0) continue;
      // Dismissed later, by the App: the dismissal's seq is after the review's, as its id is.
      if (undone.count(e.review_id) != 0) continue;
    }
    out.push_back(DescribeEffect(e));
  }
  return out;
}

std::vector<std::string> UntestedMerges(const std::vector<Effect>& effects) {
  std::vector<std::string> out;
  for (const auto& e : effects) {
    // An update of the default branch (update_ref, or merge_branch into it) is untested when
    // its new tip was; the merges it made each say so too.
    const bool lands = e.kind == "merge" || e.kind == "update_ref" || e.kind == "merge_branch";
    if (lands && IsAppSuccess(e) && !e.untested.empty()) {
      out.push_back(DescribeEffect(e) + " untested: " + e.untested);
    }
  }
  return out;
}

std::vector<std::string> DuplicateEffects(const std::vector<Effect>& effects) {
  static constexpr std::string_view kKinds[] = {"merge", "review", "close", "update_branch"};
  std::vector<std::string> out;
  std::map<std::string, const Effect*> first;  // kind|repo#N|sha|detail -> the earlier effect
  for (const auto& e : effects) {
    const std::string pr = e.repo + "#" + std::to_string(e.number);
    if (e.kind == "reopen" && IsSuccess(e)) {
      Forget(&first, {"close|" + pr + "|"});
      continue;
    }
    if (e.kind == "dismiss_review" && IsSuccess(e)) {
      // detail: "review=<id> user=<login as shown>"; only the App's review is undone.
      if (EndsWith(e.detail, " user=" + AppLogin())) {
        const std::string at = "review|" + pr + "|" + e.sha + "|";
        Forget(&first, {at + "APPROVE", at + "REQUEST_CHANGES"});
      }
      continue;
    }
    if (!IsAppSuccess(e) ||
        std::find(std::begin(kKinds), std::end(kKinds), e.kind) == std::end(kKinds))
      continue;
    std::string key = e.kind + "|" + pr + "|" + e.sha + "|" + e.detail;
    auto [it, inserted] = first.emplace(key, &e);
    if (!inserted) out.push_back(DescribeEffect(*it->second) + " and " + DescribeEffect(e));
  }
  return out;
}

std::optional<int64_t> RepliedCommand(const Comment& comment) {
  if (ShownLogin(comment.user) != AppLogin()) return std::nullopt;
  std::string_view body = comment.body;
  if (!body.ends_with(" -->")) return std::nullopt;
  body.remove_suffix(4);
  const size_t at = body.rfind(kReplyMarkerPrefix);
  if (at == std::string_view::npos) return std::nullopt;
  const std::string_view digits = body.substr(at + kReplyMarkerPrefix.size());
  int64_t id = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
  if (digits.empty() || ec != std::errc() || ptr != digits.data() + digits.size() || id <= 0) {
    return std::nullopt;
  }
  return id;
}

std::vector<std::string> ExtraSummaryComments(const Model& model) {
  std::vector<std::string> out;
  for (const Repository& repo : model.Repos()) {
    std::vector<PullRequest> pulls = model.ListPulls(repo.full_name(), "all");
    std::reverse(pulls.begin(), pulls.end());  // oldest first
    for (const PullRequest& pr : pulls) {
      const std::string where = repo.full_name() + "#" + std::to_string(pr.number);
      std::optional<int64_t> first;
      std::map<int64_t, int64_t> first_reply;  // command comment id -> the first reply's id
      for (const Comment& c : model.CommentsFor(repo.full_name(), pr.number)) {
        if (std::optional<int64_t> command = RepliedCommand(c)) {
          auto [it, inserted] = first_reply.emplace(*command, c.id);
          if (!inserted) {
            out.push_back(where + ": reply comment " + std::to_string(c.id) + " to comment " +
                          std::to_string(*command) + " besides the first, " +
                          std::to_string(it->second));
          }
          continue;
        }
        if (!IsSummaryComment(c)) continue;
        if (!first) {
          first = c.id;
          continue;
        }
        out.push_back(where + ": summary comment " + std::to_string(c.id) + " by " +
                      ShownLogin(c.user) + " besides the first, " + std::to_string(*first));
      }
    }
  }
  return out;
}

}  // namespace gatehouse::sim
