// The docwright command line: every command (serve, worker, the admin, workflow,
// usage and job commands), each wiring the rooms it needs; main.cc calls RunCli.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "agent/agent.h"

namespace docwright {

// The model settings (docs/architecture.md, "Model settings"), read from the environment.
struct ModelConfig {
  std::optional<std::string> provider;  // "openai" or "anthropic"
  std::optional<std::string> base_url;  // set, to the provider's own, when a provider is
  std::optional<std::string> api_key;   // secret: never logged
  std::optional<std::string> model;     // the server's default model
  // Per-turn budgets of the agent (DOCWRIGHT_MAX_STEPS, DOCWRIGHT_MAX_TURN_SECONDS,
  // DOCWRIGHT_MAX_TURN_TOKENS); unset: the agent's defaults.
  std::optional<int64_t> max_steps;
  std::optional<int64_t> max_turn_seconds;
  std::optional<int64_t> max_turn_tokens;
};

// Builds the agent that `serve` and `worker` run turns with. Returns the agent
// and a one-line description of it for the start-up log.
struct AgentChoice {
  std::unique_ptr<agent::Agent> agent;
  std::string description;
};
using AgentFactory = std::function<AgentChoice(const ModelConfig&)>;

// Runs the command line; returns the process exit code.
int RunCli(int argc, char** argv, const AgentFactory& make_agent);

}  // namespace docwright
