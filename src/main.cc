#include "agent/unconfigured_agent.h"
#include "cli/cli.h"

int main(int argc, char** argv) {
  return docwright::RunCli(argc, argv, [](const docwright::ModelConfig& config) {
    docwright::AgentChoice choice;
    choice.agent = std::make_unique<docwright::UnconfiguredAgent>();
    choice.description =
        config.provider
            ? "the model providers are not available in this build: jobs fail with a clear error"
            : "no language model is configured (DOCWRIGHT_LLM_PROVIDER is unset): jobs fail with "
              "a clear error until one is";
    return choice;
  });
}
