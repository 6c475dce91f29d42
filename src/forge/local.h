// The local forge's implementation of Forge: pull requests stored by docwright
// (through ForgeContext::pull_requests) and shown on its own pages, with the diff
// taken from the project's mirror. Internal to forge/: use MakeForge.
#pragma once

#include <memory>

#include "forge/forge.h"

namespace docwright::forge {

// Internal if the context lacks the records or the mirror.
Result<std::unique_ptr<Forge>> MakeLocalForge(const Project& project, const ForgeContext& context);

}  // namespace docwright::forge
