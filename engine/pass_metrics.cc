#include "engine/pass_metrics.h"

#include <chrono>
#include <string>

#include "store/review_runs.h"

namespace gatehouse {

PassMetrics::PassMetrics(metrics::Registry& registry)
    : started_(&registry.AddCounter("gatehouse_passes_started_total",
                                    "Passes this process began, by subject kind.", {"kind"})),
      passes_(&registry.AddCounter("gatehouse_passes_total",
                                   "Passes this process finished, by subject kind and how they "
                                   "ended.",
                                   {"kind", "outcome"})),
      failures_(&registry.AddCounter("gatehouse_pass_failures_total",
                                     "Passes that did not complete, by why (the retry policy's "
                                     "failure class).",
                                     {"kind", "class"})),
      duration_(&registry.AddHistogram("gatehouse_pass_duration_seconds",
                                       "How long a pass ran, from its start to its end.", {"kind"},
                                       metrics::LatencyBounds())),
      reasons_(&registry.AddHistogram("gatehouse_pass_reasons",
                                      "Distinct reasons (pushed, ci-completed, ...) one pass "
                                      "covered: what its mailbox folded together.",
                                      {"kind"}, {1, 2, 3, 4, 6, 8, 12, 16})),
      signal_to_start_(&registry.AddHistogram(
          "gatehouse_signal_to_pass_start_seconds",
          "From the earliest signal a pass is the first to cover (a webhook routed, a timer, a "
          "re-arm) to the pass's start: the debounce plus the wait for a worker.",
          {"kind"}, metrics::LatencyBounds())),
      pr_(Make("pr")),
      review_(Make("review")) {}

PassMetrics::Kind PassMetrics::Make(const char* kind) {
  auto pass = [&](const char* outcome) { return &passes_->With({kind, outcome}); };
  auto failed = [&](const char* c) { return &failures_->With({kind, c}); };
  return Kind{pass("completed"),        pass("retried"),         pass("dead"),
              pass("fence_lost"),       pass("unrecorded"),      failed("transient"),
              failed("rate_limited"),   failed("unavailable"),   failed("permanent"),
              &duration_->With({kind}), &reasons_->With({kind}), &signal_to_start_->With({kind}),
              &started_->With({kind})};
}

void PassMetrics::Started(const Lease& lease) {
  std::string subject, role;
  (ParseReviewWorkKey(lease.key, &subject, &role) ? review_ : pr_).started->Inc();
}

void PassMetrics::Observe(const PassReport& report) {
  std::string subject, role;
  const Kind& k = ParseReviewWorkKey(report.lease.key, &subject, &role) ? review_ : pr_;
  if (report.recorded.code() == StatusCode::kFenceLost) {
    k.fence_lost->Inc();
  } else if (!report.recorded.ok()) {
    k.unrecorded->Inc();
  } else if (report.finish.kind == PassFinish::Kind::kDead) {
    k.dead->Inc();
  } else if (report.finish.kind == PassFinish::Kind::kRetry) {
    k.retried->Inc();
  } else {
    k.completed->Inc();
  }
  if (!report.outcome.ok) {
    switch (report.outcome.failure) {
      case FailureClass::kTransient:
        k.transient->Inc();
        break;
      case FailureClass::kRateLimited:
        k.rate_limited->Inc();
        break;
      case FailureClass::kUnavailable:
        k.unavailable->Inc();
        break;
      case FailureClass::kPermanent:
        k.permanent->Inc();
        break;
    }
  }
  if (report.ran) {
    k.duration->Observe(std::chrono::duration<double>(report.ended - report.started).count());
  }
  k.reasons->Observe(static_cast<double>(report.lease.reasons.size()));
  if (report.ran && report.lease.signalled_at) {
    const double wait =
        std::chrono::duration<double>(report.started - *report.lease.signalled_at).count();
    k.signal_to_start->Observe(wait > 0 ? wait : 0.0);
  }
}

}  // namespace gatehouse
