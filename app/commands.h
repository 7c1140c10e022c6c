// The `gatehouse` subcommands. Each returns the process exit code:
// 0 success, 1 runtime failure, 2 usage error.
#pragma once

namespace gatehouse::app {

int RunServe(int argc, char** argv);      // argv[0] is "serve"
int RunWork(int argc, char** argv);       // argv[0] is "work"
int RunRoute(int argc, char** argv);      // argv[0] is "route"
int RunStatus(int argc, char** argv);     // argv[0] is "status"
int RunConfig(int argc, char** argv);     // argv[0] is "config"
int RunDemo(int argc, char** argv);       // argv[0] is "demo"
int RunAudit(int argc, char** argv);      // argv[0] is "audit"
int RunReviewers(int argc, char** argv);  // argv[0] is "reviewers"
int RunMigrate(int argc, char** argv);    // argv[0] is "migrate"
int RunApp(int argc, char** argv);        // argv[0] is "app"
int RunTop(int argc, char** argv);        // argv[0] is "top"
int RunDoctor(int argc, char** argv);     // argv[0] is "doctor"

constexpr int kExitOk = 0;
constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

}  // namespace gatehouse::app
