// WorkflowStore: the store's concern of work started without a client:
// context repositories, workflows and their runs, the branches the engine
// watches, and the forges' verified webhook deliveries (forge events).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/forge_event.h"
#include "core/job.h"
#include "core/status.h"
#include "core/workflow.h"
#include "store/job_store.h"
#include "store/scope.h"

namespace docwright {

// How long a forge's webhook delivery is kept (Store::RecordForgeEvent).
inline constexpr std::chrono::hours kForgeEventRetention{7 * 24};

// A trigger event for a workflow (Store::StartWorkflowRun).
struct WorkflowRunRequest {
  std::string workflow_id;
  // Names the event, unique per workflow: "schedule:<slot ms>", "push:<sha>",
  // "merge:<repository>:<sha>", "manual:<random>", "comment:<forge id>".
  std::string dedup_key;
  RunTrigger trigger;
  // The job's first message: the workflow's prompt and what triggered it.
  std::string prompt;
  bool by_hand = false;  // runs a disabled workflow too
  std::optional<UnixMillis> schedule_from;
};

struct WorkflowRunStart {
  enum class Outcome { kStarted, kQueued, kDuplicate, kRefused };
  Outcome outcome = Outcome::kStarted;
  WorkflowRun run;         // as recorded (kDuplicate: the existing run)
  std::optional<Job> job;  // kStarted
};

// A run starts its job in the run's own transaction, exactly once per trigger
// event, on whichever node records it first. Thread-safe; every call blocks
// on the database.
class WorkflowStore {
 public:
  virtual ~WorkflowStore() = default;

  // --- Context repositories of a project (core/workflow.h) ---
  // Stores `repo` (its name checked by CheckWorkflowName, its repository 1 to
  // 2048 bytes); created_at is assigned. NotFound for an unknown project;
  // Conflict when the project has one of that name; ResourceExhausted at
  // kMaxContextRepositories.
  virtual Result<ContextRepository> AddContextRepository(ContextRepository repo) = 0;
  // The project's context repositories, by name.
  virtual Result<std::vector<ContextRepository>> ListContextRepositories(
      const std::string& project_id) = 0;
  // NotFound if there is no such repository; Conflict, naming the workflow, if
  // a workflow defined through the API names it (in its context or trigger).
  virtual Status RemoveContextRepository(const std::string& project_id,
                                         const std::string& name) = 0;

  // --- Workflows (core/workflow.h) ---
  // Workflows are the operator's and the organisation's: these methods take
  // ids (a caller acting for an organisation checks first that it owns the
  // project).
  // Stores an API-defined workflow (CheckWorkflow holds); id, created_at,
  // updated_at and schedule_from (now) are assigned. NotFound for an unknown
  // project; InvalidArgument for a context repository (in its context or
  // trigger) the project does not have; Conflict when an API-defined
  // workflow of the project has its name; ResourceExhausted at
  // kMaxWorkflowsPerProject (both sources counted).
  virtual Result<Workflow> CreateWorkflow(Workflow workflow) = 0;
  // NotFound if there is no such workflow.
  virtual Result<Workflow> GetWorkflow(const std::string& workflow_id) = 0;
  // The project's workflows of both sources, by name, then API before file.
  virtual Result<std::vector<Workflow>> ListWorkflows(const std::string& project_id) = 0;
  // Every enabled workflow of every unarchived project whose trigger is
  // `kind`, for the workflows' engine; at most `limit`.
  virtual Result<std::vector<Workflow>> ListWorkflowsByTrigger(TriggerKind kind, int limit) = 0;
  // Replaces an API-defined workflow's definition (all but id, project_id,
  // source and created_at) with `workflow`'s, checked as CreateWorkflow
  // checks it. Enabling a disabled one moves schedule_from to now, so slots
  // missed while disabled do not fire. NotFound; Conflict for a
  // file-defined workflow (its file is the only way to change it) except for
  // `enabled`, which may be changed for both.
  virtual Result<Workflow> UpdateWorkflow(const Workflow& workflow) = 0;
  // Removes an API-defined workflow and its queued runs (its jobs stay).
  // NotFound; Conflict for a file-defined one.
  virtual Status DeleteWorkflow(const std::string& workflow_id) = 0;
  // Makes the project's file-defined workflows exactly `files` (Workflow with
  // source kFile, file_path and, for a file that does not parse, error set),
  // read from the docs repository at `commit`, in one transaction: a file
  // whose name stays keeps its id, enabled flag and schedule_from; the others
  // are removed with their queued runs. Calling it again with the same commit
  // and files changes nothing.
  // NotFound for an unknown project.
  virtual Status SyncFileWorkflows(const std::string& project_id, const std::string& commit,
                                   std::vector<Workflow> files) = 0;

  // --- Workflow runs ---
  // Starts a run of the workflow for one trigger event, exactly once: in one
  // transaction, under the workflow's lock,
  //   - a run with the same dedup key exists: kDuplicate, nothing written;
  //   - the workflow is disabled (unless by_hand), has an error, or its name is
  //     used by a workflow of the other source (a clash): kRefused, the run
  //     recorded refused with the reason;
  //   - a run of the workflow is under way (its job active): kQueued, the run
  //     recorded queued, taking the place of one already queued (which becomes
  //     coalesced; CoalesceTriggers makes the trigger);
  //   - its started runs since midnight UTC whose jobs did not fail number
  //     runs_per_day: kRefused ("the daily limit of N runs is reached");
  //   - else kStarted: the job is created as CreateJob creates one (so
  //     RateLimited and the project's caps apply, and then nothing is written)
  //     with `prompt`, the workflow's model and context, trigger and
  //     workflow_id, and the run recorded started with it.
  // `schedule_from`, if set, becomes the workflow's schedule_from in the same
  // transaction, whatever the outcome. NotFound for an unknown workflow.
  virtual Result<WorkflowRunStart> StartWorkflowRun(const WorkflowRunRequest& request) = 0;
  // Queued runs whose workflow has no run under way, oldest first, at most
  // `limit`: for the engine to start (StartQueuedWorkflowRun).
  virtual Result<std::vector<WorkflowRun>> ListStartableQueuedRuns(int limit) = 0;
  // Starts the queued run `run_id` with `prompt`, under the rules of
  // StartWorkflowRun (but not its dedup rule): kStarted, kRefused, or kQueued
  // (still waiting: a run is under way again). kDuplicate when the run is no
  // longer queued (another node started it, or it was coalesced).
  virtual Result<WorkflowRunStart> StartQueuedWorkflowRun(int64_t run_id,
                                                          const std::string& prompt) = 0;
  // The workflow's runs, newest first, at most `limit`, each with its job's
  // status.
  virtual Result<std::vector<WorkflowRun>> ListWorkflowRuns(const std::string& workflow_id,
                                                            int limit) = 0;

  // --- Watched branches: the heads the engine last acted on ---
  // `watch` names a branch of a project's repositories ("docs:main",
  // "context:sdk:main"). nullopt until first set.
  virtual Result<std::optional<std::string>> GetWatchedHead(const std::string& project_id,
                                                            const std::string& watch) = 0;
  virtual Status SetWatchedHead(const std::string& project_id, const std::string& watch,
                                const std::string& head) = 0;

  // --- Forge events: verified webhook deliveries of the forges (unit HOOKS) ---
  // Events are kept kForgeEventRetention from their receipt; each record
  // removes a few older ones on the way (handled or not).

  // Records `event` (its id and received_at assigned; handled_at and outcome
  // ignored): true. false, and nothing written, when the project already has
  // a delivery of that forge with that delivery_id. NotFound for an unknown
  // project.
  virtual Result<bool> RecordForgeEvent(ForgeEvent event) = 0;
  // Events not handled yet, oldest first, at most `limit`.
  virtual Result<std::vector<ForgeEvent>> ListPendingForgeEvents(int limit) = 0;
  // Marks the event handled now with `outcome` (cut to 1000 bytes); the first
  // outcome recorded stays (two nodes handling one event both finish it).
  // NotFound if there is no such event.
  virtual Status FinishForgeEvent(int64_t id, const std::string& outcome) = 0;
};

}  // namespace docwright
