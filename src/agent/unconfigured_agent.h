// The agent used when no model is configured: every turn fails with an error
// that tells the operator what to set. The service still starts and serves.
#pragma once

#include "agent/agent.h"

namespace docwright::agent {

class UnconfiguredAgent final : public Agent {
 public:
  AgentResult Run(const TurnInput& turn, git::Workspace& workspace, const TurnContext& context,
                  CancelToken& cancel) override;
};

}  // namespace docwright::agent
