// gatehouse demo's checks. See app/demo_checks.h.
#include "app/demo_checks.h"

#include <algorithm>
#include <boost/json.hpp>
#include <set>

#include "base/subject.h"

namespace gatehouse::app {
namespace {

namespace json = boost::json;

// The story's own action is done in the ledger (or it has none).
bool ActedAsTold(Store& store, const DemoPr& pr) {
  if (pr.expected_action.empty()) return true;
  auto rows = store.ledger().ListActions(DemoSubjectKey(pr));
  return rows.ok() && std::any_of(rows->begin(), rows->end(), [&](const ActionRecord& a) {
           return a.key.kind == pr.expected_action && a.state == ActionState::kDone;
         });
}

// One result of POST /_sim/expect: met, and the offences an invariant found.
struct ExpectResult {
  bool met = false;
  std::string failure;  // the simulator's "expected {...}, got ..." when not met
  std::vector<std::string> offences;
};

bool ParseResults(const std::string& body, size_t want, std::vector<ExpectResult>* out) {
  boost::system::error_code ec;
  json::value v = json::parse(body, ec);
  const json::object* root = ec ? nullptr : v.if_object();
  const json::value* results = root ? root->if_contains("results") : nullptr;
  if (results == nullptr || !results->is_array() || results->as_array().size() != want) {
    return false;
  }
  for (const json::value& r : results->as_array()) {
    const json::object* o = r.if_object();
    if (o == nullptr) return false;
    ExpectResult parsed;
    const json::value* met = o->if_contains("met");
    parsed.met = met != nullptr && met->is_bool() && met->as_bool();
    if (const json::value* f = o->if_contains("failure"); f && f->is_string()) {
      parsed.failure = std::string(f->as_string());
    }
    if (const json::value* offences = o->if_contains("offences");
        offences && offences->is_array()) {
      for (const json::value& line : offences->as_array()) {
        if (line.is_string()) parsed.offences.emplace_back(line.as_string());
      }
    }
    out->push_back(std::move(parsed));
  }
  return true;
}

}  // namespace

LedgerSummary SummarizeLedger(Store& store) {
  LedgerSummary s;
  auto items = store.work().ListWorkItems(WorkFilter{std::nullopt, 100000, ""});
  if (!items.ok()) {
    s.problems.push_back("cannot list gatehouse's work items: " + items.status().ToString());
    return s;
  }
  // The actions whose effect is gatehouse's own state, not a GitHub call (act/action_call.cc).
  const std::set<std::string, std::less<>> local = {"review_run", "queue_enter", "queue_leave"};
  std::set<std::pair<std::string, int64_t>> writing;
  for (const WorkItem& w : *items) {
    if (w.state == WorkState::kDead) {
      ++s.dead_items;
      s.problems.push_back(w.key + ": work item dead (" + w.last_error + ")");
    }
    auto rows = store.ledger().ListActions(w.key);
    if (!rows.ok()) continue;
    for (const ActionRecord& a : *rows) {
      if (a.state == ActionState::kDone) {
        ++s.actions;
        ++s.done_by_kind[a.key.kind];
        if (!local.contains(a.key.kind)) writing.emplace(w.key, a.fence);
      } else if (a.state == ActionState::kSuperseded) {
        ++s.superseded;
      } else if (a.state == ActionState::kIntent) {
        ++s.open_intents;
      }
    }
  }
  s.writing_passes = static_cast<int64_t>(writing.size());
  return s;
}

WorldChecks CheckWorld(SimControl& sim, const DemoWorld& world) {
  // The invariants first, then one state expectation per PR, in the world's order.
  json::array expect{
      json::object{{"no_duplicate_effects", true}}, json::object{{"no_duplicate_summaries", true}},
      json::object{{"no_stale_effects", true}}, json::object{{"no_untested_merges", true}}};
  for (const DemoPr& pr : world.prs) {
    expect.push_back(json::object{{"pull", DemoSubjectKey(pr)}, {"state", pr.expected_state}});
  }
  WorldChecks checks;
  const size_t want = expect.size();
  auto [status, body] = sim.Call("POST", "/_sim/expect",
                                 json::serialize(json::object{{"expect", std::move(expect)}}));
  std::vector<ExpectResult> results;
  if (status != 200 || !ParseResults(body, want, &results)) {
    checks.problems.push_back("could not have the simulator check its invariants: " +
                              std::to_string(status) + " " + body.substr(0, 200));
    results.assign(want, ExpectResult{.met = false, .failure = "not checked", .offences = {}});
  }
  constexpr size_t kInvariants = 4;
  for (size_t i = 0; i < kInvariants; ++i) {
    for (const std::string& line : results[i].offences) checks.problems.push_back(line);
  }
  checks.duplicate_effects =
      static_cast<int64_t>(results[0].offences.size() + results[1].offences.size());
  checks.stale_effects = static_cast<int64_t>(results[2].offences.size());
  checks.untested_merges = static_cast<int64_t>(results[3].offences.size());
  for (size_t i = 0; i < world.prs.size(); ++i) {
    const ExpectResult& ended = results[kInvariants + i];
    checks.end_states.push_back(ended.met ? "" : ended.failure);
  }
  return checks;
}

void CheckStoryActions(Store& store, const DemoWorld& world, WorldChecks* checks) {
  for (size_t i = 0; i < world.prs.size(); ++i) {
    const DemoPr& pr = world.prs[i];
    const std::string& ended = checks->end_states.at(i);
    ++checks->stories[pr.expected_state];
    const bool acted = ActedAsTold(store, pr);
    if (ended.empty() && acted) {
      ++checks->stories_ok[pr.expected_state];
      continue;
    }
    std::string why = DemoSubjectKey(pr) + " (" + pr.story + "): " + ended;
    if (!acted) {
      why += std::string(ended.empty() ? "" : "; ") + "no done " + pr.expected_action +
             " in gatehouse's ledger";
    }
    checks->problems.push_back(std::move(why));
  }
}

std::vector<QueueSummary> SummarizeQueues(Store& store, const DemoWorld& world) {
  std::vector<QueueSummary> out;
  for (const DemoRepo& repo : world.repos) {
    if (repo.queue_base.empty()) continue;
    const std::optional<QueueKey> key = QueueKey::Of(repo.owner + "/" + repo.name, repo.queue_base);
    if (!key) continue;
    QueueSummary q;
    q.queue = key->key();
    std::set<std::string> subjects;
    if (auto entries = store.queues().ListQueue(q.queue, 100000); entries.ok()) {
      for (const QueueEntry& e : *entries) {
        q.merged += e.state == EntryState::kMerged;
        q.dropped += e.state == EntryState::kDropped;
        q.open += !IsTerminal(e.state);
        subjects.insert(e.key.subject);
      }
    }
    if (auto rows = store.ledger().ListActions(q.queue); rows.ok()) {
      for (const ActionRecord& a : *rows) {
        q.batches_landed += a.key.kind == "land_batch" && a.state == ActionState::kDone;
      }
    }
    // "entry 7 (acme/mono#2): updating -> testing at 0123456789ab: ..." in each PR's audit.
    static constexpr std::string_view kTesting = " -> testing at ";
    std::set<std::string> states;
    std::set<std::string> entries_tested;
    for (const std::string& subject : subjects) {
      auto audit = store.audit().ListAudit(subject, 0);
      if (!audit.ok()) continue;
      for (const AuditEntry& line : *audit) {
        const size_t at = line.kind == "queue" ? line.summary.find(kTesting) : std::string::npos;
        if (at == std::string::npos) continue;
        states.insert(line.summary.substr(at + kTesting.size(), 12));
        const size_t entry = line.summary.find("entry ");
        if (entry != std::string::npos) {
          entries_tested.insert(
              line.summary.substr(entry, line.summary.find(' ', entry + 6) - entry));
        }
      }
    }
    q.tested_states = static_cast<int64_t>(states.size());
    q.entries_tested = static_cast<int64_t>(entries_tested.size());
    out.push_back(std::move(q));
  }
  return out;
}

}  // namespace gatehouse::app
