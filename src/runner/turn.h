// The contract between the runner and what carries out a turn: the runner claims
// turns and records their outcome; a TurnHandler does the work in between.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/turn.h"

namespace docwright {

class TurnHandler {
 public:
  virtual ~TurnHandler() = default;
  // Carries out one turn. Runs on a worker thread; may be called concurrently for
  // different jobs. Must return soon after `cancel` is set, with `interrupted`
  // set if it stopped short (a turn that ran to its end is recorded even if
  // `cancel` was set meanwhile). Must not throw; the runner treats an exception as a
  // failed turn.
  virtual TurnOutcome RunTurn(const TurnInput& input, CancelToken& cancel) = 0;
};

}  // namespace docwright
