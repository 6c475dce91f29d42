// The agent used when no model is configured: every turn fails with an error
// that tells the operator what to set. The service still starts and serves.
#pragma once

#include "runner/agent.h"

namespace docwright {

class UnconfiguredAgent final : public Agent {
 public:
  TurnResult RunTurn(const TurnInput& input, CancelToken& cancel) override;
};

}  // namespace docwright
