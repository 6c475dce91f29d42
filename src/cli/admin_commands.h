// `docwright org ...`, `docwright key ...`, `docwright backup` and
// `docwright secret-key ...`: organisations and their API keys, the copy of the
// database and the keys that seal its secrets, straight on the store. Internal
// to cli/.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace docwright {

struct Common;

// Adds the `org` and `key` command trees to `app`; the chosen command's work is
// stored in `action`, to run after parsing. `common` and `action` must outlive
// parsing and the action.
void AddAdminCommands(CLI::App& app, Common& common, std::function<int()>& action);

}  // namespace docwright
