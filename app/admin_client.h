// AdminClient: how the operator's commands (status, work ls|rearm, audit, reviewers, top) read
// and act — through the admin API's documents (docs/ADMIN_API.md), either from a running
// server (--server URL, over HTTP with the admin token) or in this process over the database
// (--db), by the same admin::AdminApi the server runs. Both print the same, and an operator of
// a PostgreSQL deployment never needs database access.
//
// The token for --server comes from GATEHOUSE_ADMIN_TOKEN or GATEHOUSE_ADMIN_TOKEN_FILE, else
// from --token-file PATH (the file `gatehouse serve` writes on loopback); it is never printed.
//
// Not thread-safe: one command, one thread.
#pragma once

#include <boost/json/value.hpp>
#include <memory>
#include <string>
#include <string_view>

#include "base/flags.h"
#include "base/status.h"

namespace gatehouse::app {

class AdminClient {
 public:
  virtual ~AdminClient() = default;
  // The JSON answer of METHOD TARGET ("/api/v1/status", "/api/v1/work/rearm?key=a%2Fb%231").
  // An error answer becomes a Status with the API's message: InvalidArgument (400), NotFound
  // (404), FailedPrecondition (401 and 403: the token was refused; 405, 409), Unavailable
  // (503, or no answer at all), Internal otherwise.
  virtual Result<boost::json::value> Call(std::string_view method, std::string_view target) = 0;
  // Where the answers come from, for messages: "http://127.0.0.1:8081" or the database.
  virtual std::string Describe() const = 0;
};

// --server URL (http:// or https://; then --db must not be given) or the database of
// OpenStoreFromFlags (`must_exist` as there). Usage errors (both flags, no token for --server)
// are InvalidArgument.
Result<std::unique_ptr<AdminClient>> OpenAdminClient(const Flags& flags, bool must_exist);

// The usage text's lines for --server, --token-file and --db, shared by every command.
extern const char kAdminClientOptions[];

// A path segment or query value, percent-encoded (http/query.h).
std::string Encode(std::string_view text);

}  // namespace gatehouse::app
