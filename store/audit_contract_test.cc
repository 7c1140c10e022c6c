// The audit log as part of the Store contract: append-only, per subject, oldest first, the
// last N on request, validated, counted.
#include <gtest/gtest.h>

#include "store/store.h"
#include "store/store_test_util.h"

namespace gatehouse {
namespace {

using std::chrono::seconds;
using testing::StoreBackend;
using testing::TempDir;

using testing::kT0;

AuditEntry Entry(std::string subject, std::string kind, std::string summary, Time at = kT0) {
  AuditEntry e;
  e.subject = std::move(subject);
  e.at = at;
  e.fence = 3;
  e.head_sha = "abc1234def";
  e.kind = std::move(kind);
  e.summary = std::move(summary);
  return e;
}

class AuditContractTest : public ::testing::TestWithParam<StoreBackend> {
 protected:
  void SetUp() override { store_ = GetParam().open_fresh(dir_); }

  void Append(std::vector<AuditEntry> entries) {
    Status s = store_->audit().AppendAudit(entries, Durability::kRecoverable);
    ASSERT_TRUE(s.ok()) << s.ToString();
  }
  std::vector<std::string> Summaries(std::string_view subject, size_t limit) {
    auto list = store_->audit().ListAudit(subject, limit);
    EXPECT_TRUE(list.ok()) << list.status().ToString();
    std::vector<std::string> out;
    if (list.ok()) {
      for (const AuditEntry& e : *list) out.push_back(e.summary);
    }
    return out;
  }

  TempDir dir_;
  StorePtr store_;
};

TEST_P(AuditContractTest, EntriesComeBackOldestFirstWithEveryField) {
  AuditEntry verdict = Entry("acme/app#1", "verdict", "pass (score 100)", kT0);
  verdict.detail = R"({"score":100})";
  Append({verdict, Entry("acme/app#1", "planned", "merge (squash)", kT0 + seconds(1))});
  Append({Entry("acme/app#2", "pass", "other subject")});
  Append({Entry("acme/app#1", "executed", "merged", kT0 + seconds(2))});
  auto list = store_->audit().ListAudit("acme/app#1", 0);
  ASSERT_TRUE(list.ok()) << list.status().ToString();
  ASSERT_EQ(list->size(), 3u);
  const AuditEntry& first = (*list)[0];
  EXPECT_GT(first.id, 0);
  EXPECT_EQ(first.subject, "acme/app#1");
  EXPECT_EQ(first.at, kT0);
  EXPECT_EQ(first.fence, 3);
  EXPECT_EQ(first.head_sha, "abc1234def");
  EXPECT_EQ(first.kind, "verdict");
  EXPECT_EQ(first.summary, "pass (score 100)");
  EXPECT_EQ(first.detail, R"({"score":100})");
  EXPECT_LT((*list)[0].id, (*list)[1].id);
  EXPECT_LT((*list)[1].id, (*list)[2].id);
  EXPECT_EQ(Summaries("acme/app#1", 0),
            (std::vector<std::string>{"pass (score 100)", "merge (squash)", "merged"}));
  EXPECT_EQ(Summaries("acme/app#2", 0), (std::vector<std::string>{"other subject"}));
  EXPECT_TRUE(Summaries("acme/app#3", 0).empty());
}

// Append order is the order, whatever the callers' clocks say.
TEST_P(AuditContractTest, OrderIsAppendOrderNotTime) {
  Append({Entry("acme/app#1", "verdict", "first", kT0 + seconds(10))});
  Append({Entry("acme/app#1", "verdict", "second", kT0)});
  EXPECT_EQ(Summaries("acme/app#1", 0), (std::vector<std::string>{"first", "second"}));
}

TEST_P(AuditContractTest, ALimitReturnsTheLastEntriesOldestFirst) {
  std::vector<AuditEntry> entries;
  for (int i = 0; i < 10; ++i) {
    entries.push_back(Entry("acme/app#1", "planned", "e" + std::to_string(i), kT0 + seconds(i)));
  }
  Append(entries);
  EXPECT_EQ(Summaries("acme/app#1", 3), (std::vector<std::string>{"e7", "e8", "e9"}));
  EXPECT_EQ(Summaries("acme/app#1", 1), (std::vector<std::string>{"e9"}));
  EXPECT_EQ(Summaries("acme/app#1", 10).size(), 10u);
  EXPECT_EQ(Summaries("acme/app#1", 50).size(), 10u);
  EXPECT_EQ(Summaries("acme/app#1", 0).size(), 10u) << "0 means no limit";
}

TEST_P(AuditContractTest, BadEntriesWriteNothing) {
  for (const char* kind : {"", "Verdict", "planned!", "two words", "kind9"}) {
    EXPECT_EQ(store_->audit()
                  .AppendAudit(std::vector<AuditEntry>{Entry("acme/app#1", "verdict", "ok"),
                                                       Entry("acme/app#1", kind, "bad")},
                               Durability::kRecoverable)
                  .code(),
              StatusCode::kInvalidArgument)
        << "kind '" << kind << "'";
  }
  EXPECT_EQ(store_->audit()
                .AppendAudit(std::vector<AuditEntry>{Entry("", "verdict", "no subject")},
                             Durability::kRecoverable)
                .code(),
            StatusCode::kInvalidArgument);
  EXPECT_TRUE(Summaries("acme/app#1", 0).empty());
  EXPECT_TRUE(store_->audit().AppendAudit({}, Durability::kAcknowledged).ok());
  // Every kind the pass uses is accepted.
  for (const char* kind : {"verdict", "planned", "skipped", "executed", "reconciled", "superseded",
                           "failed", "error", "pass", "dry_run"}) {
    EXPECT_TRUE(store_->audit()
                    .AppendAudit(std::vector<AuditEntry>{Entry("acme/app#1", kind, kind)},
                                 Durability::kRecoverable)
                    .ok())
        << kind;
  }
}

TEST_P(AuditContractTest, EntriesAreCountedAndSurviveReopen) {
  Append({Entry("acme/app#1", "verdict", "a"), Entry("acme/app#1", "planned", "b")});
  Append({Entry("acme/app#2", "verdict", "c")});
  auto counters = store_->GetCounters();
  ASSERT_TRUE(counters.ok());
  EXPECT_EQ(counters->at("audit.entries"), 3);
  Status s = store_->audit().AppendAudit(
      std::vector<AuditEntry>{Entry("acme/app#1", "executed", "d")}, Durability::kAcknowledged);
  ASSERT_TRUE(s.ok()) << s.ToString();
  store_.reset();
  store_ = GetParam().open_again(dir_);
  EXPECT_EQ(Summaries("acme/app#1", 0), (std::vector<std::string>{"a", "b", "d"}));
}

INSTANTIATE_TEST_SUITE_P(Backends, AuditContractTest,
                         ::testing::ValuesIn(testing::ContractBackends()), testing::BackendName);

}  // namespace
}  // namespace gatehouse
