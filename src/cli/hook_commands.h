// `docwright project hooks`: a project's webhooks in from its forge (docs/api.md,
// "Forge webhooks"): makes the hook secret the forge signs its deliveries with
// (when there is none, or on --rotate) and prints it once, with the URL to
// paste and what to select on the forge; sets the handle comments mention.
// Straight on the store, as the other `project` commands.
#pragma once

#include <functional>
#include <string_view>

#include "core/status.h"

namespace CLI {
class App;
}

namespace docwright {

struct Common;

// A mention handle: 1 to 39 of [A-Za-z0-9-_] (a forge login's characters, and
// its length on GitHub). InvalidArgument naming --mention-handle otherwise.
Status CheckMentionHandle(std::string_view handle);

// Adds `hooks` under `project`; as AddProjectCommands.
void AddHookCommands(CLI::App* project, Common& common, std::function<int()>& action);

}  // namespace docwright
