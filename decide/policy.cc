#include "decide/policy.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <utility>

#include "base/ascii.h"
#include "decide/queue_policy_reader.h"
#include "decide/yaml_reader.h"

namespace gatehouse::decide {
namespace {

// Collects every problem of one file; each method returns nullopt after recording one.
class PolicyParser : public QueueReader {
 public:
  using QueueReader::QueueReader;

  void Parse(const YAML::Node& root, PolicyOverlay& out) {
    if (root.IsNull()) return;
    if (!root.IsMap()) {
      Error(root, "(top level)", "expected a mapping, got " + Describe(root));
      return;
    }
    std::set<std::string> seen;
    for (const auto& kv : root) {
      const std::string key = kv.first.Scalar();
      if (!FirstOccurrence(kv.first, key, seen)) continue;
      const YAML::Node& v = kv.second;
      if (key == "version") {
        if (!v.IsScalar() || v.Scalar() != "1") {
          Error(v, "version", "expected 1, got " + Describe(v));
        }
      } else if (key == "rules") {
        ParseRules(v, out);
      } else if (key == "actions") {
        Actions(v, "actions", out.actions);
      } else if (key == "reviews") {
        Reviews(v, "reviews", out.reviews);
      } else if (key == "merge_queue") {
        Queue(v, "merge_queue", out.merge_queue);
      } else {
        Error(kv.first, key,
              "unknown key (expected one of: version, rules, actions, reviews, merge_queue)");
      }
    }
  }

 private:
  std::optional<RuleMode> Mode(const YAML::Node& v, const std::string& path) {
    if (v.IsScalar()) {
      // YAML 1.1 reads a bare `off` as a boolean; yaml-cpp keeps it as the scalar "off".
      const std::string s = AsciiLower(v.Scalar());
      if (s == "off") return RuleMode::kOff;
      if (s == "advisory") return RuleMode::kAdvisory;
      if (s == "block") return RuleMode::kBlock;
    }
    Error(v, path, "expected one of off, advisory, block, got " + Describe(v));
    return std::nullopt;
  }

  void ParseRules(const YAML::Node& rules, PolicyOverlay& out) {
    if (!ExpectMap(rules, "rules")) return;
    std::set<std::string> seen;
    for (const auto& kv : rules) {
      const std::string key = kv.first.Scalar();
      const std::string path = "rules." + key;
      if (!FirstOccurrence(kv.first, path, seen)) continue;
      const YAML::Node& v = kv.second;
      if (key == "required_checks") {
        RequiredChecks(v, path, out.required_checks);
      } else if (key == "approvals") {
        Approvals(v, path, out.approvals);
      } else if (key == "mergeable") {
        Mergeable(v, path, out.mergeable);
      } else if (key == "draft") {
        Draft(v, path, out.draft);
      } else if (key == "labels") {
        Labels(v, path, out.labels);
      } else if (key == "size") {
        Size(v, path, out.size);
      } else if (key == "protected_paths") {
        ProtectedPaths(v, path, out.protected_paths);
      } else if (key == "authors") {
        Authors(v, path, out.authors);
      } else {
        Unknown(kv.first, path,
                {"required_checks", "approvals", "mergeable", "draft", "labels", "size",
                 "protected_paths", "authors"});
      }
    }
  }

  Field ModeField(std::optional<RuleMode>& out) {
    return {"mode", [this, &out](const YAML::Node& v, const std::string& p) { out = Mode(v, p); }};
  }
  void RequiredChecks(const YAML::Node& node, const std::string& path,
                      PolicyOverlay::RequiredChecks& out) {
    Fields(node, path,
           {ModeField(out.mode),
            {"checks",
             [&](const YAML::Node& v, const std::string& p) { out.checks = CheckList(v, p); }},
            {"missing_after", [&](const YAML::Node& v, const std::string& p) {
               out.missing_after = DurationValue(v, p);
             }}});
  }

  void Approvals(const YAML::Node& node, const std::string& path, PolicyOverlay::Approvals& out) {
    Fields(node, path,
           {ModeField(out.mode),
            {"min",
             [&](const YAML::Node& v, const std::string& p) { out.min = NonNegativeInt(v, p); }},
            BoolField("block_changes_requested", out.block_changes_requested),
            BoolField("require_on_head", out.require_on_head)});
  }

  void Mergeable(const YAML::Node& node, const std::string& path, PolicyOverlay::Mergeable& out) {
    Fields(node, path,
           {ModeField(out.mode), BoolField("allow_behind", out.allow_behind),
            BoolField("allow_blocked", out.allow_blocked)});
  }

  void Draft(const YAML::Node& node, const std::string& path, PolicyOverlay::Draft& out) {
    Fields(
        node, path,
        {ModeField(out.mode), {"verdict", [&](const YAML::Node& v, const std::string& p) {
                                 const std::string s = v.IsScalar() ? AsciiLower(v.Scalar()) : "";
                                 if (s == "neutral") {
                                   out.verdict = DraftVerdict::kNeutral;
                                 } else if (s == "pending") {
                                   out.verdict = DraftVerdict::kPending;
                                 } else {
                                   Error(v, p, "expected neutral or pending, got " + Describe(v));
                                 }
                               }}});
  }

  void Labels(const YAML::Node& node, const std::string& path, PolicyOverlay::Labels& out) {
    Fields(node, path,
           {ModeField(out.mode), StringsField("required", out.required),
            StringsField("blocking", out.blocking)});
  }

  void Size(const YAML::Node& node, const std::string& path, PolicyOverlay::Size& out) {
    Fields(node, path,
           {ModeField(out.mode),
            {"max_files", [&](const YAML::Node& v,
                              const std::string& p) { out.max_files = NonNegativeInt(v, p); }},
            {"max_lines", [&](const YAML::Node& v, const std::string& p) {
               out.max_lines = NonNegativeInt(v, p);
             }}});
  }

  void ProtectedPaths(const YAML::Node& node, const std::string& path,
                      PolicyOverlay::ProtectedPaths& out) {
    Fields(node, path, {ModeField(out.mode), StringsField("paths", out.paths)});
  }

  void Authors(const YAML::Node& node, const std::string& path, PolicyOverlay::Authors& out) {
    Fields(node, path,
           {ModeField(out.mode),
            BoolField("exempt_bots", out.exempt_bots),
            BoolField("exempt_maintainers", out.exempt_maintainers),
            {"maintainer_roles", [&](const YAML::Node& v, const std::string& p) {
               if (auto roles = AuthorRoles(v, p)) out.maintainer_roles = std::move(*roles);
             }}});
  }

  std::optional<Autonomy> AutonomyValue(const YAML::Node& v, const std::string& path) {
    if (v.IsScalar()) {
      if (auto a = ParseAutonomy(AsciiLower(v.Scalar()))) return a;
    }
    Error(v, path, "expected one of observe, suggest, auto, got " + Describe(v));
    return std::nullopt;
  }

  Field ClassField(ActionClass c, std::map<ActionClass, Autonomy>& out) {
    return {ActionClassName(c), [this, c, &out](const YAML::Node& v, const std::string& p) {
              if (auto a = AutonomyValue(v, p)) out[c] = *a;
            }};
  }

  void Actions(const YAML::Node& node, const std::string& path, PolicyOverlay::Actions& out) {
    Fields(node, path,
           {{"autonomy", [&](const YAML::Node& v,
                             const std::string& p) { out.autonomy = AutonomyValue(v, p); }},
            {"classes",
             [&](const YAML::Node& v, const std::string& p) {
               Fields(v, p,
                      {ClassField(ActionClass::kReport, out.classes),
                       ClassField(ActionClass::kLabel, out.classes),
                       ClassField(ActionClass::kReview, out.classes),
                       ClassField(ActionClass::kMerge, out.classes),
                       ClassField(ActionClass::kClose, out.classes)});
             }},
            BoolField("dry_run", out.dry_run),
            {"merge_method",
             [&](const YAML::Node& v, const std::string& p) {
               std::optional<MergeMethod> m;
               if (v.IsScalar()) m = ParseMergeMethod(AsciiLower(v.Scalar()));
               if (m) {
                 out.merge_method = m;
               } else {
                 Error(v, p, "expected one of merge, squash, rebase, got " + Describe(v));
               }
             }},
            {"close_grace", [&](const YAML::Node& v,
                                const std::string& p) { out.close_grace = DurationValue(v, p); }},
            BoolField("update_branch", out.update_branch),
            {"report",
             [&](const YAML::Node& v, const std::string& p) {
               std::optional<Report> r;
               if (v.IsScalar()) r = ParseReport(AsciiLower(v.Scalar()));
               if (r) {
                 out.report = r;
               } else {
                 Error(v, p, "expected one of progress, verdicts, got " + Describe(v));
               }
             }},
            {"labels",
             [&](const YAML::Node& v, const std::string& p) {
               Fields(v, p,
                      {StringField("ready", out.label_ready),
                       StringField("changes_requested", out.label_changes_requested),
                       StringField("needs_human", out.label_needs_human),
                       StringField("pending_closure", out.label_pending_closure)});
             }},
            // Listed so that the error says why, rather than "unknown key".
            {"app_login", [&](const YAML::Node& v, const std::string& p) {
               Error(v, p, "a server setting; it cannot be set in a policy file");
             }}});
  }
};

template <typename T>
void Apply(T& target, const std::optional<T>& value) {
  if (value) target = *value;
}

}  // namespace

std::string_view RuleModeName(RuleMode mode) {
  switch (mode) {
    case RuleMode::kOff:
      return "off";
    case RuleMode::kAdvisory:
      return "advisory";
    case RuleMode::kBlock:
      return "block";
  }
  return "unknown";
}

Policy DefaultPolicy() { return Policy{}; }

Result<PolicyOverlay> ParsePolicyOverlay(std::string_view yaml, std::string_view filename) {
  PolicyParser parser(filename);
  PolicyOverlay overlay;
  try {
    const YAML::Node root = YAML::Load(NormalizeLineBreaks(yaml));
    parser.Parse(root, overlay);
  } catch (const YAML::Exception& e) {
    parser.AddError(e.mark.line, "(syntax)", e.msg);
  }
  GH_RETURN_IF_ERROR(parser.Finish());
  return overlay;
}

Policy MergePolicies(const Policy& defaults, const PolicyOverlay& repo) {
  Policy p = defaults;
  Apply(p.required_checks.mode, repo.required_checks.mode);
  Apply(p.required_checks.checks, repo.required_checks.checks);
  Apply(p.required_checks.missing_after, repo.required_checks.missing_after);
  Apply(p.approvals.mode, repo.approvals.mode);
  Apply(p.approvals.min, repo.approvals.min);
  Apply(p.approvals.block_changes_requested, repo.approvals.block_changes_requested);
  Apply(p.approvals.require_on_head, repo.approvals.require_on_head);
  Apply(p.mergeable.mode, repo.mergeable.mode);
  Apply(p.mergeable.allow_behind, repo.mergeable.allow_behind);
  Apply(p.mergeable.allow_blocked, repo.mergeable.allow_blocked);
  Apply(p.draft.mode, repo.draft.mode);
  Apply(p.draft.verdict, repo.draft.verdict);
  Apply(p.labels.mode, repo.labels.mode);
  Apply(p.labels.required, repo.labels.required);
  Apply(p.labels.blocking, repo.labels.blocking);
  Apply(p.size.mode, repo.size.mode);
  if (repo.size.max_files) p.size.max_files = repo.size.max_files;
  if (repo.size.max_lines) p.size.max_lines = repo.size.max_lines;
  Apply(p.protected_paths.mode, repo.protected_paths.mode);
  Apply(p.protected_paths.paths, repo.protected_paths.paths);
  Apply(p.authors.mode, repo.authors.mode);
  Apply(p.authors.exempt_bots, repo.authors.exempt_bots);
  Apply(p.authors.exempt_maintainers, repo.authors.exempt_maintainers);
  Apply(p.authors.maintainer_roles, repo.authors.maintainer_roles);
  PlannerOptions& a = p.actions;
  Apply(a.autonomy, repo.actions.autonomy);
  for (const auto& [c, level] : repo.actions.classes) a.class_autonomy[c] = level;
  Apply(a.dry_run, repo.actions.dry_run);
  Apply(a.merge_method, repo.actions.merge_method);
  Apply(a.close_grace, repo.actions.close_grace);
  Apply(a.update_branch, repo.actions.update_branch);
  Apply(a.report, repo.actions.report);
  Apply(a.label_ready, repo.actions.label_ready);
  Apply(a.label_changes_requested, repo.actions.label_changes_requested);
  Apply(a.label_needs_human, repo.actions.label_needs_human);
  Apply(a.label_pending_closure, repo.actions.label_pending_closure);
  Apply(p.reviews, repo.reviews);
  ApplyQueueOverlay(p.merge_queue, repo.merge_queue);
  return p;
}

Result<Policy> ParsePolicy(std::string_view yaml, const Policy& defaults,
                           std::string_view filename) {
  GH_ASSIGN_OR_RETURN(PolicyOverlay overlay, ParsePolicyOverlay(yaml, filename));
  return MergePolicies(defaults, overlay);
}

}  // namespace gatehouse::decide
