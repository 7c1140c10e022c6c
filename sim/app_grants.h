// What GitHub holds about the App's registration (docs/SIMULATOR.md, "The App"): the
// permissions and events the App asks for, what each installation has accepted (an owner must
// approve new permissions, so an installation can lag behind the App), and an offset for the
// simulator's `Date` header, so that `gatehouse doctor` can be shown a skewed clock.
//
// Defaults: the App asks for, and every installation has, what gatehouse's manifest asks for
// (app/app_manifest.cc); no clock offset.
//
// Value type; SimHandler keeps one under its lock.
#pragma once

#include <boost/json.hpp>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/status.h"

namespace gatehouse::sim {

struct AppGrant {
  std::map<std::string, std::string> permissions;  // name -> "read" | "write"
  std::vector<std::string> events;
};

struct AppGrants {
  AppGrant app = DefaultGrant();
  // Installations whose accepted grant differs from the App's; the others have the App's.
  std::map<int64_t, AppGrant> installations;
  Duration clock_offset{0};  // added to the simulator's clock in the Date header

  static AppGrant DefaultGrant();
  const AppGrant& For(int64_t installation_id) const;
};

// `PUT /_sim/app`: {"permissions": {...}, "events": [...], "installations": {"ID":
// {"permissions", "events"}}, "clock_offset_seconds": N}; absent fields take the defaults.
// InvalidArgument naming the field for anything else.
Result<AppGrants> ParseAppGrants(const boost::json::object& body);
boost::json::object RenderAppGrants(const AppGrants& grants);
boost::json::object RenderGrant(const AppGrant& grant);  // {"permissions": {...}, "events": [...]}

// RFC 9110's IMF-fixdate, as GitHub's Date header: "Wed, 02 Dec 2026 14:30:00 GMT".
std::string HttpDate(Time t);

}  // namespace gatehouse::sim
