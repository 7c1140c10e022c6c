// The server's reviewers file (`gatehouse serve --reviewers FILE`, docs/REVIEWERS.md): named
// reviewers, the roles each serves, how each is executed, its concurrency (across every process
// sharing the store), its timeout and whether it starts paused.
//
//   availability_budget: 6h        # how long a run may wait for a paused/busy reviewer
//   reviewers:
//     - name: lint-bot
//       roles: [style]
//       executor: {type: command, argv: [./review.sh, --fast]}
//       concurrency: 2
//       timeout: 5m
//       paused: false
//     - name: hook
//       roles: [security]
//       executor: {type: http, url: "https://review.example/hook", secret_env: REVIEW_SECRET}
//     - name: gpt
//       roles: [security, style]
//       executor: {type: openai, base_url: "http://127.0.0.1:9000/v1", model: gpt-4o-mini,
//                  api_key_env: OPENAI_API_KEY}
//     - name: secrets
//       roles: [secrets]
//       executor: {type: "builtin:secrets"}
//
// Parsed strictly on decide/yaml_reader.h: unknown keys, wrong types, duplicate names, a
// reviewer without roles, an executor missing what its type needs (an http executor's
// secret_env included: its requests are always HMAC-signed) are errors, each
// "FILE:LINE: key.path: problem", one per line. Pure; safe from any thread.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"

namespace gatehouse::decide {

enum class ExecutorType { kCommand, kHttp, kOpenAi, kBuiltinSecrets };
std::string_view ExecutorTypeName(ExecutorType type);  // command, http, openai, builtin:secrets

struct ExecutorSpec {
  ExecutorType type = ExecutorType::kCommand;
  std::vector<std::string> argv;  // command: argv[0] is run as given (PATH is searched)
  std::string url;                // http: the endpoint the request is POSTed to
  std::string secret_env;         // http: env var with the HMAC secret (required)
  std::string base_url;           // openai: e.g. https://api.openai.com/v1
  std::string model;              // openai
  std::string api_key_env = "OPENAI_API_KEY";  // openai: env var with the API key
  bool operator==(const ExecutorSpec&) const = default;
};

struct ReviewerSpec {
  std::string name;                // [a-z0-9_.-]+, unique
  std::vector<std::string> roles;  // [a-z0-9_-]+, at least one
  ExecutorSpec executor;
  int concurrency = 1;  // >= 1
  Duration timeout = std::chrono::minutes(10);
  bool paused = false;  // the initial state, the first time the store sees this reviewer
  bool operator==(const ReviewerSpec&) const = default;
};

struct ReviewersConfig {
  std::vector<ReviewerSpec> reviewers;
  Duration availability_budget = std::chrono::hours(6);

  // The reviewers serving `role`, in file order.
  std::vector<const ReviewerSpec*> ForRole(std::string_view role) const;
  const ReviewerSpec* Find(std::string_view name) const;
};

// Parses the YAML text of a reviewers file; `filename` prefixes error messages.
Result<ReviewersConfig> ParseReviewersConfig(std::string_view yaml,
                                             std::string_view filename = "reviewers.yml");

// A role or reviewer name as the files allow it: [a-z0-9_-]+ (names may also hold '.'), at
// most 64 bytes.
bool IsValidRoleName(std::string_view role);
bool IsValidReviewerName(std::string_view name);

}  // namespace gatehouse::decide
