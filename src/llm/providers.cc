// The two wire formats: OpenAI-compatible Chat Completions and Anthropic
// Messages, both with tool calling, over the retrying HTTP client.
#include <algorithm>
#include <cctype>
#include <unordered_map>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/json_fields.h"
#include "core/metrics.h"
#include "core/mutex.h"
#include "core/text.h"
#include "http/client.h"
#include "llm/json_body.h"
#include "llm/llm.h"

namespace docwright::llm {
namespace {

using nlohmann::json;

std::string Trimmed(std::string url) {
  while (!url.empty() && url.back() == '/') url.pop_back();
  return url;
}

// The most tokens one reply is believed to count of a kind: far above any
// model's context, and low enough that no sum of them overflows (a hostile
// or broken endpoint may send anything).
constexpr int64_t kMaxReplyTokens = 1000000000;

// A count the provider reported, within [0, kMaxReplyTokens]: a negative one
// (which no provider sends) as 0, so that sums never go down.
int64_t Count(const json& object, const char* key) {
  return std::clamp<int64_t>(IntField(object, key), 0, kMaxReplyTokens);
}

// Chat Completions' "usage": `prompt_tokens` counts every prompt token, of
// which `prompt_tokens_details.cached_tokens` were read from the cache (OpenAI
// caches without being asked, and bills no writes).
TokenUsage OpenAiUsage(const json& reply) {
  auto usage = reply.find("usage");
  if (usage == reply.end() || !usage->is_object()) return {};
  TokenUsage out{.input_tokens = Count(*usage, "prompt_tokens"),
                 .output_tokens = Count(*usage, "completion_tokens")};
  auto details = usage->find("prompt_tokens_details");
  if (details != usage->end() && details->is_object()) {
    // Never more than the prompt, whatever a server says.
    out.cached_input_tokens = std::min(Count(*details, "cached_tokens"), out.input_tokens);
  }
  return out;
}

// Messages' "usage": `input_tokens` counts only the prompt tokens after the
// last cache breakpoint; those read from and written to the cache come apart.
// docwright's input is all three.
TokenUsage AnthropicUsage(const json& reply) {
  auto usage = reply.find("usage");
  if (usage == reply.end() || !usage->is_object()) return {};
  TokenUsage out{.output_tokens = Count(*usage, "output_tokens"),
                 .cached_input_tokens = Count(*usage, "cache_read_input_tokens"),
                 .cache_write_tokens = Count(*usage, "cache_creation_input_tokens")};
  out.input_tokens =
      Count(*usage, "input_tokens") + out.cached_input_tokens + out.cache_write_tokens;
  return out;
}

// How a wire format lists the tools.
enum class ToolsShape { kOpenAi, kAnthropic };

// The body's "tools": the tools as `shape` lists them (with Anthropic's cache
// breakpoint on the last one if `mark_last`), serialized. The same for every
// request of a process (the product's own tools), so made once and kept (at
// most 16 lists). The schemas are the tools' own, so a parse failure is a bug.
Result<std::shared_ptr<const std::string>> ToolsJson(const std::vector<ToolSpec>& tools,
                                                     ToolsShape shape, bool mark_last) {
  constexpr size_t kMaxLists = 16;
  static Mutex mu;
  static auto* made PT_GUARDED_BY(mu) =
      new std::unordered_map<std::string, std::shared_ptr<const std::string>>();
  std::string key{static_cast<char>('0' + static_cast<int>(shape)), mark_last ? '1' : '0'};
  for (const ToolSpec& t : tools) {
    for (const std::string* part : {&t.name, &t.description, &t.parameters}) {
      key += std::to_string(part->size());
      key += ':';
      key += *part;
    }
  }
  {
    MutexLock lock(mu);
    if (auto it = made->find(key); it != made->end()) return it->second;
  }
  json list = json::array();
  for (const ToolSpec& t : tools) {
    json schema = json::parse(t.parameters, nullptr, false);
    if (schema.is_discarded())
      return Status::Internal("the schema of tool " + t.name + " is not JSON");
    if (shape == ToolsShape::kOpenAi) {
      list.push_back(
          {{"type", "function"},
           {"function",
            {{"name", t.name}, {"description", t.description}, {"parameters", schema}}}});
    } else {
      list.push_back({{"name", t.name}, {"description", t.description}, {"input_schema", schema}});
    }
  }
  if (mark_last && !list.empty()) list.back()["cache_control"] = json{{"type", "ephemeral"}};
  auto dumped = std::make_shared<const std::string>(
      list.dump(-1, ' ', false, json::error_handler_t::replace));
  MutexLock lock(mu);
  if (made->size() < kMaxLists) made->emplace(std::move(key), dumped);
  return dumped;
}

// `body` (an object) serialized with "tools": `tools` (a serialized array)
// among its members, as the serializer, which orders them by name, would put it.
std::string WithTools(const json& body, const std::string& tools) {
  if (!body.empty() && (--body.end()).key() > "tools") {  // not the last: no splice
    json whole = body;
    whole["tools"] = json::parse(tools);
    return DumpJson(whole);
  }
  std::string out = DumpJson(body);
  out.pop_back();  // the closing brace
  if (out.size() > 1) out += ',';
  out += "\"tools\":";
  out += tools;
  out += '}';
  return out;
}

// The request field a 400 reply refuses as unknown or unsupported (OpenAI's
// `error.param` with code "unsupported_parameter", or words to that effect), or
// "". A refusal of the field's value ("max_tokens is too large") is not one.
std::string UnsupportedParam(const std::string& body) {
  json reply = json::parse(body, nullptr, false);
  if (!reply.is_object() || !reply.contains("error") || !reply["error"].is_object()) return "";
  const json& error = reply["error"];
  auto text = [&](const char* key) {
    return error.contains(key) && error[key].is_string() ? error[key].get<std::string>() : "";
  };
  std::string message;
  for (char c : text("message"))
    message += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  bool unsupported = text("code") == "unsupported_parameter";
  for (const char* words : {"unsupported", "not supported", "unrecognized", "unknown"}) {
    unsupported = unsupported || message.find(words) != std::string::npos;
  }
  return unsupported ? text("param") : "";
}

// The provider's own explanation in an error reply, bounded.
std::string ErrorText(const std::string& body) {
  json reply = json::parse(body, nullptr, false);
  std::string text;
  if (reply.is_object()) {
    auto error = reply.find("error");
    if (error != reply.end() && error->is_object() && error->contains("message") &&
        (*error)["message"].is_string()) {
      text = (*error)["message"].get<std::string>();
    } else if (error != reply.end() && error->is_string()) {
      text = error->get<std::string>();
    } else if (reply.contains("message") && reply["message"].is_string()) {
      text = reply["message"].get<std::string>();
    }
  }
  if (text.empty()) text = std::string(CutUtf8(body, 300));
  return std::string(CutUtf8(text, 500));
}

// Base of both providers: one HTTP exchange with retries, and errors mapped to
// the contract of Model::Complete.
class HttpModel : public Model {
 public:
  HttpModel(std::string name, ProviderConfig config)
      : name_(std::move(name)),
        config_(std::move(config)),
        client_(http::ClientOptions{.pool = config_.connections}) {
    policy_.max_attempts = config_.max_attempts;
    policy_.max_delay = config_.max_delay;
    policy_.base_delay = std::chrono::milliseconds(1000);
    policy_.sleep = config_.sleep;
  }

  // Exchange, counted in the model metrics whatever its outcome: the attempts
  // of every Post it made, its whole duration and the tokens of its reply.
  Result<ModelReply> Complete(const ModelRequest& request) final {
    auto start = std::chrono::steady_clock::now();
    attempts_ = 0;
    on_sent_ = request.on_sent ? &request.on_sent : nullptr;
    struct Forget {
      const std::function<void()>*& on_sent;
      ~Forget() { on_sent = nullptr; }
    } forget{on_sent_};
    Result<ModelReply> reply = Exchange(request);
    metrics::RecordModelRequest(name_, request.model, reply.ok(), std::max(attempts_, 1),
                                metrics::SecondsSince(start),
                                reply.ok() ? reply->usage : TokenUsage{});
    return reply;
  }

 protected:
  // One step of the conversation: Model::Complete's contract.
  virtual Result<ModelReply> Exchange(const ModelRequest& request) = 0;

  // `refused_param`, if given, is set to the field a 400 reply refuses as
  // unsupported (see UnsupportedParam).
  // `body`: the request's JSON, serialized.
  Result<json> Post(const std::string& url,
                    std::vector<std::pair<std::string, std::string>> headers, std::string body,
                    std::string* refused_param = nullptr) {
    http::Request request;
    request.method = "POST";
    request.url = url;
    request.headers = std::move(headers);
    request.headers.emplace_back("Content-Type", "application/json");
    request.body = std::move(body);
    request.timeout = config_.timeout;
    request.connect_timeout = config_.connect_timeout;
    request.max_response_bytes = 16u << 20;
    request.cancelled = config_.cancelled;
    if (on_sent_) {
      request.on_sent = [this] {  // once a Complete, whichever Post sends whole
        if (const std::function<void()>* f = std::exchange(on_sent_, nullptr)) (*f)();
      };
    }
    int attempts = 0;
    auto reply = client_.SendWithRetries(request, policy_, &attempts);
    attempts_ += attempts;
    if (!reply.ok()) {
      return Status::Unavailable("the model provider (" + name_ +
                                 ") could not be reached: " + reply.status().message());
    }
    if (reply->status / 100 != 2) {
      if (refused_param && reply->status == 400) *refused_param = UnsupportedParam(reply->body);
      std::string detail = ErrorText(reply->body);
      // Some proxies echo request headers in errors: never pass the key on.
      for (size_t at;
           !config_.api_key.empty() && (at = detail.find(config_.api_key)) != std::string::npos;) {
        detail.replace(at, config_.api_key.size(), "***");
      }
      std::string message = "the model provider (" + name_ + ") answered " +
                            std::to_string(reply->status) + ": " + detail;
      if (reply->status == 401 || reply->status == 403) {
        return Status::Unauthenticated(message + " (check DOCWRIGHT_LLM_API_KEY)");
      }
      if (http::IsRetryable(reply->status)) {
        return Status::Unavailable(message + " (after " + std::to_string(policy_.max_attempts) +
                                   " attempts)");
      }
      return Status::InvalidArgument(message);
    }
    json parsed = json::parse(reply->body, nullptr, false);
    if (!parsed.is_object()) {
      return Status::Unavailable("the model provider (" + name_ +
                                 ") sent a reply that is not JSON");
    }
    return parsed;
  }

  Status Malformed(const std::string& what) const {
    return Status::Unavailable("the model provider (" + name_ +
                               ") sent a malformed reply: " + what);
  }

  std::string name_;
  ProviderConfig config_;
  http::RetryPolicy policy_;
  http::Client client_;
  int attempts_ = 0;  // of the request under way, over all its Posts
  // The request under way's, until a Post has been sent whole.
  const std::function<void()>* on_sent_ = nullptr;
};

// --- OpenAI-compatible Chat Completions -------------------------------------------

// The conversation of `request` as Chat Completions messages, the system prompt
// first.
json OpenAiMessages(const ModelRequest& request) {
  json messages = json::array();
  if (!request.system.empty())
    messages.push_back({{"role", "system"}, {"content", request.system}});
  for (const ChatMessage& m : request.messages) {
    switch (m.role) {
      case ChatMessage::Role::kUser:
        messages.push_back({{"role", "user"}, {"content", m.text}});
        break;
      case ChatMessage::Role::kAssistant: {
        // null content is only allowed beside tool calls.
        json message{
            {"role", "assistant"},
            {"content", m.text.empty() && !m.tool_calls.empty() ? json(nullptr) : json(m.text)}};
        if (!m.tool_calls.empty()) {
          json calls = json::array();
          for (const ToolCall& c : m.tool_calls) {
            calls.push_back({{"id", c.id},
                             {"type", "function"},
                             {"function", {{"name", c.name}, {"arguments", c.arguments}}}});
          }
          message["tool_calls"] = std::move(calls);
        }
        messages.push_back(std::move(message));
        break;
      }
      case ChatMessage::Role::kTool:
        messages.push_back(
            {{"role", "tool"}, {"tool_call_id", m.tool_call_id}, {"content", m.text}});
        break;
    }
  }
  return messages;
}

class OpenAiModel final : public HttpModel {
 public:
  explicit OpenAiModel(ProviderConfig config) : HttpModel("openai", std::move(config)) {}

  Result<ModelReply> Exchange(const ModelRequest& request) override {
    // Nothing here may vary from step to step but what the turn added at the
    // end: OpenAI reuses a prefix only when it is byte-identical.
    json messages = OpenAiMessages(request);
    json body{{"model", request.model}, {"messages", std::move(messages)}};
    body[limit_field_] = request.max_output_tokens;
    std::shared_ptr<const std::string> tools;
    if (!request.tools.empty()) {
      auto listed = ToolsJson(request.tools, ToolsShape::kOpenAi, /*mark_last=*/false);
      if (!listed.ok()) return listed.status();
      tools = std::move(*listed);
      body["tool_choice"] = "auto";
    }
    auto dumped = [&] { return tools ? WithTools(body, *tools) : DumpJson(body); };
    std::vector<std::pair<std::string, std::string>> headers;
    if (!config_.api_key.empty())
      headers.emplace_back("Authorization", "Bearer " + config_.api_key);
    std::string url = Trimmed(config_.base_url) + "/chat/completions";
    std::string refused;
    auto reply = Post(url, headers, dumped(), &refused);
    if (!reply.ok() && !refused.empty() && refused == limit_field_) {
      // Servers disagree on the name of the output limit: OpenAI's reasoning
      // models refuse `max_tokens` and ask for `max_completion_tokens`, which
      // some OpenAI-compatible servers do not know. Use the other name from now on.
      std::string first = limit_field_;
      std::string other = first == kMaxTokens ? kMaxCompletionTokens : kMaxTokens;
      body.erase(first);
      body[other] = request.max_output_tokens;
      std::string refused_again;
      reply = Post(url, std::move(headers), dumped(), &refused_again);
      if (!reply.ok() && refused_again == other) {
        return Status::InvalidArgument("the model provider (" + name_ + ") refuses both " + first +
                                       " and " + other + ": " + reply.status().message());
      }
      limit_field_ = other;
    }
    if (!reply.ok()) return reply.status();

    return ReadReply(*reply);
  }

 private:
  // The reply of Complete, from the provider's JSON reply `r`.
  Result<ModelReply> ReadReply(const json& r) const {
    if (!r.contains("choices") || !r["choices"].is_array() || r["choices"].empty() ||
        !r["choices"][0].is_object() || !r["choices"][0].contains("message") ||
        !r["choices"][0]["message"].is_object()) {
      return Malformed("no choices[0].message");
    }
    const json& choice = r["choices"][0];
    const json& message = choice["message"];
    ModelReply out;
    if (message.contains("content") && message["content"].is_string()) {
      out.text = message["content"].get<std::string>();
    }
    if (message.contains("tool_calls") && message["tool_calls"].is_array()) {
      for (const json& call : message["tool_calls"]) {
        if (!call.is_object() || !call.contains("function") || !call["function"].is_object()) {
          return Malformed("a tool call without a function");
        }
        const json& fn = call["function"];
        ToolCall c;
        c.id = StringField(call, "id");
        c.name = StringField(fn, "name");
        if (fn.contains("arguments")) {
          c.arguments = fn["arguments"].is_string() ? fn["arguments"].get<std::string>()
                                                    : fn["arguments"].dump();
        }
        if (c.id.empty()) c.id = "call_" + std::to_string(out.tool_calls.size());
        out.tool_calls.push_back(std::move(c));
      }
    }
    out.stop_reason = StringField(choice, "finish_reason");
    out.usage = OpenAiUsage(r);
    return out;
  }

  static constexpr const char* kMaxTokens = "max_tokens";
  static constexpr const char* kMaxCompletionTokens = "max_completion_tokens";
  // The name this server takes for the output limit, learnt from a refusal:
  // every server that speaks the API knows `max_tokens`, except OpenAI's
  // reasoning models.
  std::string limit_field_ = kMaxTokens;
};

// --- Anthropic Messages -----------------------------------------------------------

// Anthropic caches a prompt's prefix only where the request marks it: a
// breakpoint caches everything up to and including its block, in the order
// tools, system, messages. At most 4 per request; a prefix under the model's
// minimum (1024 tokens, 2048 for Haiku) is not cached, silently.
constexpr size_t kMaxCacheBreakpoints = 4;

json Ephemeral() { return json{{"type", "ephemeral"}}; }

// Marks the stable prefix of `body` (built from a request): the last tool (the
// tools alone, the same for every turn; marked as the list is made, ToolsJson,
// and counted if `tools_marked`), the system prompt (tools and system:
// the same for every step of a turn), the last block of the last message (the
// whole conversation, read back by the next step), and the last block of the
// message the previous step ended with. Anthropic looks for an earlier entry at
// most 20 blocks before a breakpoint; a reply of many tool calls adds more
// blocks than that, and this fourth breakpoint still finds the previous step's.
void MarkCacheBreakpoints(json& body, bool tools_marked) {
  size_t marked = tools_marked ? 1 : 0;
  auto mark = [&marked](json& block) {
    if (marked >= kMaxCacheBreakpoints || !block.is_object() || block.contains("cache_control"))
      return;
    block["cache_control"] = Ephemeral();
    ++marked;
  };
  if (body.contains("system")) {
    body["system"] = json::array({{{"type", "text"}, {"text", body["system"]}}});
    mark(body["system"].back());
  }
  json& messages = body["messages"];
  auto mark_last_block = [&](size_t index) {
    json& content = messages[index]["content"];
    if (content.is_array() && !content.empty()) mark(content.back());
  };
  if (!messages.empty()) mark_last_block(messages.size() - 1);
  // The message before the last assistant reply: where the previous step ended.
  if (messages.size() >= 3 && messages[messages.size() - 2]["role"] == "assistant") {
    mark_last_block(messages.size() - 3);
  }
}

class AnthropicModel final : public HttpModel {
 public:
  explicit AnthropicModel(ProviderConfig config) : HttpModel("anthropic", std::move(config)) {}

  Result<ModelReply> Exchange(const ModelRequest& request) override {
    // Roles alternate, starting with the user; tool results are user content.
    json messages = json::array();
    auto append = [&](const std::string& role, json block) {
      if (!messages.empty() && messages.back()["role"] == role) {
        messages.back()["content"].push_back(std::move(block));
      } else {
        messages.push_back({{"role", role}, {"content", json::array({std::move(block)})}});
      }
    };
    for (const ChatMessage& m : request.messages) {
      switch (m.role) {
        case ChatMessage::Role::kUser:
          append("user", {{"type", "text"}, {"text", m.text.empty() ? " " : m.text}});
          break;
        case ChatMessage::Role::kAssistant:
          if (!m.text.empty()) append("assistant", {{"type", "text"}, {"text", m.text}});
          for (const ToolCall& c : m.tool_calls) {
            json input = json::parse(c.arguments, nullptr, false);
            if (!input.is_object()) input = json::object();
            append("assistant",
                   {{"type", "tool_use"}, {"id", c.id}, {"name", c.name}, {"input", input}});
          }
          break;
        case ChatMessage::Role::kTool: {
          json block{{"type", "tool_result"}, {"tool_use_id", m.tool_call_id}, {"content", m.text}};
          if (m.is_error) block["is_error"] = true;
          append("user", std::move(block));
          break;
        }
      }
    }
    json body{{"model", request.model},
              {"max_tokens", request.max_output_tokens},
              {"messages", std::move(messages)}};
    if (!request.system.empty()) body["system"] = request.system;
    std::shared_ptr<const std::string> tools;
    if (!request.tools.empty()) {
      // The tools' breakpoint is on their last, made with them.
      auto listed = ToolsJson(request.tools, ToolsShape::kAnthropic, config_.prompt_cache);
      if (!listed.ok()) return listed.status();
      tools = std::move(*listed);
    }
    if (config_.prompt_cache) MarkCacheBreakpoints(body, /*tools_marked=*/tools != nullptr);
    std::string base = Trimmed(config_.base_url);
    std::string url = base.ends_with("/v1") ? base + "/messages" : base + "/v1/messages";
    std::vector<std::pair<std::string, std::string>> headers{{"anthropic-version", "2023-06-01"}};
    if (!config_.api_key.empty()) headers.emplace_back("x-api-key", config_.api_key);
    auto reply = Post(url, std::move(headers), tools ? WithTools(body, *tools) : DumpJson(body));
    if (!reply.ok()) return reply.status();

    const json& r = *reply;
    if (!r.contains("content") || !r["content"].is_array()) return Malformed("no content");
    ModelReply out;
    for (const json& block : r["content"]) {
      if (!block.is_object()) continue;
      std::string type = StringField(block, "type");
      if (type == "text" && block.contains("text") && block["text"].is_string()) {
        out.text += block["text"].get<std::string>();
      } else if (type == "tool_use") {
        ToolCall c;
        c.id = StringField(block, "id");
        c.name = StringField(block, "name");
        c.arguments = block.contains("input") ? block["input"].dump() : "{}";
        out.tool_calls.push_back(std::move(c));
      }
    }
    out.stop_reason = StringField(r, "stop_reason");
    out.usage = AnthropicUsage(r);
    return out;
  }
};

}  // namespace

Result<std::unique_ptr<Model>> MakeModel(const ProviderConfig& config) {
  if (config.base_url.empty()) {
    return Status::InvalidArgument("DOCWRIGHT_LLM_BASE_URL is not set");
  }
  if (config.provider == "openai")
    return std::unique_ptr<Model>(std::make_unique<OpenAiModel>(config));
  if (config.provider == "anthropic") {
    return std::unique_ptr<Model>(std::make_unique<AnthropicModel>(config));
  }
  return Status::InvalidArgument("DOCWRIGHT_LLM_PROVIDER must be openai or anthropic, not \"" +
                                 config.provider + "\"");
}

}  // namespace docwright::llm
