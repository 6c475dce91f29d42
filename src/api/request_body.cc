#include "api/request_body.h"

#include <nlohmann/json.hpp>

#include "core/job.h"
#include "core/text.h"

namespace docwright {

Result<PromptBody> ParsePromptBody(std::string_view text, bool allow_create_fields) {
  using Json = nlohmann::ordered_json;
  if (!Utf8Length(text)) return Status::InvalidArgument("the request body is not valid UTF-8");
  Json body = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (body.is_discarded()) return Status::InvalidArgument("the request body is not valid JSON");
  if (!body.is_object()) return Status::InvalidArgument("the request body must be a JSON object");
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
  size_t chars = Utf8Length(out.prompt).value_or(0);
  if (chars > kMaxPromptChars) {
    return Status::InvalidArgument("prompt is too long: " + std::to_string(chars) +
                                   " characters, the limit is " + std::to_string(kMaxPromptChars));
  }
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

}  // namespace docwright
