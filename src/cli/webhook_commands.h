// `docwright project webhook ...`: a project's webhook endpoints (add, list,
// remove, enable, rotate-secret, test) and their delivery log, straight on the
// store. Secrets are printed once, when made, and never listed.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace docwright {

struct Common;

// Adds the `webhook` command tree under `project`; as AddProjectCommands.
void AddWebhookCommands(CLI::App* project, Common& common, std::function<int()>& action);

}  // namespace docwright
