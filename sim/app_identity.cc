#include "sim/app_identity.h"

namespace gatehouse::sim {
namespace {

std::string& AppSlugStorage() {
  static std::string slug = "gatehouse";
  return slug;
}

}  // namespace

void SetAppSlug(const std::string& slug) { AppSlugStorage() = slug; }
std::string AppSlug() { return AppSlugStorage(); }
std::string AppLogin() { return AppSlugStorage() + "[bot]"; }

std::string ShownLogin(const std::string& user) {
  return user.rfind("installation:", 0) == 0 ? AppLogin() : user;
}

std::string ShownAppSlug(const std::string& user) {
  return user.rfind("installation:", 0) == 0 ? AppSlug() : user;
}

}  // namespace gatehouse::sim
