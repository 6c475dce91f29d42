// A fake language model on loopback that speaks one provider's real wire format:
// OpenAI Chat Completions (POST /v1/chat/completions) or Anthropic Messages
// (POST /v1/messages), both with tool calling. Like the fake forges, it checks
// every request the way the provider documents it and records what does not
// conform as a violation; tests expect none. A non-conforming request is still
// answered when it can be, so a test sees every violation, not just the first.
//
// Stateless per conversation, so any number of conversations can run at once:
// the reply to a request is chosen by its position, the number of assistant
// messages already in the request's `messages`. Step k of the script answers
// position k; the last step answers every position past the end.
//
// Text and tool-call arguments may hold substitutions:
//   {{prompt_hash}}       12 hex digits of a hash (FNV-1a) of the first user
//                         message's text: different conversations write
//                         different files
//   {{last_tool_result}}  the content of the last tool result in the request,
//                         at most 4096 bytes
//
// Usage, a deterministic stand-in for tokens: input = ceil(bytes of the compact
// JSON of the tools, Anthropic's `system` and the messages / 4); output =
// ceil(bytes of the reply's text, tool names and argument JSON / 4). Each wire
// applies its provider's documented prompt caching (fakes/fake_prompt_cache.h)
// and reports it in the provider's own usage fields: OpenAI's
// prompt_tokens_details.cached_tokens, Anthropic's cache_read_input_tokens and
// cache_creation_input_tokens (its input_tokens then only the rest).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"

namespace docwright::testing {

struct FakeToolCall {
  std::string name;
  nlohmann::json arguments = nlohmann::json::object();
  // Sent instead of `arguments`, verbatim, for malformed model output. The
  // Anthropic wire carries arguments as JSON (`input`), so there a raw string
  // that parses is sent as that value, and one that does not as a JSON string.
  std::optional<std::string> raw_arguments;
};

struct FakeStep {
  std::string text;                      // none when empty
  std::vector<FakeToolCall> tool_calls;  // ids are made: call_<pos>_<i>, toolu_<pos>_<i>
  // The first `fail_times` requests at each position this step answers
  // (counted over the whole server, all conversations together) get
  // `fail_status` with `fail_headers` (Retry-After, say) and an error body in
  // the provider's format; later ones get the step's reply.
  int fail_status = 0;
  int fail_times = 0;
  std::map<std::string, std::string> fail_headers;
  // Replaces the reply: sent verbatim as a 200 application/json body.
  std::optional<std::string> raw_body;
  std::chrono::milliseconds delay{0};  // before answering, as a slow model would
};

class FakeModelServer {
 public:
  enum class Wire { kOpenAI, kAnthropic };

  // Requests must carry `api_key` as the provider expects it; any other key is
  // refused with the provider's 401. An empty script answers every position
  // with an empty end of turn.
  FakeModelServer(Wire wire, std::string api_key, std::vector<FakeStep> script);
  ~FakeModelServer();
  FakeModelServer(const FakeModelServer&) = delete;
  FakeModelServer& operator=(const FakeModelServer&) = delete;

  // What DOCWRIGHT_LLM_BASE_URL should be: http://127.0.0.1:P/v1 for OpenAI (the
  // SDKs' convention), http://127.0.0.1:P for Anthropic.
  std::string BaseUrl() const;
  uint16_t port() const;

  // The bodies received, in order (a body that is not JSON as a JSON string).
  // RecordRequests(false) stops keeping them, for long benchmarks where they
  // would only grow memory.
  std::vector<nlohmann::json> Requests() const;
  void RecordRequests(bool on);
  // Called on the serving thread as each request arrives, once it is read and
  // before it is parsed or answered (the moment a client's request reaches the
  // model): for the job-start benchmark. Set before the first request.
  void OnArrival(std::function<void()> callback);

  // OpenAI wire: refuse `max_tokens` as OpenAI does for its reasoning models
  // (400, naming the parameter, asking for `max_completion_tokens`).
  void RefuseMaxTokens(bool on);

  // Prompt caching as the provider does it (the default), or none at all: to
  // measure what caching saves.
  void SetPromptCaching(bool on);
  // Moves the prompt cache's clock forward (its entries live 5 minutes).
  void AdvanceCacheClock(std::chrono::seconds by);

  // At most 1000 are kept; past that, a last entry tells how many more there were.
  std::vector<std::string> Violations() const;

  // The script in its JSON form (see fake_model_main.cc); InvalidArgument with
  // the place of the first problem, unknown keys included.
  static Result<std::vector<FakeStep>> ParseScript(const std::string& json_text);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace docwright::testing
