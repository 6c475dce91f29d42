// Tests that need a tool `./dw test` installs (Prism from npm, dropbear): where
// the tool is missing they are skipped with the reason, so a plain `ctest` on a
// developer's machine passes; under `./dw test` (DOCWRIGHT_REQUIRE_TEST_TOOLS) or
// a CI run (CI) they fail instead, since the tool must be there.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>

namespace docwright::testing {

inline bool TestToolsRequired() {
  return std::getenv("CI") != nullptr || std::getenv("DOCWRIGHT_REQUIRE_TEST_TOOLS") != nullptr;
}

}  // namespace docwright::testing

// Ends the test unless `available`: skipped outside `./dw test` and CI, failed there.
#define DOCWRIGHT_REQUIRE_TOOL(available, why)                          \
  if (!(available)) {                                                   \
    if (::docwright::testing::TestToolsRequired()) FAIL() << (why);     \
    GTEST_SKIP() << (why) << " (skipped: run ./dw test to install it)"; \
  }
