// DeliverySink: where the webhook handler hands a verified delivery, and how it learns the
// outcome. The implementation (engine/inbox_writer.h) group-commits concurrent deliveries
// into one durable transaction and calls `done` only after that commit, so the handler never
// answers 2xx for a delivery that is not yet on stable storage.
//
// Implementations are thread-safe; `done` may run on any thread.
#pragma once

#include <functional>
#include <string_view>

#include "base/status.h"
#include "store/store.h"

namespace gatehouse {

class DeliverySink {
 public:
  virtual ~DeliverySink() = default;
  // Accepts one delivery asynchronously. `done` runs exactly once: with the outcome once
  // the delivery is durable (or known as a duplicate/conflict), or with an error.
  virtual void Accept(Delivery delivery, std::function<void(Result<AcceptOutcome>)> done) = 0;
  // Counts a request refused before it could become a delivery. `reason` is one of
  // "signature", "headers", "json", "too_large", "method" (a few fixed words, used as
  // counter names: inbox.rejected.<reason>).
  virtual void CountRejected(std::string_view reason) = 0;
  // OK when the store accepts writes (for /readyz).
  virtual Status CheckWritable() = 0;
};

}  // namespace gatehouse
