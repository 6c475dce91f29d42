// The workflows' engine: the branches it watches (workflows/engine.h, step 2).
// A move of a branch, whether a poll found it or a forge told of it
// (engine_forge_events.cc), is handled by DocsBranchMoved or
// ContextBranchMoved, which record the new head once the runs it starts are
// started, so the other way of seeing the same move finds nothing new.
#include <algorithm>
#include <map>
#include <set>

#include "workflows/engine_internal.h"
#include "workflows/workflow_file.h"

namespace docwright::workflows {

using namespace engine;

Status WorkflowEngine::PollProjects(Round& round) {
  auto orgs = store_.tenants.ListOrgs();
  if (!orgs.ok()) return orgs.status();
  for (const Org& org : *orgs) {
    auto projects = store_.tenants.ListProjects(org.id);
    if (!projects.ok()) {
      round.Note(projects.status(), "the projects of organisation " + org.id);
      continue;
    }
    for (const Project& project : *projects) {
      if (stopping()) return Status();
      if (project.archived_at) continue;
      round.Note(PollProject(round, project), "project " + project.id);
    }
  }
  return Status();
}

Status WorkflowEngine::DocsBranchMoved(Round& round, const Project& project, git::Mirror& mirror,
                                       const std::vector<Workflow>& listed,
                                       const std::vector<ContextRepository>& contexts,
                                       const std::string& branch,
                                       const std::optional<std::string>& from,
                                       const std::string& to, std::vector<std::string>* started) {
  const std::string watch = "docs:" + branch;
  const std::string what = "branch " + branch + " of project " + project.id;
  std::vector<Workflow> workflows = listed;
  if (branch == project.base_ref) {
    // The workflow files, as the new head has them (also when first seen).
    WorkBudget budget(ReadLimits());
    auto snapshot = mirror.OpenSnapshot(to);
    if (!snapshot.ok()) return snapshot.status();
    (*snapshot)->SetBudget(&budget);
    auto files = ReadWorkflowFiles(**snapshot, contexts);
    if (!files.ok()) return files.status();
    for (Workflow& f : *files) {
      f.project_id = project.id;
      f.source = WorkflowSource::kFile;
    }
    if (Status s = store_.workflows.SyncFileWorkflows(project.id, to, std::move(*files)); !s.ok())
      return s;
    auto again = store_.workflows.ListWorkflows(project.id);
    if (!again.ok()) return again.status();
    workflows = std::move(*again);
  }
  std::vector<const Workflow*> pushed;
  for (const Workflow& w : workflows) {
    if (Runnable(w, TriggerKind::kPush) && PushBranch(w, project) == branch) pushed.push_back(&w);
  }
  bool failed = false;
  if (from && !pushed.empty()) {
    auto log = mirror.Log(*from, to, kMaxOwnCommitsChecked);
    if (!log.ok()) return log.status();
    // Nothing new (the branch went back), or only docwright's own commits:
    // its runs do not start runs.
    bool ours = log->size() < kMaxOwnCommitsChecked &&
                std::all_of(log->begin(), log->end(), IsDocwrightCommit);
    if (ours && started) started->push_back("only docwright's own commits: no run");
    if (!ours) {
      RunChanges changes = ChangesIn(mirror, *from, to);
      for (const Workflow* w : pushed) {
        RunTrigger trigger;
        trigger.kind = "push";
        trigger.workflow = w->name;
        trigger.repository = "docs";
        trigger.branch = branch;
        trigger.from = *from;
        trigger.to = to;
        auto outcome = WorkflowRunStart::Outcome::kRefused;
        Status s = Start(*w, "push:" + to, trigger, &changes, std::nullopt, &outcome);
        round.Note(s, "the push run of " + w->name + " on " + what);
        failed = failed || !s.ok();
        if (started) {
          started->push_back(w->name + ": " +
                             (s.ok() ? std::string(OutcomeWord(outcome)) : "failed to start"));
        }
      }
    }
  }
  // Not moved on while a run failed to start: the next round tries again
  // (the dedup key keeps those that started from starting twice).
  if (failed) return Status();
  return store_.workflows.SetWatchedHead(project.id, watch, to);
}

Status WorkflowEngine::PollProject(Round& round, const Project& project) {
  auto listed = store_.workflows.ListWorkflows(project.id);
  if (!listed.ok()) return listed.status();
  auto contexts = store_.workflows.ListContextRepositories(project.id);
  if (!contexts.ok()) return contexts.status();
  auto cancelled = [this] { return stopping(); };

  // The docs repository: its base branch (for the workflow files) and the
  // branches its push workflows watch.
  std::set<std::string> branches{project.base_ref};
  for (const Workflow& w : *listed) {
    if (Runnable(w, TriggerKind::kPush)) branches.insert(PushBranch(w, project));
  }
  // An unreachable docs repository does not keep the context repositories
  // from being watched: its error is noted, and the round goes on.
  Status docs = [&]() -> Status {
    auto mirror = mirrors_->ForProject(project);
    if (!mirror.ok()) return mirror.status();
    auto heads = (*mirror)->FetchBranches(
        std::vector<std::string>(branches.begin(), branches.end()), cancelled);
    if (!heads.ok()) return heads.status();
    for (const auto& [branch, head] : *heads) {
      if (!head || stopping()) continue;  // no such branch (yet)
      auto old = store_.workflows.GetWatchedHead(project.id, "docs:" + branch);
      if (!old.ok()) return old.status();
      if (*old == *head) continue;
      Status s = DocsBranchMoved(round, project, **mirror, *listed, *contexts, branch, *old, *head,
                                 nullptr);
      if (!s.ok()) return s;
    }
    return Status();
  }();
  round.Note(docs, "the docs repository of project " + project.id);

  // The context repositories' branches its merge workflows watch.
  std::map<std::string, std::vector<const Workflow*>> by_repository;
  for (const Workflow& w : *listed) {
    if (Runnable(w, TriggerKind::kMerge)) by_repository[w.trigger.repository].push_back(&w);
  }
  for (const auto& [repository, merged] : by_repository) {
    if (stopping()) return Status();
    const std::string& name = repository;  // a lambda may not capture a structured binding
    auto repo = std::find_if(contexts->begin(), contexts->end(),
                             [&name](const ContextRepository& r) { return r.name == name; });
    if (repo == contexts->end()) {
      round.Note(Status::NotFound("no context repository " + name),
                 "the merge workflows of project " + project.id);
      continue;
    }
    round.Note(PollContext(round, project, *repo, merged),
               "context repository " + name + " of project " + project.id);
  }
  return Status();
}

Status WorkflowEngine::ContextBranchMoved(Round& round, const Project& project,
                                          const ContextRepository& repo, git::Mirror& mirror,
                                          const std::vector<const Workflow*>& merged,
                                          const std::string& branch,
                                          const std::optional<std::string>& from,
                                          const std::string& to,
                                          std::vector<std::string>* started) {
  bool failed = false;
  if (from) {
    RunChanges changes = ChangesIn(mirror, *from, to);
    for (const Workflow* w : merged) {
      RunTrigger trigger;
      trigger.kind = "merge";
      trigger.workflow = w->name;
      trigger.repository = repo.name;
      trigger.branch = branch;
      trigger.from = *from;
      trigger.to = to;
      auto outcome = WorkflowRunStart::Outcome::kRefused;
      Status s =
          Start(*w, "merge:" + repo.name + ":" + to, trigger, &changes, std::nullopt, &outcome);
      round.Note(s, "the merge run of " + w->name + " of project " + project.id);
      failed = failed || !s.ok();
      if (started) {
        started->push_back(w->name + ": " +
                           (s.ok() ? std::string(OutcomeWord(outcome)) : "failed to start"));
      }
    }
  }
  if (failed) return Status();
  return store_.workflows.SetWatchedHead(project.id, "context:" + repo.name + ":" + branch, to);
}

Status WorkflowEngine::PollContext(Round& round, const Project& project,
                                   const ContextRepository& repo,
                                   const std::vector<const Workflow*>& merged) {
  auto mirror = mirrors_->ForContext(project, repo);
  if (!mirror.ok()) return mirror.status();
  std::string default_branch;
  if (!repo.branch) {
    bool needed = std::any_of(merged.begin(), merged.end(),
                              [](const Workflow* w) { return w->trigger.branch.empty(); });
    if (needed) {
      auto found = (*mirror)->DefaultBranch();
      if (!found.ok()) return found.status();
      default_branch = *found;
    }
  }
  auto branch_of = [&](const Workflow* w) {
    return !w->trigger.branch.empty() ? w->trigger.branch : repo.branch.value_or(default_branch);
  };
  std::set<std::string> branches;
  for (const Workflow* w : merged) branches.insert(branch_of(w));
  auto heads = (*mirror)->FetchBranches(std::vector<std::string>(branches.begin(), branches.end()),
                                        [this] { return stopping(); });
  if (!heads.ok()) return heads.status();
  for (const auto& [branch, head] : *heads) {
    if (!head || stopping()) continue;
    auto old = store_.workflows.GetWatchedHead(project.id, "context:" + repo.name + ":" + branch);
    if (!old.ok()) return old.status();
    if (*old == *head) continue;
    std::vector<const Workflow*> on_branch;
    for (const Workflow* w : merged) {
      if (branch_of(w) == branch) on_branch.push_back(w);
    }
    Status s =
        ContextBranchMoved(round, project, repo, **mirror, on_branch, branch, *old, *head, nullptr);
    if (!s.ok()) return s;
  }
  return Status();
}

}  // namespace docwright::workflows
