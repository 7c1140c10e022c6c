// The merge queue's commands. See decide/queue_commands.h.
#include "decide/queue_commands.h"

#include <algorithm>

namespace gatehouse::decide {
namespace {

std::string Mention(std::string_view app_login) {
  std::string login(app_login);
  if (login.ends_with("[bot]")) login.resize(login.size() - 5);
  return login.empty() ? "/gatehouse" : "@" + login;
}

}  // namespace

bool MayCommandQueue(AuthorRole role) {
  return role == AuthorRole::kOwner || role == AuthorRole::kMember ||
         role == AuthorRole::kCollaborator;
}

bool MayCommandQueue(std::string_view author_association) {
  return author_association == "OWNER" || author_association == "MEMBER" ||
         author_association == "COLLABORATOR";
}

QueueCommandStanding FoldQueueCommands(const std::vector<CommandComment>& comments,
                                       std::string_view app_login) {
  std::vector<const CommandComment*> ordered;
  for (const CommandComment& c : comments) ordered.push_back(&c);
  std::sort(ordered.begin(), ordered.end(),
            [](const CommandComment* a, const CommandComment* b) { return a->id < b->id; });
  QueueCommandStanding out;
  for (const CommandComment* c : ordered) {
    if (IsSelf(c->author, app_login) || !MayCommandQueue(c->author_role)) continue;
    const ParsedCommand::Kind kind = ParseCommand(c->body, app_login).kind;
    switch (kind) {
      case ParsedCommand::Kind::kDequeue:
        out.hold = true;
        out.grant = false;
        out.admitted_by = 0;
        break;
      case ParsedCommand::Kind::kMerge:
        out.grant = true;
        [[fallthrough]];
      case ParsedCommand::Kind::kQueue:
        out.hold = false;
        out.admitted_by = c->id;
        break;
      default:
        continue;
    }
    out.comment_id = c->id;
    out.by = c->author;
  }
  return out;
}

PlannerOptions UnderQueueCommands(const PlannerOptions& options,
                                  const QueueCommandStanding& standing) {
  PlannerOptions out = options;
  if (standing.grant) out.class_autonomy[ActionClass::kMerge] = Autonomy::kAuto;
  return out;
}

CommandDecision DecideQueueCommand(const CommandComment& comment, bool pr_open,
                                   std::string_view base_ref, std::string_view app_login,
                                   bool queue_enabled,
                                   Autonomy merge_level) {
  CommandDecision d;
  d.comment_id = comment.id;
  const ParsedCommand cmd = ParseCommand(comment.body, app_login);
  if (!IsQueueCommand(cmd.kind) || IsSelf(comment.author, app_login)) return d;
  if (!MayCommandQueue(comment.author_role)) {
    d.kind = CommandDecision::Kind::kNotAllowed;
    return d;
  }
  const std::string me = Mention(app_login);
  const std::string word(CommandWord(cmd.kind));
  d.kind = CommandDecision::Kind::kRejected;
  if (cmd.kind == ParsedCommand::Kind::kRefresh) {
    d.kind = CommandDecision::Kind::kAccepted;
    return d;
  }
  if (!pr_open) {
    d.reply = "This pull request is closed: there is nothing to " + word + ".";
    return d;
  }
  const bool queue_word =
      cmd.kind == ParsedCommand::Kind::kQueue || cmd.kind == ParsedCommand::Kind::kDequeue;
  if (queue_word && !queue_enabled) {
    d.reply = "The base branch `" + Echo(base_ref) +
              "` has no merge queue (`merge_queue.enabled` is off in the policy file), so there "
              "is nothing to " + word + ". `" + me +
              " merge` merges this pull request when it is ready.";
    return d;
  }
  if (cmd.kind == ParsedCommand::Kind::kQueue && merge_level != Autonomy::kAuto) {
    d.reply = "The merge actions of this repository run at `" +
              std::string(AutonomyName(merge_level)) +
              "`, so the queue takes a pull request only when asked with `" + me +
              " merge`, which queues it whatever the autonomy.";
    return d;
  }
  d.kind = CommandDecision::Kind::kAccepted;
  return d;
}

}  // namespace gatehouse::decide
