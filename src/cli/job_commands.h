// `docwright job ...`: a client of a running docwright over its HTTP API.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace docwright {

// Adds the `job` command tree to `app`; the chosen command's work is stored in
// `action`, to run after parsing.
void AddJobCommands(CLI::App& app, std::function<int()>& action);

}  // namespace docwright
