// The GitHub App gatehouse needs: every repository permission and webhook event, each with
// why, and the manifest GitHub's manifest flow takes (docs/SETUP.md). One list, so the
// manifest, `gatehouse app manifest --why` and the docs say the same thing; `gatehouse doctor`
// (issue 14, later) compares an installation's granted permissions with it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gatehouse::app {

struct AppPermission {
  std::string_view name;    // as GitHub names it in a manifest: "pull_requests", "checks", ...
  std::string_view access;  // "read" or "write"
  std::string_view why;
};

struct AppEvent {
  std::string_view name;  // a webhook event: "pull_request", "check_run", ...
  std::string_view why;
};

const std::vector<AppPermission>& AppPermissions();
const std::vector<AppEvent>& AppEvents();

struct ManifestOptions {
  std::string name = "gatehouse";
  std::string webhook_url;   // where GitHub POSTs webhooks (required)
  std::string homepage_url;  // the App's homepage; the webhook URL's origin when empty
  std::string redirect_url;  // where GitHub sends the browser after creating the App; optional
  bool is_public = false;    // installable by other accounts
};

// The manifest as JSON (pretty-printed, two-space indent), or "" with `*error` set when an
// option is unusable (no webhook URL, a URL that is not http(s)://HOST...).
std::string RenderManifest(const ManifestOptions& options, std::string* error);

// The permissions and events with why, as aligned plain text for a terminal.
std::string RenderWhy();

}  // namespace gatehouse::app
