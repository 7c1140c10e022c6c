// GET /pulls/{n}/files with patches (described by the control API, or synthesized), and
// reactions on issue comments with GitHub's one-per-(user, content) rule.
#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <memory>

#include "sim/app_identity.h"
#include "sim/handler_test_util.h"
#include "sim/model.h"
#include "sim/render.h"
#include "sim/rest.h"

namespace gatehouse::sim {
namespace {

namespace json = boost::json;

class SimFilesReactionsTest : public ::testing::Test {
 protected:
  SimFilesReactionsTest()
      : clock_(std::make_shared<SimClock>(FromMicros(1'800'000'000'000'000))),
        model_(clock_, {}),
        handler_(model_, {.clock = clock_, .insecure_any_token = true}) {
    EXPECT_EQ(Call("POST", "/_sim/repos", R"({"owner":"acme","name":"app"})").status, 201);
  }

  HttpResponse Call(const std::string& method, const std::string& target,
                    const std::string& body = "") {
    return sim_testing::CallSim(handler_, method, target, body);
  }
  json::value Json(const HttpResponse& r) { return json::parse(r.body); }
  int64_t Comment(const std::string& body) {
    HttpResponse r = Call("POST", "/repos/acme/app/issues/1/comments",
                          json::serialize(json::object{{"body", body}}));
    EXPECT_EQ(r.status, 201) << r.body;
    return Json(r).at("id").as_int64();
  }

  std::shared_ptr<SimClock> clock_;
  Model model_;
  SimHandler handler_;
};

TEST_F(SimFilesReactionsTest, DescribedFilesShowTheirPatchAndTheOthersASyntheticOne) {
  const std::string patch = "@@ -1,2 +1,3 @@\n line one\n-old\n+new\n+newer";
  HttpResponse created = Call(
      "POST", "/_sim/repos/acme/app/pulls",
      json::serialize(json::object{
          {"files",
           json::array{
               "README.md",
               json::object{{"path", "src/a.cc"}, {"status", "added"}, {"patch", patch}},
               json::object{
                   {"path", "logo.png"}, {"status", "added"}, {"additions", 0}, {"deletions", 0}}}},
          {"additions", 3},
          {"deletions", 1}}));
  ASSERT_EQ(created.status, 201) << created.body;
  // The PR's totals: the described files' lines plus the others'.
  EXPECT_EQ(Json(created).at("additions"), 5);
  EXPECT_EQ(Json(created).at("deletions"), 2);
  EXPECT_EQ(Json(created).at("changed_files"), 3);

  json::value files = Json(Call("GET", "/repos/acme/app/pulls/1/files"));
  ASSERT_EQ(files.as_array().size(), 3u);
  const json::object& readme = files.at(0).as_object();
  EXPECT_EQ(readme.at("filename"), "README.md");
  EXPECT_EQ(readme.at("status"), "modified");
  EXPECT_EQ(readme.at("additions"), 3);
  EXPECT_EQ(readme.at("deletions"), 1);
  EXPECT_EQ(readme.at("patch"),
            "@@ -1,1 +1,3 @@\n-removed line 1 of README.md\n+added line 1 of README.md\n"
            "+added line 2 of README.md\n+added line 3 of README.md");
  const json::object& a = files.at(1).as_object();
  EXPECT_EQ(a.at("status"), "added");
  EXPECT_EQ(a.at("patch").as_string(), patch);
  EXPECT_EQ(a.at("additions"), 2) << "counted from the patch";
  EXPECT_EQ(a.at("deletions"), 1);
  // A binary file: no patch at all, as GitHub sends it.
  EXPECT_FALSE(files.at(2).as_object().contains("patch"));

  // A push replaces the files; the undescribed ones keep sharing the lines they had.
  ASSERT_EQ(Call("POST", "/_sim/repos/acme/app/pulls/1/push",
                 R"({"files":["README.md",{"path":"b.py","patch":"@@ -0,0 +1 @@\n+x = 1"}]})")
                .status,
            200);
  files = Json(Call("GET", "/repos/acme/app/pulls/1/files"));
  ASSERT_EQ(files.as_array().size(), 2u);
  EXPECT_EQ(files.at(0).at("additions"), 3);
  EXPECT_EQ(files.at(1).at("filename"), "b.py");
  EXPECT_EQ(files.at(1).at("patch"), "@@ -0,0 +1 @@\n+x = 1");
  EXPECT_EQ(Json(Call("GET", "/repos/acme/app/pulls/1")).at("additions"), 4);
}

TEST_F(SimFilesReactionsTest, BadFileEntriesAreRefusedWithTheirIndex) {
  HttpResponse r = Call("POST", "/_sim/repos/acme/app/pulls", R"({"files":["a",{"patch":"@@"}]})");
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("files[1].path"), std::string::npos) << r.body;
  r = Call("POST", "/_sim/repos/acme/app/pulls", R"({"files":[{"path":"a","patch":3}]})");
  EXPECT_EQ(r.status, 400);
  EXPECT_NE(r.body.find("files[0].patch"), std::string::npos) << r.body;
}

TEST_F(SimFilesReactionsTest, ALargeUndescribedFileHasNoPatch) {
  EXPECT_EQ(SyntheticPatch("a", kMaxSyntheticPatchLines, 1), "");
  EXPECT_EQ(SyntheticPatch("a", 0, 0), "");
  EXPECT_EQ(SyntheticPatch("a", 0, 1), "@@ -1,1 +0,0 @@\n-removed line 1 of a");
}

TEST_F(SimFilesReactionsTest, ASecondIdenticalReactionAnswers200WithTheFirst) {
  ASSERT_EQ(Call("POST", "/_sim/repos/acme/app/pulls", "{}").status, 201);
  const int64_t comment = Comment("@gatehouse review");
  const std::string target =
      "/repos/acme/app/issues/comments/" + std::to_string(comment) + "/reactions";
  HttpResponse first = Call("POST", target, R"({"content":"+1"})");
  ASSERT_EQ(first.status, 201) << first.body;
  const int64_t id = Json(first).at("id").as_int64();
  EXPECT_EQ(Json(first).at("content"), "+1");
  EXPECT_EQ(Json(first).at("user").at("login").as_string(), AppLogin());
  HttpResponse again = Call("POST", target, R"({"content":"+1"})");
  EXPECT_EQ(again.status, 200);
  EXPECT_EQ(Json(again).at("id").as_int64(), id);
  // Another content, and another user, are other reactions.
  EXPECT_EQ(Call("POST", target, R"({"content":"eyes"})").status, 201);
  EXPECT_EQ(Call("POST", "/_sim/repos/acme/app/comments/" + std::to_string(comment) + "/reactions",
                 R"({"user":"alice","content":"+1"})")
                .status,
            201);

  json::value list = Json(Call("GET", target));
  ASSERT_EQ(list.as_array().size(), 3u);
  EXPECT_EQ(list.at(0).at("id").as_int64(), id);
  EXPECT_EQ(list.at(2).at("user").at("login"), "alice");
  EXPECT_EQ(Json(Call("GET", "/_sim/state"))
                .at("repos")
                .at(0)
                .at("pulls")
                .at(0)
                .at("comments")
                .at(0)
                .at("reactions")
                .as_array()
                .size(),
            3u);
  int created = 0;
  int existing = 0;
  for (const Effect& e : model_.Effects()) {
    if (e.kind != "reaction") continue;
    created += e.status == 201 ? 1 : 0;
    existing += e.status == 200 ? 1 : 0;
    EXPECT_EQ(e.number, 1);
  }
  EXPECT_EQ(created, 3);
  EXPECT_EQ(existing, 1);
}

TEST_F(SimFilesReactionsTest, ReactionsNeedAnExistingCommentAndAKnownContent) {
  ASSERT_EQ(Call("POST", "/_sim/repos/acme/app/pulls", "{}").status, 201);
  const int64_t comment = Comment("hello");
  const std::string target =
      "/repos/acme/app/issues/comments/" + std::to_string(comment) + "/reactions";
  EXPECT_EQ(Call("POST", target, R"({"content":"thumbs"})").status, 422);
  EXPECT_EQ(Call("POST", target, R"({"content":""})").status, 422);
  EXPECT_EQ(Call("POST", "/repos/acme/app/issues/comments/999999/reactions", R"({"content":"+1"})")
                .status,
            404);
  EXPECT_EQ(Call("GET", "/repos/acme/app/issues/comments/999999/reactions").status, 404);
  EXPECT_EQ(Json(Call("GET", target)).as_array().size(), 0u);
}

}  // namespace
}  // namespace gatehouse::sim
