// Test helper shared by the executor tests: many threads asking one executor at once.
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "review/executor.h"

namespace gatehouse::review::executor_testing {

// 8 threads × 4 reviews on one executor, each with its own role; returns how many results
// echoed their own request's role as the summary (the executor under test is set up to).
inline int ConcurrentRoleEchoes(ReviewExecutor& executor) {
  std::atomic<int> right{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 4; ++i) {
        decide::ReviewRequest request;
        request.role = "r" + std::to_string(t) + "-" + std::to_string(i);
        auto out = executor.Review(request, std::chrono::seconds(60), nullptr);
        if (out.kind == ExecOutcome::Kind::kResult && out.result.summary == request.role) {
          right.fetch_add(1);
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  return right.load();
}

}  // namespace gatehouse::review::executor_testing
