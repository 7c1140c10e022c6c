// Webhook secrets from the environment, never from the command line (where `ps` shows them):
//   GATEHOUSE_WEBHOOK_SECRET            the current secret, or
//   GATEHOUSE_WEBHOOK_SECRET_FILE       a file holding it (one trailing newline is ignored)
//   GATEHOUSE_WEBHOOK_SECRET_PREVIOUS   during rotation, the previous secret (or ..._FILE)
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace gatehouse::app {

// The current secret first, then the previous one if set. An empty list when neither is
// set; an error when a variable and its _FILE twin are both set or a file cannot be read.
Result<std::vector<std::string>> LoadWebhookSecrets();

}  // namespace gatehouse::app
