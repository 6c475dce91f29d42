// `docwright project context ...`: a project's context repositories (add,
// list, remove), the code repositories its agent may read, straight on the
// store. `add` reaches the repository first, with the project's credentials.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace docwright {

struct Common;

// Adds the `context` command tree under `project`; as AddProjectCommands.
void AddContextCommands(CLI::App* project, Common& common, std::function<int()>& action);

}  // namespace docwright
