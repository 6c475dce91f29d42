// `docwright usage (--org ORG_ID | --project PROJECT_ID) [--since YYYY-MM-DD]
// [--until YYYY-MM-DD] [--prices FILE] [--json]`: what the turns of an
// organisation or of one project used and cost, totalled by model, by day and
// by project, read straight from the store (Store::ListUsage). Costs are those
// recorded when each turn ended; --prices only names their currency. Internal
// to cli/.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace docwright {

struct Common;

// Adds the `usage` command to `app`; as AddAdminCommands.
void AddUsageCommand(CLI::App& app, Common& common, std::function<int()>& action);

}  // namespace docwright
