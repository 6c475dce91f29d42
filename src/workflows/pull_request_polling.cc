#include "workflows/pull_request_polling.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <thread>

#include "core/local_pull_request.h"
#include "core/text.h"
#include "forge/forge.h"

namespace docwright::workflows {
namespace {

// The state of the local forge's pull request `pr_link` names, from its record.
Result<std::string> LocalState(WorkflowStores store, const Job& job) {
  std::string id = job.pr_link->substr(job.pr_link->rfind('/') + 1);
  if (!LooksLikePullRequestId(id)) return Status::InvalidArgument("not a local pull request link");
  auto pr = store.pull_requests.GetPullRequest(id);
  if (!pr.ok()) return pr.status();
  if (pr->project_id != job.project_id) return Status::NotFound("pull request not found");
  if (pr->merged_at) return std::string("merged");
  if (pr->archived_at) return std::string("closed");
  return std::string("open");
}

}  // namespace

std::optional<int64_t> PullRequestNumberOf(const std::string& pr_link) {
  std::string_view link = pr_link;
  while (!link.empty() && link.back() == '/') link.remove_suffix(1);
  size_t slash = link.rfind('/');
  std::string_view last = slash == std::string_view::npos ? link : link.substr(slash + 1);
  if (last.empty() || last.size() > 18 || last.front() == '0' ||
      !std::all_of(last.begin(), last.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return std::nullopt;
  }
  return std::stoll(std::string(last));
}

Status PollPullRequests(WorkflowStores store, const ForgeEventContext& context,
                        const std::function<bool()>& stopping, int limit) {
  auto jobs = store.pull_requests.ListJobsWithOpenPullRequests(limit);
  if (!jobs.ok()) return jobs.status();
  Status first;
  auto note = [&](const Job& job, const Status& s) {
    spdlog::warn("workflows: the pull request of job {} cannot be asked about: {}", job.id,
                 OneLogLine(RedactCredentials(s.message()), 500));
    if (first.ok()) first = s;
  };
  // Waits between a forge's attempts, in short steps, ending when the engine stops.
  auto sleep = [&stopping](std::chrono::milliseconds d) {
    auto end = std::chrono::steady_clock::now() + d;
    while (std::chrono::steady_clock::now() < end) {
      if (stopping && stopping()) return false;
      std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
          std::chrono::milliseconds(50), end - std::chrono::steady_clock::now()));
    }
    return !(stopping && stopping());
  };
  std::map<std::string, Result<Project>> projects;
  for (const Job& job : *jobs) {
    if (stopping && stopping()) break;
    if (!job.pr_link) continue;
    auto known = projects.find(job.project_id);
    if (known == projects.end()) {
      known = projects.emplace(job.project_id, store.tenants.GetProjectById(job.project_id)).first;
    }
    if (!known->second.ok()) {
      note(job, known->second.status());
      continue;
    }
    const Project& project = *known->second;
    Result<std::string> state = Status::Internal("unset");
    if (project.forge == ForgeKind::kLocal) {
      state = LocalState(store, job);
    } else {
      std::optional<int64_t> number = PullRequestNumberOf(*job.pr_link);
      if (!number) {
        note(job, Status::InvalidArgument("its link names no pull request number"));
        continue;
      }
      forge::ForgeContext fc;
      fc.pull_requests = &store.pull_requests;
      fc.identity = &context.identity;
      fc.public_url = context.public_url;
      fc.max_attempts = context.forge_attempts;
      fc.max_delay = context.forge_max_delay;
      fc.sleep = sleep;
      auto made = forge::MakeForge(project, fc);
      if (!made.ok()) {
        note(job, made.status());
        continue;
      }
      auto status = (*made)->State(*number);
      if (status.ok()) {
        state = status->state;
      } else {
        state = status.status();
      }
    }
    if (!state.ok()) {
      note(job, state.status());
      continue;
    }
    if (*state != job.pr_state.value_or("")) {
      spdlog::info("workflows: the pull request of job {} is {}", job.id, *state);
    }
    // Also when unchanged: the job is then asked about after the others.
    if (Status s = store.pull_requests.SetPullRequestState(job.id, *state); !s.ok()) note(job, s);
  }
  return first;
}

}  // namespace docwright::workflows
