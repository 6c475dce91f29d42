// The SQL store: workflow runs (core/workflow.h). A run is decided in one
// transaction under the project's lock and then the workflow's (PostgreSQL:
// row locks; SQLite: its one writer), so of two nodes that see one trigger
// event, the second waits for the first's commit and finds its run
// (kDuplicate). The unique (workflow, dedup key) is what makes an event start
// one run whatever the locks; a write that hits it anyway answers with the run
// that beat it.
#include <algorithm>

#include "store/sql/internal.h"
#include "store/sql/statements.h"
#include "store/sql/workflow_statements.h"

namespace docwright::sql {
namespace {

constexpr const char* kNoRun = "workflow run not found";
constexpr size_t kMaxDedupKeyBytes = 512;
constexpr int64_t kDayMillis = 24 * 3600 * 1000;

WorkflowRun ReadRun(const Rows& r) {
  WorkflowRun run;
  run.id = r.Int("id");
  run.workflow_id = r.Text("workflow_id");
  run.dedup_key = r.Text("dedup_key");
  // Written by RunTriggerJson: a trigger that no longer parses shows its kind
  // as unknown rather than failing the whole list.
  auto trigger = ParseRunTrigger(r.Text("trigger"));
  if (trigger.ok()) {
    run.trigger = std::move(*trigger);
  } else {
    run.trigger.kind = "unknown";
  }
  std::string state = r.Text("state");
  run.state = state == "started"     ? RunState::kStarted
              : state == "refused"   ? RunState::kRefused
              : state == "coalesced" ? RunState::kCoalesced
                                     : RunState::kQueued;
  run.job_id = r.OptText("job_id");
  if (auto status = r.OptText("job_status")) run.job_status = ParseJobStatus(*status);
  run.error = r.OptText("error");
  run.created_at = r.Int("created_at");
  return run;
}

// The run of `statement`'s first row, if any.
Result<std::optional<WorkflowRun>> FindRun(Connection& c, const Statement& statement,
                                           std::initializer_list<Value> params) {
  auto r = c.Exec(statement, params);
  if (!r.ok()) return r.status();
  if (!r->Next()) return std::optional<WorkflowRun>();
  return std::optional<WorkflowRun>(ReadRun(*r));
}

// Why `w` may not run now, or nullopt: its name clashes with a workflow of the
// other source, its file has an error, it is disabled (and not run by hand), or
// it names a context repository the project no longer has.
Result<std::optional<std::string>> WhyRefused(Connection& c, const Workflow& w, bool by_hand) {
  using Why = std::optional<std::string>;
  bool file = w.source == WorkflowSource::kFile;
  auto other =
      c.Exec(kSelectWorkflowByName, {V(w.project_id), V(file ? "api" : "file"), V(w.name)});
  if (!other.ok()) return other.status();
  if (other->Next()) {
    std::string path = file ? w.file_path : other->Text("file_path");
    return Why("the name " + w.name + " is defined both through the API and in " + path +
               "; rename one");
  }
  if (w.error) return Why(*w.error);
  if (!w.enabled && !by_hand) return Why("the workflow is disabled");
  std::vector<std::string> names = w.context;
  if (w.trigger.kind == TriggerKind::kMerge) names.push_back(w.trigger.repository);
  for (const std::string& name : names) {
    auto r = c.Exec(kContextRepositoryExists, {V(w.project_id), V(name)});
    if (!r.ok()) return r.status();
    if (!r->Next() || r->Int(0) == 0) {
      return Why("the project has no context repository named " + name);
    }
  }
  return Why();
}

}  // namespace

Result<WorkflowRunStart> SqlStore::DecideRun(Connection& c, const Workflow& w,
                                             const RunEvent& event, UnixMillis now) {
  WorkflowRunStart out;
  RunTrigger trigger = *event.trigger;
  // Writes the run as decided: the queued one in place, or a new one.
  auto record = [&](RunState state, std::optional<std::string> job_id,
                    std::optional<std::string> error) -> Status {
    std::string json = RunTriggerJson(trigger);
    std::string state_name(ToString(state));
    std::optional<int64_t> started_at;
    if (state == RunState::kStarted) started_at = now;
    WorkflowRun run = event.queued ? *event.queued : WorkflowRun{};
    if (event.queued) {
      Status s = Run(c, kUpdateRun,
                     {V(run.id), V(json), V(state_name), V(job_id), V(error), V(started_at)});
      if (!s.ok()) return s;
    } else {
      auto id = One(c, kInsertRun,
                    {V(w.id), V(w.project_id), V(*event.dedup_key), V(json), V(state_name),
                     V(job_id), V(error), V(now), V(started_at)});
      if (!id.ok()) return id.status();
      run.id = *id;
      run.workflow_id = w.id;
      run.dedup_key = *event.dedup_key;
      run.created_at = now;
    }
    run.trigger = trigger;
    run.state = state;
    run.job_id = job_id;
    run.job_status.reset();
    if (job_id) run.job_status = JobStatus::kActive;
    run.error = error;
    out.run = std::move(run);
    return Status();
  };

  auto why = WhyRefused(c, w, event.by_hand);
  if (!why.ok()) return why.status();
  if (*why) {
    out.outcome = WorkflowRunStart::Outcome::kRefused;
    if (Status s = record(RunState::kRefused, std::nullopt, *why); !s.ok()) return s;
    return out;
  }

  auto under_way = One(c, kCountRunsUnderWay, {V(w.id)});
  if (!under_way.ok()) return under_way.status();
  if (*under_way > 0) {
    out.outcome = WorkflowRunStart::Outcome::kQueued;
    if (event.queued) {  // still waiting
      out.run = *event.queued;
      return out;
    }
    // One waits per workflow: this event takes the waiting one's place.
    auto waiting = FindRun(c, kSelectQueuedRun, {V(w.id)});
    if (!waiting.ok()) return waiting.status();
    if (*waiting) {
      trigger = CoalesceTriggers((*waiting)->trigger, trigger);
      if (Status s = Run(c, kCoalesceRun, {V((*waiting)->id)}); !s.ok()) return s;
    }
    if (Status s = record(RunState::kQueued, std::nullopt, std::nullopt); !s.ok()) return s;
    return out;
  }

  // Runs whose jobs failed give their place back: a failing workflow can be
  // fixed and run again the same day.
  UnixMillis midnight = now - ((now % kDayMillis) + kDayMillis) % kDayMillis;
  auto today = One(c, kCountRunsSince, {V(w.id), V(midnight)});
  if (!today.ok()) return today.status();
  if (*today >= w.runs_per_day) {
    out.outcome = WorkflowRunStart::Outcome::kRefused;
    std::string why_not = "the daily limit of " + std::to_string(w.runs_per_day) +
                          " runs is reached (it resets at midnight UTC)";
    if (Status s = record(RunState::kRefused, std::nullopt, why_not); !s.ok()) return s;
    return out;
  }

  // The job, as CreateJob writes one: the project's archive, rate limit and
  // model rules apply, and an error leaves nothing written.
  Status archived = LockProjectForJobs(c, w.project_id);  // held already: reads the archive
  if (!archived.ok()) return archived;
  auto project = c.Exec(kSelectProjectById, {V(w.project_id)});
  if (!project.ok()) return project.status();
  if (!project->Next()) return Status::NotFound("project not found");
  NewJob nj;
  nj.prompt = *event.prompt;
  nj.requested_model = w.model;
  nj.trigger = RunTriggerJson(trigger);
  nj.workflow_id = w.id;
  if (!w.context.empty()) nj.context = w.context;
  nj.publish = w.publish;  // nullopt: the project's
  auto job = InsertJob(c, ReadProject(*project), nj, now, /*claim=*/nullptr);
  if (!job.ok()) return job.status();
  out.outcome = WorkflowRunStart::Outcome::kStarted;
  if (Status s = record(RunState::kStarted, job->id, std::nullopt); !s.ok()) return s;
  out.job = std::move(*job);
  return out;
}

Result<WorkflowRunStart> SqlStore::StartWorkflowRun(const WorkflowRunRequest& request) {
  if (request.dedup_key.empty() || request.dedup_key.size() > kMaxDedupKeyBytes) {
    return Status::InvalidArgument("a run's dedup key must be 1 to " +
                                   std::to_string(kMaxDedupKeyBytes) + " bytes");
  }
  if (request.prompt.empty() || request.prompt.size() > kMaxPromptChars * 4) {
    return Status::InvalidArgument("a run's prompt must not be empty, nor too long");
  }
  WorkflowRunStart out;
  std::string project_id;
  Status s = Write([&](Connection& c) -> Status {
    out = WorkflowRunStart();
    auto w = LoadWorkflow(c, request.workflow_id, false);
    if (!w.ok()) return w.status();
    project_id = w->project_id;
    // The project's lock, then the workflow's: the order every writer of them
    // takes them in.
    if (Status locked = Run(c, kLockProject, {V(w->project_id)}); !locked.ok()) return locked;
    w = LoadWorkflow(c, request.workflow_id, true);
    if (!w.ok()) return w.status();
    auto now = Now(c);
    if (!now.ok()) return now.status();
    if (request.schedule_from) {
      Status moved = Run(c, kSetScheduleFrom, {V(w->id), V(*request.schedule_from)});
      if (!moved.ok()) return moved;
      w->schedule_from = *request.schedule_from;
    }
    auto seen = FindRun(c, kSelectRunByKey, {V(w->id), V(request.dedup_key)});
    if (!seen.ok()) return seen.status();
    if (*seen) {  // commits the move of schedule_from alone
      out.outcome = WorkflowRunStart::Outcome::kDuplicate;
      out.run = std::move(**seen);
      return Status();
    }
    auto decided = DecideRun(c, *w,
                             RunEvent{.trigger = &request.trigger,
                                      .prompt = &request.prompt,
                                      .by_hand = request.by_hand,
                                      .dedup_key = &request.dedup_key},
                             *now);
    if (!decided.ok()) return decided.status();
    out = std::move(*decided);
    return Status();
  });
  if (s.ok()) {
    if (out.job) AnnounceEvents(out.job->id);
    return out;
  }
  if (s.code() != Code::kConflict) return s;
  // Another transaction recorded the event first (and has committed:
  // PostgreSQL reports the violation once it has): answer with its run.
  std::optional<WorkflowRun> beaten;
  Status read = driver_->Read([&](Connection& c) -> Status {
    auto found = FindRun(c, kSelectRunByKey, {V(request.workflow_id), V(request.dedup_key)});
    if (!found.ok()) return found.status();
    beaten = std::move(*found);
    return Status();
  });
  if (!read.ok() || !beaten) return s;
  return WorkflowRunStart{.outcome = WorkflowRunStart::Outcome::kDuplicate,
                          .run = std::move(*beaten)};
}

Result<std::vector<WorkflowRun>> SqlStore::ListStartableQueuedRuns(int limit) {
  return ReadAll(kSelectStartableRuns, {V(std::clamp(limit, 0, 10000))}, &ReadRun);
}

Result<WorkflowRunStart> SqlStore::StartQueuedWorkflowRun(int64_t run_id,
                                                          const std::string& prompt) {
  if (prompt.empty() || prompt.size() > kMaxPromptChars * 4) {
    return Status::InvalidArgument("a run's prompt must not be empty, nor too long");
  }
  WorkflowRunStart out;
  Status s = Write([&](Connection& c) -> Status {
    out = WorkflowRunStart();
    auto run = FindRun(c, kSelectRun, {V(run_id)});
    if (!run.ok()) return run.status();
    if (!*run) return Status::NotFound(kNoRun);
    auto w = LoadWorkflow(c, (*run)->workflow_id, false);
    if (!w.ok()) return w.status();
    if (Status locked = Run(c, kLockProject, {V(w->project_id)}); !locked.ok()) return locked;
    w = LoadWorkflow(c, (*run)->workflow_id, true);
    if (!w.ok()) return w.status();
    run = FindRun(c, kSelectRun, {V(run_id)});  // as of the locks: its writers hold them
    if (!run.ok()) return run.status();
    if (!*run) return Status::NotFound(kNoRun);
    if ((*run)->state != RunState::kQueued) {
      out.outcome = WorkflowRunStart::Outcome::kDuplicate;
      out.run = std::move(**run);
      return Status();
    }
    auto now = Now(c);
    if (!now.ok()) return now.status();
    // A run asked for by hand runs a disabled workflow, queued or not.
    bool by_hand = (*run)->trigger.kind == "manual";
    auto decided = DecideRun(
        c, *w,
        RunEvent{
            .trigger = &(*run)->trigger, .prompt = &prompt, .by_hand = by_hand, .queued = &**run},
        *now);
    if (!decided.ok()) return decided.status();
    out = std::move(*decided);
    return Status();
  });
  if (!s.ok()) return s;
  if (out.job) AnnounceEvents(out.job->id);
  return out;
}

Result<std::vector<WorkflowRun>> SqlStore::ListWorkflowRuns(const std::string& workflow_id,
                                                            int limit) {
  return ReadAll(kSelectRuns, {V(workflow_id), V(std::clamp(limit, 0, 1000))}, &ReadRun);
}

}  // namespace docwright::sql
