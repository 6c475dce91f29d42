// What became of jobs' pull requests on their forges (Job::pr_state), asked
// of the forges: the workflows' engine does it every poll interval, for forges
// whose webhooks are not set up (or lost a delivery). Webhooks tell the same
// (HandlePullRequestEvent, workflows/forge_events.h).
//
// Thread-safe as the store is; one call at a time per engine.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "core/status.h"
#include "git/mirror_pool.h"
#include "workflows/forge_events.h"
#include "workflows/workflow_stores.h"

namespace docwright::workflows {

// The most jobs one poll asks about: those asked longest ago first
// (Store::ListJobsWithOpenPullRequests), so every job is asked in turn.
inline constexpr int kMaxPullRequestsPolled = 50;

// The number of the pull request a prLink names: its last path segment, when
// that is a number ("https://host/o/r/pull/12" → 12; GitLab's
// ".../-/merge_requests/12", Gitea's ".../pulls/12"); nullopt otherwise.
std::optional<int64_t> PullRequestNumberOf(const std::string& pr_link);

// For each of at most `limit` jobs whose pull request may be open: its state
// now (hosted forges: Forge::State, retried within `context`'s attempts; the
// local forge: its record's merged_at), recorded with SetPullRequestState.
// `stopping` ends the poll between jobs and cuts retries short. OK, or the
// first error met (every job is still tried); never logs a secret.
Status PollPullRequests(WorkflowStores store, const ForgeEventContext& context,
                        const std::function<bool()>& stopping, int limit = kMaxPullRequestsPolled);

}  // namespace docwright::workflows
