// What GitHub attempted, against what gatehouse holds: every delivery the simulator attempted
// (GET /app/hook/deliveries, as the App, every page) must be in gatehouse's inbox in a terminal
// state (routed or ignored) once the world has settled — delivered, or recovered
// (engine/delivery_recovery.h) if every attempt failed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "store/store.h"

namespace gatehouse::chaos {

struct AttemptedDeliveries {
  int64_t attempts = 0;    // attempts GitHub lists (retries and redeliveries each count)
  int64_t deliveries = 0;  // distinct guids
  int64_t failed_first = 0;  // guids whose every attempt failed (gatehouse was down)
  std::vector<std::string> problems;  // one per guid not held, or held but not terminal
};

// `sim_url` the simulator's base URL; the App's id and private key sign the JWT.
AttemptedDeliveries CheckAttemptedDeliveries(const std::string& sim_url, int64_t app_id,
                                             const std::string& private_key_pem, Store& store);

}  // namespace gatehouse::chaos
