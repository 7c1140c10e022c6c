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

// One counter of PUT /_sim/faults set to `n` (plus `extra` fields), tallied as `tally`.
ChaosEvent Counter(ChaosFault kind, const std::string& field, int64_t n, const std::string& tally,
                   int64_t tally_n, ChaosSchedule* s, const std::string& extra = "") {
  ChaosEvent e;
  e.kind = kind;
  e.label = field + "=" + std::to_string(n);
  e.faults_json = "{\"" + field + "\": " + std::to_string(n) + extra + "}";
  s->injected[tally] += tally_n;
  return e;
}

ChaosEvent RestBurst(Dice& dice, ChaosSchedule* s) {
  const ChaosFault k = ChaosFault::kRestFaults;
  const int64_t n = dice.Between(1, 3);
  switch (dice.Between(0, 3)) {
    case 0:
      return Counter(k, "server_errors", n, "server_errors", n, s);
    case 1:
      return Counter(k, "connection_resets", n, "connection_resets", n, s);
    case 2:
      return Counter(k, "secondary_rate_limits", n, "secondary_rate_limits", n, s,
                     ", \"retry_after_seconds\": 1");
    default:
      return Counter(k, "primary_exhausted_seconds", dice.Between(1, 2), "primary_rate_limits", 1,
                     s);
  }
}

ChaosEvent DeliveryBurst(Dice& dice, ChaosSchedule* s) {
  const ChaosFault k = ChaosFault::kDeliveryFaults;
  switch (dice.Between(0, 2)) {
    case 0: {
      const int64_t n = dice.Between(1, 6);
      return Counter(k, "webhook_duplicates", n, "webhook_duplicates", n, s);
    }
    case 1: {
      const int64_t n = dice.Between(1, 4);
      return Counter(k, "webhook_reorders", n, "webhook_reorders", n, s);
    }
    default:
      return Counter(k, "webhook_delay_ms", dice.Between(20, 200), "webhook_delays", 1, s);
  }
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
