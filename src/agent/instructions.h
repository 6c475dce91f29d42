// The repository's own instruction file: how its maintainers want the docs
// written (tone, terms, components), carried in the agent's system prompt.
// Text nobody vetted, like the rest of the repository: it informs the model, and
// widens nothing (the write policy still decides what may change).
#pragma once

#include <optional>
#include <string>

#include "git/git.h"

namespace docwright::agent {

// The files looked for, in this order; the first one present is used.
inline constexpr const char* kInstructionFiles[] = {"AGENTS.md", ".mintlify/AGENTS.md", "CLAUDE.md",
                                                    ".cursorrules"};
// What of it the prompt carries.
inline constexpr size_t kMaxInstructionBytes = 16 * 1024;

struct RepositoryInstructions {
  std::string path;  // one of kInstructionFiles
  std::string text;  // at most kMaxInstructionBytes, cut at a character
  bool cut = false;  // the file is longer
};

// The instruction file of the repository `files` holds, if any (binary or
// unreadable files are skipped). Thread-safe for distinct workspaces.
std::optional<RepositoryInstructions> ReadInstructions(const git::Workspace& files);

}  // namespace docwright::agent
