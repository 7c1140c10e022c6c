// The two fields of a webhook body the inbox indexes, read without building the JSON tree.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gatehouse {

struct WebhookPayload {
  std::string action;                      // top-level "action", empty when absent
  std::optional<int64_t> installation_id;  // "installation": {"id": N}, when an int64
};

// Validates `body` as one JSON document (RFC 8259, nesting at most 64 deep) and returns its
// top-level "action" (a string) and "installation"."id" (an integer that fits int64). Returns
// nullopt when the body is not valid JSON or its top level is not an object. A key given twice
// counts by its last value, as the JSON tree would keep it.
//
// A streaming (SAX) parse: nothing is allocated per node, so a 25 KB body costs one pass over
// its bytes (docs/BENCHMARKS.md, "Where a request's microseconds go").
std::optional<WebhookPayload> ParseWebhookPayload(std::string_view body);

}  // namespace gatehouse
