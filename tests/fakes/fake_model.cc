#include "fakes/fake_model.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <condition_variable>
#include <ctime>
#include <initializer_list>
#include <mutex>
#include <set>
#include <string_view>
#include <thread>

#include "fakes/fake_prompt_cache.h"
#include "support/loopback_http_server.h"

namespace docwright::testing {
namespace {

using nlohmann::json;

constexpr size_t kMaxViolations = 1000;
constexpr size_t kMaxSubstitution = 4096;

// Replies may quote what the client sent, which need not be valid UTF-8.
std::string Dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// ^[a-zA-Z0-9_-]+$
bool IsWord(const std::string& s) {
  for (char c : s) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
  }
  return !s.empty();
}

// ^[a-zA-Z0-9_-]{1,64}$, what both providers accept as a tool name.
bool ValidToolName(const std::string& name) { return name.size() <= 64 && IsWord(name); }

// The string at `key` of `obj`, or "" when it is absent or not a string.
std::string Str(const json& obj, const char* key) {
  if (!obj.is_object()) return "";
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : "";
}

// The text of a content field: a string, or the text of its text parts/blocks.
std::string Text(const json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string text;
  if (!content.is_array()) return text;
  for (const auto& part : content) {
    if (Str(part, "type") == "text") text += Str(part, "text");
  }
  return text;
}

// At most kMaxSubstitution bytes, not cutting a UTF-8 sequence.
std::string Bounded(std::string s) {
  if (s.size() <= kMaxSubstitution) return s;
  size_t end = kMaxSubstitution;
  while (end > 0 && (static_cast<unsigned char>(s[end]) & 0xC0) == 0x80) --end;
  s.resize(end);
  return s;
}

std::string PromptHash(const std::string& text) {
  uint64_t h = 14695981039346656037ull;  // FNV-1a: the same on every platform
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (int shift = 60; out.size() < 12; shift -= 4) out.push_back(kHex[(h >> shift) & 0xF]);
  return out;
}

bool HasType(const json& v, std::string_view types) {
  while (!types.empty()) {
    size_t bar = types.find('|');
    std::string_view t = types.substr(0, bar);
    if ((t == "string" && v.is_string()) || (t == "integer" && v.is_number_integer()) ||
        (t == "number" && v.is_number()) || (t == "boolean" && v.is_boolean()) ||
        (t == "object" && v.is_object()) || (t == "array" && v.is_array()) ||
        (t == "null" && v.is_null()) || t == "any") {
      return true;
    }
    types = bar == std::string_view::npos ? std::string_view() : types.substr(bar + 1);
  }
  return false;
}

std::string At(const std::string& where, size_t i) { return where + "[" + std::to_string(i) + "]"; }

std::string Join(const std::set<std::string>& ids) {
  std::string out;
  for (const auto& id : ids) out += (out.empty() ? "" : ", ") + id;
  return out;
}

// The violations found in one request.
class Checker {
 public:
  using FieldTypes = std::map<std::string, std::string>;  // name -> "string|null"

  void Add(const std::string& where, const std::string& what) {
    found.push_back(where.empty() ? what : where + ": " + what);
  }

  // Every field of `obj` is in `allowed` with one of its types, and every one of
  // `required` is there. False when `obj` is not an object.
  bool Fields(const json& obj, const std::string& where, const FieldTypes& allowed,
              std::initializer_list<const char*> required) {
    if (!obj.is_object()) {
      Add(where, "must be an object, not " + std::string(obj.type_name()));
      return false;
    }
    for (const auto& [key, value] : obj.items()) {
      auto it = allowed.find(key);
      if (it == allowed.end()) {
        Add(where, "undocumented field " + key);
      } else if (!HasType(value, it->second)) {
        Add(where, "field " + key + " must be " + it->second + ", not " + value.type_name());
      }
    }
    for (const char* key : required) {
      if (!obj.contains(key)) Add(where, std::string("missing required field ") + key);
    }
    return true;
  }

  // A tool's parameters: a JSON Schema of an object.
  void Schema(const json& s, const std::string& where) {
    if (!s.is_object()) {
      Add(where, "must be a JSON Schema object");
      return;
    }
    auto type = s.find("type");
    if (type == s.end() || *type != "object") Add(where, "must have \"type\": \"object\"");
    auto props = s.find("properties");
    if (props != s.end()) {
      if (!props->is_object()) {
        Add(where, "properties must be an object");
      } else {
        for (const auto& [name, schema] : props->items()) {
          if (!schema.is_object()) Add(where + ".properties." + name, "must be a JSON Schema");
        }
      }
    }
    auto required = s.find("required");
    if (required != s.end()) {
      if (!required->is_array()) {
        Add(where, "required must be an array");
        return;
      }
      for (const auto& name : *required) {
        if (!name.is_string()) {
          Add(where, "required holds a non-string");
        } else if (props == s.end() || !props->is_object() ||
                   !props->contains(name.get<std::string>())) {
          Add(where, "requires " + name.get<std::string>() + ", which is not in properties");
        }
      }
    }
  }

  // A tool's name: well formed and not taken by an earlier tool.
  void ToolName(const std::string& name, const std::string& where, std::set<std::string>& names) {
    if (!ValidToolName(name))
      Add(where, "tool name \"" + name + "\" does not match ^[a-zA-Z0-9_-]{1,64}$");
    if (!names.insert(name).second) Add(where, "tool name " + name + " is not unique");
  }

  std::vector<std::string> found;
};

// OpenAI Chat Completions, as https://platform.openai.com/docs/api-reference/chat/create
// documents it; stricter where docwright's own contract is (tools always carry
// parameters; the fake neither streams nor gives more than one choice).
void CheckOpenAI(const json& b, Checker& c) {
  static const Checker::FieldTypes kTop{{"model", "string"},
                                        {"messages", "array"},
                                        {"tools", "array"},
                                        {"tool_choice", "string|object"},
                                        {"max_tokens", "integer|null"},
                                        {"max_completion_tokens", "integer|null"},
                                        {"temperature", "number|null"},
                                        {"top_p", "number|null"},
                                        {"n", "integer|null"},
                                        {"stream", "boolean|null"},
                                        {"stream_options", "object|null"},
                                        {"stop", "string|array|null"},
                                        {"presence_penalty", "number|null"},
                                        {"frequency_penalty", "number|null"},
                                        {"logit_bias", "object|null"},
                                        {"logprobs", "boolean|null"},
                                        {"top_logprobs", "integer|null"},
                                        {"user", "string"},
                                        {"seed", "integer|null"},
                                        {"response_format", "object"},
                                        {"parallel_tool_calls", "boolean"},
                                        {"metadata", "object|null"},
                                        {"store", "boolean|null"},
                                        {"reasoning_effort", "string|null"},
                                        {"service_tier", "string|null"},
                                        {"modalities", "array|null"},
                                        {"prediction", "object|null"},
                                        {"audio", "object|null"},
                                        {"safety_identifier", "string"},
                                        {"prompt_cache_key", "string"},
                                        {"verbosity", "string|null"},
                                        {"web_search_options", "object"}};
  c.Fields(b, "", kTop, {"model", "messages"});
  if (b.contains("model") && Str(b, "model").empty()) c.Add("model", "must be a non-empty string");
  for (const char* key : {"max_tokens", "max_completion_tokens"}) {
    if (b.contains(key) && b[key].is_number_integer() && b[key].get<int64_t>() <= 0) {
      c.Add(key, "must be positive");
    }
  }
  if (b.contains("n") && b["n"].is_number_integer() && b["n"] != 1) {
    c.Add("n", "must be 1: the reply's first choice is the one read");
  }
  if (b.value("stream", json()) == true)
    c.Add("stream", "docwright reads whole replies, not streams");
  if (b.contains("temperature") && b["temperature"].is_number() &&
      (b["temperature"].get<double>() < 0 || b["temperature"].get<double>() > 2)) {
    c.Add("temperature", "must be between 0 and 2");
  }

  std::set<std::string> tool_names;
  if (b.contains("tools") && b["tools"].is_array()) {
    const json& tools = b["tools"];
    for (size_t i = 0; i < tools.size(); ++i) {
      std::string where = At("tools", i);
      if (!c.Fields(tools[i], where, {{"type", "string"}, {"function", "object"}},
                    {"type", "function"})) {
        continue;
      }
      if (Str(tools[i], "type") != "function") c.Add(where, "type must be \"function\"");
      const json& f = tools[i].value("function", json());
      if (!f.is_object()) continue;
      c.Fields(f, where + ".function",
               {{"name", "string"},
                {"description", "string"},
                {"parameters", "object"},
                {"strict", "boolean|null"}},
               {"name"});
      c.ToolName(Str(f, "name"), where + ".function.name", tool_names);
      if (!f.contains("parameters")) {
        c.Add(where + ".function", "no parameters (docwright always describes them)");
      } else {
        c.Schema(f["parameters"], where + ".function.parameters");
      }
    }
  }
  if (b.contains("tool_choice")) {
    const json& choice = b["tool_choice"];
    if (!b.contains("tools")) c.Add("tool_choice", "is only allowed when tools are specified");
    if (choice.is_string() && choice != "none" && choice != "auto" && choice != "required") {
      c.Add("tool_choice", "must be none, auto, required or a named function");
    } else if (choice.is_object() &&
               c.Fields(choice, "tool_choice", {{"type", "string"}, {"function", "object"}},
                        {"type", "function"})) {
      std::string name = Str(choice.value("function", json()), "name");
      if (Str(choice, "type") != "function" || !tool_names.count(name)) {
        c.Add("tool_choice", "must name one of the tools");
      }
    }
  }

  if (!b.contains("messages") || !b["messages"].is_array()) return;
  const json& messages = b["messages"];
  if (messages.empty()) c.Add("messages", "must not be empty");
  std::set<std::string> pending;   // calls of the last assistant message not yet answered
  std::set<std::string> answered;  // and those answered
  bool in_tool_run = false;        // right after an assistant message with tool_calls
  for (size_t i = 0; i < messages.size(); ++i) {
    const json& m = messages[i];
    std::string where = At("messages", i);
    if (!m.is_object()) {
      c.Add(where, "must be an object");
      continue;
    }
    std::string role = Str(m, "role");
    if (role != "tool") {
      if (!pending.empty()) {
        c.Add(where,
              "comes before tool messages answered " + Join(pending) +
                  " (each tool call needs a tool message right after its assistant message)");
      }
      pending.clear();
      answered.clear();
      in_tool_run = false;
    }
    if (role == "system" || role == "developer" || role == "user") {
      c.Fields(m, where, {{"role", "string"}, {"content", "string|array"}, {"name", "string"}},
               {"content"});
    } else if (role == "assistant") {
      c.Fields(m, where,
               {{"role", "string"},
                {"content", "string|array|null"},
                {"name", "string"},
                {"tool_calls", "array"},
                {"refusal", "string|null"},
                {"audio", "object|null"}},
               {});
      bool has_calls = m.contains("tool_calls") && m["tool_calls"].is_array();
      if (has_calls && m["tool_calls"].empty())
        c.Add(where, "tool_calls must not be an empty array");
      if (!has_calls && (!m.contains("content") || m["content"].is_null())) {
        c.Add(where, "content is required unless tool_calls is given");
      }
      if (has_calls) {
        const json& calls = m["tool_calls"];
        for (size_t k = 0; k < calls.size(); ++k) {
          std::string cw = where + "." + At("tool_calls", k);
          if (!c.Fields(calls[k], cw,
                        {{"id", "string"}, {"type", "string"}, {"function", "object"}},
                        {"id", "type", "function"})) {
            continue;
          }
          if (Str(calls[k], "type") != "function") c.Add(cw, "type must be \"function\"");
          c.Fields(calls[k].value("function", json::object()), cw + ".function",
                   {{"name", "string"}, {"arguments", "string"}}, {"name", "arguments"});
          std::string id = Str(calls[k], "id");
          if (id.empty()) c.Add(cw, "id must be a non-empty string");
          if (!id.empty() && !pending.insert(id).second) c.Add(cw, "id " + id + " is not unique");
        }
        in_tool_run = !pending.empty();
      }
    } else if (role == "tool") {
      c.Fields(m, where,
               {{"role", "string"}, {"content", "string|array"}, {"tool_call_id", "string"}},
               {"content", "tool_call_id"});
      std::string id = Str(m, "tool_call_id");
      if (!in_tool_run) {
        c.Add(where, "a tool message must follow an assistant message with tool_calls");
      } else if (answered.count(id)) {
        c.Add(where, "answers tool call " + id + " a second time");
      } else if (!pending.erase(id)) {
        c.Add(where, "tool_call_id " + id + " is not a call of the preceding assistant message");
      } else {
        answered.insert(id);
      }
    } else {
      c.Add(where, "role must be system, developer, user, assistant or tool, not \"" + role + "\"");
      continue;
    }
    // Content parts, where content is an array.
    if (m.contains("content") && m["content"].is_array()) {
      const json& parts = m["content"];
      if (parts.empty()) c.Add(where, "content must not be an empty array");
      for (size_t k = 0; k < parts.size(); ++k) {
        std::string pw = where + "." + At("content", k);
        std::string type = Str(parts[k], "type");
        bool ok =
            type == "text" ||
            (role == "user" && (type == "image_url" || type == "input_audio" || type == "file")) ||
            (role == "assistant" && type == "refusal");
        if (!ok) {
          c.Add(pw, "a " + role + " message cannot have a part of type \"" + type + "\"");
        } else if (type == "text") {
          c.Fields(parts[k], pw, {{"type", "string"}, {"text", "string"}}, {"type", "text"});
        }
      }
    }
  }
  if (!pending.empty()) c.Add("messages", "no tool message answers " + Join(pending));
}

// Anthropic Messages, as https://docs.anthropic.com/en/api/messages documents
// it; stricter where docwright's contract is (turns alternate, starting with the
// user, rather than relying on the API merging consecutive turns).
void CheckAnthropic(const json& b, Checker& c) {
  static const Checker::FieldTypes kTop{
      {"model", "string"},        {"max_tokens", "integer"},   {"messages", "array"},
      {"system", "string|array"}, {"tools", "array"},          {"tool_choice", "object"},
      {"metadata", "object"},     {"stop_sequences", "array"}, {"stream", "boolean"},
      {"temperature", "number"},  {"top_k", "integer"},        {"top_p", "number"},
      {"thinking", "object"},     {"service_tier", "string"},  {"container", "string|null"},
      {"mcp_servers", "array"}};
  c.Fields(b, "", kTop, {"model", "max_tokens", "messages"});
  if (b.contains("model") && Str(b, "model").empty()) c.Add("model", "must be a non-empty string");
  if (b.contains("max_tokens") && b["max_tokens"].is_number_integer() &&
      b["max_tokens"].get<int64_t>() <= 0) {
    c.Add("max_tokens", "must be positive");
  }
  if (b.value("stream", json()) == true)
    c.Add("stream", "docwright reads whole replies, not streams");
  if (b.contains("temperature") && b["temperature"].is_number() &&
      (b["temperature"].get<double>() < 0 || b["temperature"].get<double>() > 1)) {
    c.Add("temperature", "must be between 0 and 1");
  }
  if (b.contains("system") && b["system"].is_array()) {
    const json& blocks = b["system"];
    for (size_t i = 0; i < blocks.size(); ++i) {
      std::string where = At("system", i);
      if (!c.Fields(blocks[i], where,
                    {{"type", "string"},
                     {"text", "string"},
                     {"cache_control", "object|null"},
                     {"citations", "array|null"}},
                    {"type", "text"})) {
        continue;
      }
      if (Str(blocks[i], "type") != "text") c.Add(where, "system blocks must be of type \"text\"");
      if (Str(blocks[i], "text").empty()) c.Add(where, "text content blocks must be non-empty");
    }
  }

  std::set<std::string> tool_names;
  if (b.contains("tools") && b["tools"].is_array()) {
    const json& tools = b["tools"];
    for (size_t i = 0; i < tools.size(); ++i) {
      std::string where = At("tools", i);
      if (!c.Fields(tools[i], where,
                    {{"name", "string"},
                     {"description", "string"},
                     {"input_schema", "object"},
                     {"cache_control", "object|null"},
                     {"type", "string|null"}},
                    {"name", "input_schema"})) {
        continue;
      }
      if (tools[i].contains("type") && tools[i]["type"].is_string() &&
          tools[i]["type"] != "custom") {
        c.Add(where, "a client tool's type is \"custom\" (server tools are not used)");
      }
      c.ToolName(Str(tools[i], "name"), where + ".name", tool_names);
      if (tools[i].contains("input_schema"))
        c.Schema(tools[i]["input_schema"], where + ".input_schema");
    }
  }
  if (b.contains("tool_choice") && b["tool_choice"].is_object()) {
    const json& choice = b["tool_choice"];
    c.Fields(choice, "tool_choice",
             {{"type", "string"}, {"name", "string"}, {"disable_parallel_tool_use", "boolean"}},
             {"type"});
    std::string type = Str(choice, "type");
    if (type != "auto" && type != "any" && type != "tool" && type != "none") {
      c.Add("tool_choice", "type must be auto, any, tool or none");
    }
    if (type == "tool" && !tool_names.count(Str(choice, "name"))) {
      c.Add("tool_choice", "must name one of the tools");
    }
    if (type != "none" && tool_names.empty()) c.Add("tool_choice", "given without tools");
  }

  if (!b.contains("messages") || !b["messages"].is_array()) return;
  const json& messages = b["messages"];
  if (messages.empty()) c.Add("messages", "must not be empty");
  std::string previous_role;
  std::set<std::string> pending;  // tool_use ids of the previous assistant message
  for (size_t i = 0; i < messages.size(); ++i) {
    const json& m = messages[i];
    std::string where = At("messages", i);
    if (!c.Fields(m, where, {{"role", "string"}, {"content", "string|array"}},
                  {"role", "content"})) {
      continue;
    }
    std::string role = Str(m, "role");
    bool last = i + 1 == messages.size();
    if (role != "user" && role != "assistant") {
      c.Add(where, "role must be user or assistant, not \"" + role + "\"");
    } else if (i == 0 && role != "user") {
      c.Add(where, "the first message must be the user's");
    } else if (role == previous_role) {
      c.Add(where, "two " + role + " messages in a row: turns must alternate");
    }
    previous_role = role;

    const json& content = m.value("content", json());
    if (content.is_string()) {
      if (content.get<std::string>().empty() && !(last && role == "assistant")) {
        c.Add(
            where,
            "all messages must have non-empty content except the optional final assistant message");
      }
    } else if (content.is_array() && content.empty() && !(last && role == "assistant")) {
      c.Add(where,
            "all messages must have non-empty content except the optional final assistant message");
    }
    if (last && role == "assistant") {
      std::string text = content.is_string() ? content.get<std::string>() : Text(content);
      if (!text.empty() && std::isspace(static_cast<unsigned char>(text.back()))) {
        c.Add(where, "final assistant content cannot end with trailing whitespace");
      }
    }

    std::set<std::string> uses, results;
    bool past_results = false;  // a block other than tool_result was seen
    if (content.is_array()) {
      for (size_t k = 0; k < content.size(); ++k) {
        const json& block = content[k];
        std::string bw = where + "." + At("content", k);
        if (!block.is_object() || !block.contains("type") || !block["type"].is_string()) {
          c.Add(bw, "a content block must be an object with a type");
          continue;
        }
        std::string type = Str(block, "type");
        if (type == "text") {
          c.Fields(block, bw,
                   {{"type", "string"},
                    {"text", "string"},
                    {"cache_control", "object|null"},
                    {"citations", "array|null"}},
                   {"text"});
          if (Str(block, "text").empty()) c.Add(bw, "text content blocks must be non-empty");
        } else if (type == "tool_use" && role == "assistant") {
          c.Fields(block, bw,
                   {{"type", "string"},
                    {"id", "string"},
                    {"name", "string"},
                    {"input", "object"},
                    {"cache_control", "object|null"}},
                   {"id", "name", "input"});
          std::string id = Str(block, "id");
          if (!IsWord(id)) c.Add(bw, "id \"" + id + "\" does not match ^[a-zA-Z0-9_-]+$");
          if (!uses.insert(id).second) c.Add(bw, "tool_use id " + id + " is not unique");
          if (!ValidToolName(Str(block, "name"))) c.Add(bw, "name is not a valid tool name");
        } else if (type == "tool_result" && role == "user") {
          c.Fields(block, bw,
                   {{"type", "string"},
                    {"tool_use_id", "string"},
                    {"content", "string|array"},
                    {"is_error", "boolean"},
                    {"cache_control", "object|null"}},
                   {"tool_use_id"});
          if (past_results) {
            c.Add(bw, "tool_result blocks must come first in the content, before any other block");
          }
          std::string id = Str(block, "tool_use_id");
          if (!results.insert(id).second) c.Add(bw, "a second tool_result for " + id);
          if (block.contains("content") && block["content"].is_array()) {
            const json& inner = block["content"];
            for (size_t j = 0; j < inner.size(); ++j) {
              std::string t = Str(inner[j], "type");
              if (t == "text") {
                c.Fields(inner[j], bw + "." + At("content", j),
                         {{"type", "string"},
                          {"text", "string"},
                          {"cache_control", "object|null"},
                          {"citations", "array|null"}},
                         {"text"});
              } else if (t != "image" && t != "document" && t != "search_result") {
                c.Add(bw + "." + At("content", j),
                      "a tool_result cannot hold a block of type \"" + t + "\"");
              }
            }
          }
        } else if ((type == "image" || type == "document") && role == "user") {
          if (!block.contains("source")) c.Add(bw, "missing required field source");
        } else if ((type == "thinking" || type == "redacted_thinking") && role == "assistant") {
        } else {
          c.Add(bw, "a " + role + " message cannot have a block of type \"" + type + "\"");
        }
        if (type != "tool_result") past_results = true;
      }
    }

    // The results answer exactly the previous assistant message's tool uses.
    for (const auto& id : pending) {
      if (!results.count(id)) {
        c.Add(where,
              "has no tool_result for tool_use " + id + " of the assistant message before it");
      }
    }
    for (const auto& id : results) {
      if (!pending.count(id)) {
        c.Add(where,
              "tool_result for " + id + ", which the assistant message before it did not use");
      }
    }
    pending = role == "assistant" ? uses : std::set<std::string>();
  }
  if (!pending.empty()) c.Add("messages", "no user message answers tool_use " + Join(pending));
}

// What the reply depends on, read from a request.
struct Conversation {
  int position = 0;
  std::string model;
  std::string first_user_text;
  std::string last_tool_result;
};

Conversation Read(FakeModelServer::Wire wire, const json& body) {
  Conversation cv;
  cv.model = Str(body, "model");
  auto it = body.find("messages");
  if (it == body.end() || !it->is_array()) return cv;
  bool seen_user = false;
  for (const auto& m : *it) {
    std::string role = Str(m, "role");
    if (!m.is_object()) continue;
    const json& content = m.value("content", json());
    if (role == "assistant") ++cv.position;
    if (role == "user" && !seen_user) {
      seen_user = true;
      cv.first_user_text = Text(content);
    }
    if (wire == FakeModelServer::Wire::kOpenAI) {
      if (role == "tool") cv.last_tool_result = Text(content);
    } else if (content.is_array()) {
      for (const auto& block : content) {
        if (Str(block, "type") == "tool_result")
          cv.last_tool_result = Text(block.value("content", json()));
      }
    }
  }
  cv.last_tool_result = Bounded(std::move(cv.last_tool_result));
  return cv;
}

std::string Substitute(std::string text, const Conversation& cv) {
  for (const auto& [pattern, value] :
       {std::pair<std::string, std::string>{"{{prompt_hash}}", PromptHash(cv.first_user_text)},
        {"{{last_tool_result}}", cv.last_tool_result}}) {
    for (size_t at = text.find(pattern); at != std::string::npos;
         at = text.find(pattern, at + value.size())) {
      text.replace(at, pattern.size(), value);
    }
  }
  return text;
}

json SubstituteAll(json v, const Conversation& cv) {
  if (v.is_string()) return Substitute(v.get<std::string>(), cv);
  if (v.is_structured()) {
    for (auto& item : v) item = SubstituteAll(std::move(item), cv);
  }
  return v;
}

int64_t Tokens(size_t bytes) { return static_cast<int64_t>((bytes + 3) / 4); }

// The "usage" object of a reply, field for field as each provider writes it.
json UsageJson(FakeModelServer::Wire wire, const PromptCacheUsage& in, int64_t output_tokens) {
  if (wire == FakeModelServer::Wire::kOpenAI) {
    return json{{"prompt_tokens", in.prompt_tokens},
                {"completion_tokens", output_tokens},
                {"total_tokens", in.prompt_tokens + output_tokens},
                {"prompt_tokens_details", {{"cached_tokens", in.cache_read}, {"audio_tokens", 0}}},
                {"completion_tokens_details",
                 {{"reasoning_tokens", 0},
                  {"audio_tokens", 0},
                  {"accepted_prediction_tokens", 0},
                  {"rejected_prediction_tokens", 0}}}};
  }
  // Anthropic's input_tokens are those after the last cache breakpoint only.
  return json{{"input_tokens", in.prompt_tokens - in.cache_read - in.cache_write},
              {"cache_creation_input_tokens", in.cache_write},
              {"cache_read_input_tokens", in.cache_read},
              {"cache_creation",
               {{"ephemeral_5m_input_tokens", in.cache_write - in.cache_write_1h},
                {"ephemeral_1h_input_tokens", in.cache_write_1h}}},
              {"output_tokens", output_tokens},
              {"service_tier", "standard"}};
}

LoopbackResponse JsonReply(int status, const json& body) {
  return LoopbackResponse{status, {{"Content-Type", "application/json"}}, Dump(body)};
}

}  // namespace

struct FakeModelServer::Impl {
  Wire wire;
  std::string api_key;
  std::vector<FakeStep> script;  // never changes: read without the lock
  std::atomic<uint64_t> replies{0};

  mutable std::mutex mu;
  bool record_requests = true;
  std::function<void()> on_arrival;  // set before serving; read without the lock
  std::vector<json> requests;
  std::vector<std::string> violations;
  size_t violations_dropped = 0;
  std::map<int, int> failures_served;  // by position
  FakePromptCache cache;
  std::atomic<bool> refuse_max_tokens{false};
  bool stopping = false;  // the server is going away: delays end
  std::condition_variable stop;
  std::unique_ptr<LoopbackHttpServer> server;  // last: stops first

  std::string Path() const {
    return wire == Wire::kOpenAI ? "/v1/chat/completions" : "/v1/messages";
  }

  // An error in the provider's own format.
  LoopbackResponse Error(int status, const std::string& message) const {
    if (wire == Wire::kOpenAI) {
      std::string type = status == 429   ? "requests"
                         : status >= 500 ? "server_error"
                                         : "invalid_request_error";
      json code = status == 401   ? json("invalid_api_key")
                  : status == 429 ? json("rate_limit_exceeded")
                                  : json();
      return JsonReply(
          status,
          json{{"error",
                {{"message", message}, {"type", type}, {"param", nullptr}, {"code", code}}}});
    }
    static const std::map<int, std::string> kTypes{{400, "invalid_request_error"},
                                                   {401, "authentication_error"},
                                                   {403, "permission_error"},
                                                   {404, "not_found_error"},
                                                   {413, "request_too_large"},
                                                   {429, "rate_limit_error"},
                                                   {500, "api_error"},
                                                   {529, "overloaded_error"}};
    auto it = kTypes.find(status);
    std::string type = it != kTypes.end() ? it->second
                       : status >= 500    ? "api_error"
                                          : "invalid_request_error";
    return JsonReply(status,
                     json{{"type", "error"}, {"error", {{"type", type}, {"message", message}}}});
  }

  // Requests are kept as they arrive (a slow answer is still a request made);
  // what was wrong with them once they are answered.
  void Keep(const LoopbackRequest& req, const json& body) {
    std::lock_guard lock(mu);
    if (record_requests) requests.push_back(body.is_discarded() ? json(req.body) : body);
  }
  void Record(const LoopbackRequest& req, const std::vector<std::string>& found) {
    std::lock_guard lock(mu);
    for (const auto& what : found) {
      if (violations.size() < kMaxViolations) {
        violations.push_back(req.method + " " + req.target + ": " + what);
      } else {
        ++violations_dropped;
      }
    }
  }

  std::string Header(const LoopbackRequest& req, const std::string& name) const {
    auto it = req.headers.find(name);
    return it == req.headers.end() ? "" : it->second;
  }

  LoopbackResponse Serve(const LoopbackRequest& req) {
    if (on_arrival) on_arrival();
    json body = json::parse(req.body, nullptr, false);
    Keep(req, body);
    Checker c;
    try {
      LoopbackResponse reply = Answer(req, body, c);
      Record(req, c.found);
      return reply;
    } catch (const std::exception& e) {  // a bug of the fake, not of the client
      c.Add("", std::string("the fake model failed: ") + e.what());
      Record(req, c.found);
      return Error(500, "the fake model failed");
    }
  }

  LoopbackResponse Answer(const LoopbackRequest& req, const json& body, Checker& c) {
    std::string path = req.target.substr(0, req.target.find('?'));
    if (path != Path()) {
      c.Add("", "no such endpoint (the fake serves POST " + Path() + ")");
      return Error(404, "Invalid URL (" + req.method + " " + path + ")");
    }
    if (path != req.target) c.Add("", "the endpoint takes no query parameters");
    if (req.method != "POST") {
      c.Add("", "the method must be POST");
      return Error(405, "Method not allowed");
    }
    if (wire == Wire::kOpenAI) {
      std::string auth = Header(req, "authorization");
      if (auth.empty()) c.Add("", "no Authorization header");
      if (auth != "Bearer " + api_key) return Error(401, "Incorrect API key provided.");
    } else {
      std::string key = Header(req, "x-api-key");
      if (key.empty()) c.Add("", "no x-api-key header");
      if (key != api_key) return Error(401, "invalid x-api-key");
      if (Header(req, "anthropic-version") != "2023-06-01") {
        c.Add("", "anthropic-version must be 2023-06-01");
      }
    }
    if (Header(req, "content-type").rfind("application/json", 0) != 0) {
      c.Add("", "the body is not declared as application/json");
    }
    if (!body.is_object()) {
      c.Add("", "the body is not a JSON object");
      return Error(400, "The request body is not valid JSON.");
    }
    if (wire == Wire::kOpenAI) {
      CheckOpenAI(body, c);
      if (body.contains("max_tokens") && body.contains("max_completion_tokens")) {
        c.Add("", "max_tokens and max_completion_tokens are both set");
      }
      if (refuse_max_tokens && body.contains("max_tokens")) {
        // OpenAI's answer, word for word, for its reasoning models.
        return JsonReply(
            400, json{{"error",
                       {{"message",
                         "Unsupported parameter: 'max_tokens' is not supported with this model. "
                         "Use 'max_completion_tokens' instead."},
                        {"type", "invalid_request_error"},
                        {"param", "max_tokens"},
                        {"code", "unsupported_parameter"}}}});
      }
    } else {
      CheckAnthropic(body, c);
    }

    Conversation cv = Read(wire, body);
    static const FakeStep kEndOfTurn;
    const FakeStep& step =
        script.empty() ? kEndOfTurn : script[std::min<size_t>(cv.position, script.size() - 1)];
    bool fail = false;
    if (step.fail_times > 0 && step.fail_status != 0) {
      std::lock_guard lock(mu);
      int& served = failures_served[cv.position];
      fail = served < step.fail_times;
      if (fail) ++served;
    }
    if (step.delay.count() > 0) {
      std::unique_lock lock(mu);
      stop.wait_for(lock, step.delay, [this] { return stopping; });
    }
    if (fail) {
      LoopbackResponse r =
          Error(step.fail_status, "scripted failure at position " + std::to_string(cv.position));
      for (const auto& [name, value] : step.fail_headers) r.headers.emplace_back(name, value);
      return r;
    }
    if (step.raw_body)
      return LoopbackResponse{200, {{"Content-Type", "application/json"}}, *step.raw_body};
    // The prompt is read (and cached) only by a request that is answered.
    PromptCacheUsage usage;
    if (wire == Wire::kOpenAI) {
      usage = cache.OpenAI(body);
    } else {
      bool refused = false;
      std::vector<std::string> problems;
      usage = cache.Anthropic(body, problems, refused);
      for (const auto& problem : problems) c.Add("", problem);
      if (refused) return Error(400, problems.back());
    }
    return Reply(step, cv, usage);
  }

  LoopbackResponse Reply(const FakeStep& step, const Conversation& cv,
                         const PromptCacheUsage& usage) {
    uint64_t seq = ++replies;
    std::string text = Substitute(step.text, cv);
    size_t output_bytes = text.size();
    json calls = json::array();
    for (size_t i = 0; i < step.tool_calls.size(); ++i) {
      const FakeToolCall& call = step.tool_calls[i];
      std::string suffix = std::to_string(cv.position) + "_" + std::to_string(i);
      output_bytes += call.name.size();
      if (wire == Wire::kOpenAI) {
        std::string arguments = call.raw_arguments ? Substitute(*call.raw_arguments, cv)
                                                   : Dump(SubstituteAll(call.arguments, cv));
        output_bytes += arguments.size();
        calls.push_back({{"id", "call_" + suffix},
                         {"type", "function"},
                         {"function", {{"name", call.name}, {"arguments", arguments}}}});
      } else {
        json input;
        if (call.raw_arguments) {
          std::string raw = Substitute(*call.raw_arguments, cv);
          input = json::parse(raw, nullptr, false);
          if (input.is_discarded()) input = raw;
        } else {
          input = SubstituteAll(call.arguments, cv);
        }
        output_bytes += Dump(input).size();
        calls.push_back({{"type", "tool_use"},
                         {"id", "toolu_" + suffix},
                         {"name", call.name},
                         {"input", input}});
      }
    }
    int64_t output_tokens = Tokens(output_bytes);

    if (wire == Wire::kOpenAI) {
      json message{{"role", "assistant"},
                   {"content", text.empty() ? json() : json(text)},
                   {"refusal", nullptr}};
      if (!calls.empty()) message["tool_calls"] = calls;
      return JsonReply(
          200, json{{"id", "chatcmpl-fake" + std::to_string(seq)},
                    {"object", "chat.completion"},
                    {"created", static_cast<int64_t>(std::time(nullptr))},
                    {"model", cv.model},
                    {"choices",
                     json::array({{{"index", 0},
                                   {"message", message},
                                   {"logprobs", nullptr},
                                   {"finish_reason", calls.empty() ? "stop" : "tool_calls"}}})},
                    {"usage", UsageJson(wire, usage, output_tokens)},
                    {"system_fingerprint", nullptr}});
    }
    json content = json::array();
    if (!text.empty()) content.push_back({{"type", "text"}, {"text", text}});
    for (auto& call : calls) content.push_back(std::move(call));
    return JsonReply(200, json{{"id", "msg_fake" + std::to_string(seq)},
                               {"type", "message"},
                               {"role", "assistant"},
                               {"model", cv.model},
                               {"content", content},
                               {"stop_reason", calls.empty() ? "end_turn" : "tool_use"},
                               {"stop_sequence", nullptr},
                               {"usage", UsageJson(wire, usage, output_tokens)}});
  }
};

FakeModelServer::FakeModelServer(Wire wire, std::string api_key, std::vector<FakeStep> script)
    : impl_(std::make_unique<Impl>()) {
  impl_->wire = wire;
  impl_->api_key = std::move(api_key);
  impl_->script = std::move(script);
  impl_->server = std::make_unique<LoopbackHttpServer>(
      [impl = impl_.get()](const LoopbackRequest& req) { return impl->Serve(req); });
}

FakeModelServer::~FakeModelServer() {
  {
    std::lock_guard lock(impl_->mu);
    impl_->stopping = true;
  }
  impl_->stop.notify_all();
  impl_->server.reset();
}

std::string FakeModelServer::BaseUrl() const {
  return impl_->server->Url(impl_->wire == Wire::kOpenAI ? "/v1" : "");
}

uint16_t FakeModelServer::port() const { return impl_->server->port(); }

std::vector<nlohmann::json> FakeModelServer::Requests() const {
  std::lock_guard lock(impl_->mu);
  return impl_->requests;
}

void FakeModelServer::RefuseMaxTokens(bool on) { impl_->refuse_max_tokens = on; }

void FakeModelServer::SetPromptCaching(bool on) { impl_->cache.SetEnabled(on); }

void FakeModelServer::AdvanceCacheClock(std::chrono::seconds by) { impl_->cache.Advance(by); }

void FakeModelServer::OnArrival(std::function<void()> callback) {
  impl_->on_arrival = std::move(callback);
}

void FakeModelServer::RecordRequests(bool on) {
  std::lock_guard lock(impl_->mu);
  impl_->record_requests = on;
}

std::vector<std::string> FakeModelServer::Violations() const {
  std::lock_guard lock(impl_->mu);
  std::vector<std::string> out = impl_->violations;
  if (impl_->violations_dropped > 0) {
    out.push_back("... and " + std::to_string(impl_->violations_dropped) + " more");
  }
  return out;
}

Result<std::vector<FakeStep>> FakeModelServer::ParseScript(const std::string& json_text) {
  json doc = json::parse(json_text, nullptr, false, /*ignore_comments=*/true);
  if (doc.is_discarded()) return Status::InvalidArgument("the script is not JSON");
  if (doc.is_object()) {
    if (doc.size() != 1 || !doc.contains("steps")) {
      return Status::InvalidArgument("the script is an array of steps or {\"steps\": [...]}");
    }
    doc = doc["steps"];
  }
  if (!doc.is_array()) {
    return Status::InvalidArgument("the script is an array of steps or {\"steps\": [...]}");
  }
  // Unknown keys are refused so that a misspelt one is not silently ignored.
  auto check = [](const json& obj, const std::string& where,
                  const Checker::FieldTypes& allowed) -> std::optional<Status> {
    if (!obj.is_object()) return Status::InvalidArgument(where + ": must be an object");
    for (const auto& [key, value] : obj.items()) {
      auto it = allowed.find(key);
      if (it == allowed.end())
        return Status::InvalidArgument(where + ": unknown key \"" + key + "\"");
      if (!HasType(value, it->second)) {
        return Status::InvalidArgument(where + "." + key + ": must be " + it->second);
      }
    }
    return std::nullopt;
  };
  std::vector<FakeStep> steps;
  for (size_t i = 0; i < doc.size(); ++i) {
    const json& s = doc[i];
    std::string where = At("steps", i);
    if (auto bad = check(s, where,
                         {{"text", "string"},
                          {"tool_calls", "array"},
                          {"fail", "object"},
                          {"raw_body", "string"},
                          {"delay_ms", "integer"}})) {
      return *bad;
    }
    FakeStep step;
    step.text = Str(s, "text");
    if (s.contains("raw_body")) step.raw_body = Str(s, "raw_body");
    if (s.contains("delay_ms")) {
      if (s["delay_ms"].get<int64_t>() < 0)
        return Status::InvalidArgument(where + ".delay_ms: negative");
      step.delay = std::chrono::milliseconds(s["delay_ms"].get<int64_t>());
    }
    if (s.contains("tool_calls")) {
      const json& calls = s["tool_calls"];
      for (size_t k = 0; k < calls.size(); ++k) {
        std::string cw = where + "." + At("tool_calls", k);
        if (auto bad =
                check(calls[k], cw,
                      {{"name", "string"}, {"arguments", "any"}, {"raw_arguments", "string"}})) {
          return *bad;
        }
        if (!calls[k].contains("name")) return Status::InvalidArgument(cw + ": no name");
        if (calls[k].contains("arguments") && calls[k].contains("raw_arguments")) {
          return Status::InvalidArgument(cw + ": arguments or raw_arguments, not both");
        }
        FakeToolCall call;
        call.name = Str(calls[k], "name");
        if (calls[k].contains("arguments")) call.arguments = calls[k]["arguments"];
        if (calls[k].contains("raw_arguments")) call.raw_arguments = Str(calls[k], "raw_arguments");
        step.tool_calls.push_back(std::move(call));
      }
    }
    if (s.contains("fail")) {
      const json& f = s["fail"];
      std::string fw = where + ".fail";
      if (auto bad =
              check(f, fw, {{"status", "integer"}, {"times", "integer"}, {"headers", "object"}})) {
        return *bad;
      }
      if (!f.contains("status")) return Status::InvalidArgument(fw + ": no status");
      step.fail_status = f["status"].get<int>();
      step.fail_times = f.value("times", 1);
      if (step.fail_status < 400 || step.fail_status > 599) {
        return Status::InvalidArgument(fw + ".status: must be an HTTP error status");
      }
      if (step.fail_times < 1) return Status::InvalidArgument(fw + ".times: must be at least 1");
      if (f.contains("headers")) {
        for (const auto& [name, value] : f["headers"].items()) {
          if (!value.is_string())
            return Status::InvalidArgument(fw + ".headers." + name + ": not a string");
          step.fail_headers[name] = value.get<std::string>();
        }
      }
    }
    steps.push_back(std::move(step));
  }
  return steps;
}

}  // namespace docwright::testing
