// MakeForge (forge/forge.h): each forge's factory, by the project's kind.
#include "forge/forge.h"
#include "forge/hosted.h"
#include "forge/local.h"

namespace docwright::forge {

Result<std::unique_ptr<Forge>> MakeForge(const Project& project, const ForgeContext& context) {
  if (project.forge == docwright::ForgeKind::kLocal) return MakeLocalForge(project, context);
  return MakeHostedForge(project, context);
}

}  // namespace docwright::forge
