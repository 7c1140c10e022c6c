// The process's own metrics, under Prometheus's standard names (what client libraries export
// as "process collector"), read from /proc/self at each scrape:
//   process_resident_memory_bytes   RSS (statm's resident pages x page size)
//   process_virtual_memory_bytes    the address space (statm's size)
//   process_open_fds                entries of /proc/self/fd
//   process_cpu_seconds_total       user + system CPU time (getrusage)
// A value that cannot be read is left out of that scrape rather than reported as 0.
#pragma once

#include "base/metrics.h"

namespace gatehouse::metrics {

void AddProcessCollectors(Registry& registry);

}  // namespace gatehouse::metrics
