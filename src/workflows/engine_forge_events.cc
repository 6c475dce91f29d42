// The workflows' engine: the forges' webhook deliveries (workflows/forge_events.h).
// A push is matched with the project's docs repository and its context
// repositories by URL, fetched, and handled as the polls handle a branch that
// moved (engine_branches.cc), from the push's `before` to its `after`; pull
// requests' and comments' events go to their handlers. Each event is finished
// with what it did, or, after a failure, tried again for a while when the
// failure may pass (Unavailable), then finished with it.
#include <algorithm>
#include <functional>
#include <set>

#include "core/url.h"
#include "workflows/engine_internal.h"

namespace docwright::workflows {
namespace {

// What the URLs of one repository have in common: "host/path" (the path
// without a trailing ".git" or "/"), or "path:<path>" for a local one; lower
// case. Empty for a URL without a path.
std::string RepositoryKey(std::string_view url) {
  std::string text(TrimSpace(url));
  std::optional<Url> parsed = ParseUrl(text);
  std::string prefix, path;
  if (parsed && !parsed->host.empty()) {
    prefix = parsed->host + "/";
    path = parsed->path;
    while (!path.empty() && path.front() == '/') path.erase(0, 1);
  } else {
    if (text.starts_with("file://")) text.erase(0, 7);
    prefix = "path:";
    path = text;
  }
  while (!path.empty() && path.back() == '/') path.pop_back();
  if (path.ends_with(".git")) path.resize(path.size() - 4);
  while (!path.empty() && path.back() == '/') path.pop_back();
  if (path.empty()) return "";
  return Lower(prefix + path);
}

bool IsZeroSha(const std::string& sha) {
  return std::all_of(sha.begin(), sha.end(), [](char c) { return c == '0'; });
}

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : "; ") + p;
  return out;
}

}  // namespace

using namespace engine;

namespace {

// A watched branch moved: from where it was (nullopt: first seen) to `to`;
// names the runs it started in `started`.
using Moved = std::function<Status(const std::optional<std::string>& from, const std::string& to,
                                   std::vector<std::string>* started)>;

// Fetches the pushed branch into `mirror` and hands its move to `moved`: from
// the head last seen under `watch` (else the push's `before`: a branch first
// seen) to the head fetched now, so a late or retried delivery neither acts on
// an old commit nor skips commits an earlier push brought. Nothing when the
// branch is gone or its head was seen already (a poll, or a delivery of the
// same push). Returns what it did, for the event's outcome.
Result<std::string> FollowPush(WorkflowStores store, git::Mirror& mirror,
                               const std::function<bool()>& stopping, const std::string& project_id,
                               const ForgeEvent& event, const std::string& watch,
                               const Moved& moved) {
  const std::string& branch = event.branch;
  auto heads = mirror.FetchBranches({branch}, stopping);
  if (!heads.ok()) return heads.status();
  auto head = heads->find(branch);
  if (head == heads->end() || !head->second) return std::string("the branch is gone");
  auto old = store.workflows.GetWatchedHead(project_id, watch);
  if (!old.ok()) return old.status();
  if (*old == event.after || *old == head->second) return std::string("already seen");
  std::optional<std::string> from = *old;
  if (!from && !event.before.empty() && !IsZeroSha(event.before)) from = event.before;
  std::vector<std::string> started;
  if (Status s = moved(from, *head->second, &started); !s.ok()) return s;
  if (!from) return std::string("first seen: its head recorded");
  return started.empty() ? std::string("no workflow run") : Join(started);
}

// The branches of the docs repository a push is followed on: the base branch
// and those of its runnable push workflows.
std::set<std::string> WatchedDocsBranches(const Project& project,
                                          const std::vector<Workflow>& listed) {
  std::set<std::string> watched{project.base_ref};
  for (const Workflow& w : listed) {
    if (Runnable(w, TriggerKind::kPush)) watched.insert(PushBranch(w, project));
  }
  return watched;
}

// The runnable merge workflows of `listed` that watch context repository `repo`.
std::vector<const Workflow*> MergeWorkflowsOf(const std::vector<Workflow>& listed,
                                              const ContextRepository& repo) {
  std::vector<const Workflow*> merged;
  for (const Workflow& w : listed) {
    if (Runnable(w, TriggerKind::kMerge) && w.trigger.repository == repo.name) {
      merged.push_back(&w);
    }
  }
  return merged;
}

// Those of `merged` that watch `branch` of `repo`: a workflow's own branch,
// else the repository's configured one, else its default branch (asked of
// `mirror` only when some workflow needs it).
Result<std::vector<const Workflow*>> WatchingBranch(const std::vector<const Workflow*>& merged,
                                                    const ContextRepository& repo,
                                                    git::Mirror& mirror,
                                                    const std::string& branch) {
  std::string default_branch;
  if (!repo.branch && std::any_of(merged.begin(), merged.end(),
                                  [](const Workflow* w) { return w->trigger.branch.empty(); })) {
    auto found = mirror.DefaultBranch();
    if (!found.ok()) return found.status();
    default_branch = *found;
  }
  std::vector<const Workflow*> on_branch;
  for (const Workflow* w : merged) {
    const std::string& watched =
        !w->trigger.branch.empty() ? w->trigger.branch : repo.branch.value_or(default_branch);
    if (watched == branch) on_branch.push_back(w);
  }
  return on_branch;
}

}  // namespace

bool SameRepository(std::string_view a, std::string_view b) {
  std::string key = RepositoryKey(a);
  return !key.empty() && key == RepositoryKey(b);
}

Status WorkflowEngine::HandleForgeEvents(Round& round) {
  auto events = store_.workflows.ListPendingForgeEvents(kMaxForgeEventsPerRound);
  if (!events.ok()) return events.status();
  const int64_t retry_window =
      std::chrono::duration_cast<std::chrono::milliseconds>(kForgeEventRetryWindow).count();
  for (const ForgeEvent& e : *events) {
    if (stopping()) break;
    const std::string what = "the " + std::string(ToString(e.forge)) + " " +
                             std::string(ToString(e.kind)) + " event " + std::to_string(e.id) +
                             " of project " + e.project_id;
    Result<std::string> outcome = std::string("an event of a kind this version does not know");
    switch (e.kind) {
      case ForgeEventKind::kPush:
        outcome = HandlePush(round, e);
        break;
      case ForgeEventKind::kPullRequest:
        outcome = HandlePullRequestEvent(store_, *mirrors_, options_.forge_events, e);
        break;
      case ForgeEventKind::kComment:
        outcome = HandleCommentEvent(store_, *mirrors_, options_.forge_events, e);
        break;
    }
    std::string text;
    if (outcome.ok()) {
      text = std::move(*outcome);
    } else if (outcome.status().code() == Code::kUnavailable &&
               NowMillis() - e.received_at < retry_window) {
      round.Note(outcome.status(), what);  // left pending: the next round tries again
      continue;
    } else {
      text = "failed: " + outcome.status().message();
    }
    spdlog::info("workflows: {}: {}", what, OneLogLine(text, 500));
    round.Note(store_.workflows.FinishForgeEvent(e.id, text), what);
  }
  return Status();
}

Result<std::string> WorkflowEngine::HandlePush(Round& round, const ForgeEvent& event) {
  auto project = store_.tenants.GetProjectById(event.project_id);
  if (!project.ok()) {
    if (project.status().code() == Code::kNotFound) return std::string("the project is gone");
    return project.status();
  }
  if (project->archived_at) return std::string("the project is archived: nothing done");
  if (event.branch.empty() || event.after.empty() || IsZeroSha(event.after)) {
    return std::string("not a push to a branch: nothing done");
  }
  auto listed = store_.workflows.ListWorkflows(project->id);
  if (!listed.ok()) return listed.status();
  auto contexts = store_.workflows.ListContextRepositories(project->id);
  if (!contexts.ok()) return contexts.status();
  auto pushed_to = [&](const std::string& url) {
    return std::any_of(event.repository_urls.begin(), event.repository_urls.end(),
                       [&](const std::string& u) { return SameRepository(u, url); });
  };
  const std::string& branch = event.branch;
  const std::function<bool()> stopped = [this] { return stopping(); };

  std::vector<std::string> said;
  bool matched = false;
  if (pushed_to(project->repository)) {
    matched = true;
    const std::string where = "branch " + branch + " of the docs repository: ";
    if (!WatchedDocsBranches(*project, *listed).contains(branch)) {
      said.push_back(where + "not watched");
    } else {
      auto mirror = mirrors_->ForProject(*project);
      if (!mirror.ok()) return mirror.status();
      auto done = FollowPush(store_, **mirror, stopped, project->id, event, "docs:" + branch,
                             [&](const auto& from, const auto& to, auto* started) {
                               return DocsBranchMoved(round, *project, **mirror, *listed, *contexts,
                                                      branch, from, to, started);
                             });
      if (!done.ok()) return done.status();
      said.push_back(where + *done);
    }
  }
  for (const ContextRepository& repo : *contexts) {
    if (!pushed_to(repo.repository)) continue;
    matched = true;
    const std::string where = "branch " + branch + " of context repository " + repo.name + ": ";
    std::vector<const Workflow*> merged = MergeWorkflowsOf(*listed, repo);
    if (merged.empty()) {
      said.push_back(where + "no merge workflow watches the repository");
      continue;
    }
    auto mirror = mirrors_->ForContext(*project, repo);
    if (!mirror.ok()) return mirror.status();
    auto on_branch = WatchingBranch(merged, repo, **mirror, branch);
    if (!on_branch.ok()) return on_branch.status();
    if (on_branch->empty()) {
      said.push_back(where + "not watched");
      continue;
    }
    auto done = FollowPush(store_, **mirror, stopped, project->id, event,
                           "context:" + repo.name + ":" + branch,
                           [&](const auto& from, const auto& to, auto* started) {
                             return ContextBranchMoved(round, *project, repo, **mirror, *on_branch,
                                                       branch, from, to, started);
                           });
    if (!done.ok()) return done.status();
    said.push_back(where + *done);
  }
  if (!matched) return std::string("a push to none of the project's repositories: nothing done");
  return Join(said);
}

}  // namespace docwright::workflows
