#include "workflows/engine.h"

#include <spdlog/spdlog.h>

#include <algorithm>

#include "core/cron.h"
#include "core/text.h"
#include "core/work_budget.h"
#include "workflows/comment_replies.h"
#include "workflows/engine_internal.h"
#include "workflows/pull_request_polling.h"
#include "workflows/workflow_file.h"

namespace docwright::workflows {
namespace {

// The patch a run's diff summary is read from: only its counts are used, and
// files past this much of patch count 0 lines.
constexpr size_t kMaxRunPatchBytes = 4u << 20;

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

namespace engine {

// Far above what the files or a diff summary of a large push need, far below
// what would hurt the node.
WorkBudget::Limits ReadLimits() {
  WorkBudget::Limits l;
  l.entries = 1'000'000;
  l.bytes_read = 64u << 20;
  return l;
}

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

std::string PushBranch(const Workflow& w, const Project& project) {
  return w.trigger.branch.empty() ? project.base_ref : w.trigger.branch;
}

bool Runnable(const Workflow& w, TriggerKind kind) {
  return w.enabled && !w.error && w.trigger.kind == kind;
}

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

}  // namespace engine

using namespace engine;

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

WorkflowEngine::WorkflowEngine(WorkflowStores store, std::shared_ptr<git::MirrorPool> mirrors,
                               WorkflowEngineOptions options)
    : store_(store), mirrors_(std::move(mirrors)), options_(std::move(options)) {}

WorkflowEngine::~WorkflowEngine() { Stop(); }

void WorkflowEngine::Start() {
  MutexLock lock(mu_);
  if (started_ || stop_) return;
  started_ = true;
  thread_ = std::thread([this] { Loop(); });
}

void WorkflowEngine::Stop() {
  {
    MutexLock lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

bool WorkflowEngine::stopping() const {
  MutexLock lock(mu_);
  return stop_;
}

UnixMillis WorkflowEngine::Now() const { return options_.clock ? options_.clock() : NowMillis(); }

void WorkflowEngine::Loop() {
  spdlog::info("workflows: engine started (a round every {} ms, branches polled every {} ms)",
               options_.tick.count(), options_.poll_interval.count());
  while (true) {
    (void)Tick();  // its errors are logged where they are met
    MutexLock lock(mu_);
    const auto deadline = std::chrono::steady_clock::now() + options_.tick;
    while (!stop_ && lock.WaitUntil(wake_, deadline)) {
    }
    if (stop_) break;
  }
  spdlog::info("workflows: engine stopped");
}

Status WorkflowEngine::Tick() {
  MutexLock round_lock(round_mu_);
  if (stopping()) return Status::Unavailable("the workflows' engine is stopped");
  Round round;
  round.now = Now();
  round.Note(RunSchedules(round), "schedules");
  // Before the polls: a push the forge told of is handled as its own, with its
  // `before`, and the poll then finds the branch where the push left it.
  if (!stopping()) round.Note(HandleForgeEvents(round), "forge events");
  auto now = std::chrono::steady_clock::now();
  if (!stopping() && (!last_poll_ || now - *last_poll_ >= options_.poll_interval)) {
    last_poll_ = now;
    round.Note(PollProjects(round), "polls");
    if (!stopping()) {
      round.Note(PollPullRequests(store_, options_.forge_events, [this] { return stopping(); }),
                 "pull requests' states");
    }
  }
  if (!stopping()) round.Note(StartQueuedRuns(round), "queued runs");
  // Replies to the pull request comments whose follow-ups have finished; their
  // errors are logged there, and never fail the round.
  if (!stopping()) PostDueReplies(store_, options_.forge_events);
  return round.first;
}

Status WorkflowEngine::Start(const Workflow& workflow, const std::string& dedup_key,
                             const RunTrigger& trigger, const RunChanges* changes,
                             std::optional<UnixMillis> schedule_from,
                             WorkflowRunStart::Outcome* outcome) {
  WorkflowRunRequest request;
  request.workflow_id = workflow.id;
  request.dedup_key = dedup_key;
  request.trigger = trigger;
  request.prompt = BuildRunPrompt(workflow, trigger, changes);
  request.schedule_from = schedule_from;
  auto started = store_.workflows.StartWorkflowRun(request);
  if (!started.ok()) return started.status();
  if (outcome) *outcome = started->outcome;
  if (started->outcome != WorkflowRunStart::Outcome::kDuplicate) {
    spdlog::info("workflows: {} of project {} ({}): {}{}{}", workflow.name, workflow.project_id,
                 OneLogLine(dedup_key, 200), OutcomeWord(started->outcome),
                 started->job ? ", job " + started->job->id : "",
                 started->run.error ? ": " + OneLogLine(*started->run.error, 300) : "");
  }
  return Status();
}

Status WorkflowEngine::RunSchedules(Round& round) {
  auto workflows =
      store_.workflows.ListWorkflowsByTrigger(TriggerKind::kSchedule, kMaxScheduledPerRound);
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

RunChanges WorkflowEngine::ChangesOf(const Project& project, const RunTrigger& trigger) {
  RunChanges none;
  Result<std::shared_ptr<git::Mirror>> mirror = Status::NotFound("");
  if (trigger.repository == "docs" && trigger.kind == "push") {
    mirror = mirrors_->ForProject(project);
  } else {
    auto contexts = store_.workflows.ListContextRepositories(project.id);
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
  auto runs = store_.workflows.ListStartableQueuedRuns(kMaxQueuedPerRound);
  if (!runs.ok()) return runs.status();
  for (const WorkflowRun& run : *runs) {
    if (stopping()) break;
    const std::string what = "queued run " + std::to_string(run.id);
    auto workflow = store_.workflows.GetWorkflow(run.workflow_id);
    if (!workflow.ok()) {
      // A workflow removed meanwhile takes its queued runs with it.
      if (workflow.status().code() != Code::kNotFound) round.Note(workflow.status(), what);
      continue;
    }
    auto project = store_.tenants.GetProjectById(workflow->project_id);
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
    auto started = store_.workflows.StartQueuedWorkflowRun(
        run.id, BuildRunPrompt(*workflow, run.trigger, known));
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
