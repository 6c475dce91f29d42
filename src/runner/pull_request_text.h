// The words a turn leaves on the repository: its pull request's title and body,
// and its commit's message, whose trailer marks the commit as the turn's so that
// a re-run finds it on the branch instead of carrying out the instruction twice.
// Pure functions of their arguments: safe from any thread.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/turn.h"

namespace docwright {

// What the job's branch holds, for its pull request's body. Any part may be
// empty.
struct PullRequestInputs {
  std::optional<std::string>
      summary;  // the latest turn's; cut to keep the body under GitHub's limit
  // Every instruction of the job so far, in order (their seq and prompt are
  // used). Empty: the turn's own instruction only.
  std::vector<Message> instructions;
  std::vector<std::string> files;         // paths the branch changes against its base
  std::vector<std::string> problems;      // what the checks report on the branch as it stands
  std::vector<std::string> outside_site;  // paths changed outside the docs site
  std::vector<std::string> code;          // changed paths a build runs
  std::vector<std::string> notes;         // what the checks noted without asking for a fix
};

// The first non-blank line of `title` (the turn's, from the agent's finish),
// else of `earlier` (the title an earlier turn of the job left on the branch),
// else of the prompt that opened the job, else a fixed title; cut at a word to
// 72 characters.
std::string PullRequestTitle(const TurnInput& input, const std::optional<std::string>& title,
                             const std::optional<std::string>& earlier = std::nullopt);

// The summary, the instructions quoted in order, the paths changed (those
// outside the site and those a build runs named apart, at most 50 to a list),
// the problems and notes of the checks, and the job's id. Every part is bounded
// so that the whole stays under GitHub's limit of 65,536 characters, however
// many instructions, paths and problems there are; paths and the checks' words
// are escaped so that they show as written.
std::string PullRequestBody(const TurnInput& input, const PullRequestInputs& text);

// The start of every trailer of `job_id`'s commits ("Docwright-Job: <job
// id>\nDocwright-Message: "): a needle for the job's latest commit on a branch.
std::string JobTrailerPrefix(const std::string& job_id);

// The trailer that marks the commit of the turn `input`: "Docwright-Job: <job
// id>" and "Docwright-Message: <seq>", each on a line of its own.
std::string TurnTrailer(const TurnInput& input);

// `text` with every line that starts (after blanks, in any case) with
// "docwright-" indented by two spaces, so that only TurnTrailer starts a line so.
std::string WithoutTrailers(const std::string& text);

// `title`, the summary if it is not blank, and the turn's trailer; the title
// and summary pass through WithoutTrailers.
std::string CommitMessage(const std::string& title, const TurnInput& input,
                          const std::optional<std::string>& summary);

// The title and summary CommitMessage wrote into `message` for `input` (as
// WithoutTrailers left them); no summary if it wrote none.
std::pair<std::string, std::optional<std::string>> FromCommitMessage(const std::string& message,
                                                                     const TurnInput& input);

}  // namespace docwright
