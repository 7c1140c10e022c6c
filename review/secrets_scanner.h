// SecretsScanner: the `builtin:secrets` reviewer (docs/REVIEWERS.md, "Executors"). It reads
// only the lines a PR adds — the '+' lines of each file's unified-diff patch, numbered in the
// new file from the hunk headers (@@ -a,b +c,d @@) — and matches them with RE2 against:
//   private key        -----BEGIN ... PRIVATE KEY----- (PEM, OpenSSH, PGP)
//   AWS access key id  AKIA/ASIA + 16 [A-Z0-9]
//   AWS secret key     aws_secret_access_key = <40 base64 chars>
//   GitHub token       ghp_/gho_/ghu_/ghs_/ghr_ + 36 alphanumerics, github_pat_...
//   Slack token        xoxa-/xoxb-/xoxp-/xoxr-/xoxs-...
//   Slack webhook      https://hooks.slack.com/services/T.../B.../...
//   Google API key     AIza + 35 [0-9A-Za-z_-]
//   Stripe live key    sk_live_/rk_live_ + 24 or more alphanumerics
//   high-entropy       (secret|token|password|api_key|...) [:=] VALUE, where VALUE has at least
//   assignment         20 characters, a letter and a digit, a Shannon entropy of at least
//                      min(4.0, log2(len) - 1.0) bits per character, and is not all hex (a
//                      SHA or digest), not a UUID, not a reference (a dotted name such as
//                      os.environ.X, $VAR, ${...}), not words joined by separators
//                      (deploy_token_v2) and not a placeholder (example, xxxx, ...)
// Each hit is a blocking finding at the file's path and new-file line; its message names the
// kind and shows at most the first 4 characters of the secret ("GitHub token ghp_… added").
// A line gets one finding per specific kind it matches; the high-entropy rule reports a line
// only when no specific kind did.
//
// A file that adds lines but comes without a patch (GitHub omits it for large and binary
// files) was not scanned: it gets an info finding at line 0, "not scanned: GitHub sent no
// patch" (the first 20 such files are listed), and the summary names how many there were.
// The verdict is request_changes when there is any blocking finding; otherwise comment when a
// file could not be scanned, else approve with "no credentials found in N added lines". At
// most 200 findings are listed in all.
//
// Thread-safe: the compiled patterns are immutable, and RE2 matching is safe from any thread.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "decide/review_types.h"
#include "review/executor.h"

namespace gatehouse::review {

// A credential-looking hit on one added line.
struct SecretHit {
  std::string kind;     // "GitHub token", "private key", ...
  std::string preview;  // at most the first 4 characters and "…"; "" for a PEM header
};

class SecretsScanner {
 public:
  SecretsScanner();
  ~SecretsScanner();
  SecretsScanner(const SecretsScanner&) = delete;
  SecretsScanner& operator=(const SecretsScanner&) = delete;

  // The hits on one line of text (an added line without its '+').
  std::vector<SecretHit> ScanLine(std::string_view line) const;

  // The findings for one file's patch; adds the number of added lines read to `*added_lines`.
  std::vector<decide::ReviewFinding> ScanPatch(std::string_view path, std::string_view patch,
                                               int64_t* added_lines) const;

  // Every changed file of the request, as the reviewer's result (the verdict rules above).
  decide::ReviewResult Scan(const decide::ReviewRequest& request) const;

 private:
  struct Patterns;
  std::unique_ptr<const Patterns> patterns_;
};

// Shannon entropy of `s` in bits per byte (0 for an empty string).
double ShannonEntropy(std::string_view s);

// The builtin:secrets executor: SecretsScanner::Scan as a ReviewExecutor. It finishes in
// well under the timeout on any real PR, so only cancellation (checked between files) ends it
// early.
class SecretsExecutor final : public ReviewExecutor {
 public:
  ExecOutcome Review(const decide::ReviewRequest& request, Duration timeout,
                     const CancelProbe& cancelled) override;

 private:
  SecretsScanner scanner_;
};

}  // namespace gatehouse::review
