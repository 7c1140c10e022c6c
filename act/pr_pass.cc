// The pass: read inside the lease, evaluate, plan, execute, audit. See act/pr_pass.h.
#include "act/pr_pass.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <utility>
#include <vector>

#include "act/action_generations.h"
#include "act/head_occurrence.h"
#include "base/log.h"
#include "decide/gate.h"
#include "decide/planner.h"
#include "engine/github_outcome.h"

namespace gatehouse::act {
namespace {

namespace json = boost::json;

// While GitHub has not computed mergeability for a new head, the pass asks for another look
// this soon, for at most this long after the head was first seen (then the sweep takes over).
constexpr Duration kMergeableRecheck = std::chrono::seconds(3);
constexpr Duration kMergeableRecheckFor = std::chrono::minutes(10);
// A read that lagged behind an earlier one is repeated this soon.
constexpr Duration kLaggingReadRetry = std::chrono::seconds(2);

// FNV-1a, hex: stable across builds and processes (std::hash is not).
std::string StableDigest(std::string_view text) {
  uint64_t h = 1469598103934665603ULL;
  for (char c : text) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ULL;
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

decide::AuthorRole RoleOf(std::string_view association) {
  if (association == "OWNER") return decide::AuthorRole::kOwner;
  if (association == "MEMBER") return decide::AuthorRole::kMember;
  if (association == "COLLABORATOR") return decide::AuthorRole::kCollaborator;
  if (association == "CONTRIBUTOR") return decide::AuthorRole::kContributor;
  return decide::AuthorRole::kNone;
}

bool IsCloseKind(std::string_view name) {
  auto kind = decide::ParseActionKind(name);
  return kind && decide::ClassOf(*kind) == decide::ActionClass::kClose;
}

bool HasLabel(const PullRequest& pr, std::string_view label) {
  return std::any_of(pr.labels.begin(), pr.labels.end(), [&](const std::string& l) {
    return l.size() == label.size() &&
           std::equal(l.begin(), l.end(), label.begin(), [](char a, char b) {
             return std::tolower(static_cast<unsigned char>(a)) ==
                    std::tolower(static_cast<unsigned char>(b));
           });
  });
}

json::array FindingsJson(const std::vector<decide::Finding>& findings) {
  json::array out;
  for (const auto& f : findings)
    out.push_back(json::object{{"rule", f.rule}, {"reason", f.reason}});
  return out;
}

std::string ActionText(const decide::PlannedAction& a) {
  std::string text(decide::ActionKindName(a.kind));
  if (!a.label.empty()) {
    text += " " + a.label;
  } else if (a.kind == decide::ActionKind::kCheckRun) {
    text += " " + (a.check_conclusion.empty() ? a.check_status : a.check_conclusion);
  } else if (a.kind == decide::ActionKind::kMerge) {
    text += " " + std::string(decide::MergeMethodName(a.merge_method));
  }
  return text;
}

// The PR as decide/ sees it.
decide::PrSnapshot BuildSnapshot(const PullRequest& pr, const std::vector<Review>& reviews,
                                 const std::vector<CheckRun>& runs, const CombinedStatus& status,
                                 std::vector<std::string> paths, Time now) {
  decide::PrSnapshot s;
  s.number = pr.number;
  s.author = pr.author;
  s.author_role = RoleOf(pr.author_association);
  s.author_is_bot = pr.author_type == "Bot" || pr.author.ends_with("[bot]");
  s.draft = pr.draft;
  s.state = pr.state;
  s.head_sha = pr.head_sha;
  s.base_sha = pr.base_sha;
  s.labels = pr.labels;
  s.mergeable = pr.mergeable;
  s.mergeable_state = pr.mergeable_state;
  s.changed_files = pr.changed_files;
  s.additions = pr.additions;
  s.deletions = pr.deletions;
  s.changed_paths = std::move(paths);
  // GitHub lists reviews in the order they were submitted; the list position orders them.
  int64_t order = 0;
  for (const Review& r : reviews) {
    s.reviews.push_back(
        decide::Review{r.user, r.state, r.commit_id, Time(std::chrono::microseconds(++order))});
  }
  for (const CheckRun& r : runs) {
    // gatehouse's own check run reports the verdict; it is not an input to it.
    if (r.name == decide::kCheckRunName) continue;
    if (!r.head_sha.empty() && r.head_sha != pr.head_sha) continue;
    s.check_runs.push_back(
        decide::CheckRun{r.id, r.name, r.app, r.status, r.conclusion, r.head_sha});
  }
  int64_t status_id = 0;
  for (const CommitStatus& st : status.statuses) {
    s.statuses.push_back(decide::CommitStatus{++status_id, st.context, st.state});
  }
  s.now = now;
  return s;
}

// What gatehouse's latest check run on `head` says (its action detail), "" when it has none.
std::string LatestCheckRunDetail(const std::vector<CheckRun>& runs, const std::string& head) {
  const CheckRun* latest = nullptr;
  for (const CheckRun& r : runs) {
    if (r.name != decide::kCheckRunName || r.head_sha != head || r.external_id.empty()) continue;
    if (latest == nullptr || r.id > latest->id) latest = &r;
  }
  return latest == nullptr ? "" : CheckRunDetailOf(latest->external_id, head);
}

// What the ledger and the PR facts say about this PR.
struct History {
  decide::PlannerInput facts;
  std::optional<ReportedPush> last_push;  // the latest push webhooks reported
  std::vector<ActionKey> open_intents;    // intents an earlier holder left without an outcome
  std::vector<ActionRecord> ledger;       // every action of the PR, oldest first
};

Result<History> ReadHistory(Store& store, const std::string& subject, const PullRequest& pr,
                            const decide::PlannerOptions& options) {
  History h;
  auto actions = store.ListActions(subject);
  if (!actions.ok()) return actions.status();
  h.ledger = *actions;
  std::optional<Time> last_unlabel;
  for (const ActionRecord& a : *actions) {
    if (a.state == ActionState::kIntent) h.open_intents.push_back(a.key);
    if (a.state != ActionState::kDone) continue;
    if (IsCloseKind(a.key.kind)) {
      // The intent's time, which is never later than the close itself: a reopen that came
      // right after the close must count as after it.
      if (!h.facts.closed_by_gatehouse_at || a.created_at > *h.facts.closed_by_gatehouse_at) {
        h.facts.closed_by_gatehouse_at = a.created_at;
      }
    }
    if (BaseDetail(a.key.detail) == options.label_pending_closure) {
      if (a.key.kind == decide::ActionKindName(decide::ActionKind::kUnlabel)) {
        last_unlabel = a.updated_at;
        h.facts.pending_closure_since.reset();
      } else if (a.key.kind == decide::ActionKindName(decide::ActionKind::kLabel) &&
                 (!last_unlabel || a.updated_at >= *last_unlabel)) {
        // The latest time gatehouse put the label on: if a person took it off and gatehouse
        // put it back (on a newer head), the grace period starts again.
        h.facts.pending_closure_since = a.updated_at;
      }
    }
  }
  // Our label is gone (a person removed it): the grace period starts again when it is back.
  if (!HasLabel(pr, options.label_pending_closure)) h.facts.pending_closure_since.reset();
  h.facts.drafted_while_pending_closure = pr.draft && h.facts.pending_closure_since.has_value();

  auto facts = store.GetPrFacts(subject);
  if (!facts.ok()) return facts.status();
  h.last_push = LastReportedPush(*facts);
  for (const PrFact& f : *facts) {
    if (f.name != "reopened") continue;
    std::istringstream in(f.value);
    decide::ReopenFact reopen;
    std::string role;
    in >> reopen.by >> role;
    reopen.role = RoleOf(role);
    reopen.at = f.at;
    h.facts.last_reopen = reopen;
  }
  return h;
}

}  // namespace

bool ParseSubject(const std::string& key, RepoRef* repo, int64_t* number) {
  const size_t slash = key.find('/');
  const size_t hash = key.rfind('#');
  if (slash == std::string::npos || slash == 0 || hash == std::string::npos || hash < slash + 2 ||
      hash + 1 >= key.size()) {
    return false;
  }
  int64_t n = 0;
  for (size_t i = hash + 1; i < key.size(); ++i) {
    if (key[i] < '0' || key[i] > '9' || n > (int64_t{1} << 50)) return false;
    n = n * 10 + (key[i] - '0');
  }
  if (n <= 0) return false;
  repo->owner = key.substr(0, slash);
  repo->name = key.substr(slash + 1, hash - slash - 1);
  *number = n;
  return true;
}

PrPass::PrPass(Store& store, GitHub& github, ClockPtr clock, PassConfig config)
    : store_(store), github_(github), clock_(std::move(clock)), config_(std::move(config)) {}

GitHubResult<PrPass::LoadedPolicy> PrPass::LoadPolicy(const CallContext& call,
                                                      const RepoRef& repo) {
  std::string source;
  std::string text;
  bool found = false;
  if (!config_.override_dir.empty()) {
    source = config_.override_dir + "/" + repo.owner + "/" + repo.name + ".yml";
    std::ifstream in(source, std::ios::binary);
    if (in) {
      std::ostringstream buf;
      buf << in.rdbuf();
      text = buf.str();
      found = true;
    }
  }
  if (!found) {
    auto file = github_.GetFileContents(call, repo, config_.policy_path, "");
    if (file.ok()) {
      source = repo.FullName() + ":" + config_.policy_path;
      text = std::move(file).value();
      found = true;
    } else if (file.error().kind != GitHubErrorKind::kNotFound) {
      return file.error();
    }
  }
  if (!found) return LoadedPolicy{config_.defaults, "defaults", ""};

  const std::string cache_key = source + '\0' + text;
  {
    MutexLock lock(&mu_);
    if (auto it = parsed_.find(cache_key); it != parsed_.end()) return it->second;
  }
  LoadedPolicy loaded;
  loaded.source = source;
  auto policy = decide::ParsePolicy(text, config_.defaults, source);
  if (policy.ok()) {
    loaded.policy = std::move(policy).value();
  } else {
    loaded.policy = config_.defaults;
    loaded.error = policy.status().message();
  }
  MutexLock lock(&mu_);
  if (parsed_.size() > 4096) parsed_.clear();  // bounded: one entry per repo and file version
  parsed_.emplace(cache_key, loaded);
  return loaded;
}

GitHubResult<std::string> PrPass::AppLogin() {
  if (!config_.discover_login) return config_.executor.app_login;
  {
    MutexLock lock(&mu_);
    if (login_) return *login_;
  }
  auto login = config_.discover_login();  // outside the lock: a GitHub call
  if (!login.ok()) {
    const GitHubErrorKind kind = login.error().kind;
    if (kind == GitHubErrorKind::kRateLimited || kind == GitHubErrorKind::kTransient ||
        kind == GitHubErrorKind::kUnauthorized) {
      return login;  // GitHub cannot answer now: wait and ask again
    }
    // GitHub answered and will not tell (an endpoint this server lacks): the configured
    // fallback, said loudly.
    Log(LogLevel::kWarn, "pass.app_login")
        .Field("error", login.error().ToString())
        .Field("using", config_.executor.app_login)
        .Field("note", "set gatehouse serve --app-login");
    login = config_.executor.app_login;
  }
  MutexLock lock(&mu_);
  login_ = *login;
  Log(LogLevel::kInfo, "pass.app_login").Field("login", *login);
  return *login_;
}

PassOutcome PrPass::Run(PassContext& ctx) {
  const Lease& lease = ctx.lease();
  const Time started = clock_->Now();
  std::vector<AuditEntry> audit;
  auto add_audit = [&](std::string kind, std::string head, std::string summary,
                       std::string detail = "") {
    AuditEntry e;
    e.subject = lease.key;
    e.at = clock_->Now();
    e.fence = lease.fence;
    e.head_sha = std::move(head);
    e.kind = std::move(kind);
    e.summary = std::move(summary);
    e.detail = std::move(detail);
    audit.push_back(std::move(e));
  };
  auto flush_audit = [&] {
    if (audit.empty()) return;
    if (Status s = store_.AppendAudit(audit, Durability::kRecoverable); !s.ok()) {
      Log(LogLevel::kWarn, "pass.audit").Field("key", lease.key).Field("error", s.ToString());
    }
  };
  auto fail = [&](const std::string& what, const GitHubError& error) {
    // A failed read is retried (with backoff, up to the attempt budget, then dead and visible)
    // whatever its status: a 404 on a force-pushed head's checks or a 401 while a token
    // rotates is gone on the next try, and a PR must not die on one bad answer.
    PassOutcome outcome = error.kind == GitHubErrorKind::kRateLimited
                              ? ToPassOutcome(error)
                              : PassOutcome::Transient(what + ": " + error.ToString());
    add_audit("error", "", what + ": " + error.ToStatus().ToString());
    flush_audit();
    return outcome;
  };

  Target target;
  target.subject = lease.key;
  if (!ParseSubject(lease.key, &target.repo, &target.number)) {
    return PassOutcome::Permanent("not a pull request subject: " + lease.key);
  }
  if (config_.app_mode) {
    auto repo = store_.GetRepository(target.repo.FullName());
    if (!repo.ok()) return PassOutcome::Transient(repo.status().ToString());
    if (!*repo || !(*repo)->installation_id) {
      add_audit("error", "",
                "no installation known for " + target.repo.FullName() +
                    " (no webhook with an installation id seen yet)");
      flush_audit();
      return PassOutcome::Done();
    }
    target.call.installation_id = *(*repo)->installation_id;
  }
  // A pass only the sweep, a timer or a mergeability recheck asked for is background work: it
  // stays out of the rate-limit reserve kept for passes that webhooks asked for.
  target.call.background =
      !lease.reasons.empty() &&
      std::all_of(lease.reasons.begin(), lease.reasons.end(), [](const std::string& r) {
        return r == "swept" || r == "mergeable-unknown" || r == "timer";
      });
  const CallContext& call = target.call;

  auto app_login = AppLogin();
  if (!app_login.ok()) return fail("learning gatehouse's own login", app_login.error());
  ExecutorOptions executor = config_.executor;
  executor.app_login = *app_login;

  // 1. The live PR and everything about its head.
  auto pr = github_.GetPullRequest(call, target.repo, target.number);
  if (!pr.ok()) {
    if (pr.error().kind == GitHubErrorKind::kNotFound) {
      add_audit("error", "", "pull request not found on GitHub");
      flush_audit();
      return PassOutcome::Done();
    }
    return fail("reading the pull request", pr.error());
  }
  auto policy = LoadPolicy(call, target.repo);
  if (!policy.ok()) return fail("reading the policy", policy.error());
  auto reviews = github_.ListReviews(call, target.repo, target.number);
  if (!reviews.ok()) return fail("listing reviews", reviews.error());
  auto runs = github_.ListCheckRuns(call, target.repo, pr->head_sha);
  if (!runs.ok()) return fail("listing check runs", runs.error());
  auto status = github_.GetCombinedStatus(call, target.repo, pr->head_sha);
  if (!status.ok()) return fail("reading the combined status", status.error());
  std::vector<std::string> paths;
  const auto& pp = policy->policy.protected_paths;
  if (pp.mode != decide::RuleMode::kOff && !pp.paths.empty()) {
    auto files = github_.ListPullRequestFiles(call, target.repo, target.number);
    if (!files.ok()) return fail("listing changed files", files.error());
    paths = std::move(files).value();
  }
  auto comments = github_.ListIssueComments(call, target.repo, target.number);
  if (!comments.ok()) return fail("listing comments", comments.error());
  if (ctx.lease_lost()) return PassOutcome::Transient("lease lost while reading");

  // 2. The planner's settings: the repository's, under the server's switches.
  decide::PlannerOptions options = policy->policy.actions;
  options.app_login = executor.app_login;
  if (config_.dry_run) options.dry_run = true;

  auto history = ReadHistory(store_, lease.key, *pr, options);
  if (!history.ok()) return PassOutcome::Transient(history.status().ToString());
  decide::PlannerInput facts = std::move(history->facts);
  // Which occurrence of its head this pass decides on: everything it plans is bound to it, so a
  // head that went away and came back is decided afresh (act/head_occurrence.h).
  auto observed =
      ObserveHead(store_, lease.key, lease.fence, *pr, history->last_push, clock_->Now());
  if (!observed.ok()) {
    return PassOutcome::Transient("recording the head: " + observed.status().ToString());
  }
  const HeadOccurrence* occurrence = &observed->occurrence;
  if (observed->kind == HeadObservation::Kind::kLagging) {
    // GitHub answered from a replica that has not seen what an earlier read already showed:
    // deciding on it would undo decisions made on the newer state. Read again shortly.
    add_audit("error", pr->head_sha,
              "the read of the pull request (head " + pr->head_sha.substr(0, 12) + ", updated " +
                  pr->updated_at + ") is older than head " + occurrence->head_sha.substr(0, 12) +
                  " already decided on; reading again");
    flush_audit();
    Signal again{lease.key, "lagging-read", kLaggingReadRetry};
    if (Status st = store_.Enqueue(std::span<const Signal>(&again, 1), clock_->Now(),
                                   Durability::kRecoverable);
        !st.ok()) {
      return PassOutcome::Transient("could not signal a fresh pass: " + st.ToString());
    }
    return PassOutcome::Done();
  }
  facts.head_occurrence = occurrence->occurrence;
  facts.check_run_detail = LatestCheckRunDetail(*runs, pr->head_sha);
  // A maintainer who reopens a PR gatehouse closed overrides that close: if the PR fails on a
  // later head, the grace period runs again from the reopen. A reopen by the author (who may
  // close and reopen their PR at will) restarts nothing.
  if (facts.pending_closure_since && facts.last_reopen && facts.closed_by_gatehouse_at &&
      facts.last_reopen->at >= *facts.closed_by_gatehouse_at &&
      facts.last_reopen->at > *facts.pending_closure_since) {
    const auto& roles = policy->policy.authors.maintainer_roles;
    if (std::find(roles.begin(), roles.end(), facts.last_reopen->role) != roles.end()) {
      facts.pending_closure_since = facts.last_reopen->at;
    }
  }
  for (const IssueComment& c : *comments) {
    if (c.body.starts_with(decide::kSummaryMarker) && c.user == executor.app_login) {
      facts.summary_comment_id = c.id;
      facts.previous_summary = c.body;
    }
  }

  // 3. Evaluate and plan.
  const Time now = clock_->Now();
  decide::PrSnapshot snapshot = BuildSnapshot(*pr, *reviews, *runs, *status, std::move(paths), now);
  // The clock of "missing required check" and of the mergeability rechecks starts when this
  // occurrence of the head was first read.
  snapshot.head_pushed_at = occurrence->observed_at;
  decide::GateVerdict verdict;
  decide::Plan plan;
  if (!policy->error.empty()) {
    verdict.verdict = decide::Verdict::kFail;
    verdict.score = 0;
    verdict.blockers.push_back({"policy", policy->error});
    decide::PlannedAction check;
    check.kind = decide::ActionKind::kCheckRun;
    check.head_sha = pr->head_sha;
    check.head_occurrence = facts.head_occurrence;
    check.why = "invalid policy file";
    check.check_status = "completed";
    check.check_conclusion = "failure";
    check.check_title = "gatehouse: " + config_.policy_path + " is invalid";
    check.check_summary = "```\n" + policy->error + "\n```";
    check.detail = std::string(decide::kCheckRunName) + ":invalid:" + StableDigest(policy->error);
    // Under the server defaults: the repository's own settings are what failed to parse.
    decide::Autonomy level = options.autonomy;
    if (auto it = options.class_autonomy.find(decide::ActionClass::kReport);
        it != options.class_autonomy.end()) {
      level = it->second;
    }
    if (facts.check_run_detail == check.detail) {
      plan.skipped.push_back({std::move(check), "already in that state"});
    } else if (options.dry_run) {
      plan.skipped.push_back({std::move(check), "dry-run"});
    } else if (level == decide::Autonomy::kObserve) {
      plan.skipped.push_back({std::move(check), "observe"});
    } else {
      plan.actions.push_back(std::move(check));
    }
  } else {
    verdict = decide::Evaluate(policy->policy, snapshot);
    plan = decide::PlanActions(policy->policy, snapshot, verdict, facts, options);
  }
  for (auto& a : plan.actions) NumberGeneration(a, history->ledger);
  for (auto& sk : plan.skipped) NumberGeneration(sk.action, history->ledger);

  json::object verdict_json{
      {"verdict", decide::VerdictName(verdict.verdict)}, {"score", verdict.score},
      {"blockers", FindingsJson(verdict.blockers)},      {"waiting", FindingsJson(verdict.waiting)},
      {"warnings", FindingsJson(verdict.warnings)},      {"policy", policy->source},
      {"head_occurrence", facts.head_occurrence},        {"reasons", JoinReasons(lease.reasons)},
      {"state", pr->merged ? "merged" : pr->state},      {"draft", pr->draft},
      {"mergeable_state", pr->mergeable_state},          {"reviews", reviews->size()},
      {"check_runs", snapshot.check_runs.size()},        {"statuses", snapshot.statuses.size()},
  };
  std::ostringstream verdict_line;
  verdict_line << decide::VerdictName(verdict.verdict) << " (score " << verdict.score
               << "; blockers " << verdict.blockers.size() << ", waiting " << verdict.waiting.size()
               << ", warnings " << verdict.warnings.size() << "; policy " << policy->source << ")";
  add_audit("verdict", pr->head_sha, verdict_line.str(), json::serialize(verdict_json));
  if (!plan.actions.empty()) {
    std::string planned;
    json::array keys;
    for (const auto& a : plan.actions) {
      planned += (planned.empty() ? "" : ", ") + ActionText(a);
      keys.push_back(json::string(a.Key()));
    }
    add_audit("planned", pr->head_sha, planned, json::serialize(json::object{{"keys", keys}}));
  }
  for (const auto& s : plan.skipped) {
    add_audit("skipped", s.action.head_sha, ActionText(s.action) + ": " + s.reason,
              json::serialize(json::object{{"key", s.action.Key()}, {"why", s.action.why}}));
  }

  // 4. Execute through the ledger.
  if (ctx.lease_lost()) {
    flush_audit();
    return PassOutcome::Transient("lease lost before acting");
  }
  // Intents an earlier holder left open that this plan does not contain (a merge whose answer
  // was lost on a PR that is merged now, ...): settle them against GitHub first, never call.
  {
    std::set<std::string> planned;
    for (const auto& a : plan.actions) planned.insert(a.Key());
    ExecutorOptions settle = executor;
    settle.reconcile_only = true;
    settle.after_call = nullptr;
    for (const ActionKey& key : history->open_intents) {
      auto kind = decide::ParseActionKind(key.kind);
      if (!kind) continue;
      decide::PlannedAction a;
      a.kind = *kind;
      a.head_sha = key.head_sha;
      a.head_occurrence = key.head_occurrence;
      a.detail = key.detail;
      if (planned.count(a.Key())) continue;
      decide::Plan one;
      a.why = "open intent of an earlier pass";
      if (*kind == decide::ActionKind::kLabel || *kind == decide::ActionKind::kUnlabel) {
        a.label = BaseDetail(key.detail);
      }
      one.actions.push_back(std::move(a));
      ExecResult settled = Execute(store_, github_, *clock_, target, lease.fence, one, settle);
      for (const ActionReport& r : settled.actions) {
        add_audit(r.result == ActionReport::Result::kReconciled ? "reconciled" : "failed",
                  r.action.head_sha,
                  ActionText(r.action) +
                      " (open intent): " + std::string(ActionResultName(r.result)) +
                      (r.detail.empty() ? "" : " (" + r.detail + ")"));
      }
      if (settled.stop) {
        flush_audit();
        return *settled.stop;
      }
    }
  }
  ExecResult result = Execute(store_, github_, *clock_, target, lease.fence, plan, executor);
  for (const ActionReport& r : result.actions) {
    std::string kind;
    switch (r.result) {
      case ActionReport::Result::kDone:
        kind = "executed";
        break;
      case ActionReport::Result::kReconciled:
        kind = "reconciled";
        break;
      case ActionReport::Result::kSuperseded:
        kind = "superseded";
        break;
      case ActionReport::Result::kFailed:
      case ActionReport::Result::kRateLimited:
      case ActionReport::Result::kUnknown:
        kind = "failed";
        break;
      case ActionReport::Result::kAlreadyDone:
      case ActionReport::Result::kNotRun:
        kind = "skipped";
        break;
    }
    std::string summary = ActionText(r.action) + ": " + std::string(ActionResultName(r.result));
    if (!r.detail.empty()) summary += " (" + r.detail + ")";
    add_audit(kind, r.action.head_sha, summary,
              json::serialize(json::object{
                  {"key", r.action.Key()}, {"why", r.action.why}, {"ledger_id", r.ledger_id}}));
  }
  add_audit("pass", pr->head_sha,
            "pass done in " +
                std::to_string(ToMicros(clock_->Now()) / 1000 - ToMicros(started) / 1000) + " ms" +
                (result.superseded ? "; superseded, a fresh pass follows" : ""));
  flush_audit();
  Log(LogLevel::kInfo, "pass.done")
      .Field("key", lease.key)
      .Field("fence", lease.fence)
      .Field("head", pr->head_sha)
      .Field("verdict", std::string(decide::VerdictName(verdict.verdict)))
      .Field("actions", static_cast<int64_t>(plan.actions.size()))
      .Field("superseded", result.superseded);

  if (result.superseded) {
    // The head moved under the plan: decide again on the new head. The item is running, so
    // this makes it dirty, and it is due again as soon as this pass is recorded.
    Signal again{lease.key, "superseded", Duration(0)};
    if (Status s = store_.Enqueue(std::span<const Signal>(&again, 1), clock_->Now(),
                                  Durability::kRecoverable);
        !s.ok()) {
      return PassOutcome::Transient("could not signal a fresh pass: " + s.ToString());
    }
  }
  if (result.stop) return *result.stop;
  // GitHub computes mergeability lazily after a push; a merge that waits only for it would
  // otherwise wait for the next sweep. Look again shortly, for a bounded time.
  const bool only_mergeability =
      verdict.verdict == decide::Verdict::kPending && !verdict.waiting.empty() &&
      std::all_of(verdict.waiting.begin(), verdict.waiting.end(),
                  [](const decide::Finding& f) { return f.rule == "mergeable"; });
  const Duration head_age = now - *snapshot.head_pushed_at;
  std::optional<Signal> again;
  if (!result.superseded && pr->state == "open" && !pr->mergeable && only_mergeability &&
      head_age < kMergeableRecheckFor) {
    // 3 s at first, then a quarter of the head's age: a handful of looks, not one every 3 s.
    again = Signal{lease.key, "mergeable-unknown", std::max(kMergeableRecheck, head_age / 4)};
  } else if (!result.superseded && pr->state == "open" && policy->error.empty()) {
    // Decisions that only time changes, taken on time rather than at the next sweep: the
    // close after the grace period, and a required check that has not reported becoming a
    // blocker.
    std::optional<Time> at;
    auto consider = [&](Time t) {
      if (t > now && (!at || t < *at)) at = t;
    };
    if (verdict.verdict == decide::Verdict::kFail && facts.pending_closure_since) {
      consider(*facts.pending_closure_since + options.close_grace);
    }
    const bool check_waits =
        std::any_of(verdict.waiting.begin(), verdict.waiting.end(),
                    [](const decide::Finding& f) { return f.rule == "required_checks"; });
    if (check_waits) {
      consider(*snapshot.head_pushed_at + policy->policy.required_checks.missing_after);
    }
    if (at) {
      again = Signal{lease.key, "timer", *at - now + std::chrono::milliseconds(100)};
    }
  }
  if (again) {
    if (Status s = store_.Enqueue(std::span<const Signal>(&*again, 1), clock_->Now(),
                                  Durability::kRecoverable);
        !s.ok()) {
      Log(LogLevel::kWarn, "pass.recheck").Field("key", lease.key).Field("error", s.ToString());
    }
  }
  return PassOutcome::Done();
}

}  // namespace gatehouse::act
