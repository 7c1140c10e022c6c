// gatehouse app manifest: the GitHub App gatehouse needs, for GitHub's manifest flow
// (docs/SETUP.md). Permissions and events come from app/app_manifest.h.
#include <cstdio>
#include <string>

#include "app/app_manifest.h"
#include "app/commands.h"
#include "app/common.h"

namespace gatehouse::app {
namespace {

constexpr const char kAppUsage[] = R"(Usage: gatehouse app manifest --webhook-url URL [options]
       gatehouse app manifest --why

Prints the GitHub App manifest gatehouse needs (JSON, for GitHub's "create an App from a
manifest" flow: docs/SETUP.md walks through it): its name, homepage, webhook URL, every
repository permission and every webhook event. --why prints each permission and event with the
reason gatehouse needs it instead.

Options:
  --webhook-url URL   where GitHub POSTs webhooks, e.g. https://gatehouse.example.com/webhook
                      (gatehouse serve's --listen address behind your proxy, --webhook-path)
  --name NAME         the App's name (default gatehouse; unique on GitHub, at most 34 characters)
  --homepage-url URL  the App's homepage (default: the webhook URL's origin)
  --redirect-url URL  where GitHub sends the browser after the App is created (optional)
  --public            let other accounts install the App (default: only the owner's)
  --why               the permissions and events, each with why, as text
  -h, --help          this text
)";

}  // namespace

int RunApp(int argc, char** argv) {
  Flags flags({"webhook-url", "name", "homepage-url", "redirect-url"}, {"public", "why"});
  Status parsed = flags.Parse(argc, argv, 1);
  if (flags.Has("help")) {
    std::fputs(kAppUsage, stdout);
    return kExitOk;
  }
  const auto& args = flags.positional();
  if (!parsed.ok() || args.size() != 1 || args[0] != "manifest") {
    PrintError("app", !parsed.ok()    ? parsed.message()
                      : args.empty()  ? std::string("which subcommand? (manifest)")
                                      : "unknown subcommand '" + args[0] + "'");
    std::fputs(kAppUsage, stderr);
    return kExitUsage;
  }
  if (flags.Has("why")) {
    std::fputs(RenderWhy().c_str(), stdout);
    return kExitOk;
  }
  ManifestOptions options;
  options.webhook_url = flags.Get("webhook-url", "");
  if (flags.Has("name")) options.name = flags.Get("name", "");
  options.homepage_url = flags.Get("homepage-url", "");
  options.redirect_url = flags.Get("redirect-url", "");
  options.is_public = flags.Has("public");
  std::string error;
  const std::string manifest = RenderManifest(options, &error);
  if (manifest.empty()) {
    PrintError("app manifest", error);
    return kExitUsage;
  }
  std::fputs(manifest.c_str(), stdout);
  return kExitOk;
}

}  // namespace gatehouse::app
