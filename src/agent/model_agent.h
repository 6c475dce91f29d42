// The documentation agent: a language model with the tools of tools.h in a loop,
// told what the site looks like, checked before its edits are committed.
#pragma once

#include <chrono>
#include <string>

#include "agent/agent.h"
#include "llm/llm.h"

namespace docwright::agent {

struct AgentBudgets {
  int max_steps = 40;                      // model requests per turn
  std::chrono::seconds max_wall{15 * 60};  // per turn
  int64_t max_tokens = 2'000'000;          // input + output, per turn
  int repair_rounds = 2;                   // check problems sent back to the model
  int max_output_tokens = 8192;            // per model reply
  size_t max_site_map_bytes = 12 * 1024;   // the site map in the system prompt
};

class ModelAgent final : public Agent {
 public:
  // `provider` says how to reach the model; the job's `model` says which one.
  ModelAgent(llm::ProviderConfig provider, AgentBudgets budgets = {});

  // Runs the tool loop until the model calls `finish` (and the checks pass, or
  // the repair rounds are spent), a budget runs out (failed: nothing is pushed),
  // the model provider fails for good (failed, with its error), or `cancel` is set.
  AgentResult Run(const TurnInput& turn, git::Workspace& workspace, const TurnContext& context,
                  CancelToken& cancel) override;

  // The system prompt for a turn on `workspace` that may read `context`, over
  // the site in `site_root` ("": found; Project::site_root); exposed for tests
  // and for measuring what it costs. The site map is context.site_map when
  // set, else the one `cache` (may be null) holds for the workspace's commit,
  // else built as Run builds it.
  static std::string SystemPrompt(const git::Workspace& workspace, size_t max_site_map_bytes,
                                  const TurnContext& context = {},
                                  const std::string& site_root = "",
                                  docs::CommitCache* cache = nullptr);

 private:
  llm::ProviderConfig provider_;
  AgentBudgets budgets_;
};

}  // namespace docwright::agent
