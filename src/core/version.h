// Which docwright this is: the release version (CMake's project version) and
// the git commit it was built from ("unknown" outside a git checkout, with
// "-modified" when the tree had uncommitted changes). Shown by
// `docwright --version` and `/healthz`. Thread-safe constants.
#pragma once

#include <string_view>

namespace docwright {

std::string_view Version();
std::string_view Commit();

}  // namespace docwright
