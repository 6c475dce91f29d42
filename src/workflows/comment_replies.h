// Follow-ups from the pull request (docs/api.md): a comment that mentions the
// project's handle, by an account that may write to the repository, becomes a
// follow-up of the job whose branch the pull request is from
// (HandleCommentEvent, workflows/forge_events.h); once that follow-up's turn
// has finished, docwright replies on the pull request with what it changed or
// why it could not (PostDueReplies, from the workflows' engine's rounds).
//
// Thread-safety: every function may be called from any thread; PostDueReplies
// may run on many nodes at once (the store holds each due reply for one).
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "core/job.h"
#include "forge/forge.h"
#include "workflows/forge_events.h"
#include "workflows/workflow_stores.h"

namespace docwright::workflows {

// What every reply of docwright's starts with: a comment carrying it is
// docwright's own, and never becomes a follow-up.
inline constexpr std::string_view kReplyMarker = "<!-- docwright:reply -->";

// A reply that fails to post is tried again on a later round, at most this
// many times over about an hour (kReplyRetryDelays between them), then given
// up on with a log line.
inline constexpr int kMaxReplyAttempts = 5;
inline constexpr std::chrono::minutes kReplyRetryDelays[kMaxReplyAttempts - 1] = {
    std::chrono::minutes(2), std::chrono::minutes(8), std::chrono::minutes(20),
    std::chrono::minutes(30)};

// The most due replies one round posts.
inline constexpr int kMaxRepliesPerRound = 50;

// The summary or error a reply quotes is cut to this many bytes.
inline constexpr size_t kMaxReplyQuoteBytes = 4000;

// Whether `text` mentions "@" + `handle` as a whole word, in any case: not
// inside an e-mail address or a longer handle ("@docwright-bot"), nor in a
// quoted line ("> ...", a reply quoting an earlier comment).
bool MentionsHandle(std::string_view text, std::string_view handle);

// `text` without its mentions of `handle` (and the ", " or ": " after one),
// trimmed.
std::string WithoutMentions(std::string_view text, std::string_view handle);

// The reply to the comment that made `message` a follow-up of `job`, whose
// turn has finished: the marker, then the turn's summary and the job's pull
// request (or commit), or the turn's error. Mentions in the quoted text are
// defused, so a reply never notifies anyone.
std::string ReplyBody(const Job& job, const Message& message);

// The forge context of the hosted forges' calls made while handling a forge's
// events: `context`'s attempts and delays.
forge::ForgeContext ForgeContextFor(WorkflowStores store, const ForgeEventContext& context);

// Posts the replies whose follow-ups' turns have finished (at most
// kMaxRepliesPerRound), each in the thread of its review comment when it has
// one. Never fails: every error is logged, and the reply tried again later as
// above. Replies of a project or job that no longer exists are given up on.
void PostDueReplies(WorkflowStores store, const ForgeEventContext& context);

}  // namespace docwright::workflows
