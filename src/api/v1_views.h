// The response bodies of the reference's deprecated v1 endpoints: a job as a v1
// "session" and the v1 listing, in the shapes of the reference document
// (docs/api.md, "v1 endpoints"), with the one JSON writer of the responses.
// Free functions without state, callable from any thread.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/job.h"
#include "http/server.h"
#include "store/store.h"

namespace docwright {

// What a v1 view reads of a job's messages (Store::ListMessageHeads): the first
// and the latest kV1TodoMessages, each prompt's first kV1PromptChars characters.
inline constexpr int kV1TodoMessages = 20;
inline constexpr int kV1PromptChars = 200;
// A todo's content and the title: the first line of a prompt, cut to this.
inline constexpr size_t kV1BriefBytes = 120;

// The reference's haultReason of `job`: "processing" while active, "completed",
// "error", "github_missconfigured" (a failure of the repository or the forge),
// or "interrupted" (archived while its turn was unfinished). `heads` are the
// job's, in order.
std::string_view V1HaltReason(const Job& job, std::span<const MessageHead> heads);

// {"sessionId", "subdomain", "branch", "haulted", "haultReason",
// "pullRequestLink"?, "messageToUser"?, "todos", "title", "createdAt"}.
HttpResponse V1JobResponse(const Job& job, std::span<const MessageHead> heads);
// {"allSessions": [...]}: `heads[i]` are `jobs[i]`'s.
HttpResponse V1JobListResponse(std::span<const Job> jobs,
                               std::span<const std::vector<MessageHead>> heads);

}  // namespace docwright
