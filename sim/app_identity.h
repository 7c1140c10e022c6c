// The App's identity as GitHub shows it. The App acts as "installation:<id>" in the model and
// the effect log; GitHub shows it to everyone else as "<slug>[bot]" (type Bot). The slug is
// process-wide (`gatehouse-sim --app-slug`, default "gatehouse"); set it before serving.
//
// Thread-safety: SetAppSlug before any other thread reads the slug; the readers are then safe
// from any thread.
#pragma once

#include <string>

namespace gatehouse::sim {

void SetAppSlug(const std::string& slug);
std::string AppSlug();
std::string AppLogin();  // "<slug>[bot]"
// The login GitHub shows for a model user: AppLogin() for "installation:*", else `user`.
std::string ShownLogin(const std::string& user);
// The `app.slug` GitHub shows on a check run or suite made by model user `user`: AppSlug() for
// "installation:*" (the App's own), else `user` (a CI bot's runs show as its app).
std::string ShownAppSlug(const std::string& user);

}  // namespace gatehouse::sim
