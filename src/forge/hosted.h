// The hosted forges' implementations of Forge. Internal to forge/: use MakeForge.
#pragma once

#include <memory>

#include "forge/forge.h"

namespace docwright::forge {

// GitHub, GitLab or Gitea, as `project.forge` says.
Result<std::unique_ptr<Forge>> MakeHostedForge(const Project& project, const ForgeContext& context);

}  // namespace docwright::forge
