// gitignore-style patterns, as projects write them for paths and as docs sites
// write them for excluded pages (MkDocs' exclude_docs and not_in_nav).
#pragma once

#include <string_view>

namespace docwright {

// Whether `pattern` (with or without a leading "!", which is ignored here)
// matches the repository-relative `path`. A pattern without a slash matches a
// name at any depth; one with a slash is anchored at the root ("/" at its start
// only anchors); a trailing slash or a folder's name covers everything under it;
// "*" and "?" stay within a folder and "**" spans folders. Linear in the path for
// each character of the pattern: no pattern can make it run away. Thread-safe.
bool GitignoreMatches(std::string_view pattern, std::string_view path);

}  // namespace docwright
