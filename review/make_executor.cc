// MakeExecutor: the one place that turns a reviewers-file entry into its executor.
#include <cstdlib>

#include "review/command_executor.h"
#include "review/executor.h"
#include "review/http_executor.h"
#include "review/openai_executor.h"
#include "review/secrets_scanner.h"

namespace gatehouse::review {
namespace {

Result<ReviewExecutorPtr> MakeHttpExecutor(const decide::ExecutorSpec& spec) {
  HttpExecutorOptions options;
  options.url = spec.url;
  if (!spec.secret_env.empty()) {
    // Read once, when the reviewers file is loaded: getenv is not safe against a concurrent
    // setenv, and a secret that changes needs a reload anyway.
    const char* secret = std::getenv(spec.secret_env.c_str());
    if (secret == nullptr || *secret == '\0') {
      return InvalidArgument("http executor: secret_env " + spec.secret_env +
                             " is not set in the environment");
    }
    options.secret = secret;
  }
  return HttpExecutor::Create(std::move(options));
}

}  // namespace

Result<ReviewExecutorPtr> MakeExecutor(const decide::ExecutorSpec& spec) {
  switch (spec.type) {
    case decide::ExecutorType::kCommand: {
      CommandExecutorOptions options;
      options.argv = spec.argv;
      return CommandExecutor::Create(std::move(options));
    }
    case decide::ExecutorType::kHttp:
      return MakeHttpExecutor(spec);
    case decide::ExecutorType::kBuiltinSecrets:
      return ReviewExecutorPtr(new SecretsExecutor());
    case decide::ExecutorType::kOpenAi:
      return MakeOpenAiExecutor(spec);
  }
  return InvalidArgument("unknown executor type");
}

}  // namespace gatehouse::review
