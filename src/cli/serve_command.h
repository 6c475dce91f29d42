// `docwright serve` (the HTTP API and workers) and `docwright worker` (workers
// only, for scale-out). Internal to cli/.
#pragma once

#include <functional>

#include "cli/cli.h"

namespace CLI {
class App;
}

namespace docwright {

struct Common;

// Adds `serve` and `worker` to `app`; the chosen command's work is stored in
// `action`, to run after parsing. `common`, `action` and `make_agent` must
// outlive parsing and the action.
void AddServeCommands(CLI::App& app, Common& common, std::function<int()>& action,
                      const AgentFactory& make_agent);

}  // namespace docwright
