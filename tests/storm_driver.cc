#include "tests/storm_driver.h"

#include <fstream>
#include <thread>

namespace gatehouse::storm {

StormPlan MakeStormPlan(int keys, int doomed, int min_signals, int max_signals, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> count(min_signals, max_signals);
  StormPlan plan;
  auto add = [&](const std::string& key) {
    const int n = count(rng);
    plan.per_key[key] = n;
    for (int i = 0; i < n; ++i) plan.signals.push_back(key);
  };
  for (int i = 0; i < keys; ++i) add("storm/repo#" + std::to_string(i));
  for (int i = 0; i < doomed; ++i) {
    const std::string key = "storm/doomed#" + std::to_string(i);
    plan.doomed.insert(key);
    add(key);
  }
  std::shuffle(plan.signals.begin(), plan.signals.end(), rng);
  return plan;
}

void ProduceSignals(Enqueuer& enqueuer, const StormPlan& plan, int producers, uint64_t seed) {
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int p = 0; p < producers; ++p) {
    threads.emplace_back([&, p] {
      std::mt19937_64 rng(seed * 31 + static_cast<uint64_t>(p));
      std::uniform_int_distribution<int> gap_us(0, 300), debounce_ms(0, 5), burst(0, 19);
      for (size_t i = static_cast<size_t>(p); i < plan.signals.size();
           i += static_cast<size_t>(producers)) {
        const char* reasons[] = {"pushed", "ci-completed", "reviewed", "swept", "labeled"};
        Signal s{plan.signals[i], reasons[i % 5], std::chrono::milliseconds(debounce_ms(rng))};
        if (!enqueuer.Enqueue(std::move(s)).ok()) failures.fetch_add(1);
        // Mostly spaced arrivals, sometimes a burst with no gap at all: the storm's arrival
        // pattern, in real time on purpose (the engines run on the real clock).
        if (burst(rng) != 0) std::this_thread::sleep_for(std::chrono::microseconds(gap_us(rng)));
      }
    });
  }
  for (auto& t : threads) t.join();
  if (failures.load() != 0) {
    std::fprintf(stderr, "storm: %d enqueues failed\n", failures.load());
    std::abort();
  }
}

std::map<std::string, WorkItem> AllItems(Store& store) {
  std::map<std::string, WorkItem> out;
  auto items = store.work().ListWorkItems(WorkFilter{std::nullopt, 1'000'000, ""});
  if (!items.ok()) return out;
  for (auto& w : *items) out[w.key] = std::move(w);
  return out;
}

bool WaitQuiet(Store& store, const std::function<void()>& tick, bool allow_dead,
               std::chrono::seconds safety) {
  const auto deadline = std::chrono::steady_clock::now() + safety;
  while (std::chrono::steady_clock::now() < deadline) {
    bool quiet = true;
    for (const auto& [key, w] : AllItems(store)) {
      if (w.state == WorkState::kIdle) continue;
      if (allow_dead && w.state == WorkState::kDead) continue;
      quiet = false;
      break;
    }
    if (quiet) return true;
    tick();
  }
  return false;
}

bool HealAndDrain(Store& store, const std::string& heal_file, const std::function<void()>& tick,
                  const StormPlan& plan, StormExpectations* want) {
  if (!WaitQuiet(store, tick, /*allow_dead=*/true)) return false;
  want->requested = plan.per_key;
  want->doomed = plan.doomed;
  std::ofstream(heal_file) << "healed\n";
  for (const auto& [key, w] : AllItems(store)) {
    if (w.state != WorkState::kDead) continue;
    want->dead_errors[key] = w.last_error;
    if (!store.work().Rearm(key, RealClock().Now()).ok()) return false;
    want->requested[key] += 1;  // a re-arm requests one more generation
  }
  if (!WaitQuiet(store, tick, /*allow_dead=*/false)) return false;
  want->final_items = AllItems(store);
  return true;
}

}  // namespace gatehouse::storm
