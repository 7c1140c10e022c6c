#include "sim/graphql_rest_reads.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gatehouse::sim::graphql {
namespace {

// Every `pullRequest` field under `selections`, through fragments, at any depth.
void PullNumbersIn(const std::vector<Selection>& selections, std::vector<int64_t>* out) {
  for (const Selection& s : selections) {
    if (!s.fragment && s.name == "pullRequest") {
      auto it = s.args.find("number");
      if (it != s.args.end() && it->second.is_int64()) out->push_back(it->second.as_int64());
    }
    PullNumbersIn(s.selections, out);
  }
}

// Every `object(oid:)` under `selections` (a commit's checks are what it reads).
void CommitOidsIn(const std::vector<Selection>& selections, std::vector<std::string>* out) {
  for (const Selection& s : selections) {
    if (!s.fragment && s.name == "object" && s.args.contains("oid")) {
      out->push_back(s.StringArg("oid"));
    }
    CommitOidsIn(s.selections, out);
  }
}

void RepositoriesIn(const std::vector<Selection>& selections, std::vector<std::string>* out) {
  for (const Selection& s : selections) {
    if (s.fragment) {
      RepositoriesIn(s.selections, out);
      continue;
    }
    if (s.name != "repository") continue;
    const std::string repo = "/repos/" + s.StringArg("owner") + "/" + s.StringArg("name");
    out->push_back(repo);
    std::vector<int64_t> numbers;
    PullNumbersIn(s.selections, &numbers);
    for (int64_t n : numbers) out->push_back(repo + "/pulls/" + std::to_string(n));
    std::vector<std::string> commits;
    CommitOidsIn(s.selections, &commits);
    for (const std::string& sha : commits) {
      out->push_back(repo + "/commits/" + sha + "/check-runs");
      out->push_back(repo + "/commits/" + sha + "/status");
    }
  }
}

}  // namespace

std::vector<std::string> RestReadsOf(const Document& doc) {
  std::vector<std::string> out;
  RepositoriesIn(doc.selections, &out);
  return out;
}

}  // namespace gatehouse::sim::graphql
