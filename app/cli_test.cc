// The gatehouse binary as a user runs it: exit codes, help, errors, and the work commands
// against a real database file.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <boost/json.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "http/test_client.h"
#include "store/open_store.h"
#include "store/store_test_util.h"
#include "tests/child_process.h"

namespace gatehouse {
namespace {

struct CliRun {
  int code;
  std::string out;  // stdout and stderr together
};

CliRun Gatehouse(const std::string& args) {
  const std::string cmd = std::string(GATEHOUSE_BIN) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  CliRun r{-1, ""};
  if (p == nullptr) return r;
  char buf[4096];
  size_t n;
  while ((n = fread(buf, 1, sizeof(buf), p)) > 0) r.out.append(buf, n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

TEST(CliTest, HelpEverywhere) {
  for (const char* args :
       {"--help", "help", "serve --help", "work --help", "route --help", "reviewers --help",
        "status --help", "config --help", "audit --help", "demo --help", "app --help",
        "migrate --help"}) {
    CliRun r = Gatehouse(args);
    EXPECT_EQ(r.code, 0) << args;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << args << ": " << r.out;
  }
  CliRun none = Gatehouse("");
  EXPECT_EQ(none.code, 2);
  CliRun bad = Gatehouse("frobnicate");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.out.find("unknown command 'frobnicate'"), std::string::npos);
  CliRun bad_flag = Gatehouse("work ls --colour");
  EXPECT_EQ(bad_flag.code, 2);
  EXPECT_NE(bad_flag.out.find("unknown option --colour"), std::string::npos);
  CliRun bad_workers = Gatehouse("serve --workers lots");
  EXPECT_EQ(bad_workers.code, 2);
  EXPECT_NE(bad_workers.out.find("not an integer"), std::string::npos);
  CliRun serve_help = Gatehouse("serve --help");
  EXPECT_NE(serve_help.out.find("--recover-interval-seconds"), std::string::npos);
  EXPECT_NE(serve_help.out.find("0 turns recovery off"), std::string::npos) << serve_help.out;
  CliRun bad_recover = Gatehouse("serve --recover-interval-seconds 99999999");
  EXPECT_EQ(bad_recover.code, 2) << bad_recover.out;
  CliRun bad_autonomy = Gatehouse("serve --insecure-no-signature --autonomy yolo");
  EXPECT_EQ(bad_autonomy.code, 2);
  EXPECT_NE(bad_autonomy.out.find("--autonomy must be observe, suggest or auto"), std::string::npos)
      << bad_autonomy.out;
  CliRun bad_prs = Gatehouse("demo --prs 0");
  EXPECT_EQ(bad_prs.code, 2);
  EXPECT_NE(bad_prs.out.find("--prs"), std::string::npos) << bad_prs.out;
}

TEST(CliTest, MissingDatabaseIsAClearError) {
  testing::TempDir dir;
  CliRun r = Gatehouse("work ls --db " + dir.File("typo.db"));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.out.find("no database at"), std::string::npos) << r.out;
}

// acme/app#1 dead after 8 attempts and acme/app#2 pending, in a new database `db`.
void MakeOneDeadItem(const std::string& db) {
  auto store = OpenStore(db);
  ASSERT_TRUE(store.ok());
  const Time now = RealClock().Now();
  std::vector<Signal> sigs = {{"acme/app#1", "pushed", {}}, {"acme/app#2", "pushed", {}}};
  ASSERT_TRUE((*store)->work().Enqueue(sigs, now, Durability::kAcknowledged).ok());
  auto leases = (*store)->work().Claim("t", 1, std::chrono::seconds(30), now);
  ASSERT_TRUE(leases.ok() && leases->size() == 1u);
  PassFinish f;
  f.key = (*leases)[0].key;
  f.fence = (*leases)[0].fence;
  f.kind = PassFinish::Kind::kDead;
  f.attempts = 8;
  f.error = "transient, gave up after 8 attempts: 502";
  ASSERT_TRUE((*store)->work().Finish({&f, 1}, now).ok());
}

TEST(CliTest, ListShowsDeadItemsAndRearmRevivesThem) {
  testing::TempDir dir;
  const std::string db = dir.File("g.db");
  MakeOneDeadItem(db);
  CliRun ls = Gatehouse("work ls --state dead --json --db " + db);
  ASSERT_EQ(ls.code, 0) << ls.out;
  boost::json::value v = boost::json::parse(ls.out);
  ASSERT_EQ(v.as_array().size(), 1u);
  EXPECT_EQ(v.as_array()[0].at("key").as_string(), "acme/app#1");
  EXPECT_EQ(v.as_array()[0].at("state").as_string(), "dead");
  EXPECT_EQ(v.as_array()[0].at("last_error").as_string(),
            "transient, gave up after 8 attempts: 502");

  CliRun table = Gatehouse("work ls --db " + db);
  EXPECT_EQ(table.code, 0);
  EXPECT_NE(table.out.find("gave up after 8 attempts"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("(2 items)"), std::string::npos) << table.out;

  CliRun not_dead = Gatehouse("work rearm acme/app#2 --db " + db);
  EXPECT_EQ(not_dead.code, 1);
  EXPECT_NE(not_dead.out.find("not dead"), std::string::npos);
  CliRun unknown = Gatehouse("work rearm acme/app#9 --db " + db);
  EXPECT_EQ(unknown.code, 1);
  EXPECT_NE(unknown.out.find("no work item"), std::string::npos);
  CliRun mailbox = Gatehouse("work rearm Acme/App#9/review/security --db " + db);
  EXPECT_EQ(mailbox.code, 1) << "a review mailbox is a key (unknown here), not a usage error";
  EXPECT_NE(mailbox.out.find("no work item acme/app#9/review/security"), std::string::npos)
      << mailbox.out;

  CliRun rearm = Gatehouse("work rearm ACME/App#1 --db " + db);  // keys are case-insensitive
  EXPECT_EQ(rearm.code, 0) << rearm.out;
  CliRun after = Gatehouse("work ls --state pending --json --db " + db);
  boost::json::value a = boost::json::parse(after.out);
  bool found = false;
  for (const auto& w : a.as_array()) found |= w.at("key").as_string() == "acme/app#1";
  EXPECT_TRUE(found) << after.out;
}

TEST(CliTest, SignalWithDebounceWaits) {
  testing::TempDir dir;
  const std::string db = dir.File("g.db");
  CliRun sig = Gatehouse("work signal Acme/App#3 --reason pushed --debounce-ms 60000 --db " + db);
  ASSERT_EQ(sig.code, 0) << sig.out;
  CliRun bad = Gatehouse("work signal acme/app#3 --reason 'Not Valid' --db " + db);
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.out.find("outside [a-z0-9_.:-]"), std::string::npos) << bad.out;
  auto store = OpenStore(db);
  ASSERT_TRUE(store.ok());
  auto item = (*store)->work().GetWorkItem("acme/app#3");
  ASSERT_TRUE(item.ok() && item->has_value());
  EXPECT_EQ((*item)->state, WorkState::kPending);
  EXPECT_EQ((*item)->requested_gen, 1);
  ASSERT_TRUE((*item)->due_at.has_value());
  EXPECT_GE(*(*item)->due_at, RealClock().Now() + std::chrono::seconds(50));
}

TEST(CliTest, ServeRefusesToStartWithoutASecret) {
  testing::TempDir dir;
  unsetenv("GATEHOUSE_WEBHOOK_SECRET");
  CliRun r = Gatehouse("serve --listen 127.0.0.1:0 --db " + dir.File("g.db"));
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.out.find("no webhook secret"), std::string::npos) << r.out;
  setenv("GATEHOUSE_WEBHOOK_SECRET_FILE", "/nonexistent/secret", 1);
  CliRun f = Gatehouse("serve --listen 127.0.0.1:0 --db " + dir.File("g.db"));
  unsetenv("GATEHOUSE_WEBHOOK_SECRET_FILE");
  EXPECT_EQ(f.code, 2);
  EXPECT_NE(f.out.find("cannot read /nonexistent/secret"), std::string::npos) << f.out;
}

TEST(CliTest, RouteExplainsAPayload) {
  const std::string fx = std::string(GATEHOUSE_FIXTURES) + "/";
  CliRun r =
      Gatehouse("route --event pull_request " + fx + "pull_request/synchronize.payload.json");
  ASSERT_EQ(r.code, 0) << r.out;
  auto v = boost::json::parse(r.out).as_object();
  EXPECT_EQ(v["keys"].as_array()[0].as_string(), "codertocat/hello-world#2");
  EXPECT_EQ(v["reasons"].as_array()[0].as_string(), "pushed");
  EXPECT_NE(Gatehouse("route --event push " + fx + "push/payload.json")
                .out.find(R"("ignored":"event push is not used")"),
            std::string::npos);
  EXPECT_EQ(Gatehouse("route " + fx + "push/payload.json").code, 2);  // no --event
  EXPECT_EQ(Gatehouse("route --event push").code, 2);                 // no FILE
  CliRun bad = Gatehouse("route --event push /dev/null");             // empty: invalid JSON
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.out.find("invalid JSON"), std::string::npos) << bad.out;
}

TEST(CliTest, StatusShowsABalancedFunnel) {
  testing::TempDir dir;
  EXPECT_EQ(Gatehouse("status --db " + dir.File("none.db")).code, 1);
  ASSERT_EQ(Gatehouse("work signal acme/app#1 --db " + dir.File("g.db")).code, 0);
  CliRun s = Gatehouse("status --json --db " + dir.File("g.db"));
  ASSERT_EQ(s.code, 0) << s.out;
  auto v = boost::json::parse(s.out).as_object();
  EXPECT_TRUE(v["balanced"].as_bool());
  EXPECT_EQ(v["received"].as_int64(), 0);
  EXPECT_EQ(v["counters"].as_object()["work.signals"].as_int64(), 1);
  CliRun table = Gatehouse("status --db " + dir.File("g.db"));
  EXPECT_NE(table.out.find("funnel balanced      yes"), std::string::npos) << table.out;
}

TEST(CliTest, ConfigCheckValidatesAPolicyFile) {
  testing::TempDir dir;
  const std::string good = dir.File("good.yml"), bad = dir.File("bad.yml");
  FILE* f = std::fopen(good.c_str(), "w");
  std::fputs("rules:\n  draft:\n    mode: block\n", f);
  std::fclose(f);
  f = std::fopen(bad.c_str(), "w");
  std::fputs("rules:\n  approvals:\n    min: two\n  colour: blue\n", f);
  std::fclose(f);
  CliRun ok = Gatehouse("config check " + good);
  EXPECT_EQ(ok.code, 0) << ok.out;
  EXPECT_NE(ok.out.find(": ok"), std::string::npos);
  CliRun no = Gatehouse("config check " + bad);
  EXPECT_EQ(no.code, 1);
  EXPECT_NE(no.out.find("bad.yml:3: rules.approvals.min"), std::string::npos) << no.out;
  EXPECT_NE(no.out.find("colour"), std::string::npos) << no.out;
  EXPECT_EQ(Gatehouse("config check " + dir.File("none.yml")).code, 1);
  EXPECT_EQ(Gatehouse("config").code, 2);
}

TEST(CliTest, ConfigCheckValidatesTheActionsSection) {
  testing::TempDir dir;
  const std::string good = dir.File("actions.yml"), bad = dir.File("bad_actions.yml");
  FILE* f = std::fopen(good.c_str(), "w");
  std::fputs("actions:\n  autonomy: suggest\n  classes: {label: auto}\n  close_grace: 2d\n", f);
  std::fclose(f);
  f = std::fopen(bad.c_str(), "w");
  std::fputs("actions:\n  merge_method: fast-forward\n", f);
  std::fclose(f);
  CliRun ok = Gatehouse("config check " + good);
  EXPECT_EQ(ok.code, 0) << ok.out;
  CliRun no = Gatehouse("config check " + bad);
  EXPECT_EQ(no.code, 1);
  EXPECT_NE(no.out.find("bad_actions.yml:2: actions.merge_method"), std::string::npos) << no.out;
}

// The reviewers file: `config check --reviewers` reports each problem with its line, `serve`
// refuses a bad one, and `gatehouse reviewers` lists, pauses and resumes what serve registered.
TEST(CliTest, ReviewersFileAndReviewersCommand) {
  testing::TempDir dir;
  const std::string good = dir.File("reviewers.yml"), bad = dir.File("bad.yml"),
                    db = dir.File("g.db");
  FILE* f = std::fopen(good.c_str(), "w");
  std::fputs(
      "reviewers:\n  - name: lint\n    roles: [style]\n"
      "    executor: {type: command, argv: [/bin/true]}\n"
      "  - name: secrets\n    roles: [secrets]\n    executor: {type: \"builtin:secrets\"}\n"
      "    paused: true\n",
      f);
  std::fclose(f);
  f = std::fopen(bad.c_str(), "w");
  std::fputs("reviewers:\n  - name: lint\n    roles: []\n    executor: {type: telepathy}\n", f);
  std::fclose(f);
  CliRun ok = Gatehouse("config check --reviewers " + good);
  EXPECT_EQ(ok.code, 0) << ok.out;
  CliRun no = Gatehouse("config check --reviewers " + bad);
  EXPECT_EQ(no.code, 1);
  EXPECT_NE(no.out.find("bad.yml:3: reviewers[0].roles"), std::string::npos) << no.out;
  EXPECT_NE(no.out.find("bad.yml:4: reviewers[0].executor.type"), std::string::npos) << no.out;
  setenv("GATEHOUSE_WEBHOOK_SECRET", "cli-test-secret", 1);
  EXPECT_EQ(Gatehouse("serve --db " + db + " --reviewers " + bad).code, 2);

  {
    testing::ChildProcess serve({GATEHOUSE_BIN, "serve", "--db", db, "--listen", "127.0.0.1:0",
                                 "--admin-listen", "127.0.0.1:0", "--reviewers", good});
    ASSERT_TRUE(serve.ok());
    EXPECT_EQ(serve.ReadLine().rfind("gatehouse: listening on", 0), 0u);
    serve.Signal(SIGTERM);
    EXPECT_EQ(serve.Wait(), 0);
  }
  CliRun ls = Gatehouse("reviewers ls --json --db " + db);
  ASSERT_EQ(ls.code, 0) << ls.out;
  EXPECT_NE(ls.out.find(R"({"name":"lint","paused":false,"busy":0,)"), std::string::npos) << ls.out;
  EXPECT_NE(ls.out.find(R"({"name":"secrets","paused":true,"busy":0,)"), std::string::npos)
      << ls.out;
  EXPECT_EQ(Gatehouse("reviewers pause lint --db " + db).code, 0);
  EXPECT_EQ(Gatehouse("reviewers resume secrets --db " + db).code, 0);
  ls = Gatehouse("reviewers ls --json --db " + db);
  EXPECT_NE(ls.out.find(R"({"name":"lint","paused":true,"busy":0,)"), std::string::npos) << ls.out;
  EXPECT_NE(ls.out.find(R"({"name":"secrets","paused":false,"busy":0,)"), std::string::npos)
      << ls.out;
  CliRun unknown = Gatehouse("reviewers pause nobody --db " + db);
  EXPECT_EQ(unknown.code, 1);
  EXPECT_NE(unknown.out.find("no reviewer nobody"), std::string::npos) << unknown.out;
  EXPECT_EQ(Gatehouse("reviewers").code, 2);
  EXPECT_EQ(Gatehouse("reviewers --help").code, 0);
}

// `gatehouse serve` opens the admin listener: without GATEHOUSE_ADMIN_TOKEN it makes a token,
// writes it beside the database (mode 0600) and prints where; the API answers only with it.
TEST(CliTest, ServeOpensTheAdminListenerWithAGeneratedToken) {
  testing::TempDir dir;
  const std::string db = dir.File("g.db");
  setenv("GATEHOUSE_WEBHOOK_SECRET", "cli-test-secret", 1);
  unsetenv("GATEHOUSE_ADMIN_TOKEN");
  unsetenv("GATEHOUSE_ADMIN_TOKEN_FILE");
  CliRun exposed = Gatehouse("serve --db " + db + " --listen 127.0.0.1:0 --admin-listen 0.0.0.0:0");
  EXPECT_EQ(exposed.code, 2);
  EXPECT_THAT(exposed.out, ::testing::HasSubstr("GATEHOUSE_ADMIN_TOKEN"));
  testing::ChildProcess serve({GATEHOUSE_BIN, "serve", "--db", db, "--listen", "127.0.0.1:0",
                               "--admin-listen", "127.0.0.1:0"},
                              dir.File("serve.log"));
  ASSERT_TRUE(serve.ok());
  EXPECT_EQ(serve.ReadLine().rfind("gatehouse: listening on http://127.0.0.1:", 0), 0u);
  const std::string admin = serve.ReadLine();
  ASSERT_EQ(admin.rfind("gatehouse: admin on http://127.0.0.1:", 0), 0u) << admin;
  EXPECT_THAT(admin, ::testing::HasSubstr(db + ".admin-token"));
  const uint16_t port = static_cast<uint16_t>(
      std::stoi(admin.substr(std::string("gatehouse: admin on http://127.0.0.1:").size())));
  struct stat st {};
  ASSERT_EQ(::stat((db + ".admin-token").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::ifstream in(db + ".admin-token");
  std::string token;
  std::getline(in, token);
  ASSERT_EQ(token.size(), 64u);
  auto get = [&](const std::string& auth) {
    auto c = http_testing::TestConnection::Connect(port);
    EXPECT_NE(c, nullptr);
    if (!c) return http_testing::ClientResponse{};
    EXPECT_TRUE(
        c->Send("GET /api/v1/status HTTP/1.1\r\nHost: x\r\n" + auth + "Connection: close\r\n\r\n"));
    return c->Read();
  };
  EXPECT_EQ(get("").status, 401);
  http_testing::ClientResponse ok = get("Authorization: Bearer " + token + "\r\n");
  EXPECT_EQ(ok.status, 200);
  EXPECT_THAT(ok.body, ::testing::HasSubstr("\"balanced\":true"));
  serve.Signal(SIGTERM);
  EXPECT_EQ(serve.Wait(), 0);
  // The serve's log never shows the token.
  std::ifstream log(dir.File("serve.log"));
  std::stringstream logged;
  logged << log.rdbuf();
  EXPECT_THAT(logged.str(), ::testing::HasSubstr("serve.admin"));
  EXPECT_THAT(logged.str(), ::testing::Not(::testing::HasSubstr(token)));
}

// status, work ls|rearm, audit and reviewers take --server URL: they read and act through a
// running server's admin API, with the token from the environment, and print what --db prints.
TEST(CliTest, OperatorCommandsTalkToARunningServer) {
  testing::TempDir dir;
  const std::string db = dir.File("g.db");
  MakeOneDeadItem(db);
  setenv("GATEHOUSE_WEBHOOK_SECRET", "cli-test-secret", 1);
  const std::string token = "cli-test-admin-token-0123456789";
  setenv("GATEHOUSE_ADMIN_TOKEN", token.c_str(), 1);
  unsetenv("GATEHOUSE_ADMIN_TOKEN_FILE");
  testing::ChildProcess serve({GATEHOUSE_BIN, "serve", "--db", db, "--listen", "127.0.0.1:0",
                               "--admin-listen", "127.0.0.1:0", "--sweep-interval-seconds", "0"},
                              dir.File("serve.log"));
  ASSERT_TRUE(serve.ok());
  EXPECT_EQ(serve.ReadLine().rfind("gatehouse: listening on", 0), 0u);
  const std::string admin = serve.ReadLine();
  const std::string prefix = "gatehouse: admin on ";
  ASSERT_EQ(admin.rfind(prefix, 0), 0u) << admin;
  const std::string url =
      admin.substr(prefix.size(), admin.find(' ', prefix.size()) - prefix.size());
  const std::string server = " --server " + url;

  CliRun status = Gatehouse("status" + server);
  EXPECT_EQ(status.code, 0) << status.out;
  EXPECT_THAT(status.out, ::testing::HasSubstr("funnel balanced      yes"));
  EXPECT_THAT(status.out, ::testing::HasSubstr("work items dead      1"));
  CliRun local = Gatehouse("status --db " + db);
  EXPECT_EQ(local.out, status.out) << "--server and --db print the same";
  CliRun dead = Gatehouse("work ls --state dead --json" + server);
  ASSERT_EQ(dead.code, 0) << dead.out;
  boost::json::value items = boost::json::parse(dead.out);
  ASSERT_EQ(items.as_array().size(), 1u) << dead.out;
  EXPECT_EQ(items.as_array()[0].at("key").as_string(), "acme/app#1");
  CliRun table = Gatehouse("work ls --limit 1" + server);  // paging: one item of two
  EXPECT_THAT(table.out, ::testing::HasSubstr("(1 item)"));
  CliRun not_dead = Gatehouse("work rearm acme/app#2" + server);
  EXPECT_EQ(not_dead.code, 1);
  EXPECT_THAT(not_dead.out, ::testing::HasSubstr("409"));
  CliRun rearm = Gatehouse("work rearm acme/app#1" + server);
  EXPECT_EQ(rearm.code, 0) << rearm.out;
  CliRun audit = Gatehouse("audit acme/app#1" + server);
  EXPECT_EQ(audit.code, 0) << audit.out;
  EXPECT_THAT(audit.out, ::testing::HasSubstr("operator"));  // the re-arm's audit line
  CliRun reviewers = Gatehouse("reviewers ls" + server);
  EXPECT_EQ(reviewers.code, 0) << reviewers.out;
  EXPECT_THAT(reviewers.out, ::testing::HasSubstr("REVIEWER"));
  CliRun unknown = Gatehouse("reviewers pause nobody" + server);
  EXPECT_EQ(unknown.code, 1);
  EXPECT_THAT(unknown.out, ::testing::HasSubstr("no reviewer nobody"));

  // top: frames of the funnel, rates and the busiest PRs; `q` on stdin quits.
  CliRun top = Gatehouse("top --frames 2 --interval-seconds 0.2" + server + " </dev/null");
  EXPECT_EQ(top.code, 0) << top.out;
  EXPECT_THAT(top.out, ::testing::HasSubstr("webhooks  received 0"));
  EXPECT_THAT(top.out, ::testing::HasSubstr("DEAD 0"));  // re-armed above
  EXPECT_THAT(top.out, ::testing::HasSubstr("signals per pass"));
  EXPECT_THAT(top.out, ::testing::HasSubstr("acme/app#1"));
  std::ofstream(dir.File("keys")) << "q";
  CliRun quit = Gatehouse("top --interval-seconds 3600" + server + " <" + dir.File("keys"));
  EXPECT_EQ(quit.code, 0) << quit.out;  // without q it would wait an hour for the next frame
  EXPECT_THAT(quit.out, ::testing::HasSubstr("BUSIEST (signals ever)"));

  EXPECT_EQ(Gatehouse("status --db " + db + server).code, 2);  // one source, not two
  setenv("GATEHOUSE_ADMIN_TOKEN", "not-the-token", 1);
  CliRun refused = Gatehouse("status" + server);
  EXPECT_EQ(refused.code, 1);
  EXPECT_THAT(refused.out, ::testing::HasSubstr("401"));
  EXPECT_THAT(refused.out, ::testing::Not(::testing::HasSubstr(token)));
  unsetenv("GATEHOUSE_ADMIN_TOKEN");
  CliRun no_token = Gatehouse("status" + server);
  EXPECT_EQ(no_token.code, 2);
  EXPECT_THAT(no_token.out, ::testing::HasSubstr("GATEHOUSE_ADMIN_TOKEN"));
  const std::string token_file = dir.File("token");
  std::ofstream(token_file) << token << "\n";
  EXPECT_EQ(Gatehouse("status --token-file " + token_file + server).code, 0);
  serve.Signal(SIGTERM);
  EXPECT_EQ(serve.Wait(), 0);
  CliRun gone = Gatehouse("status --token-file " + token_file + server);
  EXPECT_EQ(gone.code, 1);
  EXPECT_THAT(gone.out, ::testing::HasSubstr(url));
}

// gatehouse doctor with nothing configured: exit 1, each missing piece named, no secret
// printed (app/doctor_test.cc runs the checks against the simulator).
TEST(CliTest, DoctorNamesWhatIsMissing) {
  unsetenv("GATEHOUSE_WEBHOOK_SECRET");
  unsetenv("GATEHOUSE_GITHUB_APP_ID");
  unsetenv("GATEHOUSE_GITHUB_TOKEN");
  unsetenv("GATEHOUSE_GITHUB_PRIVATE_KEY_FILE");
  unsetenv("GATEHOUSE_DATABASE_URL");
  CliRun bare = Gatehouse("doctor");
  EXPECT_EQ(bare.code, 1) << bare.out;
  EXPECT_THAT(bare.out, ::testing::HasSubstr("FAIL  webhook secret"));
  EXPECT_THAT(bare.out, ::testing::HasSubstr("FAIL  credentials"));
  EXPECT_THAT(bare.out, ::testing::HasSubstr("2 things to fix"));
  testing::TempDir dir;
  CliRun no_db = Gatehouse("doctor --db " + dir.File("missing.db"));
  EXPECT_THAT(no_db.out, ::testing::HasSubstr("FAIL  database"));
  EXPECT_EQ(Gatehouse("doctor --help").code, 0);
  EXPECT_EQ(Gatehouse("doctor extra").code, 2);
}

// `gatehouse serve` runs passes for signals routed by another process, and stops cleanly.
TEST(CliTest, ServeRunsPassesAndStopsOnSigterm) {
  testing::TempDir dir;
  const std::string db = dir.File("g.db");
  setenv("GATEHOUSE_WEBHOOK_SECRET", "cli-test-secret", 1);
  testing::ChildProcess serve({GATEHOUSE_BIN, "serve", "--db", db, "--workers", "2", "--listen",
                               "127.0.0.1:0", "--admin-listen", "127.0.0.1:0"});
  ASSERT_TRUE(serve.ok());
  EXPECT_EQ(serve.ReadLine().rfind("gatehouse: listening on http://127.0.0.1:", 0), 0u);
  CliRun sig = Gatehouse("work signal acme/app#7 --reason pushed --db " + db);
  ASSERT_EQ(sig.code, 0) << sig.out;
  auto store = OpenStore(db);
  ASSERT_TRUE(store.ok());
  WorkItem w;
  // The pass runs in the serve process: its outcome shows only in the shared database file,
  // so poll it (a real process's real time).
  for (int i = 0; i < 200000; ++i) {  // until the pass is recorded (bounded safety net)
    auto item = (*store)->work().GetWorkItem("acme/app#7");
    ASSERT_TRUE(item.ok());
    if (item->has_value() && (*item)->done_gen == 1) {
      w = **item;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(w.state, WorkState::kIdle);
  EXPECT_EQ(w.done_gen, 1);
  serve.Signal(SIGTERM);
  EXPECT_EQ(serve.Wait(), 0);
  CliRun counters = Gatehouse("work counters --json --db " + db);
  ASSERT_EQ(counters.code, 0) << counters.out;
  boost::json::value c = boost::json::parse(counters.out);
  EXPECT_EQ(c.at("work.signals").as_int64(), 1);
  EXPECT_EQ(c.at("work.passes_completed").as_int64(), 1);
}

// `gatehouse audit`: a PR's audit log and ledger rows, as a table and as JSON.
TEST(CliTest, AuditPrintsAPullRequestsHistory) {
  testing::TempDir dir;
  const std::string db = dir.File("g.db");
  const Time t0 = FromMicros(1'796'040'001'123'000);  // 2026-11-30T12:00:01.123Z
  const std::string head = "abc1234def5678abc1234def5678abc1234def56";
  {
    auto store = OpenStore(db);
    ASSERT_TRUE(store.ok());
    Signal s{"acme/app#12", "pushed", {}};
    ASSERT_TRUE((*store)->work().Enqueue({&s, 1}, t0, Durability::kAcknowledged).ok());
    auto leases = (*store)->work().Claim("t", 1, std::chrono::seconds(30), t0);
    ASSERT_TRUE(leases.ok() && leases->size() == 1u);
    const int64_t fence = (*leases)[0].fence;
    auto merge =
        (*store)->ledger().RecordIntent(ActionKey{"acme/app#12", "merge", head, ""}, fence, t0);
    ASSERT_TRUE(merge.ok());
    ASSERT_TRUE((*store)
                    ->ledger()
                    .RecordOutcome(merge->record.id, fence, ActionState::kDone, "merged", t0)
                    .ok());
    std::vector<AuditEntry> entries;
    for (int i = 0; i < 3; ++i) {
      AuditEntry e;
      e.subject = "acme/app#12";
      e.at = t0 + std::chrono::milliseconds(i);
      e.fence = fence;
      e.head_sha = head;
      e.kind = i == 0 ? "verdict" : i == 1 ? "planned" : "executed";
      e.summary = i == 0 ? "pass (score 100)" : i == 1 ? "merge (squash)" : "merged";
      if (i == 0) e.detail = R"({"score":100})";
      entries.push_back(e);
    }
    ASSERT_TRUE((*store)->audit().AppendAudit(entries, Durability::kAcknowledged).ok());
  }
  CliRun table = Gatehouse("audit Acme/App#12 --db " + db);  // case-insensitive
  ASSERT_EQ(table.code, 0) << table.out;
  EXPECT_NE(table.out.find("acme/app#12: 3 audit entries"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("2026-11-30T12:00:01.123Z  verdict     abc1234  pass (score 100)"),
            std::string::npos)
      << table.out;
  EXPECT_LT(table.out.find("verdict"), table.out.find("executed")) << "oldest first";
  EXPECT_NE(table.out.find("actions (ledger): 1"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("merge"), std::string::npos);
  EXPECT_NE(table.out.find("done"), std::string::npos) << table.out;

  CliRun last = Gatehouse("audit acme/app#12 --limit 1 --db " + db);
  ASSERT_EQ(last.code, 0) << last.out;
  EXPECT_NE(last.out.find("1 audit entry (the last 1)"), std::string::npos) << last.out;
  EXPECT_EQ(last.out.find("pass (score 100)"), std::string::npos) << last.out;

  CliRun json = Gatehouse("audit acme/app#12 --json --db " + db);
  ASSERT_EQ(json.code, 0) << json.out;
  auto v = boost::json::parse(json.out).as_object();
  EXPECT_EQ(v["subject"].as_string(), "acme/app#12");
  auto& audit = v["audit"].as_array();
  ASSERT_EQ(audit.size(), 3u);
  EXPECT_EQ(audit[0].at("kind").as_string(), "verdict");
  EXPECT_EQ(audit[0].at("at").as_string(), "2026-11-30T12:00:01.123Z");
  EXPECT_EQ(audit[0].at("head_sha").as_string(), head);
  EXPECT_EQ(audit[0].at("detail").at("score").as_int64(), 100) << "detail embedded as JSON";
  EXPECT_TRUE(audit[1].at("detail").is_null());
  auto& actions = v["actions"].as_array();
  ASSERT_EQ(actions.size(), 1u);
  EXPECT_EQ(actions[0].at("kind").as_string(), "merge");
  EXPECT_EQ(actions[0].at("state").as_string(), "done");
  EXPECT_EQ(actions[0].at("result").as_string(), "merged");
  EXPECT_EQ(actions[0].at("attempts").as_int64(), 1);

  CliRun unknown = Gatehouse("audit acme/app#13 --db " + db);
  EXPECT_EQ(unknown.code, 0) << unknown.out;
  EXPECT_NE(unknown.out.find("no history for acme/app#13"), std::string::npos) << unknown.out;

  for (const char* bad : {"acme/app", "acme#12", "acme/app#0", "acme/app#x", "/app#1", "acme/a%p#1",
                          "acme/app#12 extra"}) {
    CliRun r = Gatehouse(std::string("audit ") + bad + " --db " + db);
    EXPECT_EQ(r.code, 2) << bad << ": " << r.out;
  }
  EXPECT_EQ(Gatehouse("audit --db " + db).code, 2);
  EXPECT_EQ(Gatehouse("audit acme/app#12 --limit 0 --db " + db).code, 2);
  CliRun missing = Gatehouse("audit acme/app#12 --db " + dir.File("none.db"));
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.out.find("no database at"), std::string::npos) << missing.out;
}

// `gatehouse app manifest`: a manifest GitHub's flow takes (the fields it reads, the webhook URL
// given), every permission and event gatehouse needs, each explained by --why and in
// docs/SETUP.md; unusable options are usage errors.
TEST(CliTest, AppManifestNamesEveryPermissionAndEvent) {
  CliRun r = Gatehouse("app manifest --webhook-url https://gh.example.com:8443/webhook --name acme-gate");
  ASSERT_EQ(r.code, 0) << r.out;
  boost::json::error_code ec;
  boost::json::value v = boost::json::parse(r.out, ec);
  ASSERT_FALSE(ec) << r.out;
  const boost::json::object& m = v.as_object();
  EXPECT_EQ(m.at("name"), "acme-gate");
  EXPECT_EQ(m.at("url"), "https://gh.example.com:8443");
  EXPECT_EQ(m.at("hook_attributes").at("url"), "https://gh.example.com:8443/webhook");
  EXPECT_EQ(m.at("hook_attributes").at("active"), true);
  EXPECT_EQ(m.at("public"), false);
  const boost::json::object& perms = m.at("default_permissions").as_object();
  for (const char* p : {"pull_requests", "contents", "checks", "issues"}) {
    EXPECT_EQ(perms.at(p), "write") << p;
  }
  for (const char* p : {"metadata", "statuses", "actions"}) EXPECT_EQ(perms.at(p), "read") << p;
  std::vector<std::string> events;
  for (const auto& e : m.at("default_events").as_array()) {
    events.emplace_back(e.as_string());
  }
  // Every event the router uses (engine/router.cc) but installation events, which every App
  // receives without subscribing.
  for (const char* e : {"pull_request", "pull_request_review", "check_run", "check_suite",
                        "workflow_run", "status", "issue_comment"}) {
    EXPECT_NE(std::find(events.begin(), events.end(), e), events.end()) << e;
  }

  CliRun why = Gatehouse("app manifest --why");
  ASSERT_EQ(why.code, 0) << why.out;
  std::ifstream setup_file(std::string(GATEHOUSE_SOURCE_DIR) + "/docs/SETUP.md");
  std::stringstream setup;
  setup << setup_file.rdbuf();
  for (const auto& [name, access] : perms) {
    EXPECT_NE(why.out.find(std::string(name) + ": " + std::string(access.as_string())),
              std::string::npos)
        << name;
    EXPECT_NE(setup.str().find("`" + std::string(name) + "` | " + std::string(access.as_string())),
              std::string::npos)
        << "docs/SETUP.md does not list " << name;
  }
  for (const std::string& e : events) {
    EXPECT_NE(why.out.find("  " + e + " "), std::string::npos) << e;
    EXPECT_NE(setup.str().find("| `" + e + "` |"), std::string::npos)
        << "docs/SETUP.md does not list " << e;
  }

  for (const char* bad : {"app manifest", "app manifest --webhook-url ftp://x/hook",
                          "app manifest --webhook-url https://", "app frobnicate",
                          "app manifest --webhook-url https://x/h --name ''"}) {
    CliRun b = Gatehouse(bad);
    EXPECT_EQ(b.code, 2) << bad << ": " << b.out;
  }
  EXPECT_NE(Gatehouse("app manifest").out.find("--webhook-url is required"), std::string::npos);
  EXPECT_EQ(Gatehouse("app --help").code, 0);
}

}  // namespace
}  // namespace gatehouse
