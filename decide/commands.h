// The command grammar of PR comments (docs/REVIEWERS.md "Commands", docs/MERGE_QUEUE.md
// "Commands"): "/gatehouse <word> [argument]" or "@<app-login> <word> [argument]" on the first
// non-empty line of a comment. What each command does is decided elsewhere: `review` by
// decide/review_plan.h, `queue`, `dequeue`, `merge` and `refresh` by decide/queue_commands.h.
//
// Pure; safe from any thread.
#pragma once

#include <string>
#include <string_view>

namespace gatehouse::decide {

struct ParsedCommand {
  enum class Kind {
    kNone,     // the comment does not address gatehouse
    kReview,   // review [role]
    kQueue,    // queue: into the merge queue when ready, under the repository's autonomy
    kDequeue,  // dequeue: out of the merge queue, and kept out until `queue` or `merge`
    kMerge,    // merge: queue (or merge) when ready, whatever the merge actions' autonomy
    kRefresh,  // refresh: a fresh pass of the PR (and of its queue) now
    kUnknown,  // any other word, or none
  } kind = Kind::kNone;
  std::string role;  // kReview: the role named, lower-cased; "" for every role
  std::string word;  // kUnknown: the command word as written ("" when none was given)
};

// Parses the first non-empty line of `body` ("/gatehouse", the login and the command word
// compared case-insensitively; the login with or without a trailing "[bot]"; words after the
// argument are ignored).
ParsedCommand ParseCommand(std::string_view body, std::string_view app_login);

// Whether a command kind is one of the merge queue's (queue, dequeue, merge, refresh).
bool IsQueueCommand(ParsedCommand::Kind kind);

// The command word of a kind ("review", "queue", ...; "" for kNone and kUnknown).
std::string_view CommandWord(ParsedCommand::Kind kind);

// Whether `author` is gatehouse itself (`app_login`, with or without "[bot]").
bool IsSelf(std::string_view author, std::string_view app_login);

// Untrusted text echoed in a reply: one short line, no code-span breaks.
std::string Echo(std::string_view word);

}  // namespace gatehouse::decide
