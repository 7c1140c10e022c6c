// QueuePass: one pass over one merge queue ("owner/repo@main/queue", base/subject.h QueueKey),
// run inside that queue's lease with its fence (docs/MERGE_QUEUE.md, "The queue pass"). The
// queue is a subject like a PR: one pass at a time decides for it, and every effect it has on
// GitHub goes through the action ledger under the queue's key, bound to a SHA.
//
// A pass, step by step:
//   1. the repository's installation and policy (the default branch's file, as PR passes read
//      it); a queue that is disabled, or whose merges are not automatic, drops its entries;
//   2. entries still queued past `max_time_in_queue` are dropped;
//   3. the head entry (store/merge_queue.h ListQueue's first) moves as decide/queue_step.h
//      says, with its PR read live first: update-branch bound to the queued head (ledger key
//      `update_branch|<head>|entry:<id>`), the update's head recorded as the tested SHA, the
//      required checks read on exactly that SHA, the merge bound to it (`merge|<tested>|
//      entry:<id>`), each state change a fenced MergeQueue::Step. An entry that ends (merged or
//      dropped) hands the queue to the next one in the same pass;
//   4. when it must wait (checks running, an update landing, GitHub computing mergeability),
//      the queue signals itself for the earliest deadline: the checks timeout, the recheck, the
//      oldest queued entry's `max_time_in_queue`. Webhooks about a tested SHA wake it sooner
//      (the router signals the queues watching a SHA).
// Every step is appended to the PR's audit log (kind `queue`), and a PR whose entry ended is
// signalled (`queue-moved`), so its summary tells why.
//
// Crash safety: a SIGKILL anywhere leaves the entry in its last recorded state and, at worst,
// an open ledger intent; the next holder (a higher fence) reconciles the intent against GitHub
// (merged? the head moved?) before calling again, so nothing is merged twice and no entry is
// lost.
//
// Outcomes: rate limits -> RateLimited; a GitHub or store failure -> Transient (the engine's
// backoff, then dead with the reason, re-armable); a key that is not a queue -> Permanent.
//
// Thread-safe: one QueuePass serves every worker; Run() may be called concurrently for
// different queues.
#pragma once

#include <string>

#include "act/executor.h"
#include "act/pass_outcome.h"
#include "act/policy_source.h"
#include "act/pr_pass.h"
#include "base/clock.h"
#include "decide/policy.h"
#include "github/github.h"
#include "store/store.h"

namespace gatehouse::act {

struct QueuePassConfig {
  decide::Policy defaults = decide::DefaultPolicy();  // as PassConfig's
  std::string policy_path = ".github/gatehouse.yml";
  std::string override_dir;
  bool dry_run = false;  // the server's switch: the queue moves nothing
  bool app_mode = true;
  ExecutorOptions executor;  // its after_call is the crash tests' fault injection
};

class QueuePass {
 public:
  QueuePass(Store& store, GitHub& github, ClockPtr clock, QueuePassConfig config);

  PassOutcome Run(const Lease& lease, const LeaseLostProbe& lease_lost);

 private:
  class OnePass;  // one pass's state (act/queue_pass.cc)

  Store& store_;
  GitHub& github_;
  ClockPtr clock_;
  const QueuePassConfig config_;
  PolicySource policies_;
};

}  // namespace gatehouse::act
