// ActionLedger: every external effect's idempotency key, its intent (durable and fenced before
// the call) and its outcome (DESIGN.md §3), and the head occurrences the keys are bound to
// (docs/ACTIONS.md). Every method is one atomic transaction; writes are fenced by the subject's
// work item. Implementations are thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"

namespace gatehouse {

// The action ledger (DESIGN.md §3): every external effect has an idempotency key, an
// `intent` recorded durably (and fenced) before the call, and an outcome after it.
struct ActionKey {
  std::string subject;   // "owner/repo#12"
  std::string kind;      // merge, approve, label, comment, check_run, ... (DESIGN §8)
  std::string head_sha;  // the head the action was decided on and is bound to
  std::string detail;    // e.g. the label name; "" when the kind needs none
  // Which time the PR's head became `head_sha` (HeadOccurrence): a head that moves away and
  // comes back is a new occurrence, so everything is decided afresh for it (docs/ACTIONS.md).
  int64_t head_occurrence = 1;

  bool operator==(const ActionKey&) const = default;
};

// The n-th time a pull request's head became a SHA, as gatehouse's own reads of the PR saw it
// (docs/ACTIONS.md, "Head occurrences"). The occurrences of one PR form a sequence in which
// neighbours have different SHAs: A(1), X(1), B(1), A(2), ...
struct HeadOccurrence {
  std::string subject;
  std::string head_sha;
  int64_t occurrence = 1;  // 1 + how many earlier occurrences of head_sha the PR had
  // The PR's `updated_at` on GitHub when this occurrence was first read: pushes GitHub reports
  // later than this (webhooks) happened after it started, whatever order they arrive in.
  Time github_at{};
  Time observed_at{};  // gatehouse's clock when the occurrence was first read
};

enum class ActionState { kIntent, kDone, kFailed, kSuperseded };
std::string_view ActionStateName(ActionState state);  // intent, done, failed, superseded
// The inverse of ActionStateName; kIntent for any other text.
ActionState ParseActionState(std::string_view text);

struct ActionRecord {
  int64_t id = 0;
  ActionKey key;
  ActionState state = ActionState::kIntent;
  int64_t fence = 0;  // the claim that last wrote the row
  int attempts = 0;
  std::string result;
  Time created_at;
  Time updated_at;
};

struct IntentResult {
  enum class Kind {
    kRecorded,        // a new intent (or a retry of a failed one): make the call
    kAlreadyDone,     // done before (same key): skip
    kSuperseded,      // GitHub refused it because the head moved: skip; a new head is a new key
    kNeedsReconcile,  // an intent without an outcome: a call may or may not have happened
  };
  Kind kind = Kind::kRecorded;
  ActionRecord record;
};

class ActionLedger {
 public:
  virtual ~ActionLedger() = default;

  // Records the intent to perform `key`, in the same transaction that checks that the
  // subject's work item is still running under `fence` (kFenceLost otherwise, and nothing is
  // written). Durable (kAcknowledged) on return, because the external call follows.
  virtual Result<IntentResult> RecordIntent(const ActionKey& key, int64_t fence, Time now) = 0;

  // Records how action `id` ended (kDone, kFailed or kSuperseded), fenced like RecordIntent;
  // the row must be an open intent. A new holder may record the outcome of an earlier
  // holder's intent after reconciling it with GitHub.
  virtual Status RecordOutcome(int64_t id, int64_t fence, ActionState outcome,
                               std::string_view result, Time now) = 0;

  // A subject's actions, oldest first.
  virtual Result<std::vector<ActionRecord>> ListActions(std::string_view subject) = 0;
  // Every subject's open intents (kIntent: a call that may or may not have happened, until a
  // pass reconciles it), oldest first, at most `limit`.
  virtual Result<std::vector<ActionRecord>> ListOpenIntents(size_t limit) = 0;

  // How many rows the ledger holds of each kind in each state (every subject, every head): the
  // metrics' gatehouse_ledger_actions{kind,state}. One aggregate query.
  struct KindCount {
    std::string kind;
    ActionState state = ActionState::kIntent;
    int64_t count = 0;
  };
  virtual Result<std::vector<KindCount>> CountActions() = 0;

  // --- Head occurrences (docs/ACTIONS.md) ---

  // The subject's latest head occurrence; nullopt when none was recorded yet.
  virtual Result<std::optional<HeadOccurrence>> LatestHeadOccurrence(std::string_view subject) = 0;

  // Starts a new occurrence of `head_sha` for `subject` — occurrence = 1 + the highest earlier
  // occurrence of that SHA for the subject — in the transaction that checks that the
  // subject's work item is still running under `fence` (kFenceLost otherwise, and nothing is
  // written), and returns it. The caller (act/head_occurrence.h) decides when a new occurrence
  // starts; the store numbers and records it. Recoverable durability: every effect bound to the
  // occurrence is preceded by an acknowledged RecordIntent, whose commit makes this one durable
  // too, and an occurrence lost with no effect bound to it is started again, identically, by
  // the next pass.
  virtual Result<HeadOccurrence> StartHeadOccurrence(std::string_view subject,
                                                     std::string_view head_sha, Time github_at,
                                                     int64_t fence, Time now) = 0;
};

}  // namespace gatehouse
