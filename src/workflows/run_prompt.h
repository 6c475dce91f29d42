// The first message of a workflow's run: the workflow's prompt, then what
// started the run, and for a push or a merge the commits it brought and the
// files it changed. Pure: the engine reads the history (git::Mirror::Log and
// Diff) and hands it here.
//
// Everything from a repository (subjects, paths) is an author's text: each is
// made one well-formed line and cut, the lists are bounded, and the whole is
// cut to kMaxPromptChars (counted in bytes, so in characters too).
#pragma once

#include <string>
#include <vector>

#include "core/workflow.h"
#include "git/git.h"

namespace docwright::workflows {

inline constexpr size_t kMaxRunCommits = 50;           // commits listed, newest first
inline constexpr size_t kMaxRunCommitLineBytes = 200;  // each subject cut to this
inline constexpr size_t kMaxRunFiles = 200;            // files listed
inline constexpr size_t kMaxRunPathBytes = 500;        // each path cut to this

// What a push or merge brought, as read from the repository's mirror.
struct RunChanges {
  std::vector<git::CommitSummary> commits;  // newest first
  bool more_commits = false;                // the branch gained more than `commits`
  std::vector<git::DiffFile> files;         // between the heads before and after
  size_t file_count = 0;                    // how many files changed in all
  // Set when the changes could not be read (the prompt says so, and the run
  // goes on without them).
  std::string unavailable;
};

// The run's prompt. `changes` is read for a push or a merge (nullptr: none
// known). At most kMaxPromptChars bytes, well-formed UTF-8 if the workflow's
// prompt is.
std::string BuildRunPrompt(const Workflow& workflow, const RunTrigger& trigger,
                           const RunChanges* changes);

}  // namespace docwright::workflows
