// See base/process_metrics.h.
#include "base/process_metrics.h"

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <system_error>

namespace gatehouse::metrics {
namespace {

// statm's first two fields, in pages: size and resident.
bool ReadStatm(long* size, long* resident) {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (f == nullptr) return false;
  const bool ok = std::fscanf(f, "%ld %ld", size, resident) == 2;
  std::fclose(f);
  return ok;
}

std::vector<Sample> Memory(bool resident) {
  long size = 0, rss = 0;
  if (!ReadStatm(&size, &rss)) return {};
  const double page = static_cast<double>(::sysconf(_SC_PAGESIZE));
  return {Sample{{}, static_cast<double>(resident ? rss : size) * page}};
}

std::vector<Sample> OpenFds() {
  std::error_code ec;
  std::filesystem::directory_iterator it("/proc/self/fd", ec);
  if (ec) return {};
  double n = 0;
  for (; it != std::filesystem::directory_iterator(); it.increment(ec)) {
    if (ec) return {};
    ++n;
  }
  return {Sample{{}, n - 1}};  // the iterator's own descriptor is one of them
}

std::vector<Sample> CpuSeconds() {
  rusage u{};
  if (::getrusage(RUSAGE_SELF, &u) != 0) return {};
  auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) / 1e6;
  };
  return {Sample{{}, seconds(u.ru_utime) + seconds(u.ru_stime)}};
}

}  // namespace

void AddProcessCollectors(Registry& registry) {
  registry.AddCollector("process_resident_memory_bytes", "Resident memory size in bytes.",
                        "gauge", {}, [] { return Memory(true); });
  registry.AddCollector("process_virtual_memory_bytes", "Virtual memory size in bytes.", "gauge",
                        {}, [] { return Memory(false); });
  registry.AddCollector("process_open_fds", "Number of open file descriptors.", "gauge", {},
                        OpenFds);
  registry.AddCollector("process_cpu_seconds_total", "Total user and system CPU time in seconds.",
                        "counter", {}, CpuSeconds);
}

}  // namespace gatehouse::metrics
