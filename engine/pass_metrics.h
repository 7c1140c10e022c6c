// The worker pool's passes as Prometheus families (docs/METRICS.md), this process's only:
//   gatehouse_passes_started_total{kind}         passes begun (started - finished = running)
//   gatehouse_passes_total{kind, outcome}        kind: pr | review; outcome: completed |
//                                                retried | dead | fence_lost | unrecorded
//   gatehouse_pass_failures_total{kind, class}   transient | rate_limited | unavailable |
//                                                permanent: why a pass did not complete
//   gatehouse_pass_duration_seconds{kind}        from the pass's start to its end
//   gatehouse_pass_reasons{kind}                 distinct reasons one pass covered (how much
//                                                the mailbox folded into it)
//   gatehouse_signal_to_pass_start_seconds{kind} from the earliest signal a pass is the first
//                                                claim of (Lease::signalled_at) to its start
// Observe is a PassObserver: one call per finished pass, from the dispatcher thread; each
// update is one atomic add on a series looked up once, at construction.
#pragma once

#include "base/metrics.h"
#include "engine/worker_pool.h"

namespace gatehouse {

class PassMetrics {
 public:
  // Registers the families on `registry`, which must outlive this object.
  explicit PassMetrics(metrics::Registry& registry);
  void Observe(const PassReport& report);
  // A pass begins (the worker calls the pass function): gatehouse_passes_started_total{kind}.
  void Started(const Lease& lease);

 private:
  struct Kind {
    metrics::Counter* completed;
    metrics::Counter* retried;
    metrics::Counter* dead;
    metrics::Counter* fence_lost;
    metrics::Counter* unrecorded;
    metrics::Counter* transient;
    metrics::Counter* rate_limited;
    metrics::Counter* unavailable;
    metrics::Counter* permanent;
    metrics::Histogram* duration;
    metrics::Histogram* reasons;
    metrics::Histogram* signal_to_start;
    metrics::Counter* started;
  };
  Kind Make(const char* kind);
  metrics::Family<metrics::Counter>* started_;
  metrics::Family<metrics::Counter>* passes_;
  metrics::Family<metrics::Counter>* failures_;
  metrics::Family<metrics::Histogram>* duration_;
  metrics::Family<metrics::Histogram>* reasons_;
  metrics::Family<metrics::Histogram>* signal_to_start_;
  Kind pr_;
  Kind review_;
};

}  // namespace gatehouse
