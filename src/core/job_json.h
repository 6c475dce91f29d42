// The JSON of a job and of a turn's step, as every client sees them: the
// AgentJob object (the body of every poll, and the job in an event) and a
// transcript step (in the transcript, and in a step event). Written once, here,
// with the one JSON writer (core/json_writer.h). Free functions without state,
// callable from any thread.
#pragma once

#include <optional>

#include "core/job.h"
#include "core/json_writer.h"
#include "core/turn.h"

namespace docwright {

// The AgentJob object (docs/api.md): every field always present, in order;
// `trigger` is null unless a workflow started the job.
void WriteAgentJob(const Job& job, JsonWriter& w);
// A transcript step: {"type": "assistant"|"context"|"publish", "text"} or
// {"type": "tool", "tool", "arguments", "result", "isError"}; a publish step
// also names its "action".
void WriteStep(const TranscriptStep& step, JsonWriter& w);
// {"inputTokens", "outputTokens"}.
void WriteUsage(const TokenUsage& usage, JsonWriter& w);
// RFC 3339 in UTC, or null.
void WriteOptTime(const std::optional<UnixMillis>& t, JsonWriter& w);

}  // namespace docwright
