#include "agent/model_agent.h"
#include "agent/unconfigured_agent.h"
#include "cli/cli.h"
#include "core/text.h"

int main(int argc, char** argv) {
  return docwright::RunCli(argc, argv, [](const docwright::ModelConfig& config) {
    docwright::AgentChoice choice;
    if (!config.provider) {
      choice.agent = std::make_unique<docwright::agent::UnconfiguredAgent>();
      choice.description =
          "no language model is configured (DOCWRIGHT_LLM_PROVIDER is unset): jobs fail with a "
          "clear error until one is";
      return choice;
    }
    docwright::llm::ProviderConfig provider;
    provider.provider = *config.provider;
    provider.base_url = config.base_url.value_or("");  // the provider's own by default
    provider.api_key = config.api_key.value_or("");
    docwright::agent::AgentBudgets budgets;
    if (config.max_steps) budgets.max_steps = static_cast<int>(*config.max_steps);
    if (config.max_turn_seconds) budgets.max_wall = std::chrono::seconds(*config.max_turn_seconds);
    if (config.max_turn_tokens) budgets.max_tokens = *config.max_turn_tokens;
    choice.agent = std::make_unique<docwright::agent::ModelAgent>(provider, budgets);
    choice.description = "model provider " + provider.provider + " at " +
                         docwright::RedactCredentials(provider.base_url) +
                         (config.model ? ", default model " + *config.model : ", no default model");
    return choice;
  });
}
