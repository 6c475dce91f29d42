// `docwright workflow ...`: a project's workflows (create, list, get, update,
// enable, disable, delete, run), straight on the store, as the API defines
// and runs them; `--json` prints the API's shapes (api/workflow_views.h).
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace docwright {

struct Common;

// Adds the `workflow` command tree to `app`; as AddProjectCommands.
void AddWorkflowCommands(CLI::App& app, Common& common, std::function<int()>& action);

}  // namespace docwright
