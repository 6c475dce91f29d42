#include "workflows/engine.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <set>

#include "core/cron.h"
#include "core/text.h"
#include "core/work_budget.h"
#include "workflows/workflow_file.h"

namespace docwright::workflows {
namespace {

// What reading a project's workflow files or a run's diff may cost: far above
// what the files or a diff summary of a large push need, far below what would
// hurt the node.
WorkBudget::Limits ReadLimits() {
  WorkBudget::Limits l;
  l.entries = 1'000'000;
  l.bytes_read = 64u << 20;
  return l;
}

// The patch a run's diff summary is read from: only its counts are used, and
// files past this much of patch count 0 lines.
constexpr size_t kMaxRunPatchBytes = 4u << 20;

std::string_view OutcomeWord(WorkflowRunStart::Outcome o) {
  switch (o) {
    case WorkflowRunStart::Outcome::kStarted:
      return "started";
    case WorkflowRunStart::Outcome::kQueued:
      return "queued";
    case WorkflowRunStart::Outcome::kDuplicate:
      return "already started";
    case WorkflowRunStart::Outcome::kRefused:
      return "refused";
  }
  return "?";
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

// The branch a push workflow watches: its own, or the project's base branch.
std::string PushBranch(const Workflow& w, const Project& project) {
  return w.trigger.branch.empty() ? project.base_ref : w.trigger.branch;
}

bool Runnable(const Workflow& w, TriggerKind kind) {
  return w.enabled && !w.error && w.trigger.kind == kind;
}

// The changes between `from` and `to` in `mirror`, both fetched.
RunChanges ChangesIn(git::Mirror& mirror, const std::string& from, const std::string& to) {
  RunChanges c;
  auto log = mirror.Log(from, to, kMaxRunCommits + 1);
  if (!log.ok()) {
    c.unavailable = log.status().message();
    return c;
  }
  c.more_commits = log->size() > kMaxRunCommits;
  if (c.more_commits) log->resize(kMaxRunCommits);
  c.commits = std::move(*log);
  if (from.empty()) return c;
  WorkBudget budget(ReadLimits());
  auto diff = mirror.Diff(from, to, kMaxRunPatchBytes, &budget);
  if (!diff.ok()) {
    c.unavailable = diff.status().message();
    return c;
  }
  c.file_count = diff->files.size();
  size_t n = std::min(diff->changes.size(), kMaxRunFiles);
  c.files.assign(diff->changes.begin(), diff->changes.begin() + static_cast<ptrdiff_t>(n));
  return c;
}

}  // namespace

// The errors of one round: each logged when met, the first kept for Tick.
struct WorkflowEngine::Round {
  Status first;
  UnixMillis now = 0;
  void Note(const Status& s, const std::string& what) {
    if (s.ok()) return;
    spdlog::warn("workflows: {}: {} (tried again next round)", OneLogLine(what, 300),
                 OneLogLine(s.message(), 1000));
    if (first.ok()) first = s;
  }
};

bool IsDocwrightCommit(const git::CommitSummary& commit) {
  std::string_view m = commit.message;
  if (commit.is_merge &&
      (StartsWith(m, "Merge branch 'docwright/") ||
       (StartsWith(m, "Merge pull request #") &&
        m.substr(0, m.find('\n')).find("/docwright/") != std::string_view::npos))) {
    return true;
  }
  // A trailer line, at the start of a line (a person's text that merely
  // mentions one is indented by WithoutTrailers when docwright writes it).
  size_t at = 0;
  while (at <= m.size()) {
    size_t end = m.find('\n', at);
    std::string_view line = m.substr(at, end == std::string_view::npos ? m.npos : end - at);
    if (StartsWith(line, "Docwright-Job:")) return true;
    if (end == std::string_view::npos) break;
    at = end + 1;
  }
  return false;
}

WorkflowEngine::WorkflowEngine(Store& store, std::shared_ptr<git::MirrorPool> mirrors,
                               WorkflowEngineOptions options)
    : store_(store), mirrors_(std::move(mirrors)), options_(std::move(options)) {}

WorkflowEngine::~WorkflowEngine() { Stop(); }

void WorkflowEngine::Start() {
  std::lock_guard lock(mu_);
  if (started_ || stop_) return;
  started_ = true;
  thread_ = std::thread([this] { Loop(); });
}

void WorkflowEngine::Stop() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool WorkflowEngine::stopping() const {
  std::lock_guard lock(mu_);
  return stop_;
}

UnixMillis WorkflowEngine::Now() const { return options_.clock ? options_.clock() : NowMillis(); }

void WorkflowEngine::Loop() {
  spdlog::info("workflows: engine started (a round every {} ms, branches polled every {} ms)",
               options_.tick.count(), options_.poll_interval.count());
  while (true) {
    (void)Tick();  // its errors are logged where they are met
    std::unique_lock lock(mu_);
    if (wake_.wait_for(lock, options_.tick, [&] { return stop_; })) break;
  }
  spdlog::info("workflows: engine stopped");
}

Status WorkflowEngine::Tick() {
  std::lock_guard round_lock(round_mu_);
  if (stopping()) return Status::Unavailable("the workflows' engine is stopped");
  Round round;
  round.now = Now();
  round.Note(RunSchedules(round), "schedules");
  auto now = std::chrono::steady_clock::now();
  if (!stopping() && (!last_poll_ || now - *last_poll_ >= options_.poll_interval)) {
    last_poll_ = now;
    round.Note(PollProjects(round), "polls");
  }
  if (!stopping()) round.Note(StartQueuedRuns(round), "queued runs");
  return round.first;
}

Status WorkflowEngine::Start(const Workflow& workflow, const std::string& dedup_key,
                             const RunTrigger& trigger, const RunChanges* changes,
                             std::optional<UnixMillis> schedule_from) {
  WorkflowRunRequest request;
  request.workflow_id = workflow.id;
  request.dedup_key = dedup_key;
  request.trigger = trigger;
  request.prompt = BuildRunPrompt(workflow, trigger, changes);
  request.schedule_from = schedule_from;
  auto started = store_.StartWorkflowRun(request);
  if (!started.ok()) return started.status();
  if (started->outcome != WorkflowRunStart::Outcome::kDuplicate) {
    spdlog::info("workflows: {} of project {} ({}): {}{}{}", workflow.name, workflow.project_id,
                 OneLogLine(dedup_key, 200), OutcomeWord(started->outcome),
                 started->job ? ", job " + started->job->id : "",
                 started->run.error ? ": " + OneLogLine(*started->run.error, 300) : "");
  }
  return Status();
}

Status WorkflowEngine::RunSchedules(Round& round) {
  auto workflows = store_.ListWorkflowsByTrigger(TriggerKind::kSchedule, kMaxScheduledPerRound);
  if (!workflows.ok()) return workflows.status();
  for (const Workflow& w : *workflows) {
    if (stopping()) break;
    if (!Runnable(w, TriggerKind::kSchedule)) continue;
    auto schedule = CronSchedule::Parse(w.trigger.cron, w.trigger.time_zone);
    if (!schedule.ok()) {
      round.Note(schedule.status(), "the schedule of " + w.name + " of project " + w.project_id);
      continue;
    }
    std::optional<UnixMillis> slot = schedule->NextAfter(w.schedule_from);
    if (!slot || *slot > round.now) continue;
    // The slot due, once, however many passed unseen (a downtime): the
    // schedule then starts again from now.
    RunTrigger trigger;
    trigger.kind = "schedule";
    trigger.workflow = w.name;
    trigger.scheduled_for = *slot;
    trigger.time_zone = w.trigger.time_zone;
    round.Note(Start(w, "schedule:" + std::to_string(*slot), trigger, nullptr, round.now),
               "the scheduled run of " + w.name + " of project " + w.project_id);
  }
  return Status();
}

Status WorkflowEngine::PollProjects(Round& round) {
  auto orgs = store_.ListOrgs();
  if (!orgs.ok()) return orgs.status();
  for (const Org& org : *orgs) {
    auto projects = store_.ListProjects(org.id);
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

Status WorkflowEngine::PollProject(Round& round, const Project& project) {
  auto listed = store_.ListWorkflows(project.id);
  if (!listed.ok()) return listed.status();
  auto contexts = store_.ListContextRepositories(project.id);
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
      const std::string watch = "docs:" + branch;
      auto old = store_.GetWatchedHead(project.id, watch);
      if (!old.ok()) return old.status();
      if (*old == *head) continue;
      const std::string what = "branch " + branch + " of project " + project.id;
      std::vector<Workflow> workflows = *listed;
      if (branch == project.base_ref) {
        // The workflow files, as the new head has them (also when first seen).
        WorkBudget budget(ReadLimits());
        auto snapshot = (*mirror)->OpenSnapshot(*head);
        if (!snapshot.ok()) return snapshot.status();
        (*snapshot)->SetBudget(&budget);
        auto files = ReadWorkflowFiles(**snapshot, *contexts);
        if (!files.ok()) return files.status();
        for (Workflow& f : *files) {
          f.project_id = project.id;
          f.source = WorkflowSource::kFile;
        }
        if (Status s = store_.SyncFileWorkflows(project.id, *head, std::move(*files)); !s.ok()) {
          return s;
        }
        auto again = store_.ListWorkflows(project.id);
        if (!again.ok()) return again.status();
        workflows = std::move(*again);
      }
      std::vector<const Workflow*> pushed;
      for (const Workflow& w : workflows) {
        if (Runnable(w, TriggerKind::kPush) && PushBranch(w, project) == branch)
          pushed.push_back(&w);
      }
      bool failed = false;
      if (*old && !pushed.empty()) {
        auto log = (*mirror)->Log(**old, *head, kMaxOwnCommitsChecked);
        if (!log.ok()) return log.status();
        // Nothing new (the branch went back), or only docwright's own commits:
        // its runs do not start runs.
        bool ours = log->size() < kMaxOwnCommitsChecked &&
                    std::all_of(log->begin(), log->end(), IsDocwrightCommit);
        if (!ours) {
          RunChanges changes = ChangesIn(**mirror, **old, *head);
          for (const Workflow* w : pushed) {
            RunTrigger trigger;
            trigger.kind = "push";
            trigger.workflow = w->name;
            trigger.repository = "docs";
            trigger.branch = branch;
            trigger.from = **old;
            trigger.to = *head;
            Status s = Start(*w, "push:" + *head, trigger, &changes, std::nullopt);
            round.Note(s, "the push run of " + w->name + " on " + what);
            failed = failed || !s.ok();
          }
        }
      }
      // Not moved on while a run failed to start: the next round tries again
      // (the dedup key keeps those that started from starting twice).
      if (!failed) {
        if (Status s = store_.SetWatchedHead(project.id, watch, *head); !s.ok()) return s;
      }
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
    const std::string watch = "context:" + repo.name + ":" + branch;
    auto old = store_.GetWatchedHead(project.id, watch);
    if (!old.ok()) return old.status();
    if (*old == *head) continue;
    bool failed = false;
    if (*old) {
      RunChanges changes = ChangesIn(**mirror, **old, *head);
      for (const Workflow* w : merged) {
        if (branch_of(w) != branch) continue;
        RunTrigger trigger;
        trigger.kind = "merge";
        trigger.workflow = w->name;
        trigger.repository = repo.name;
        trigger.branch = branch;
        trigger.from = **old;
        trigger.to = *head;
        Status s = Start(*w, "merge:" + repo.name + ":" + *head, trigger, &changes, std::nullopt);
        round.Note(s, "the merge run of " + w->name + " of project " + project.id);
        failed = failed || !s.ok();
      }
    }
    if (!failed) {
      if (Status s = store_.SetWatchedHead(project.id, watch, *head); !s.ok()) return s;
    }
  }
  return Status();
}

RunChanges WorkflowEngine::ChangesOf(const Project& project, const RunTrigger& trigger) {
  RunChanges none;
  Result<std::shared_ptr<git::Mirror>> mirror = Status::NotFound("");
  if (trigger.repository == "docs" && trigger.kind == "push") {
    mirror = mirrors_->ForProject(project);
  } else {
    auto contexts = store_.ListContextRepositories(project.id);
    if (!contexts.ok()) {
      none.unavailable = contexts.status().message();
      return none;
    }
    auto repo = std::find_if(contexts->begin(), contexts->end(), [&](const ContextRepository& r) {
      return r.name == trigger.repository;
    });
    if (repo == contexts->end()) {
      none.unavailable =
          "the project has no context repository " + trigger.repository + " any more";
      return none;
    }
    mirror = mirrors_->ForContext(project, *repo);
  }
  if (!mirror.ok()) {
    none.unavailable = mirror.status().message();
    return none;
  }
  RunChanges changes = ChangesIn(**mirror, trigger.from, trigger.to);
  if (changes.unavailable.empty() || trigger.branch.empty()) return changes;
  // Another node may have seen the push: fetch the branch, and read again.
  auto fetched = (*mirror)->FetchBranches({trigger.branch}, [this] { return stopping(); });
  if (!fetched.ok()) return changes;
  return ChangesIn(**mirror, trigger.from, trigger.to);
}

Status WorkflowEngine::StartQueuedRuns(Round& round) {
  auto runs = store_.ListStartableQueuedRuns(kMaxQueuedPerRound);
  if (!runs.ok()) return runs.status();
  for (const WorkflowRun& run : *runs) {
    if (stopping()) break;
    const std::string what = "queued run " + std::to_string(run.id);
    auto workflow = store_.GetWorkflow(run.workflow_id);
    if (!workflow.ok()) {
      // A workflow removed meanwhile takes its queued runs with it.
      if (workflow.status().code() != Code::kNotFound) round.Note(workflow.status(), what);
      continue;
    }
    auto project = store_.GetProjectById(workflow->project_id);
    if (!project.ok()) {
      round.Note(project.status(), what);
      continue;
    }
    RunChanges changes;
    const RunChanges* known = nullptr;
    if ((run.trigger.kind == "push" || run.trigger.kind == "merge") && !run.trigger.to.empty()) {
      changes = ChangesOf(*project, run.trigger);
      known = &changes;
    }
    auto started =
        store_.StartQueuedWorkflowRun(run.id, BuildRunPrompt(*workflow, run.trigger, known));
    if (!started.ok()) {
      round.Note(started.status(), what + " of " + workflow->name);
      continue;
    }
    if (started->outcome != WorkflowRunStart::Outcome::kDuplicate) {
      spdlog::info("workflows: {} of project {} (queued run {}): {}{}", workflow->name,
                   workflow->project_id, run.id, OutcomeWord(started->outcome),
                   started->job ? ", job " + started->job->id : "");
    }
  }
  return Status();
}

}  // namespace docwright::workflows
