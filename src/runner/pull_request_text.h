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

// What a turn did, for its pull request's body. Any part may be empty.
struct PullRequestInputs {
  std::optional<std::string> summary;     // the agent's; cut to keep the body under GitHub's limit
  std::vector<std::string> files;         // paths changed in this turn
  std::vector<std::string> problems;      // what the checks still report
  std::vector<std::string> outside_site;  // paths changed outside the docs site
  std::vector<std::string> code;          // changed paths a build runs
  std::vector<std::string> notes;         // what the checks noted without asking for a fix
};

// The first non-blank line of `title` (the agent's), else of the prompt that
// opened the job, else a fixed title; cut at a word to 72 characters.
std::string PullRequestTitle(const TurnInput& input, const std::optional<std::string>& title);

// The summary, the turn's instruction quoted, the paths changed (those outside
// the site and those a build runs named apart, at most 50 to a list), the
// problems and notes of the checks, and the job's id.
std::string PullRequestBody(const TurnInput& input, const PullRequestInputs& text);

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
