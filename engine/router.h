// Routing: which work items a webhook delivery concerns, and why (DESIGN.md §2, §4).
//
// Pure functions over the decoded payload: no I/O, no clock. The server's router loop and the
// `gatehouse route` explain tool share this code. Subject keys are "owner/repo#number",
// lower-cased.
#pragma once

#include <boost/json/value.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "store/store.h"

namespace gatehouse {

// What RouteWebhook stamps on what it emits, so that the inbox router can store it as is.
struct RouteStamp {
  // The delivery's arrival (InboxEntry::received_at): the time of every fact whose payload
  // does not say when it happened.
  Time received_at{};
  Duration debounce{0};  // of every signal
  // gatehouse's login as GitHub shows it ("<slug>[bot]" in App mode; "" unknown). What it
  // reports of gatehouse's own effects starts no pass: the pass that made the effect decided
  // with it, and a pass for it would only re-read what gatehouse just wrote (docs/ENGINE.md,
  // "gatehouse's own effects"). Ignored: a check run or suite of the App "<slug>" (and any
  // check run named `gatehouse`, which the gate leaves out whoever made it), a label gatehouse
  // added or removed, a review gatehouse submitted.
  std::string own_login{};
};

struct RouteResult {
  enum class Kind {
    kRoute,         // signal `signals` (may be empty for recorded events, e.g. installation)
    kIgnore,        // an event or action gatehouse does not use: `why`
    kResolveBySha,  // a check or status with no PR list: find the PRs whose head is `sha`
  };
  Kind kind = Kind::kIgnore;
  // kRoute only: one per PR, reason "pushed", "ci-completed", ... ([a-z0-9_.:-]+), debounce
  // from the stamp.
  std::vector<Signal> signals;
  std::string why;     // kIgnore: why; kRoute: a short summary (e.g. "installation recorded")
  std::string repo;    // kResolveBySha: "owner/repo", lower-case
  std::string sha;     // kResolveBySha: the commit
  std::string reason;  // kResolveBySha: the reason to use for every PR found
  // Commits a merge queue may be testing or updating from (docs/MERGE_QUEUE.md): a check's or
  // a status's SHA, a pushed PR's old and new heads, in `watch_repo` ("owner/repo",
  // lower-case). The inbox router signals the queues watching one (MergeQueue::QueuesWatching)
  // with `reason` or the delivery's own reason.
  std::string watch_repo;
  std::vector<std::string> watch_shas;
  // Dead work items to bring back (WorkQueue::Rearm) once the routing is committed: the PR of
  // a `refresh` command by someone with write access (docs/MERGE_QUEUE.md "Commands").
  std::vector<std::string> rearm;
  // PR heads learned from this payload: (subject key, head SHA); an empty SHA means the PR
  // is no longer open (closed) and should be forgotten.
  std::vector<std::pair<std::string, std::string>> heads;
  // Repositories learned from this payload, whatever its kind (ignored events included):
  // repository.full_name with installation.id (absent without one), the repositories of an
  // installation that was created or accepted new permissions, and those added to one.
  // Names are "owner/repo", lower-case.
  std::vector<RepoInstallation> repos;
  // Repositories the App no longer covers: an uninstalled installation's, those removed from
  // one, a deleted repository, the old name of a renamed or transferred one.
  std::vector<std::string> repos_removed;
  // pull_request.reopened: "reopened" = "<sender> <ROLE>", ROLE the PR's author_association
  // when the author reopened it, else COLLABORATOR (only the author or a user with write
  // access can reopen). pull_request.closed: "closed_by" = "<sender>" (+ " merged").
  // pull_request.synchronize: "pushed" = the new head SHA, `at` = the payload's
  // pull_request.updated_at (GitHub's time of the push), so that the latest push GitHub
  // reported wins whatever order deliveries arrive in (docs/ACTIONS.md, "Head occurrences").
  // Every other fact is `at` the stamp's received_at.
  std::vector<PrFact> facts;
};

// Routes one delivery. `event` is X-GitHub-Event; `payload` the parsed body; `stamp` what the
// signals and facts are stamped with (a caller that stores neither — the explain tool, the
// DeliveryResolver, which only reads where to look — may leave it empty). Never fails: a
// payload missing the fields an event needs is ignored with a `why` that names the field.
RouteResult RouteWebhook(std::string_view event, const boost::json::value& payload,
                         const RouteStamp& stamp = {});

// The line of a comment body that may address gatehouse: its first non-empty line, trimmed,
// when it starts with "/gatehouse" (ASCII case-insensitive, followed by the end of the line or a
// character that cannot continue a word) or with an @-mention ("@<login> ..."); "" otherwise. A
// quoted command ("> /gatehouse merge") does not count. Which login a mention must name is the
// pass's business (it knows its own login: decide/review_plan.h's ParseCommand), so the router
// records every such comment as a `command:<id>` PR fact (decide/pr_facts.h).
std::string_view CommandLine(std::string_view comment_body);
// !CommandLine(body).empty().
bool AddressesGatehouse(std::string_view comment_body);

}  // namespace gatehouse
