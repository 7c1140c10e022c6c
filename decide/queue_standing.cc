#include "decide/queue_standing.h"

#include <algorithm>
#include <set>

#include "base/subject.h"
#include "decide/queue_policy.h"

namespace gatehouse::decide {
namespace {

// The rules whose waiting is the queue's business, for an entry at `pr`'s head.
std::set<std::string> QueueOwnedRules(bool at_tested_head) {
  std::set<std::string> rules = {"mergeable"};
  if (at_tested_head) {
    rules.insert("required_checks");
    rules.insert("reviews");
  }
  return rules;
}

// Why the open entry `e` must go, or "" when it stays.
std::string WhyLeave(const PrSnapshot& pr, const GateVerdict& verdict, const QueueEntryFact& e,
                     std::string* keep_sha) {
  // A merge under way is the queue's to finish: the PR it merges closes, and GitHub refuses it
  // on a moved head or a closed PR, which the queue's pass then records.
  if (e.state == "merging") return "";
  if (pr.state != "open") return "the pull request was closed";
  if (pr.draft) return "the pull request was converted to a draft";
  const bool at_tested = !e.tested_sha.empty() && pr.head_sha == e.tested_sha &&
                         e.tested_sha != e.head_sha && e.state != "updating";
  if (pr.head_sha != e.head_sha && !at_tested) {
    // While the queue updates the branch, the new head is the update's: the queue records it.
    if (e.state == "updating") return "";
    *keep_sha = pr.head_sha;
    return "new commits were pushed (the head is now " + ShortHead(pr.head_sha) + ")";
  }
  if (verdict.verdict == Verdict::kFail && !verdict.blockers.empty()) {
    const Finding& f = verdict.blockers.front();
    return "no longer ready: " + f.rule + ": " + f.reason;
  }
  if (verdict.verdict == Verdict::kPending) {
    const std::set<std::string> owned = QueueOwnedRules(at_tested);
    for (const Finding& f : verdict.waiting) {
      if (owned.count(f.rule) == 0) return "no longer ready: " + f.rule + ": " + f.reason;
    }
  }
  return "";
}

}  // namespace

std::string ShortHead(const std::string& sha) { return sha.substr(0, 12); }

std::string QueueSummaryLine(const QueueFacts& facts, const QueueStanding& standing) {
  const std::optional<QueueKey> key = QueueKey::Parse(facts.queue);
  if (!key) return "";
  const std::string head = "**Merge queue** (`" + std::string(key->base()) + "`): ";
  const QueueCommandStanding& said = facts.commands;
  const std::string back = " It enters again when ready at a new head, or once more at this "
                           "one on `/gatehouse queue`.";
  if (standing.leave_entry != 0) {
    return head + "left the queue: " + standing.leave_reason + "." +
           (said.hold ? " Kept out until `/gatehouse queue` or `/gatehouse merge`." : back);
  }
  auto open = std::find_if(facts.entries.rbegin(), facts.entries.rend(),
                           [](const QueueEntryFact& e) { return !e.terminal(); });
  if (open != facts.entries.rend()) {
    const QueuePlace& at = facts.place;
    std::string where;
    if (at.entry == open->id && at.position > 0) {
      where = "position " + std::to_string(at.position) + " of " + std::to_string(at.size);
    }
    std::string line = head;
    if (open->state == "queued") {
      line += "queued" + (where.empty() ? "" : ", " + where);
    } else if (open->state == "testing") {
      line += "testing" + (at.batch != 0 ? " in batch " + std::to_string(at.batch) : "") +
              (open->tested_sha.empty() ? "" : " at `" + ShortHead(open->tested_sha) + "`") +
              (where.empty() ? "" : " (" + where + ")");
    } else if (open->state == "updating") {
      line += "being brought up to date with the base" + (where.empty() ? "" : " (" + where + ")");
    } else {
      line += "merging";
    }
    if (open->state != "merging" && at.entry == open->id) {
      if (at.wait) {
        const int64_t minutes =
            std::max<int64_t>(1, (std::chrono::duration_cast<std::chrono::seconds>(*at.wait)
                                      .count() + 59) / 60);
        line += "; ETA about " + std::to_string(minutes) + " min at the queue's recent pace";
      } else {
        line += "; ETA not known yet (the queue has not landed twice recently)";
      }
    }
    line += ".";
    return line + " The `gatehouse/queue` check run follows it live.";
  }
  if (standing.enter) {
    return head + "entered the queue; the `gatehouse/queue` check run shows its position and "
                  "ETA live.";
  }
  if (said.hold) {
    return head + "kept out: dequeued by @" + said.by + " (comment " +
           std::to_string(said.comment_id) + "); `/gatehouse queue` puts it back.";
  }
  if (facts.entries.empty()) return "";
  const QueueEntryFact& last = facts.entries.back();
  if (last.state == "merged") return head + "merged.";
  return head + "left the queue: " + last.reason + "." + back;
}

QueueStanding DecideQueueStanding(const Policy& policy, const PrSnapshot& pr,
                                  const GateVerdict& verdict, const QueueFacts& facts,
                                  int64_t head_occurrence, bool reclose) {
  QueueStanding out;
  out.priority = QueuePriority(policy.merge_queue, pr.labels);
  // At most one entry of a PR is open at a time (this pass leaves before it enters); should an
  // older one have stayed open, the latest decides and Leave drops the rest.
  auto open = std::find_if(facts.entries.rbegin(), facts.entries.rend(),
                           [](const QueueEntryFact& e) { return !e.terminal(); });
  const QueueCommandStanding& said = facts.commands;
  const std::string dequeued = "dequeued by @" + said.by + " (comment " +
                               std::to_string(said.comment_id) + ")";
  if (open != facts.entries.rend()) {
    out.leave_reason = WhyLeave(pr, verdict, *open, &out.keep_sha);
    if (out.leave_reason.empty() && said.hold && open->state != "merging") {
      out.leave_reason = dequeued;
    }
    if (!out.leave_reason.empty()) out.leave_entry = open->id;
  }

  if (pr.state != "open" || verdict.verdict != Verdict::kPass || reclose) return out;
  if (said.hold) {
    out.enter_skip = "kept out of the queue: " + dequeued;
    return out;
  }
  out.admitted_by = said.admitted_by;
  for (const QueueEntryFact& e : facts.entries) {
    if (e.head_sha != pr.head_sha || e.head_occurrence != head_occurrence) continue;
    if (!e.terminal()) {
      out.enter_skip = "in the queue at this head (" + e.state + ")";
      return out;
    }
    // A terminal entry of this head keeps it out, unless a later command admits it again.
    if (e.admitted_by == said.admitted_by) {
      out.enter_skip = e.state == "dropped" ? "dropped from the queue at this head: " + e.reason
                                            : "in the queue at this head (" + e.state + ")";
      return out;
    }
  }
  for (const QueueEntryFact& e : facts.entries) {
    if (e.state != "dropped" && !e.tested_sha.empty() && e.tested_sha == pr.head_sha) {
      out.enter_skip = "this head is the queue's update of entry " + std::to_string(e.id);
      return out;
    }
  }
  if (open != facts.entries.rend() && out.leave_entry == 0) {
    out.enter_skip = "entry " + std::to_string(open->id) + " is in the queue";
    return out;
  }
  if (facts.queue.empty()) {
    out.enter_skip = "no merge queue for the base branch";
    return out;
  }
  out.enter = true;
  return out;
}

}  // namespace gatehouse::decide
