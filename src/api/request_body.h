// The JSON body of a request that sends a prompt (creating a job, or a follow-up
// message). It sees bytes straight from the network, so it is a unit of its own,
// fuzzed by fuzz/prompt_body.cc.
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

}  // namespace docwright
