// Dashboard: the admin listener's HTML pages (docs/ADMIN_API.md, "The dashboard"), rendered on
// the server from the same documents the JSON API serves (admin/views.h), with one small
// inline script for the rates and the buttons (which call the API). No build toolchain, no
// external assets.
//
//   /                 the funnel and its rates, work items by state with the oldest pending age,
//                     the dead items with re-arm buttons, the review funnel, a PR search
//   /work?state=S     work items, paged (&after=KEY)
//   /dead             dead items with their reasons, re-arm one or all
//   /pr?subject=O/R#N a PR's timeline: deliveries, verdicts (score, blockers), actions (outcome,
//                     head), review runs
//   /reviewers        each reviewer's state and busy slots, pause / resume
//
// Every value is HTML-escaped. Authentication is the handler's.
#pragma once

#include <string>
#include <vector>

#include "admin/views.h"
#include "base/clock.h"
#include "http/handler.h"
#include "store/store.h"

namespace gatehouse::admin {

class Dashboard {
 public:
  // `store` must outlive the dashboard; a null clock is the real one.
  Dashboard(Store& store, ClockPtr clock, std::vector<ReviewerConfig> reviewers = {});

  // A page (GET); 404 for an unknown path, 405 for another method.
  HttpResponse Serve(const HttpRequest& request) const;
  // The login form; `failed` adds "wrong token".
  HttpResponse LoginPage(bool failed) const;

 private:
  std::string Overview() const;
  std::string WorkPage(const std::string& state, const std::string& after) const;
  std::string DeadPage() const;
  std::string PrPage(const std::string& subject) const;
  std::string ReviewersPage() const;
  std::string QueuesPage() const;

  Store& store_;
  ClockPtr clock_;
  std::vector<ReviewerConfig> reviewers_;
};

// `text` with &, <, >, " and ' escaped for HTML text and attribute values.
std::string HtmlEscape(std::string_view text);

}  // namespace gatehouse::admin
