// POST /graphql: GitHub's GraphQL API over the model (docs/SIMULATOR.md "GraphQL").
//
// As on GitHub: a body that is not JSON is a 400; a document that does not parse or validate
// is a 200 whose body holds only "errors" (and costs nothing); a valid query costs its points
// (sim/graphql_schema.h QueryCost) from the installation's `graphql` window, which is separate
// from REST's `core` window and shows in the X-RateLimit-* headers with
// X-RateLimit-Resource: graphql. An exhausted window answers 200 with a RATE_LIMITED error,
// as GitHub's GraphQL API does; the other faults (resets, 5xx, secondary limits, aimed rules on
// "POST /graphql", and aimed GET rules on the REST paths the query reads, graphql::RestReadsOf)
// apply as to any REST call. The aimed `graphql_timeout` rule (POST /graphql only) charges the
// query and answers 200 with an execution error and no data; like every aimed rule it comes
// before the window's limit. There are no ETags: every query is answered.
#include <boost/json.hpp>

#include "sim/graphql_document.h"
#include "sim/graphql_execute.h"
#include "sim/graphql_rest_reads.h"
#include "sim/graphql_schema.h"
#include "sim/rest.h"

namespace gatehouse::sim {
namespace json = boost::json;
namespace {

HttpResponse Errors(json::array errors) {
  return JsonValueResponse(200, json::object{{"errors", std::move(errors)}});
}

HttpResponse OneError(std::string message) {
  return Errors(json::array{json::object{{"message", std::move(message)}}});
}

}  // namespace

HttpResponse SimHandler::ServeGraphql(const HttpRequest& request, int64_t installation_id) {
  const std::string window = std::to_string(installation_id);
  auto answer = [&](HttpResponse response, bool costing) {
    requests_.Record(window, request.method, request.target, response.status, costing);
    return response;
  };
  json::object body;
  HttpResponse bad;
  if (!ParseObject(request.body, &body, &bad)) return answer(std::move(bad), false);
  const json::value* query = body.if_contains("query");
  if (query == nullptr || !query->is_string()) {
    return answer(OneError("A query attribute must be specified and must be a string."), false);
  }
  json::object variables;
  if (const json::value* v = body.if_contains("variables"); v != nullptr && !v->is_null()) {
    if (!v->is_object()) return answer(OneError("Variables are invalid JSON."), false);
    variables = v->as_object();
  }
  auto doc = graphql::ParseDocument(std::string_view(query->as_string()), variables);
  if (!doc.ok()) return answer(OneError(doc.status().message()), false);
  if (json::array errors = graphql::Validate(*doc); !errors.empty()) {
    return answer(Errors(std::move(errors)), false);
  }

  const int64_t cost = graphql::QueryCost(*doc);
  const std::vector<std::string> reads = graphql::RestReadsOf(*doc);
  HttpResponse refused;
  std::vector<std::pair<std::string, std::string>> headers;
  LostAnswer lost = LostAnswer::kNone;
  bool timed_out = false;
  const bool admitted =
      Admit(request, installation_id, &refused, &headers, &lost,
            Spend{.graphql = true, .points = cost, .reads = &reads, .timed_out = &timed_out});
  graphql::RateLimitView rate{.cost = cost, .limit = options_.rate_limit};
  for (const auto& [name, value] : headers) {
    if (name == "X-RateLimit-Remaining") rate.remaining = std::stoll(value);
    if (name == "X-RateLimit-Reset") rate.reset_epoch_s = std::stoll(value);
  }
  if (lost != LostAnswer::kNone) return answer(LoseAnswer(lost), true);  // an aimed rule's
  HttpResponse response;
  if (timed_out) {
    // GitHub's answer to a query whose execution failed (a timeout, an internal error): no
    // data, and an error with no type.
    response = JsonValueResponse(
        200,
        json::object{
            {"data", nullptr},
            {"errors", json::array{json::object{{"message",
                                                 "Something went wrong while executing your query. "
                                                 "This may be the result of a timeout, or it could "
                                                 "be a GitHub bug. Please include `0000:0000:0000` "
                                                 "when reporting this issue."}}}}});
  } else if (admitted) {
    response = JsonValueResponse(200, graphql::Execute(*doc, model_, installation_id, rate));
  } else if (refused.status == 403 &&
             refused.body.find("API rate limit exceeded") != std::string::npos) {
    response = Errors(json::array{json::object{
        {"type", "RATE_LIMITED"},
        {"message", "API rate limit already exceeded for installation ID " + window + "."}}});
  } else {
    response = std::move(refused);
  }
  for (auto& h : headers) response.headers.push_back(std::move(h));
  return answer(std::move(response), admitted);
}

}  // namespace gatehouse::sim
