#include "bench/chaos/chaos_deliveries.h"

#include <map>

#include "github/app_auth.h"
#include "github/app_client.h"
#include "github/transport.h"

namespace gatehouse::chaos {

AttemptedDeliveries CheckAttemptedDeliveries(const std::string& sim_url, int64_t app_id,
                                             const std::string& private_key_pem, Store& store) {
  AttemptedDeliveries out;
  CurlTransportOptions topts;
  topts.base_url = sim_url;
  auto transport = CurlTransport::Create(topts);
  auto signer = AppJwtSigner::Create(app_id, private_key_pem);
  if (!transport.ok() || !signer.ok()) {
    out.problems.push_back("cannot read GitHub's delivery log: " +
                           (transport.ok() ? signer.status() : transport.status()).ToString());
    return out;
  }
  auto clock = std::make_shared<RealClock>();
  AppClient client(**transport, **signer, clock);
  std::map<std::string, bool> succeeded;  // guid -> some attempt got a 2xx
  std::string cursor;
  do {
    auto page = client.ListDeliveries(100, cursor);
    if (!page.ok()) {
      out.problems.push_back("listing GitHub's deliveries: " + page.error().ToString());
      return out;
    }
    for (const HookDelivery& d : page->deliveries) {
      ++out.attempts;
      succeeded[d.guid] = succeeded[d.guid] || d.Succeeded();
    }
    cursor = page->next_cursor;
  } while (!cursor.empty());
  out.deliveries = static_cast<int64_t>(succeeded.size());
  for (const auto& [guid, ok] : succeeded) {
    out.failed_first += ok ? 0 : 1;
    auto held = store.inbox().GetDelivery(guid);
    if (!held.ok()) {
      out.problems.push_back("reading delivery " + guid + ": " + held.status().ToString());
      continue;
    }
    if (!held->has_value()) {
      out.problems.push_back("delivery " + guid + " GitHub attempted is not in the inbox" +
                             (ok ? "" : " (every attempt failed, and it was not recovered)"));
      continue;
    }
    const InboxState s = (*held)->state;
    if (s != InboxState::kRouted && s != InboxState::kIgnored) {
      out.problems.push_back("delivery " + guid + " is held but not terminal (" +
                             (*held)->state_reason + ")");
    }
  }
  return out;
}

}  // namespace gatehouse::chaos
