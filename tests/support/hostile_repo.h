// Bare repositories of pathological shapes for the tests that attack the
// service: each is small on disk and costly for a reader that is not bounded
// (support/hostile_repo.sh makes them with git plumbing and says how).
#pragma once

#include <string>

#include "support/git_repo.h"

namespace docwright::testing {

// Makes the bare repository `bare` of `shape` and its options, as the script
// takes them ("tree-bomb --leaf link --fanout 1000 --depth 3", "one-blob
// --paths 20000", "big-file --size 41943040", "deep --depth 2000",
// "long-names", "many-refs --count 100000"); branch main. Returns main's head.
inline std::string MakeHostileRepo(const std::string& bare, const std::string& shape) {
  return Sh(std::string(DOCWRIGHT_HOSTILE_REPO_SCRIPT) + " '" + bare + "' " + shape);
}

}  // namespace docwright::testing
