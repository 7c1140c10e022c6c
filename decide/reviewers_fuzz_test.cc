// libFuzzer target: the reviewers file parser (decide/reviewers_config.h, docs/REVIEWERS.md).
//
// Input: the text of a reviewers file. Seeds: fuzz/corpus/reviewers_fuzz_test/. What must hold
// beyond "no crash":
//  - a refused file gets one "reviewers.yml:LINE: KEY: problem" line per problem (LINE left
//    out only where yaml-cpp knows none);
//  - an accepted file holds only what the format allows: unique valid reviewer names, at
//    least one valid role each, concurrency >= 1, positive timeouts and availability budget,
//    and the fields each executor type needs (command: argv; http: url and secret_env;
//    openai: base_url and model); Find and ForRole find every reviewer by its name and roles;
//  - re-rendering an accepted file (yaml-cpp's emitter) parses to the same reviewers.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "decide/reviewers_config.h"

namespace {

using namespace gatehouse::decide;

constexpr std::string_view kFile = "reviewers.yml";

void Check(bool ok, const char* what, std::string_view detail = {}) {
  if (ok) return;
  std::fprintf(stderr, "reviewers_fuzz_test: invariant broken: %s\n%.*s\n", what,
               static_cast<int>(detail.size()), detail.data());
  std::abort();
}

bool WellFormedErrors(const std::string& message) {
  if (message.empty()) return false;
  size_t start = 0;
  while (start <= message.size()) {
    size_t end = message.find('\n', start);
    if (end == std::string::npos) end = message.size();
    std::string_view line(message.data() + start, end - start);
    if (line.substr(0, kFile.size() + 1) != std::string(kFile) + ":") return false;
    line.remove_prefix(kFile.size() + 1);
    size_t digits = 0;
    while (digits < line.size() && line[digits] >= '0' && line[digits] <= '9') ++digits;
    if (digits > 0) {  // the line is left out only when yaml-cpp knows none
      if (line[0] == '0' || line.substr(digits, 1) != ":") return false;
      line.remove_prefix(digits + 1);
    }
    if (line.size() < 2 || line[0] != ' ' || line.find(": ", 1) == std::string_view::npos) {
      return false;
    }
    start = end + 1;
  }
  return true;
}

void CheckExecutor(const ReviewerSpec& r) {
  const ExecutorSpec& e = r.executor;
  switch (e.type) {
    case ExecutorType::kCommand:
      Check(!e.argv.empty() && !e.argv[0].empty(), "command executor without argv", r.name);
      break;
    case ExecutorType::kHttp:
      Check(!e.url.empty() && !e.secret_env.empty(), "http executor without url/secret_env",
            r.name);
      break;
    case ExecutorType::kOpenAi:
      Check(!e.base_url.empty() && !e.model.empty(), "openai executor without base_url/model",
            r.name);
      break;
    case ExecutorType::kBuiltinSecrets:
      break;
  }
}

void CheckAccepted(const ReviewersConfig& config) {
  Check(config.availability_budget.count() > 0, "availability budget not positive");
  std::set<std::string> names;
  for (const ReviewerSpec& r : config.reviewers) {
    Check(IsValidReviewerName(r.name), "invalid reviewer name", r.name);
    Check(names.insert(r.name).second, "duplicate reviewer name", r.name);
    Check(!r.roles.empty(), "reviewer without roles", r.name);
    Check(r.concurrency >= 1, "concurrency below 1", r.name);
    Check(r.timeout.count() > 0, "timeout not positive", r.name);
    Check(config.Find(r.name) == &r, "Find does not find the reviewer", r.name);
    for (const std::string& role : r.roles) {
      Check(IsValidRoleName(role), "invalid role", role);
      auto serving = config.ForRole(role);
      Check(std::find(serving.begin(), serving.end(), &r) != serving.end(),
            "ForRole misses a reviewer", role);
    }
    CheckExecutor(r);
  }
}

std::optional<std::string> Rerender(const std::string& text) {
  try {
    YAML::Emitter out;
    out << YAML::Load(text);
    if (!out.good()) return std::nullopt;
    return std::string(out.c_str());
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// Valid UTF-8 without C0 controls (tab and line breaks aside) or DEL: YAML's character set
// (surrogates and overlong forms are not told apart; yaml-cpp does not either).
bool InYamlCharacterSet(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const auto b = static_cast<unsigned char>(text[i]);
    if (b < 0x80) {
      if ((b < 0x20 && b != '\t' && b != '\n' && b != '\r') || b == 0x7f) return false;
      ++i;
      continue;
    }
    const size_t extra = (b & 0xe0) == 0xc0   ? 1
                         : (b & 0xf0) == 0xe0 ? 2
                         : (b & 0xf8) == 0xf0 ? 3
                                              : 0;
    if (extra == 0 || b == 0xc0 || b == 0xc1 || i + extra >= text.size()) return false;
    for (size_t k = 1; k <= extra; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return false;
    }
    i += extra + 1;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto config = ParseReviewersConfig(text, kFile);
  if (!config.ok()) {
    Check(WellFormedErrors(config.status().message()), "error lines are not FILE:LINE: ...",
          config.status().message());
    return 0;
  }
  CheckAccepted(*config);
  if (!InYamlCharacterSet(text)) return 0;  // see policy_fuzz_test.cc
  const std::optional<std::string> rendered = Rerender(text);
  Check(rendered.has_value(), "an accepted file that yaml-cpp cannot load", text);
  const std::string& again = *rendered;
  auto reparsed = ParseReviewersConfig(again, kFile);
  Check(reparsed.ok(), "the re-rendered file is refused",
        again + "\n--\n" + (reparsed.ok() ? "" : reparsed.status().message()));
  Check(reparsed->reviewers == config->reviewers &&
            reparsed->availability_budget == config->availability_budget,
        "the re-rendered file means something else", again);
  return 0;
}
