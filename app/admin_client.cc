#include "app/admin_client.h"

#include <boost/json.hpp>
#include <utility>

#include "admin/admin_api.h"
#include "app/common.h"
#include "app/webhook_secrets.h"
#include "github/transport.h"
#include "http/handler.h"
#include "http/query.h"
#include "store/open_store.h"

namespace gatehouse::app {
namespace {

namespace json = boost::json;

const char kTokenVariable[] = "GATEHOUSE_ADMIN_TOKEN";

// The API's answer as a document, or its {"error"} as a Status.
Result<json::value> FromAnswer(int status, const std::string& body, const std::string& where) {
  boost::system::error_code ec;
  json::value doc = json::parse(body, ec);
  if (status >= 200 && status < 300) {
    if (ec) return Internal(where + " answered " + std::to_string(status) + " with no JSON");
    return doc;
  }
  std::string message = where + " answered " + std::to_string(status);
  if (!ec && doc.is_object() && doc.as_object().contains("error") &&
      doc.as_object().at("error").is_string()) {
    message += ": " + std::string(doc.as_object().at("error").as_string());
  }
  switch (status) {
    case 400:
      return InvalidArgument(message);
    case 401:
    case 403:
      return FailedPrecondition(message + " (is GATEHOUSE_ADMIN_TOKEN the server's token?)");
    case 404:
      return NotFound(message);
    case 405:
    case 409:
      return FailedPrecondition(message);
    case 503:
      return Unavailable(message);
    default:
      return Internal(message);
  }
}

// In this process, over the database: the server's own AdminApi.
class LocalAdminClient final : public AdminClient {
 public:
  LocalAdminClient(StorePtr store, std::string url)
      : store_(std::move(store)), api_(*store_, nullptr), url_(std::move(url)) {}

  Result<json::value> Call(std::string_view method, std::string_view target) override {
    HttpRequest request;
    request.method = std::string(method);
    request.target = std::string(target);
    request.peer = "cli";
    const HttpResponse response = api_.Serve(request);
    return FromAnswer(response.status, response.body, "the admin API");
  }
  std::string Describe() const override { return url_; }

 private:
  StorePtr store_;
  admin::AdminApi api_;
  std::string url_;
};

// A running server's admin listener, over HTTP with the token.
class RemoteAdminClient final : public AdminClient {
 public:
  RemoteAdminClient(std::unique_ptr<CurlTransport> transport, std::string url, std::string token)
      : transport_(std::move(transport)), url_(std::move(url)), token_(std::move(token)) {}

  Result<json::value> Call(std::string_view method, std::string_view target) override {
    HttpCall call;
    call.method = std::string(method);
    call.target = std::string(target);
    call.headers.emplace_back("Authorization", "Bearer " + token_);
    auto reply = transport_->Send(call);
    if (!reply.ok()) return Unavailable(url_ + ": " + reply.status().message());
    return FromAnswer(reply->status, reply->body, url_);
  }
  std::string Describe() const override { return url_; }

 private:
  std::unique_ptr<CurlTransport> transport_;
  std::string url_;
  std::string token_;
};

Result<std::string> ServerToken(const Flags& flags) {
  GH_ASSIGN_OR_RETURN(std::string token, LoadSecretVariable(kTokenVariable));
  if (!token.empty()) return token;
  if (flags.Has("token-file")) {
    return LoadSecretFile(flags.Get("token-file", ""), "--token-file");
  }
  return InvalidArgument(
      "--server needs the admin token: set GATEHOUSE_ADMIN_TOKEN or GATEHOUSE_ADMIN_TOKEN_FILE, "
      "or pass --token-file PATH (the file `gatehouse serve` printed)");
}

}  // namespace

const char kAdminClientOptions[] =
    R"(  --server URL   a running gatehouse's admin listener (http://127.0.0.1:8081), instead of
                 the database; the token from GATEHOUSE_ADMIN_TOKEN[_FILE] or --token-file
  --token-file F the admin token's file (what `gatehouse serve` printed), for --server
  --db URL       a SQLite file (sqlite:PATH or PATH; default ./gatehouse.db)
                 or postgresql://USER@HOST:PORT/DB; default $GATEHOUSE_DATABASE_URL
)";

std::string Encode(std::string_view text) { return PercentEncode(text); }

Result<std::unique_ptr<AdminClient>> OpenAdminClient(const Flags& flags, bool must_exist) {
  if (flags.Has("server")) {
    if (flags.Has("db")) return InvalidArgument("--server and --db exclude each other");
    std::string url = flags.Get("server", "");
    while (!url.empty() && url.back() == '/') url.pop_back();
    if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) {
      return InvalidArgument("--server must be an http:// or https:// URL, not '" + url + "'");
    }
    GH_ASSIGN_OR_RETURN(std::string token, ServerToken(flags));
    CurlTransportOptions options;
    options.base_url = url;
    options.connect_timeout = std::chrono::seconds(5);
    options.max_idle_handles = 1;
    options.user_agent = "gatehouse-cli/0.1";
    auto transport = CurlTransport::Create(options);
    if (!transport.ok()) return InvalidArgument("--server: " + transport.status().message());
    return std::unique_ptr<AdminClient>(
        new RemoteAdminClient(std::move(transport).value(), url, std::move(token)));
  }
  if (flags.Has("token-file")) return InvalidArgument("--token-file goes with --server");
  GH_ASSIGN_OR_RETURN(StorePtr store, OpenStoreFromFlags(flags, must_exist));
  return std::unique_ptr<AdminClient>(
      new LocalAdminClient(std::move(store), DescribeStoreUrl(DatabaseUrl(flags))));
}

}  // namespace gatehouse::app
