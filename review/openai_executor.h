// The openai reviewer executor (review/executor.h; docs/REVIEWERS.md, "openai"): asks any
// OpenAI-compatible chat-completions endpoint (api.openai.com, a hosted or a local model
// server, gatehouse-sim's fake) to review one PR head and validates its answer.
//
// One Review is one POST {base_url}/chat/completions with the reviewer's model, temperature 0,
// response_format {"type": "json_object"}, a system message stating the result JSON schema
// and its rules (OpenAiSystemPrompt) and a user message carrying the review request JSON
// (review/review_json.h: title, body, files with their patches, prior findings; patches
// clipped to fit a model's context). The answer's choices[0].message.content (``` fences
// tolerated) must pass ParseReviewResult.
//
//   200 with a valid result       Ok
//   429                           RateLimited(Retry-After or retry-after-ms, default 10 s)
//   502, 503, 504                 Unavailable with the status and the endpoint's message
//   no response (refused, DNS)    Unavailable "openai: no response from BASE_URL: <reason>"
//   500, other 5xx, timeout       Transient ("no answer from BASE_URL within 30s", ...)
//   other non-2xx (400, 401, 403) Transient with the status and the endpoint's message
//   200 with a bad answer         Transient with the validation problem
//   cancelled() turned true       Cancelled: the call is abandoned (its thread finishes alone)
//
// The API key comes from the environment variable the spec names, read once by the factory;
// it is sent only as the Bearer token and scrubbed from every reason.
//
// Thread-safety: Review may be called concurrently; each call runs its HTTP exchange on its
// own helper thread and polls cancelled() every 100 ms at most.
#pragma once

#include <string>

#include "base/clock.h"
#include "base/status.h"
#include "decide/review_types.h"
#include "decide/reviewers_config.h"
#include "github/transport.h"
#include "review/executor.h"

namespace gatehouse::review {

// Builds the openai executor `spec` names. InvalidArgument when base_url is not an
// http(s):// URL, the model is empty, or the environment variable spec.api_key_env is unset or
// empty ("openai executor: environment variable OPENAI_API_KEY is not set").
Result<ReviewExecutorPtr> MakeOpenAiExecutor(const decide::ExecutorSpec& spec);

// ---- the pieces, for tests ----

// The system message: the exact result schema and the rules a model must follow.
const std::string& OpenAiSystemPrompt();

// The chat-completions request body for `request`.
std::string BuildChatRequest(const decide::ReviewRequest& request, const std::string& model);

// What one reply means (the table above). `secret` is scrubbed from reasons.
ExecOutcome InterpretChatReply(const HttpReply& reply, Duration default_retry_after,
                               const std::string& secret);

// The JSON inside a model's content: surrounding whitespace and a ``` / ```json fence removed.
std::string StripCodeFence(std::string_view content);

}  // namespace gatehouse::review
