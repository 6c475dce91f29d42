// Language models behind one interface: a conversation with tool calling, one
// request at a time. Providers: OpenAI-compatible Chat Completions (OpenAI, vLLM,
// llama.cpp server, Ollama, OpenRouter) and Anthropic Messages.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/job.h"
#include "core/status.h"

namespace docwright::http {
class ConnectionPool;
}

namespace docwright::llm {

// A tool the model may call. `parameters` is a JSON Schema object, as JSON text.
struct ToolSpec {
  std::string name;
  std::string description;
  std::string parameters;
};

struct ToolCall {
  std::string id;  // the provider's id, echoed back with the result
  std::string name;
  std::string arguments;  // JSON text as the model wrote it (it may be malformed)
};

// One message of the conversation.
struct ChatMessage {
  enum class Role { kUser, kAssistant, kTool };
  Role role = Role::kUser;
  std::string text;                  // user/assistant text; a tool result's content
  std::vector<ToolCall> tool_calls;  // assistant: the calls it made
  std::string tool_call_id;          // tool: the call this result answers
  bool is_error = false;             // tool: the call failed
};

struct ModelRequest {
  std::string model;
  std::string system;
  std::vector<ChatMessage> messages;
  std::vector<ToolSpec> tools;
  int max_output_tokens = 4096;
  // Called at most once, on the thread of Complete, once the request has been
  // sent whole to the provider (while its reply is awaited; http::Request's
  // on_sent), for work that need not hold the request up. May not be called
  // (a model that cannot tell, or a request never sent).
  std::function<void()> on_sent;
};

struct ModelReply {
  std::string text;  // may be empty when it only calls tools
  std::vector<ToolCall> tool_calls;
  TokenUsage usage;
  std::string stop_reason;  // as the provider said it
};

struct ProviderConfig {
  std::string provider;  // "openai" or "anthropic"
  std::string base_url;  // e.g. https://api.openai.com/v1, https://api.anthropic.com
  std::string api_key;   // secret: never logged, never in errors
  std::chrono::milliseconds timeout{120000};  // per request
  std::chrono::milliseconds connect_timeout{10000};
  // Anthropic: mark the stable prefix of each request with cache_control
  // breakpoints (OpenAI caches a byte-identical prefix without being asked).
  // Off only to measure what caching saves (bench/prompt-cache).
  bool prompt_cache = true;
  int max_attempts = 5;                        // on 429, 5xx and network errors
  std::chrono::milliseconds max_delay{30000};  // longest wait between attempts
  // Waits between attempts; returns false to stop (a cancelled turn). Tests
  // replace it; the default sleeps.
  std::function<bool(std::chrono::milliseconds)> sleep;
  // True once the turn is cancelled: a request under way is abandoned at once
  // (within about a second) rather than awaited.
  std::function<bool()> cancelled;
  // Connections to the provider kept between models (http/client.h): a turn's
  // first request goes out on a connection an earlier turn opened. Null: each
  // model opens its own.
  std::shared_ptr<http::ConnectionPool> connections;
};

class Model {
 public:
  virtual ~Model() = default;
  // One step of the conversation. `usage` follows core/job.h's TokenUsage
  // whatever the provider's own fields (Anthropic's input_tokens are only the
  // uncached ones; here input counts every prompt token). Each call is counted
  // by metrics::RecordModelRequest. Retries 429, 5xx and network errors with
  // backoff, honouring Retry-After; then Unavailable with what happened. Other
  // refusals (4xx) are InvalidArgument, a refused key Unauthenticated, a reply
  // that cannot be understood Unavailable. Messages never carry the key.
  virtual Result<ModelReply> Complete(const ModelRequest& request) = 0;
};

// The provider `config.provider` names; InvalidArgument for an unknown one.
// Thread-safe to create; each Model is used by one thread at a time.
Result<std::unique_ptr<Model>> MakeModel(const ProviderConfig& config);

}  // namespace docwright::llm
