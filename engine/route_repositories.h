// Which repositories gatehouse covers, and through which installation, as the payloads teach
// it: the sweep lists their open PRs, and a pass needs the installation to get a token.
// Learned from every payload, used or not (engine/router.h, RouteWebhook), since any of them
// proves the App still receives the repository's events.
//
// Internal to routing; a pure function over the decoded payload, safe from any thread.
#pragma once

#include <boost/json/object.hpp>
#include <string_view>

#include "engine/router.h"

namespace gatehouse::routing {

// Adds to `r->repos` what `event`'s payload `root` says gatehouse covers (lower-cased
// "owner/repo" with the payload's installation id, when it has one) and to `r->repos_removed`
// what it no longer does: an installation created or deleted, repositories added to or removed
// from one, a repository deleted, renamed or transferred (its old name removed), and the
// repository of any other event. A rename that only changes case removes nothing.
void LearnRepositories(std::string_view event, const boost::json::object& root, RouteResult* r);

}  // namespace gatehouse::routing
