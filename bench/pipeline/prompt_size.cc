// What the system prompt and its site map cost for a repository: fetches BRANCH of
// REMOTE into a mirror at MIRROR and prints the prompt's size, in bytes and in
// tokens at about 4 bytes a token, and how long building it took.
#include <chrono>
#include <cstdio>

#include "agent/model_agent.h"
#include "docs/docs.h"
#include "git/git.h"

int main(int argc, char** argv) {
  using namespace docwright;
  if (argc != 4) {
    std::fprintf(stderr, "usage: pipeline_prompt MIRROR REMOTE BRANCH\n");
    return 2;
  }
  auto mirror = git::Mirror::Open(argv[1], argv[2], git::Credentials{});
  if (!mirror.ok()) return std::fprintf(stderr, "%s\n", mirror.status().message().c_str()), 1;
  auto head = (*mirror)->FetchBranch(argv[3]);
  if (!head.ok()) return std::fprintf(stderr, "%s\n", head.status().message().c_str()), 1;
  auto snapshot = (*mirror)->OpenSnapshot(*head);
  if (!snapshot.ok()) return 1;
  git::Workspace workspace(**snapshot);
  auto t0 = std::chrono::steady_clock::now();
  std::string prompt =
      agent::ModelAgent::SystemPrompt(workspace, agent::AgentBudgets{}.max_site_map_bytes);
  auto t1 = std::chrono::steady_clock::now();
  // Under the limits the agent's map is built with (docs::Limits' defaults).
  std::string map = docs::BuildSiteMap(workspace).Render(agent::AgentBudgets{}.max_site_map_bytes);
  std::printf(
      "system prompt: %zu bytes (~%zu tokens), of which the site map %zu bytes (~%zu tokens); "
      "built in %.1f ms\n",
      prompt.size(), prompt.size() / 4, map.size(), map.size() / 4,
      std::chrono::duration<double, std::milli>(t1 - t0).count());
  return 0;
}
