// The JSON of a job and of a turn's step, as every client sees them: the
// AgentJob object (the body of every poll, and the job in an event) and a
// transcript step (in the transcript, and in a step event). Written once, here,
// with the one JSON writer (core/json_writer.h). Free functions without state,
// callable from any thread.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/job.h"
#include "core/json_writer.h"
#include "core/turn.h"

namespace docwright {

// The AgentJob object (docs/api.md): every field always present, in order;
// `trigger` is null unless a workflow started the job. `currency` is the
// operator's price table's (WriteJobUsage).
void WriteAgentJob(const Job& job, JsonWriter& w, std::string_view currency = {});
// The job's `usage` object (docs/api.md): {"model", "inputTokens",
// "cachedInputTokens", "cacheWriteTokens", "outputTokens", "estimatedCost",
// "currency", "unpricedTurns"}, from Job::usage alone (no read). `currency` is
// the loaded price table's; "" when none is: then estimatedCost and currency
// are null. estimatedCost is null too while none of the job's turns was priced.
void WriteJobUsage(const Job& job, std::string_view currency, JsonWriter& w);
// `micros` as a JSON number of currency units, exact: 12345678 -> 12.345678,
// 2500000 -> 2.5, 0 -> 0.
std::string CostJsonNumber(int64_t micros);
// A transcript step: {"type": "assistant"|"context"|"publish", "text"} or
// {"type": "tool", "tool", "arguments", "result", "isError"}; a publish step
// also names its "action".
void WriteStep(const TranscriptStep& step, JsonWriter& w);
// {"inputTokens", "outputTokens"}.
void WriteUsage(const TokenUsage& usage, JsonWriter& w);
// RFC 3339 in UTC, or null.
void WriteOptTime(const std::optional<UnixMillis>& t, JsonWriter& w);

}  // namespace docwright
