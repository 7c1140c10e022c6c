#include "decide/summary_record.h"

#include <string_view>

#include "decide/generations.h"

namespace gatehouse::decide {
namespace {

constexpr std::string_view kCreatedPrefix = "comment ";
constexpr std::string_view kBodyMark = " body ";

// "<id><separator><digest>" as a record; nullopt for anything else.
std::optional<SummaryRecord> ParseIdAndDigest(std::string_view text, std::string_view separator) {
  const size_t colon = text.find(separator);
  if (colon == 0 || colon == std::string_view::npos || colon > 18) return std::nullopt;
  SummaryRecord r;
  for (size_t i = 0; i < colon; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    r.comment_id = r.comment_id * 10 + (text[i] - '0');
  }
  r.digest = std::string(text.substr(colon + separator.size()));
  if (r.digest.empty() || r.comment_id == 0) return std::nullopt;
  return r;
}

// "summary:<id>:<digest>" (generation removed) as a record; nullopt for anything else.
std::optional<SummaryRecord> ParseEdit(std::string_view detail) {
  if (!detail.starts_with(kSummaryDetailPrefix)) return std::nullopt;
  detail.remove_prefix(kSummaryDetailPrefix.size());
  return ParseIdAndDigest(detail, ":");
}

// SummaryCreatedResult's text as a record; nullopt for anything else.
std::optional<SummaryRecord> ParseCreated(std::string_view result) {
  if (!result.starts_with(kCreatedPrefix)) return std::nullopt;
  result.remove_prefix(kCreatedPrefix.size());
  return ParseIdAndDigest(result, kBodyMark);
}

}  // namespace

std::optional<SummaryRecord> LastSummaryEdit(const std::vector<PriorAction>& ledger) {
  const PriorAction* latest = nullptr;
  for (const PriorAction& a : ledger) {
    if (a.kind != ActionKind::kComment || !a.detail.starts_with(kSummaryDetailPrefix)) continue;
    if (latest == nullptr || a.updated_at > latest->updated_at ||
        (a.updated_at == latest->updated_at && a.id > latest->id)) {
      latest = &a;
    }
  }
  if (latest == nullptr || latest->state != PriorAction::State::kDone) return std::nullopt;
  const std::string detail = BaseDetail(latest->detail);
  if (detail == kSummaryCreation) return ParseCreated(latest->result);
  return ParseEdit(detail);
}

std::string SummaryCreatedResult(int64_t comment_id, const std::string& digest) {
  return std::string(kCreatedPrefix) + std::to_string(comment_id) + std::string(kBodyMark) + digest;
}

}  // namespace gatehouse::decide
