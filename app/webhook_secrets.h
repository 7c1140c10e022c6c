// Secrets from the environment, never from the command line (where `ps` shows them). Webhook
// secrets:
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

// The value of variable `name`, or of the file its `name`_FILE twin names (one trailing newline
// dropped); "" when neither is set. An error when both are set, or the file cannot be read or
// is empty. (GATEHOUSE_ADMIN_TOKEN[_FILE] uses it too.)
Result<std::string> LoadSecretVariable(const std::string& name);

// The secret in the file at `path` (one trailing newline dropped); an error naming `what` when
// the file cannot be read or is empty.
Result<std::string> LoadSecretFile(const std::string& path, const std::string& what);

}  // namespace gatehouse::app
