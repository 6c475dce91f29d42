// The prompt caches of the two providers, as their documentation describes
// them, for the fake model (fakes/fake_model.h): a request's usage then says
// what the provider would have served from its cache, so that a measured share
// of cached tokens is docwright's doing and not the fake's.
//
// Tokens, one rule for both: a prompt is a sequence of pieces in the order the
// provider reads it, each the compact JSON of a part of the request, and the
// first k bytes of it are ceil(k / 4) tokens.
//
// Anthropic (docs.anthropic.com, "Prompt caching"): the pieces are the tools,
// the system blocks (a string system prompt is one text block) and the content
// blocks of the messages (a string content is one text block), each without
// its cache_control, so that moving a breakpoint keeps a prefix's identity.
// Only a block marked with cache_control {"type": "ephemeral"} (optional "ttl"
// "5m" or "1h") is a breakpoint; at most 4 in a request (more: a 400). For each
// breakpoint, the longest cached prefix ending at it or at one of the 20
// blocks before it is read; then every breakpoint whose prefix is at least the
// model's minimum (1024 tokens; 2048 for models named "haiku") is written (or
// its lifetime renewed). Usage: cache_read_input_tokens = the prefix read,
// cache_creation_input_tokens = from there to the last breakpoint written,
// input_tokens = the rest (only what follows). An entry lives 5 minutes (or an
// hour) from its last use.
//
// OpenAI (platform.openai.com, "Prompt caching"): automatic, no markers. The
// pieces are the tools then the messages. A prompt of at least 1024 tokens
// reuses the longest earlier prompt's exact byte prefix of 1024 tokens plus a
// multiple of 128; usage.prompt_tokens counts the whole prompt and
// prompt_tokens_details.cached_tokens the reused part (0 when none). An entry
// lives 5 minutes from its last use.
//
// Caches are per model. Thread-safe: one lock around each request's lookups.
#pragma once

#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

namespace docwright::testing {

// What a request's prompt cost, in the providers' terms.
struct PromptCacheUsage {
  int64_t prompt_tokens = 0;   // every prompt token
  int64_t cache_read = 0;      // of prompt_tokens: read from the cache
  int64_t cache_write = 0;     // of prompt_tokens: written to it (Anthropic only)
  int64_t cache_write_1h = 0;  // of cache_write: for an hour rather than 5 minutes
};

class FakePromptCache {
 public:
  using Clock = std::chrono::steady_clock;

  // The usage of an Anthropic Messages request `body`; what is wrong with its
  // breakpoints is added to `problems`. `refused` is set when Anthropic would
  // refuse the request (more than 4 breakpoints); nothing is cached then.
  PromptCacheUsage Anthropic(const nlohmann::json& body, std::vector<std::string>& problems,
                             bool& refused);
  // The usage of an OpenAI Chat Completions request `body`.
  PromptCacheUsage OpenAI(const nlohmann::json& body);

  // Off: nothing is cached or read (every usage has cache_read = cache_write = 0).
  void SetEnabled(bool on);
  // Moves the cache's clock forward, to let entries expire in a test.
  void Advance(std::chrono::seconds by);

  static constexpr int kMaxBreakpoints = 4;
  static constexpr int kLookbackBlocks = 20;
  static constexpr int64_t kOpenAiMinimum = 1024;
  static constexpr int64_t kOpenAiIncrement = 128;

 private:
  Clock::time_point Now() const { return Clock::now() + skew_; }
  // Keeps `key` until `until`; drops entries past their time when the map grows.
  void Keep(uint64_t key, Clock::time_point until);
  bool Has(uint64_t key, Clock::time_point now) const;

  std::mutex mu_;
  bool enabled_ = true;
  Clock::duration skew_{0};
  std::unordered_map<uint64_t, Clock::time_point> entries_;  // prefix hash -> expiry
};

}  // namespace docwright::testing
