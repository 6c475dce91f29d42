// Workflow files: workflows defined in the docs repository itself, one Markdown
// file each in .docwright/workflows/ or .mintlify/workflows/ (the reference's
// folder) on the base branch. A file is YAML front matter between two "---"
// lines (the trigger and settings) and the prompt after it:
//
//   ---
//   name: API changes              # the title shown (optional)
//   on:                            # one trigger; none: by hand only
//     cron: "0 9 * * 1"            #   a schedule, with `timezone` (or `timeZone`)
//     # push: {branch: main}       #   a push to the docs repository
//     # push: {repo: sdk}          #   a merge into a context repository; the
//     #                            #   reference's [{repo: org/name, branch: b}] too
//     # manual: true               #   by hand only
//   context: [sdk]                 # or [{repo: sdk}] or [{repo: org/name}]
//   automerge: false               # true: publish "automerge"
//   publish: pull_request          # wins over automerge
//   model: ...
//   runsPerDay: 20                 # or runs_per_day
//   enabled: true
//   ---
//   The prompt.
//
// Unknown keys are ignored. The name of a workflow is its file's stem.
//
// The files are written by whoever can push to the repository, a job's agent
// included (which the write policy forbids, agent/write_policy.h): parsing is
// bounded (kMaxWorkflowFileBytes, no anchors or aliases, yaml-cpp's nesting
// guard, only the known keys walked) and never throws. Every function here is
// a pure function of its arguments and safe to call from any thread.
#pragma once

#include <string_view>
#include <vector>

#include "core/status.h"
#include "core/workflow.h"
#include "git/git.h"

namespace docwright::workflows {

// The folders workflow files are read from, in order of precedence.
inline constexpr std::string_view kWorkflowFolders[] = {".docwright/workflows",
                                                        ".mintlify/workflows"};
// A larger file is reported with an error and not parsed.
inline constexpr size_t kMaxWorkflowFileBytes = 64 * 1024;

// Parses one file (`path` like ".docwright/workflows/api-changes.md",
// `content` its bytes) into a Workflow of source kFile with file_path set and
// name the file's stem. On any problem the Workflow has only its name (the
// stem, made printable, even when it is no valid name), file_path and `error`
// ("line N: ..." when a line is known, counted from the file's first line);
// it is listed, never run. Without a problem the result has passed
// CheckWorkflow (core/workflow.h), whose refusal becomes the error.
//
// A `repo` value (on.push.repo, context) names one of `context_repositories`
// by name, or as the reference writes it, "org/name": the one whose URL ends
// in "/org/name" or "/org/name.git" (":org/name" for scp-like SSH URLs),
// compared case-insensitively. When `docs_repository` (the project's
// repository URL; "" if not known) ends so, on.push.repo means a push to the
// docs repository, and a context entry naming it is dropped (the docs
// repository is always read). A plain name matching none is kept (the store
// checks it); an "org/name" matching none is an error.
Workflow ParseWorkflowFile(std::string_view path, std::string_view content,
                           const std::vector<ContextRepository>& context_repositories,
                           std::string_view docs_repository = {});

// Reads the workflow files of `snapshot` (a docs repository commit): the *.md
// files directly in each of kWorkflowFolders (not in subfolders; other files,
// and folders, ignored; a symbolic link reported with an error), at most
// kMaxWorkflowsPerProject in all, in folder then name order, each parsed by
// ParseWorkflowFile with file_commit set to the snapshot's commit. A stem in
// both folders: the .docwright file is the workflow, the other is reported
// with an error ("also defined in ...") under its path as its name, so names
// stay unique. A file whose stem is not a valid name, or that is over
// kMaxWorkflowFileBytes, is reported without being read.
//
// Reads are charged to the snapshot's budget (Snapshot::SetBudget); a spent
// budget or a failing read of the repository is the error returned, so that
// the caller keeps the workflows it had rather than losing them.
Result<std::vector<Workflow>> ReadWorkflowFiles(
    const git::Snapshot& snapshot, const std::vector<ContextRepository>& context_repositories,
    std::string_view docs_repository = {});

}  // namespace docwright::workflows
