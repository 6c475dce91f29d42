// The contract between the runner and what carries out a turn: the runner claims
// turns and records their outcome; a TurnHandler does the work in between.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/turn.h"

namespace docwright {

struct TurnResult {
  bool succeeded = false;
  std::optional<std::string> pr_link;
  std::optional<std::string> summary;
  std::optional<std::string> error;  // for the job record: clear, and free of secrets
  std::vector<TranscriptStep> steps;  // recorded with the outcome, for the transcript
  TokenUsage usage;
  // The agent stopped early because `cancel` was set; the rest is meaningless.
  // A turn that ran to its end is recorded even if `cancel` was set meanwhile.
  bool interrupted = false;
};

class TurnHandler {
 public:
  virtual ~TurnHandler() = default;
  // Carries out one turn. Runs on a worker thread; may be called concurrently for
  // different jobs. Must return soon after `cancel` is set, with `interrupted`
  // set if it stopped short. Must not throw; the runner treats an exception as a
  // failed turn.
  virtual TurnResult RunTurn(const TurnInput& input, CancelToken& cancel) = 0;
};

}  // namespace docwright
