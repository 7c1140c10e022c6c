#include "decide/options.h"

#include <array>
#include <utility>

namespace gatehouse::decide {
namespace {

constexpr std::array<std::pair<ActionClass, std::string_view>, 5> kClassNames = {{
    {ActionClass::kReport, "report"},
    {ActionClass::kLabel, "label"},
    {ActionClass::kReview, "review"},
    {ActionClass::kMerge, "merge"},
    {ActionClass::kClose, "close"},
}};

constexpr std::array<std::pair<Autonomy, std::string_view>, 3> kAutonomyNames = {{
    {Autonomy::kObserve, "observe"},
    {Autonomy::kSuggest, "suggest"},
    {Autonomy::kAuto, "auto"},
}};

constexpr std::array<std::pair<MergeMethod, std::string_view>, 3> kMergeMethodNames = {{
    {MergeMethod::kMerge, "merge"},
    {MergeMethod::kSquash, "squash"},
    {MergeMethod::kRebase, "rebase"},
}};

constexpr std::array<std::pair<Report, std::string_view>, 2> kReportNames = {{
    {Report::kProgress, "progress"},
    {Report::kVerdicts, "verdicts"},
}};

// One table per enum serves both directions, so a name and its parse cannot drift apart.
template <typename E, size_t N>
std::string_view NameOf(const std::array<std::pair<E, std::string_view>, N>& table, E value,
                        std::string_view fallback) {
  for (const auto& [e, name] : table) {
    if (e == value) return name;
  }
  return fallback;
}

template <typename E, size_t N>
std::optional<E> ValueOf(const std::array<std::pair<E, std::string_view>, N>& table,
                         std::string_view name) {
  for (const auto& [e, n] : table) {
    if (n == name) return e;
  }
  return std::nullopt;
}

}  // namespace

std::string_view ActionClassName(ActionClass c) { return NameOf(kClassNames, c, "unknown"); }
std::string_view AutonomyName(Autonomy a) { return NameOf(kAutonomyNames, a, "observe"); }
std::string_view MergeMethodName(MergeMethod m) { return NameOf(kMergeMethodNames, m, "merge"); }
std::string_view ReportName(Report r) { return NameOf(kReportNames, r, "progress"); }

std::optional<ActionClass> ParseActionClass(std::string_view name) {
  return ValueOf(kClassNames, name);
}
std::optional<Autonomy> ParseAutonomy(std::string_view name) {
  return ValueOf(kAutonomyNames, name);
}
std::optional<MergeMethod> ParseMergeMethod(std::string_view name) {
  return ValueOf(kMergeMethodNames, name);
}
std::optional<Report> ParseReport(std::string_view name) { return ValueOf(kReportNames, name); }

Autonomy PlannerOptions::AutonomyFor(ActionClass c) const {
  auto it = class_autonomy.find(c);
  return it != class_autonomy.end() ? it->second : autonomy;
}

PlannerOptions UnderServerSwitches(PlannerOptions repository, std::string app_login,
                                   bool server_dry_run) {
  repository.app_login = std::move(app_login);
  if (server_dry_run) repository.dry_run = true;
  return repository;
}

}  // namespace gatehouse::decide
