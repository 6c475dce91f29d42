// HandlePullRequestEvent (workflows/forge_events.h): a pull request closed,
// merged or reopened on the forge, told by its webhook, becomes its job's
// prState.
#include <spdlog/spdlog.h>

#include "core/text.h"
#include "forge/forge.h"
#include "workflows/comment_replies.h"
#include "workflows/forge_events.h"
#include "workflows/pull_request_polling.h"

namespace docwright::workflows {

Result<std::string> HandlePullRequestEvent(WorkflowStores store, git::MirrorPool& /*mirrors*/,
                                           const ForgeEventContext& context,
                                           const ForgeEvent& event) {
  if (event.kind != ForgeEventKind::kPullRequest) {
    return std::string("not a pull request event: nothing done");
  }
  const std::string what = "pull request #" + std::to_string(event.pr_number);
  std::string state;
  if (event.pr_merged) {
    state = "merged";  // closed by its merge (GitLab names the action "merge")
  } else if (event.pr_action == "closed" || event.pr_action == "close") {
    state = "closed";
  } else if (event.pr_action == "reopened" || event.pr_action == "reopen") {
    state = "open";
  } else {
    return what + " " + std::string(CutUtf8(event.pr_action, 100)) + ": nothing to record";
  }
  if (event.pr_head.empty()) return what + " names no branch: nothing done";
  auto job = store.pull_requests.FindJobByBranch(event.project_id, event.pr_head);
  if (!job.ok()) {
    if (job.status().code() != Code::kNotFound) return job.status();
    return what + ": no job works on its branch; nothing done";
  }
  // The job's own pull request, not an earlier one of the branch (or one a
  // person opened from it): its prLink names it.
  if (!job->pr_link) return what + ": job " + job->id + " has no pull request; nothing done";
  std::optional<int64_t> number = PullRequestNumberOf(*job->pr_link);
  bool same =
      number ? *number == event.pr_number : !event.pr_url.empty() && *job->pr_link == event.pr_url;
  if (!same) return what + " is not the pull request of job " + job->id + "; nothing done";
  // The delivery says what happened, but deliveries come late, twice, or out
  // of order (a "closed" after the "reopened" that followed it): what is
  // recorded is what the forge says now.
  auto project = store.tenants.GetProjectById(event.project_id);
  if (!project.ok()) return project.status();
  auto forge = forge::MakeForge(*project, ForgeContextFor(store, context));
  if (!forge.ok()) return forge.status();
  auto now = (*forge)->State(event.pr_number);
  if (!now.ok()) return now.status();
  state = now->state;
  if (Status s = store.pull_requests.SetPullRequestState(job->id, state); !s.ok()) return s;
  spdlog::info("workflows: the pull request of job {} is {} (webhook)", job->id, state);
  return what + " of job " + job->id + " is " + state;
}

}  // namespace docwright::workflows
