// The framing of the v1 create's answer: a job's events as the AI SDK's data
// stream protocol (version 1, the protocol of AI SDK 4's useChat) frames a chat
// reply, which is what the reference's own documentation tells its clients to
// read the answer with (docs/api.md, "The v1 stream", has the sources). Each
// part is one line, `<code>:<JSON>\n`:
//
//   2:[...]   data: the session at the start; docwright's event, whole (as the
//             event stream sends it), for a follow-up, a commit, a push and a
//             pull request opened or updated
//   f:{...}   start of a step: a turn started ({"messageId": job id})
//   0:"..."   text: what the model said, and the turn's summary
//   9:{...}   a tool call ({"toolCallId", "toolName", "args"}), then
//   a:{...}   its result ({"toolCallId", "result"})
//   e:{...}   end of a step: the turn ended ({"finishReason", "usage", "isContinued"})
//   3:"..."   error: why the job failed
//   d:{...}   finish: the stream's last part ({"finishReason"})
//
// Pure functions without state, callable from any thread; what they return is
// the bytes to write, complete lines only.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/event.h"
#include "core/job.h"

namespace docwright {

// The answer's media type: the data stream protocol's (not SSE's framing).
inline constexpr std::string_view kV1StreamContentType = "text/plain; charset=utf-8";

// The answer's headers besides Content-Type: X-Vercel-AI-Data-Stream: v1 (how
// an AI SDK client recognises the protocol), X-Session-Id (the job's id),
// X-Branch-Name (its branch) and Cache-Control: no-cache.
std::vector<std::pair<std::string, std::string>> V1StreamHeaders(const Job& job);

// The stream's first bytes: a data part with the session
// ({"type": "session", "sessionId", "branch", "status"}).
std::string V1StreamStart(const Job& job);

// The bytes `event` comes to, empty for an event the framing has no use for
// (job.created: the start said it; a step that put context in the model's
// prompt). An event after which the job is no longer active (V1StreamEnds)
// comes to the stream's end, as V1StreamEnd would write it for the job.
std::string V1StreamEvent(const JobEvent& event);

// Whether `event` ends a v1 stream: job.completed, job.failed, job.archived.
// Nothing is to be written after its bytes.
bool V1StreamEnds(const JobEvent& event);

// The stream's last bytes for `job` as it is now: an error part first if it
// failed, then the finish part, whose finishReason is "stop" (completed),
// "error" (failed), "other" (archived) or "unknown" (still active: the stream
// stops following it, at its deadline or the server's shutdown).
std::string V1StreamEnd(const Job& job);

}  // namespace docwright
