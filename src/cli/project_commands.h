// `docwright project ...`: create, update and list an organisation's projects,
// straight on the store.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace docwright {

struct Common;

// Adds the `project` command tree to `app`; the chosen command's work is stored
// in `action`, to run after parsing. `common` and `action` must outlive parsing
// and the action.
void AddProjectCommands(CLI::App& app, Common& common, std::function<int()>& action);

// Adds `quickstart`: an organisation, a key and a checked project in one step,
// for a first job.
void AddQuickstartCommand(CLI::App& app, Common& common, std::function<int()>& action);

}  // namespace docwright
