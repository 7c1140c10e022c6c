#include "app/webhook_secrets.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace gatehouse::app {
Result<std::string> LoadSecretFile(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return InvalidArgument(what + ": cannot read " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string secret = ss.str();
  if (!secret.empty() && secret.back() == '\n') secret.pop_back();
  if (!secret.empty() && secret.back() == '\r') secret.pop_back();
  if (secret.empty()) return InvalidArgument(what + ": " + path + " is empty");
  return secret;
}

Result<std::string> LoadSecretVariable(const std::string& name) {
  const char* value = std::getenv(name.c_str());
  const std::string file_var = name + "_FILE";
  const char* file = std::getenv(file_var.c_str());
  if (value != nullptr && file != nullptr) {
    return InvalidArgument(name + " and " + file_var + " are both set; set one");
  }
  if (value != nullptr) return std::string(value);
  if (file == nullptr) return std::string();
  return LoadSecretFile(file, file_var);
}

Result<std::vector<std::string>> LoadWebhookSecrets() {
  std::vector<std::string> out;
  GH_ASSIGN_OR_RETURN(std::string current, LoadSecretVariable("GATEHOUSE_WEBHOOK_SECRET"));
  GH_ASSIGN_OR_RETURN(std::string previous,
                      LoadSecretVariable("GATEHOUSE_WEBHOOK_SECRET_PREVIOUS"));
  if (!current.empty()) out.push_back(std::move(current));
  if (!previous.empty()) out.push_back(std::move(previous));
  return out;
}

}  // namespace gatehouse::app
