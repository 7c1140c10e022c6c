// Routing: which work items a webhook delivery concerns. See engine/router.h; reading the
// payload's fields is engine/route_payload.h.
#include "engine/router.h"

#include <algorithm>
#include <boost/json.hpp>
#include <cstdint>
#include <optional>

#include "base/ascii.h"
#include "base/subject.h"
#include "decide/planner.h"
#include "decide/pr_facts.h"
#include "decide/queue_commands.h"
#include "decide/reasons.h"
#include "engine/route_payload.h"
#include "engine/route_repositories.h"

namespace gatehouse {
namespace {

namespace json = boost::json;
using routing::Clip;
using routing::IsSha;
using routing::NonEmptyString;
using routing::PayloadReader;

RouteResult Ignore(std::string why) {
  RouteResult r;
  r.kind = RouteResult::Kind::kIgnore;
  r.why = std::move(why);
  return r;
}

// pull_request actions that change what gatehouse would decide, and the reason each signals.
// Anything else (assigned, locked, milestoned, ...) cannot change a verdict.
struct ActionReason {
  std::string_view action;
  std::string_view reason;
};
constexpr ActionReason kPullRequestActions[] = {
    {"opened", decide::kReasonOpened},
    {"reopened", decide::kReasonReopened},
    {"synchronize", decide::kReasonPushed},
    {"edited", decide::kReasonEdited},
    {"ready_for_review", decide::kReasonReadyForReview},
    {"converted_to_draft", decide::kReasonConvertedToDraft},
    {"closed", decide::kReasonClosed},
    {"labeled", decide::kReasonLabeled},
    {"unlabeled", decide::kReasonUnlabeled},
    {"review_requested", decide::kReasonReviewRequested},
};
constexpr ActionReason kReviewActions[] = {
    {"submitted", decide::kReasonReviewed},
    {"dismissed", decide::kReasonReviewDismissed},
};

template <size_t N>
std::optional<std::string_view> ReasonFor(const ActionReason (&table)[N], std::string_view action) {
  for (const auto& entry : table) {
    if (entry.action == action) return entry.reason;
  }
  return std::nullopt;
}

RouteResult RouteOne(std::string key, std::string_view reason, std::string why,
                     const RouteStamp& stamp) {
  RouteResult r;
  r.kind = RouteResult::Kind::kRoute;
  r.signals.push_back(Signal{std::move(key), std::string(reason), stamp.debounce});
  r.why = std::move(why);
  return r;
}

// Who reopened or closed a PR: the REST endpoints a pass reads say that a PR is open or
// closed, not who made it so, and reopen-reclose and the audit need to know.
void LearnPullRequestFacts(const PayloadReader& in, std::string_view action, const std::string& key,
                           const RouteStamp& stamp, RouteResult* r) {
  auto sender = NonEmptyString(in, "sender.login");
  if (!sender) return;
  const std::string who = Clip(*sender);
  if (action == "reopened") {
    // Only the author or someone with write access can reopen a pull request.
    std::string role = "COLLABORATOR";
    if (NonEmptyString(in, "pull_request.user.login") == sender) {
      role = std::string(NonEmptyString(in, "pull_request.author_association").value_or("NONE"));
      role = Clip(role);
    }
    r->facts.push_back(PrFact{key, std::string(decide::kFactReopened),
                              decide::ReopenedValue(who, role), stamp.received_at});
  } else if (action == "closed") {
    const json::value* merged = in.Find("pull_request.merged");
    const bool was_merged = merged != nullptr && merged->is_bool() && merged->get_bool();
    r->facts.push_back(PrFact{key, std::string(decide::kFactClosedBy),
                              decide::ClosedByValue(who, was_merged), stamp.received_at});
  }
}

// A push, stamped with GitHub's time for it: a pass that reads the same head as the one it last
// decided on, but knows of a push GitHub made after it read that head, knows the head went away
// and came back (docs/ACTIONS.md, "Head occurrences"). Without a usable time there is no fact:
// a push of unknown time cannot be ordered against anything.
void LearnPush(const PayloadReader& in, const std::string& key, RouteResult* r) {
  auto after = NonEmptyString(in, "pull_request.head.sha");
  auto updated = NonEmptyString(in, "pull_request.updated_at");
  if (!after || !updated || !IsSha(*after)) return;
  auto at = ParseTime(*updated);
  if (!at) return;
  r->facts.push_back(PrFact{key, std::string(decide::kFactPushed), AsciiLower(*after), *at});
}

// The App slug of gatehouse's login "<slug>[bot]" (RouteStamp::own_login); "" when the login is
// unknown or a person's (a personal token), whose own labels and approvals are news.
std::string_view OwnAppSlug(const RouteStamp& stamp) {
  constexpr std::string_view kBot = "[bot]";
  const std::string_view login = stamp.own_login;
  if (login.size() <= kBot.size() || !login.ends_with(kBot)) return "";
  return login.substr(0, login.size() - kBot.size());
}

// The delivery's sender is gatehouse's App itself.
bool SentByGatehouse(const PayloadReader& in, const RouteStamp& stamp) {
  if (OwnAppSlug(stamp).empty()) return false;
  const auto sender = NonEmptyString(in, "sender.login");
  return sender && EqualsIgnoreCase(*sender, stamp.own_login);
}

// A PR's head and, for a push, the head before it: a merge queue updating the PR from its old
// head, or testing it, hears of it.
void WatchPush(PayloadReader& in, std::string_view action, RouteResult* r) {
  auto repo = in.RepoFullName();
  if (!repo) return;
  for (const char* path : {"pull_request.head.sha", "before"}) {
    if (std::string_view(path) == "before" && action != "synchronize") continue;
    const json::value* v = in.Find(path);
    const json::string* sha = v != nullptr ? v->if_string() : nullptr;
    if (sha != nullptr && IsSha(*sha)) r->watch_shas.push_back(AsciiLower(*sha));
  }
  if (!r->watch_shas.empty()) r->watch_repo = AsciiLower(*repo);
}

RouteResult RoutePullRequest(PayloadReader& in, const RouteStamp& stamp) {
  auto action = in.String("action");
  if (!action) return Ignore(in.why());

  // The key: pull_request.number, or the top-level number GitHub also sends.
  std::optional<std::string> key;
  std::string key_why;
  if (auto repo = in.RepoFullName()) {
    std::optional<int64_t> number = in.PositiveInt("pull_request.number");
    if (!number && in.Find("pull_request.number") == nullptr) number = in.PositiveInt("number");
    if (number) {
      if (auto subject = Subject::PullRequest(*repo, *number)) key = subject->key();
    }
  }
  if (!key) key_why = in.why();

  // Heads are learned from every pull_request delivery, used or not: a later check or status
  // without a PR list (fork PRs) is resolved against them, and a stale head there would send
  // CI results to the wrong PR or nowhere.
  std::vector<std::pair<std::string, std::string>> heads;
  if (key) {
    const json::value* state = in.Find("pull_request.state");
    const json::string* state_str = state != nullptr ? state->if_string() : nullptr;
    if (state_str != nullptr && *state_str == "open") {
      const json::value* sha = in.Find("pull_request.head.sha");
      const json::string* sha_str = sha != nullptr ? sha->if_string() : nullptr;
      if (sha_str != nullptr && IsSha(*sha_str)) {
        heads.emplace_back(*key, AsciiLower(*sha_str));
      }
    } else if (state_str != nullptr && *state_str == "closed") {
      heads.emplace_back(*key, "");
    }
  }

  auto reason = ReasonFor(kPullRequestActions, *action);
  RouteResult r;
  if (!reason) {
    r = Ignore("pull_request." + Clip(*action) + " is not used");
  } else if (!key) {
    r = Ignore(key_why);
  } else if ((*action == "labeled" || *action == "unlabeled") && SentByGatehouse(in, stamp)) {
    r = Ignore("pull_request." + std::string(*action) + " by gatehouse itself");
  } else {
    r = RouteOne(*key, *reason, "pull_request." + std::string(*action), stamp);
    LearnPullRequestFacts(in, *action, *key, stamp, &r);
    if (*action == "synchronize") LearnPush(in, *key, &r);
    WatchPush(in, *action, &r);
  }
  r.heads = std::move(heads);
  return r;
}

RouteResult RoutePullRequestReview(PayloadReader& in, const RouteStamp& stamp) {
  auto action = in.String("action");
  if (!action) return Ignore(in.why());
  auto reason = ReasonFor(kReviewActions, *action);
  if (!reason) return Ignore("pull_request_review." + Clip(*action) + " is not used");
  // A review run's own review (its body carries the run's hidden marker) changes nothing a pass
  // reads: the verdict is in the store already (docs/REVIEWERS.md).
  if (const json::value* body = in.Find("review.body");
      body != nullptr && body->is_string() &&
      std::string_view(body->as_string()).find("<!-- gatehouse:review ") !=
          std::string_view::npos) {
    return Ignore("pull_request_review by a gatehouse review run");
  }
  if (*action == "submitted" && SentByGatehouse(in, stamp)) {
    return Ignore("pull_request_review.submitted by gatehouse itself");
  }
  auto repo = in.RepoFullName();
  if (!repo) return Ignore(in.why());
  auto number = in.PositiveInt("pull_request.number");
  if (!number) return Ignore(in.why());
  auto subject = Subject::PullRequest(*repo, *number);
  if (!subject) return Ignore("pull_request_review names no pull request subject");
  return RouteOne(subject->key(), *reason, "pull_request_review." + std::string(*action), stamp);
}

// Why `object` (a completed check run or suite) is gatehouse's own report, nullopt when it is
// not: its app is gatehouse's App, or it is a check run named `gatehouse`. Nothing a pass
// decides reads it (act/live_state.h SnapshotOf leaves such runs out), so a pass for it could
// only re-read what gatehouse itself just wrote.
std::optional<std::string> OwnReport(const PayloadReader& in, std::string_view object,
                                     const RouteStamp& stamp) {
  if (const std::string_view own = OwnAppSlug(stamp); !own.empty()) {
    const auto slug = NonEmptyString(in, std::string(object) + ".app.slug");
    if (slug && EqualsIgnoreCase(*slug, own)) {
      return std::string(object) + " of gatehouse's own App is its report, not an input";
    }
  }
  if (object == "check_run" && NonEmptyString(in, "check_run.name") == decide::kCheckRunName) {
    return "the gatehouse check run is gatehouse's report, not an input";
  }
  return std::nullopt;
}

// check_run, check_suite and workflow_run: `object` is the payload member that carries
// `pull_requests` and `head_sha`.
RouteResult RouteCiCompleted(PayloadReader& in, std::string_view event, std::string_view object,
                             const RouteStamp& stamp) {
  constexpr std::string_view kReason = decide::kReasonCiCompleted;
  auto action = in.String("action");
  if (!action) return Ignore(in.why());
  if (*action != "completed") {
    return Ignore(std::string(event) + "." + Clip(*action) + " is not used");
  }
  const std::string prefix = std::string(object) + ".";
  const json::value* run = in.Find(object);
  if (run == nullptr || !run->is_object()) {
    return Ignore(std::string(object) + " is missing or not an object");
  }
  auto repo = in.RepoFullName();
  if (!repo) return Ignore(in.why());
  if (const std::optional<std::string> own = OwnReport(in, object, stamp)) return Ignore(*own);

  RouteResult r;
  r.kind = RouteResult::Kind::kRoute;
  r.why = std::string(event) + ".completed";
  if (const json::value* list = in.Find(prefix + "pull_requests")) {
    const json::array* prs = list->if_array();
    if (prs == nullptr) return Ignore(prefix + "pull_requests is not an array");
    // GitHub lists every PR whose head matches the commit, including PRs *into other
    // repositories* (a fork's PR from this repository's branch). Those are not this
    // repository's PRs: keying them with repository.full_name would signal the wrong PR.
    const json::value* repo_id = in.Find("repository.id");
    const int64_t* our_id = repo_id != nullptr ? repo_id->if_int64() : nullptr;
    for (const json::value& entry : *prs) {
      const json::object* pr = entry.if_object();
      if (pr == nullptr) continue;
      PayloadReader pr_in(*pr);
      if (our_id != nullptr) {
        const json::value* base_id = pr_in.Find("base.repo.id");
        const int64_t* id = base_id != nullptr ? base_id->if_int64() : nullptr;
        if (id != nullptr && *id != *our_id) continue;
      }
      auto number = pr_in.PositiveInt("number");
      auto subject = number ? Subject::PullRequest(*repo, *number) : std::nullopt;
      if (!subject) continue;
      std::string key = subject->key();
      bool seen = false;
      for (const Signal& s : r.signals) seen = seen || s.key == key;
      if (!seen) r.signals.push_back(Signal{std::move(key), std::string(kReason), stamp.debounce});
    }
  }
  if (auto head = in.Sha(prefix + "head_sha")) {
    r.watch_repo = AsciiLower(*repo);
    r.watch_shas.push_back(*head);
  }
  if (!r.signals.empty()) return r;

  // No usable PR list (fork PRs, or a commit not yet in any PR): resolve by head SHA rather
  // than drop, so CI results on fork PRs still reach their work item.
  auto sha = in.Sha(prefix + "head_sha");
  if (!sha) return Ignore(in.why());
  r.kind = RouteResult::Kind::kResolveBySha;
  r.repo = AsciiLower(*repo);
  r.sha = std::move(*sha);
  r.reason = std::string(kReason);
  r.why = std::string(event) + ".completed without a pull request list";
  return r;
}

// Statuses never carry a PR list; every state (pending included) can change the gate.
RouteResult RouteStatus(PayloadReader& in) {
  auto repo = in.RepoFullName();
  if (!repo) return Ignore(in.why());
  auto sha = in.Sha("sha");
  if (!sha) return Ignore(in.why());
  RouteResult r;
  r.kind = RouteResult::Kind::kResolveBySha;
  r.repo = AsciiLower(*repo);
  r.sha = std::move(*sha);
  r.reason = std::string(decide::kReasonStatus);
  r.why = "status";
  r.watch_repo = r.repo;
  r.watch_shas.push_back(r.sha);
  return r;
}

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

// True when `line` starts with `prefix` (ASCII, case-insensitive) followed by the end of the
// line or a character that cannot continue a word: "/gatehousekeeping" is something else.
bool StartsWithWord(std::string_view line, std::string_view prefix) {
  if (line.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (AsciiLower(line[i]) != prefix[i]) return false;
  }
  if (line.size() == prefix.size()) return true;
  const char next = AsciiLower(line[prefix.size()]);
  return !((next >= 'a' && next <= 'z') || (next >= '0' && next <= '9') || next == '-' ||
           next == '_');
}

RouteResult RouteIssueComment(PayloadReader& in, const RouteStamp& stamp) {
  auto action = in.String("action");
  if (!action) return Ignore(in.why());
  if (*action != "created") return Ignore("issue_comment." + Clip(*action) + " is not used");
  if (in.Find("issue") == nullptr) return Ignore("issue is missing");
  if (in.Find("issue.pull_request") == nullptr) {
    return Ignore("issue_comment on a plain issue, not a pull request");
  }
  auto body = in.String("comment.body");
  // An empty comment body arrives as null; it cannot address anyone.
  if (!body && in.Find("comment") != nullptr && in.Find("comment.body") == nullptr) body = "";
  if (!body) return Ignore(in.why());
  const std::string_view line = CommandLine(*body);
  if (line.empty()) {
    return Ignore("issue_comment does not address gatehouse (/gatehouse or @<app>)");
  }
  auto repo = in.RepoFullName();
  if (!repo) return Ignore(in.why());
  auto number = in.PositiveInt("issue.number");
  if (!number) return Ignore(in.why());
  auto subject = Subject::PullRequest(*repo, *number);
  if (!subject) return Ignore("issue_comment names no pull request subject");
  auto comment_id = in.PositiveInt("comment.id");
  auto author = NonEmptyString(in, "comment.user.login");
  if (!comment_id || !author) return Ignore("issue_comment without comment.id or comment.user");
  RouteResult r = RouteOne(subject->key(), decide::kReasonCommand, "issue_comment.created", stamp);
  // The pass decides whether the line is a command for it (it knows its own login); the fact
  // keeps the comment as it was created, so an edit never makes a second command.
  const std::string association =
      Clip(std::string(NonEmptyString(in, "comment.author_association").value_or("NONE")));
  r.facts.push_back(PrFact{subject->key(), decide::CommandFactName(*comment_id),
                           decide::CommandValue(Clip(*author), association, line),
                           stamp.received_at});
  // `refresh` asks for a pass now, also of a PR whose work item is dead.
  if (decide::ParseCommand(line, stamp.own_login).kind == decide::ParsedCommand::Kind::kRefresh &&
      decide::MayCommandQueue(std::string_view(association)) &&
      !decide::IsSelf(*author, stamp.own_login)) {
    r.rearm.push_back(subject->key());
  }
  return r;
}

RouteResult RouteInstallation(PayloadReader& in) {
  const json::value* action = in.Find("action");
  const json::string* s = action != nullptr ? action->if_string() : nullptr;
  RouteResult r;
  r.kind = RouteResult::Kind::kRoute;
  r.why = "installation recorded: " + (s != nullptr ? Clip(*s) : std::string("(no action)"));
  return r;
}

RouteResult RouteByEvent(std::string_view event, const json::object& root,
                         const RouteStamp& stamp) {
  PayloadReader in(root);
  if (event == "pull_request") return RoutePullRequest(in, stamp);
  if (event == "pull_request_review") return RoutePullRequestReview(in, stamp);
  if (event == "check_run") return RouteCiCompleted(in, event, "check_run", stamp);
  if (event == "check_suite") return RouteCiCompleted(in, event, "check_suite", stamp);
  if (event == "workflow_run") return RouteCiCompleted(in, event, "workflow_run", stamp);
  if (event == "status") return RouteStatus(in);
  if (event == "issue_comment") return RouteIssueComment(in, stamp);
  return RouteInstallation(in);
}

RouteResult RouteUsedEvent(std::string_view event, const json::value& payload,
                           const RouteStamp& stamp) {
  if (event == "ping") return Ignore("ping");
  const bool used = event == "pull_request" || event == "pull_request_review" ||
                    event == "check_run" || event == "check_suite" || event == "workflow_run" ||
                    event == "status" || event == "issue_comment" || event == "installation" ||
                    event == "installation_repositories";
  if (!used) {
    return Ignore("event " + (event.empty() ? std::string("(empty)") : Clip(event)) +
                  " is not used");
  }
  const json::object* root = payload.if_object();
  if (root == nullptr) return Ignore("payload is not a JSON object");
  return RouteByEvent(event, *root, stamp);
}

}  // namespace

RouteResult RouteWebhook(std::string_view event, const json::value& payload,
                         const RouteStamp& stamp) {
  const json::object* root = payload.if_object();
  RouteResult r = RouteUsedEvent(event, payload, stamp);
  if (root != nullptr) routing::LearnRepositories(event, *root, &r);
  return r;
}

std::string_view CommandLine(std::string_view body) {
  while (!body.empty()) {
    const size_t eol = body.find('\n');
    std::string_view line = body.substr(0, eol);
    while (!line.empty() && IsSpace(line.front())) line.remove_prefix(1);
    while (!line.empty() && IsSpace(line.back())) line.remove_suffix(1);
    if (!line.empty()) {
      const bool mention = line.size() > 1 && line[0] == '@' && !IsSpace(line[1]);
      return StartsWithWord(line, "/gatehouse") || mention ? line : std::string_view();
    }
    if (eol == std::string_view::npos) break;
    body.remove_prefix(eol + 1);
  }
  return {};
}

bool AddressesGatehouse(std::string_view body) { return !CommandLine(body).empty(); }

}  // namespace gatehouse
