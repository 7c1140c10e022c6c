// `gatehouse demo --serve-after`: once the world has played and the report is printed, the
// simulator and the gatehouse node(s) keep running, so that an operator (or the dashboard's
// browser test, admin/dashboard_browser_test.py) can look at a world that has happened.
//
// ServeUntilSignal writes the rig's admin token to DIR/admin-token (mode 0600; the token is
// never printed), prints one machine-readable line on stdout
//   gatehouse demo: serving dashboard=http://H:P/ token_file=DIR/admin-token
//                   sim=http://H:P webhooks=URL[,URL...]
// and returns when SIGINT or SIGTERM arrives (whichever thread the kernel hands it to), or when
// the token cannot be written (then false). It restores the previous signal dispositions.
#pragma once

#include <string>

#include "app/demo_rig.h"

namespace gatehouse::app {

bool ServeUntilSignal(DemoRig& rig, const std::string& dir);

}  // namespace gatehouse::app
