#include "api/request_body.h"

#include <nlohmann/json.hpp>

#include "core/job.h"
#include "core/text.h"

namespace docwright {

namespace {

using Json = nlohmann::ordered_json;

// The body as a JSON object, or why it is not one.
Result<Json> ParseObject(std::string_view text) {
  if (!Utf8Length(text)) return Status::InvalidArgument("the request body is not valid UTF-8");
  Json body = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded()) return Status::InvalidArgument("the request body is not valid JSON");
  if (!body.is_object()) return Status::InvalidArgument("the request body must be a JSON object");
  return body;
}

Status CheckPromptLength(std::string_view what, std::string_view prompt) {
  size_t chars = Utf8Length(prompt).value_or(0);
  if (chars <= kMaxPromptChars) return Status();
  return Status::InvalidArgument(std::string(what) + " too long: " + std::to_string(chars) +
                                 " characters, the limit is " + std::to_string(kMaxPromptChars));
}

// The messages of a v1 body as one prompt.
Result<std::string> V1Prompt(const Json& body) {
  auto it = body.find("messages");
  if (it == body.end() || it->is_null()) return Status::InvalidArgument("messages is required");
  if (!it->is_array()) return Status::InvalidArgument("messages must be an array");
  if (it->empty()) return Status::InvalidArgument("messages must not be empty");
  if (it->size() > kMaxV1Messages) {
    return Status::InvalidArgument("messages may hold at most " + std::to_string(kMaxV1Messages) +
                                   " messages");
  }
  std::string prompt;
  for (size_t i = 0; i < it->size(); ++i) {
    const Json& m = (*it)[i];
    const std::string at = "messages[" + std::to_string(i) + "]";
    if (!m.is_object()) return Status::InvalidArgument(at + " must be an object");
    auto role = m.find("role");
    if (role == m.end() || !role->is_string()) {
      return Status::InvalidArgument(at + ".role is required: system, user or assistant");
    }
    const std::string& r = role->get_ref<const std::string&>();
    if (r != "system" && r != "user" && r != "assistant") {
      return Status::InvalidArgument(at + ".role must be system, user or assistant");
    }
    auto content = m.find("content");
    if (content == m.end() || !content->is_string()) {
      return Status::InvalidArgument(at + ".content is required and must be a string");
    }
    const std::string& text = content->get_ref<const std::string&>();
    if (HasControlCharacter(text, /*allow_line_breaks=*/true)) {
      return Status::InvalidArgument(
          at + ".content must not contain control characters (other than tab and line breaks)");
    }
    if (r == "assistant" || IsBlank(text)) continue;
    if (!prompt.empty()) prompt += "\n\n";
    prompt += text;
    // Checked as it grows, so a body of many long messages stops early.
    if (Status s = CheckPromptLength("the system and user messages together are", prompt);
        !s.ok()) {
      return s;
    }
  }
  if (prompt.empty()) {
    return Status::InvalidArgument(
        "messages must hold a user (or system) message with an instruction");
  }
  return prompt;
}

}  // namespace

Result<PromptBody> ParsePromptBody(std::string_view text, bool allow_create_fields) {
  auto parsed = ParseObject(text);
  if (!parsed.ok()) return parsed.status();
  const Json& body = *parsed;
  PromptBody out;
  auto it = body.find("prompt");
  if (it == body.end() || it->is_null()) return Status::InvalidArgument("prompt is required");
  if (!it->is_string()) return Status::InvalidArgument("prompt must be a string");
  out.prompt = it->get<std::string>();
  if (IsBlank(out.prompt)) return Status::InvalidArgument("prompt must not be empty");
  if (HasControlCharacter(out.prompt, /*allow_line_breaks=*/true)) {
    return Status::InvalidArgument(
        "prompt must not contain control characters (other than tab and line breaks)");
  }
  if (Status s = CheckPromptLength("prompt is", out.prompt); !s.ok()) return s;
  if (auto m = body.find("model"); m != body.end() && !m->is_null()) {
    if (!m->is_string()) return Status::InvalidArgument("model must be a string");
    std::string model = m->get<std::string>();
    if (IsBlank(model) || model.size() > kMaxModelNameChars) {
      return Status::InvalidArgument("model must be 1 to " + std::to_string(kMaxModelNameChars) +
                                     " characters");
    }
    if (HasControlCharacter(model, /*allow_line_breaks=*/false) ||
        model.find_first_of(" \t") != std::string::npos) {
      return Status::InvalidArgument("model must not contain spaces or control characters");
    }
    out.model = std::move(model);
  }
  if (allow_create_fields) {
    if (auto d = body.find("draft"); d != body.end() && !d->is_null()) {
      if (!d->is_boolean()) return Status::InvalidArgument("draft must be true or false");
      out.draft = d->get<bool>();
    }
  }
  return out;
}

Result<V1JobBody> ParseV1JobBody(std::string_view text) {
  auto parsed = ParseObject(text);
  if (!parsed.ok()) return parsed.status();
  const Json& body = *parsed;
  V1JobBody out;
  auto prompt = V1Prompt(body);
  if (!prompt.ok()) return prompt.status();
  out.prompt = std::move(*prompt);
  if (auto b = body.find("branch"); b != body.end() && !b->is_null()) {
    if (!b->is_string()) return Status::InvalidArgument("branch must be a string");
    std::string branch = b->get<std::string>();
    if (Status s = CheckBranchName(branch); !s.ok()) return s;
    out.branch = std::move(branch);
  }
  if (auto d = body.find("asDraft"); d != body.end() && !d->is_null()) {
    if (!d->is_boolean()) return Status::InvalidArgument("asDraft must be true or false");
    out.draft = d->get<bool>();
  }
  if (auto m = body.find("model"); m != body.end() && !m->is_null()) {
    if (!m->is_string()) return Status::InvalidArgument("model must be a string");
    out.model = m->get<std::string>();
  }
  return out;
}

bool IsJsonContentType(std::string_view ct) {
  std::string_view media = TrimSpace(ct.substr(0, ct.find(';')));
  if (media.size() != 16) return false;
  for (size_t i = 0; i < media.size(); ++i) {
    char c = media[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != "application/json"[i]) return false;
  }
  return true;
}

}  // namespace docwright
