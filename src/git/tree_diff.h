// Internal to git/: what one tree changes against another, as a unified diff,
// bounded and charged to a turn's budget. Mirror::Diff holds the mirror's lock
// around it. Not for use outside git/.
#pragma once

#include <git2.h>

#include "core/work_budget.h"
#include "git/git.h"

namespace docwright::git {

// The changes from `old_tree` (nullptr: nothing, every file is new) to
// `new_tree`, at most `max_bytes` of patch. Subtrees the two share (the same
// object) are passed over unread, so the cost is that of what differs, never
// the size of the trees: each entry compared costs an entry of `budget` (if
// given), each file compared its bytes. A file moved unchanged is a rename;
// a file over kMaxDiffFileBytes is named with its sizes; past kMaxDiffFiles
// changed files, none is listed. ResourceExhausted once the budget is spent.
Result<DiffText> DiffTrees(git_repository* repo, const git_tree* old_tree, const git_tree* new_tree,
                           size_t max_bytes, WorkBudget* budget);

}  // namespace docwright::git
