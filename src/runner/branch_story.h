// The whole branch of a job, as its pull request and its review tell it after
// every turn that publishes: what the branch changes against its base (not only
// the latest turn's edits), the docs checks run again on the branch as it
// stands, and every instruction of the job. A problem a turn brought stays
// listed for as long as the branch holds it, whichever turn came after.
//
// Functions of their arguments and of the repository and store they read; safe
// from several threads, each with its own budget.
#pragma once

#include <string>
#include <vector>

#include "core/review.h"
#include "core/status.h"
#include "core/turn.h"
#include "core/work_budget.h"
#include "git/git.h"
#include "store/job_store.h"

namespace docwright::docs {
class CommitCache;
}  // namespace docwright::docs

namespace docwright {

struct BranchStory {
  std::string head_commit;
  git::DiffText diff;                 // against the merge base, cut at kMaxReviewDiffBytes
  std::vector<std::string> problems;  // what the branch brought and still holds
  std::vector<std::string> notes;     // the base's old problems, remarks, what was cut short
  std::vector<std::string>
      outside_site;               // changed paths outside the docs site (as the base has it)
  std::vector<std::string> code;  // changed paths a build runs
};

// Compares `head` with its merge base with `base_head` (both fetched into
// `repo`), and runs the docs checks on the branch's changes against that merge
// base, as if one turn had made them all. The site the paths are judged by is
// the base's. Charges `budget` (and stops with it); checks cut short by it say
// so in a note. Fails if the branch cannot be compared.
// With `cache` (the node's, may be null), the base's site map and the check
// come from it when kept there: the check under the agent's limits, so that
// the story of a branch one turn made from its base is the agent's last check.
Result<BranchStory> ReadBranchStory(git::Mirror& repo, const std::string& base_head,
                                    const std::string& head, const Project& project,
                                    WorkBudget& budget, const CancelToken& cancel,
                                    docs::CommitCache* cache = nullptr);

// Every instruction of the job up to the turn's own, in order: the turn's
// history and its own message when the history holds every earlier one (no
// store call), else read from the store (at most kMaxMessagesPerJob); the
// turn's history and its own message if the store cannot be read.
std::vector<Message> JobInstructions(JobStore& jobs, const TurnInput& input);

// What a reviewer reads about the branch: its files with their change and lines,
// its diff, the checks' problems and notes, the pull request's description
// `body` rendered, and each changed Markdown/MDX page rendered from the branch
// head (images of the branch inlined), all previews together within
// kMaxReviewPreviewBytes. Charges `budget`.
Result<Review> MakeReview(git::Mirror& repo, const TurnInput& input, const BranchStory& story,
                          const std::string& body, WorkBudget& budget);

}  // namespace docwright
