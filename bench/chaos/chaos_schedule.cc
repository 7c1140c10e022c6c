#include "bench/chaos/chaos_schedule.h"

#include <algorithm>
#include <random>

namespace gatehouse::chaos {
namespace {

// Mutating calls gatehouse makes whose answer a lost-answer fault can swallow after the
// effect (docs/SIMULATOR.md, "Faults"): method and path glob.
struct Aimed {
  const char* method;
  const char* path;
};
constexpr Aimed kMutations[] = {
    {"PUT", "/repos/*/pulls/*/merge"},      {"POST", "/repos/*/pulls/*/reviews"},
    {"POST", "/repos/*/issues/*/comments"}, {"PATCH", "/repos/*/issues/comments/*"},
    {"POST", "/repos/*/issues/*/labels"},   {"PATCH", "/repos/*/pulls/*"},
    {"POST", "/repos/*/check-runs"},        {"PATCH", "/repos/*/check-runs/*"},
    {"PUT", "/repos/*/pulls/*/update-branch"},
};

class Dice {
 public:
  explicit Dice(uint64_t seed) : rng_(seed) {}
  int64_t Between(int64_t lo, int64_t hi) {  // inclusive
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  bool OneIn(int64_t n) { return Between(1, n) == 1; }

 private:
  std::mt19937_64 rng_;
};

ChaosEvent RestBurst(Dice& dice, ChaosSchedule* s) {
  ChaosEvent e;
  e.kind = ChaosFault::kRestFaults;
  const int64_t n = dice.Between(1, 3);
  switch (dice.Between(0, 3)) {
    case 0:
      e.label = "server_errors=" + std::to_string(n);
      e.faults_json = R"({"server_errors": )" + std::to_string(n) + "}";
      s->injected["server_errors"] += n;
      break;
    case 1:
      e.label = "connection_resets=" + std::to_string(n);
      e.faults_json = R"({"connection_resets": )" + std::to_string(n) + "}";
      s->injected["connection_resets"] += n;
      break;
    case 2:
      e.label = "secondary_rate_limits=" + std::to_string(n);
      e.faults_json = R"({"secondary_rate_limits": )" + std::to_string(n) +
                      R"(, "retry_after_seconds": 1})";
      s->injected["secondary_rate_limits"] += n;
      break;
    default: {
      const int64_t secs = dice.Between(1, 2);
      e.label = "primary_exhausted_seconds=" + std::to_string(secs);
      e.faults_json = R"({"primary_exhausted_seconds": )" + std::to_string(secs) + "}";
      s->injected["primary_rate_limits"] += 1;
      break;
    }
  }
  return e;
}

ChaosEvent DeliveryBurst(Dice& dice, ChaosSchedule* s) {
  ChaosEvent e;
  e.kind = ChaosFault::kDeliveryFaults;
  switch (dice.Between(0, 2)) {
    case 0: {
      const int64_t n = dice.Between(1, 6);
      e.label = "webhook_duplicates=" + std::to_string(n);
      e.faults_json = R"({"webhook_duplicates": )" + std::to_string(n) + "}";
      s->injected["webhook_duplicates"] += n;
      break;
    }
    case 1: {
      const int64_t n = dice.Between(1, 4);
      e.label = "webhook_reorders=" + std::to_string(n);
      e.faults_json = R"({"webhook_reorders": )" + std::to_string(n) + "}";
      s->injected["webhook_reorders"] += n;
      break;
    }
    default: {
      const int64_t ms = dice.Between(20, 200);
      e.label = "webhook_delay_ms=" + std::to_string(ms);
      e.faults_json = R"({"webhook_delay_ms": )" + std::to_string(ms) + "}";
      s->injected["webhook_delays"] += 1;
      break;
    }
  }
  return e;
}

ChaosEvent LostAnswer(Dice& dice, ChaosSchedule* s) {
  ChaosEvent e;
  e.kind = ChaosFault::kLostAnswer;
  const Aimed& a = kMutations[dice.Between(0, std::size(kMutations) - 1)];
  const char* fault = dice.OneIn(2) ? "lost_answer_reset" : "lost_answer_502";
  e.label = std::string(fault) + " " + a.method + " " + a.path;
  e.faults_json = std::string(R"({"aimed": [{"method": ")") + a.method + R"(", "path": ")" +
                  a.path + R"(", "fault": ")" + fault + R"(", "count": 1}]})";
  s->injected["lost_answers"] += 1;
  return e;
}

}  // namespace

const char* ChaosFaultName(ChaosFault f) {
  switch (f) {
    case ChaosFault::kKill:
      return "kill";
    case ChaosFault::kStop:
      return "stop";
    case ChaosFault::kRestFaults:
      return "rest";
    case ChaosFault::kDeliveryFaults:
      return "delivery";
    case ChaosFault::kLostAnswer:
      return "lost_answer";
  }
  return "?";
}

ChaosSchedule MakeChaosSchedule(const ChaosScheduleOptions& o) {
  ChaosSchedule s;
  Dice dice(o.seed);
  const int64_t kills = std::max<int64_t>(o.kills, 0);
  const int64_t play = std::max<int64_t>(o.play_ms, 1'000);
  const int64_t slot = kills > 0 ? play / kills : play;
  for (int64_t i = 0; i < kills; ++i) {
    ChaosEvent e;
    e.kind = ChaosFault::kKill;
    e.at_ms = i * slot + dice.Between(slot / 5, slot * 4 / 5);
    // One kill in three takes the whole service down (with one node, every kill does), so
    // that GitHub's deliveries fail for a while and must be recovered.
    e.all_nodes = o.nodes <= 1 || dice.OneIn(3);
    e.node = dice.Between(0, std::max<int64_t>(o.nodes - 1, 0));
    e.down_ms = dice.Between(0, std::min<int64_t>(slot / 2, 1'500));
    e.label = e.all_nodes ? "every node" : "node " + std::to_string(e.node);
    s.events.push_back(std::move(e));
  }
  s.injected["kill"] = kills;
  auto at = [&] { return dice.Between(0, play - 1); };
  const int64_t stops = std::max<int64_t>(2, kills / 10);
  for (int64_t i = 0; i < stops; ++i) {
    ChaosEvent e;
    e.kind = ChaosFault::kStop;
    e.at_ms = at();
    e.node = dice.Between(0, std::max<int64_t>(o.nodes - 1, 0));
    e.down_ms = o.lease_ms + dice.Between(500, 1'500);  // past the lease
    e.label = "node " + std::to_string(e.node) + " for " + std::to_string(e.down_ms) + " ms";
    s.events.push_back(std::move(e));
  }
  s.injected["stop"] = stops;
  for (int64_t i = 0; i < std::max<int64_t>(3, kills / 2); ++i) {
    ChaosEvent e = RestBurst(dice, &s);
    e.at_ms = at();
    s.events.push_back(std::move(e));
  }
  for (int64_t i = 0; i < std::max<int64_t>(3, kills / 4); ++i) {
    ChaosEvent e = DeliveryBurst(dice, &s);
    e.at_ms = at();
    s.events.push_back(std::move(e));
  }
  if (o.lost_answers) {
    for (int64_t i = 0; i < std::max<int64_t>(3, kills / 4); ++i) {
      ChaosEvent e = LostAnswer(dice, &s);
      e.at_ms = at();
      s.events.push_back(std::move(e));
    }
  }
  std::stable_sort(s.events.begin(), s.events.end(),
                   [](const ChaosEvent& a, const ChaosEvent& b) { return a.at_ms < b.at_ms; });
  return s;
}

}  // namespace gatehouse::chaos
