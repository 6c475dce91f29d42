// The JSON bodies of the requests that send a prompt (creating a job, v2 or v1,
// or a follow-up message), and their media type. They see bytes straight from
// the network, so they are a unit of their own, fuzzed by fuzz/prompt_body.cc.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/status.h"

namespace docwright {

struct PromptBody {
  std::string prompt;                // valid UTF-8, not blank, at most kMaxPromptChars
  std::optional<std::string> model;  // not blank, at most kMaxModelNameChars bytes
  bool draft = false;                // create only
};

// Parses {"prompt": ..., "model": ..., "draft": ...}. `draft` is read only with
// `allow_create_fields` (a follow-up message ignores it; a follow-up's `model`
// is the job's model from then on); other members are ignored. InvalidArgument, with a message for
// the client, for a body that is not UTF-8, not a JSON object, or has a missing or invalid member.
Result<PromptBody> ParsePromptBody(std::string_view body, bool allow_create_fields);

// The most messages a v1 create may carry.
inline constexpr size_t kMaxV1Messages = 100;

// The body of the reference's deprecated v1 create (docs/api.md, "v1 endpoints").
struct V1JobBody {
  // The contents of its `system` and `user` messages, in their order, joined by
  // a blank line: at most kMaxPromptChars, not blank. `assistant` messages
  // (few-shot examples) are not carried: docwright's agent takes none.
  std::string prompt;
  std::optional<std::string> branch;  // CheckBranchName holds
  bool draft = false;                 // asDraft
  std::optional<std::string> model;   // the reference's model name ("sonnet"), unmapped
};

// Parses {"messages": [{"role", "content"}, ...], "branch", "asDraft", "model"};
// other members are ignored. InvalidArgument, with a message for the client, as
// ParsePromptBody, and for messages that are missing, not an array, empty, more
// than kMaxV1Messages, or whose items lack a known role or a string content.
Result<V1JobBody> ParseV1JobBody(std::string_view body);

// Whether a Content-Type header declares JSON (application/json, any case, with
// or without parameters).
bool IsJsonContentType(std::string_view content_type);

}  // namespace docwright
