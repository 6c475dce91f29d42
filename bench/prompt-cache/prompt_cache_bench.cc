// Token use of one 10-step agent turn, for bench/prompt-cache/run.sh: the real
// ModelAgent over the fake model (tests/fakes), which applies each provider's
// documented prompt caching (fakes/fake_prompt_cache.h), on both wire formats,
// with caching on and off.
//
//   prompt_cache_bench MIRROR REMOTE BRANCH
//
// Steps 1-9 read a page each (docs/section-K/page-K.md, K = 0..8, as run.sh's
// site has them), step 10 calls finish. Prints one line per wire and setting:
// input tokens (all), cached, cache writes, output, the share of input served
// from the cache, and the billed-token equivalent: uncached input + 0.1 x cached
// + 1.25 x cache writes (Anthropic's 5-minute write price; OpenAI writes cost
// nothing extra) + output, output taken at the input price to stay comparable.
#include <cstdio>
#include <string>
#include <vector>

#include "agent/model_agent.h"
#include "fakes/fake_model.h"
#include "git/git.h"

using namespace docwright;
using testing::FakeModelServer;

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s MIRROR REMOTE BRANCH\n", argv[0]);
    return 2;
  }
  auto mirror = git::Mirror::Open(argv[1], argv[2], git::Credentials{});
  if (!mirror.ok()) {
    std::fprintf(stderr, "%s\n", mirror.status().message().c_str());
    return 1;
  }
  auto head = (*mirror)->FetchBranch(argv[3]);
  if (!head.ok()) {
    std::fprintf(stderr, "%s\n", head.status().message().c_str());
    return 1;
  }
  std::vector<testing::FakeStep> script(10);
  for (int k = 0; k < 9; ++k) {
    script[k].text = "Reading page " + std::to_string(k) + ".";
    script[k].tool_calls = {
        {"read_file",
         {{"path", "docs/section-" + std::to_string(k) + "/page-" + std::to_string(k) + ".md"}}}};
  }
  script[9].tool_calls = {{"finish", {{"summary", "Read the pages."}, {"title", "No change"}}}};

  std::printf("%-9s %-5s %8s %8s %8s %7s %7s %10s\n", "wire", "cache", "input", "cached", "written",
              "output", "share", "billed-eq");
  for (auto wire : {FakeModelServer::Wire::kOpenAI, FakeModelServer::Wire::kAnthropic}) {
    for (bool cache : {false, true}) {
      bool openai = wire == FakeModelServer::Wire::kOpenAI;
      FakeModelServer fake(wire, "bench-key", script);
      fake.RecordRequests(false);
      fake.SetPromptCaching(cache);
      llm::ProviderConfig config{.provider = openai ? "openai" : "anthropic",
                                 .base_url = fake.BaseUrl(),
                                 .api_key = "bench-key"};
      config.prompt_cache = cache;
      agent::ModelAgent agent(config);
      auto snapshot = (*mirror)->OpenSnapshot(*head);
      if (!snapshot.ok()) return 1;
      git::Workspace work(**snapshot);
      TurnInput turn;
      turn.job.model = openai ? "gpt-bench" : "claude-sonnet-bench";
      turn.message.prompt = "Read the first nine pages of the guide.";
      CancelToken cancel;
      agent::AgentResult result = agent.Run(turn, work, {}, cancel);
      if (!result.succeeded) {
        std::fprintf(stderr, "the turn failed: %s\n", result.error.value_or("").c_str());
        return 1;
      }
      const TokenUsage& u = result.usage;
      double share = u.input_tokens ? double(u.cached_input_tokens) / u.input_tokens : 0;
      double billed = double(u.input_tokens - u.cached_input_tokens - u.cache_write_tokens) +
                      0.1 * u.cached_input_tokens + 1.25 * u.cache_write_tokens +
                      double(u.output_tokens);
      std::printf("%-9s %-5s %8lld %8lld %8lld %7lld %6.1f%% %10.0f\n",
                  openai ? "openai" : "anthropic", cache ? "on" : "off",
                  static_cast<long long>(u.input_tokens),
                  static_cast<long long>(u.cached_input_tokens),
                  static_cast<long long>(u.cache_write_tokens),
                  static_cast<long long>(u.output_tokens), 100 * share, billed);
    }
  }
  return 0;
}
