// The API's response bodies: jobs, job lists, transcripts, the health check and
// the errors a Status stands for, each rendered with the one JSON writer of the
// responses (core/json_writer.h), so every body escapes and replaces invalid
// UTF-8 the same way. The shapes are the contract of docs/api.md: fields keep
// their order. Free functions without state, callable from any thread; they
// keep nothing of their arguments.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "core/job.h"
#include "core/status.h"
#include "core/turn.h"
#include "http/server.h"
#include "store/store.h"

namespace docwright {

// A transcript page stops at the message that takes it past this size; a single
// message's steps are cut to fit it (the turn then says how many were left out).
inline constexpr size_t kMaxTranscriptPageBytes = 1 << 20;

// The AgentJob object, the body of every poll; `currency` names the estimated
// cost of its usage ("" when no price table is loaded: core/job_json.h).
HttpResponse JobResponse(int status, const Job& job, std::string_view currency);
// {"jobs": [...], "nextCursor": id or null}.
HttpResponse JobListResponse(const JobPage& page, std::string_view currency);

// {"jobId", "usage", "messages", "nextCursor"}: the page's messages, each with
// its turn's steps taken from `steps` (the steps of the page's messages, in
// order by message seq, as Store::ListSteps gives them), until the page
// reaches kMaxTranscriptPageBytes; nextCursor then names the first message
// left for the next page. Each turn shows its tokens by kind, its model and
// its estimated cost (null without `currency`, the price table's).
HttpResponse TranscriptResponse(const std::string& job_id, const TokenUsage& usage,
                                const MessagePage& page,
                                std::span<const std::pair<int, TranscriptStep>> steps,
                                std::string_view currency);

// {"status": "ok", "version", "commit"}.
HttpResponse HealthResponse();

// The error response `status` stands for (an error status; kOk is answered as
// an internal error). Internal and unavailable errors are logged, and the
// client is told no more than that.
HttpResponse ResponseFromStatus(const Status& status);
// 405 with Allow: `allow`.
HttpResponse MethodNotAllowed(std::string_view allow);
// 415 for a request body that is not declared JSON.
HttpResponse UnsupportedMediaType();

}  // namespace docwright
