// The docwright binary with the scripted test agent in place of a model.
#include "cli/cli.h"
#include "fakes/scripted_agent.h"

int main(int argc, char** argv) {
  return docwright::RunCli(argc, argv, [](const docwright::ModelConfig&) {
    return docwright::AgentChoice{std::make_unique<docwright::testing::ScriptedAgent>(),
                                  "scripted test agent (no model)"};
  });
}
