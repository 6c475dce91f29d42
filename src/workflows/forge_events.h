// What the workflows' engine does with a forge's webhook delivery
// (core/forge_event.h) once the API recorded it (Store::RecordForgeEvent).
// Each round the engine reads the pending events, oldest first, and hands
// each to the handler of its kind; the handler's outcome sentence is recorded
// with the event (Store::FinishForgeEvent), for the operator.
//   kPush         the engine's own (engine_forge_events.cc): the push is
//                 handled as a polled move of the branch from `before` to
//                 `after` (workflows/engine.h);
//   kPullRequest  HandlePullRequestEvent (pull_request_events.cc): a job's pull
//                 request closed or merged on the forge (the job's prState);
//   kComment      HandleCommentEvent (comment_events.cc): a comment or review
//                 on a job's pull request, maybe a follow-up of the job.
// A handler is called once per event per node that reads it pending: two
// nodes may both handle one event, so what a handler starts must be
// idempotent (dedup keys, idempotency keys), as the engine's runs are.
// Handlers are called from the engine's thread, one at a time.
#pragma once

#include <chrono>
#include <string>

#include "core/forge_event.h"
#include "core/status.h"
#include "git/git.h"
#include "git/mirror_pool.h"
#include "workflows/workflow_stores.h"

namespace docwright::workflows {

// What the handlers need of the node besides the store and the mirrors: how to
// reach the forges (as the turns do) and who docwright is.
struct ForgeEventContext {
  std::string public_url;  // where docwright's pages are served (local pull requests)
  int forge_attempts = 4;  // attempts per request to a hosted forge
  std::chrono::milliseconds forge_max_delay{30000};  // the longest wait between them
  git::Identity identity;                            // author and committer of docwright's commits
};

// A pull request of the project closed, merged or reopened (`event.kind` is
// kPullRequest): the job whose branch it is gets its prState. Returns what was
// done, in a sentence ("job X: pull request merged", "no job has branch Y").
// An error is recorded as the event's outcome (Unavailable: tried again next
// round, for a while).
Result<std::string> HandlePullRequestEvent(WorkflowStores store, git::MirrorPool& mirrors,
                                           const ForgeEventContext& context,
                                           const ForgeEvent& event);

// A comment or review on a pull request of the project (`event.kind` is
// kComment): a follow-up of the job whose pull request it is when it asks for
// one (see the contract of unit COMMENTS). Returns what was done, in a
// sentence; errors as HandlePullRequestEvent's.
Result<std::string> HandleCommentEvent(WorkflowStores store, git::MirrorPool& mirrors,
                                       const ForgeEventContext& context, const ForgeEvent& event);

}  // namespace docwright::workflows
