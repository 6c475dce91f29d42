// Workflows (docs/architecture.md, "Workflows"): saved instructions that start
// jobs by themselves, and the read-only code repositories a project's agent may
// read (its context). Types and the pure rules they follow; the store keeps
// them, workflows/ fires them, api/ and cli/ define them.
//
// A workflow has one trigger: a schedule (cron in a time zone), a push to the
// docs repository's branch, a merge (a push) into a context repository's
// branch, or none but by hand. Every workflow can be run by hand. Each run is
// an ordinary job whose `trigger` says what started it, started at most once
// per trigger event (the run's dedup key), one run of a workflow at a time.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/job.h"
#include "core/status.h"
#include "core/time.h"

namespace docwright {

// Limits, in one place.
inline constexpr size_t kMaxWorkflowsPerProject = 50;
inline constexpr size_t kMaxContextRepositories = 10;
inline constexpr int64_t kDefaultWorkflowRunsPerDay = 20;
inline constexpr int64_t kMaxWorkflowRunsPerDay = 1000;
// A workflow's or context repository's name: lowercase letters, digits, '-'
// and '_', starting with a letter or digit, 1 to this many.
inline constexpr size_t kMaxWorkflowNameChars = 64;
inline constexpr size_t kMaxWorkflowTitleChars = 200;

// --- Context repositories ------------------------------------------------------

// A code repository the agent of a project's jobs may read, never write. It is
// reached with the project's forge settings and credentials (its token and SSH
// key), as the project's own repository is.
struct ContextRepository {
  std::string project_id;
  std::string name;        // how the agent names it: read_file {"repository": name}
  std::string repository;  // URL or local bare path
  // The branch read (and watched for merges); nullopt: the remote's default
  // branch (HEAD), found when it is first fetched.
  std::optional<std::string> branch;
  UnixMillis created_at = 0;
};

// A name for a workflow or a context repository: OK, or InvalidArgument saying
// what the rule is.
Status CheckWorkflowName(std::string_view name);

// --- Workflows -----------------------------------------------------------------

enum class TriggerKind { kSchedule, kPush, kMerge, kManual };
std::string_view ToString(TriggerKind k);  // "schedule", "push", "merge", "manual"
std::optional<TriggerKind> ParseTriggerKind(std::string_view s);

struct WorkflowTrigger {
  TriggerKind kind = TriggerKind::kManual;
  std::string cron;               // kSchedule: five fields or a shorthand (core/cron.h)
  std::string time_zone = "UTC";  // kSchedule: an IANA zone
  std::string repository;         // kMerge: the name of one of the project's context repositories
  // kPush: the docs repository's branch ("" = the project's base branch);
  // kMerge: the context repository's ("" = its branch, see ContextRepository).
  std::string branch;
};

enum class WorkflowSource { kApi, kFile };

struct Workflow {
  std::string id;  // assigned by the store
  std::string project_id;
  std::string name;   // unique among the project's workflows of one source
  std::string title;  // shown to people; "" = the name
  std::string prompt;
  WorkflowTrigger trigger;
  // Context repositories the runs read, by name; empty: all of the project's.
  std::vector<std::string> context;
  std::optional<PublishMode> publish;  // nullopt: the project's default (a pull request)
  std::optional<std::string> model;    // nullopt: the project's
  int64_t runs_per_day = kDefaultWorkflowRunsPerDay;
  bool enabled = true;
  WorkflowSource source = WorkflowSource::kApi;
  // kFile: the file it is read from (".docwright/workflows/NAME.md") and the
  // docs repository's commit it was read at; `error` set when the file does
  // not parse: such a workflow is listed, never run.
  std::string file_path;
  std::string file_commit;
  std::optional<std::string> error;
  UnixMillis created_at = 0;
  UnixMillis updated_at = 0;
  // kSchedule: the schedule's slots after this time are still to fire (set to
  // the time of creation or enabling, and moved on by each scheduled run).
  UnixMillis schedule_from = 0;
};

// OK if `workflow`'s definition is usable (after trimming its name, title and
// prompt): name (CheckWorkflowName), title (at most kMaxWorkflowTitleChars),
// prompt (1 to kMaxPromptChars, valid UTF-8), trigger (a schedule's cron and
// zone parse; a merge names a repository; branches pass CheckBranchName),
// context names (CheckWorkflowName, at most kMaxContextRepositories, no
// repeats), model (at most kMaxModelNameChars), runs a day (1 to
// kMaxWorkflowRunsPerDay). Else InvalidArgument naming the field. Whether the
// names refer to existing context repositories is the store's to check.
Status CheckWorkflow(Workflow& workflow);

// What started a run, as the job's `trigger` field shows it (docs/api.md).
struct RunTrigger {
  std::string kind;        // "schedule", "push", "merge", "manual", "comment"
  std::string workflow;    // its name ("" for a comment)
  std::string repository;  // push, merge: the repository's name ("docs" for the docs repository)
  std::string branch;      // push, merge
  std::string from;        // push, merge: the branch's head before ("" when unknown)
  std::string to;          // push, merge: its head after
  std::optional<UnixMillis> scheduled_for;  // schedule: the slot, shown in the schedule's zone
  std::string time_zone;                    // schedule
  std::string url;                          // comment: where it was made
};

// The JSON object of `trigger` (only the fields its kind has).
std::string RunTriggerJson(const RunTrigger& trigger);
// Its fields back from RunTriggerJson's text; InvalidArgument if it is not one.
Result<RunTrigger> ParseRunTrigger(std::string_view json);

// A trigger that arrives while a run of its workflow is under way waits, one
// per workflow: a later one takes the waiting one's place, keeping where the
// change began. The waiting `queued` and the `next` one make this trigger:
// `next`, with `queued`'s `from` when both are pushes or merges of the same
// repository and branch.
RunTrigger CoalesceTriggers(const RunTrigger& queued, const RunTrigger& next);

// One run of a workflow, as the store keeps it.
enum class RunState {
  kQueued,    // waiting for the workflow's run under way to end
  kStarted,   // its job exists (job_id)
  kRefused,   // not started: `error` says why (the daily limit, a name clash)
  kCoalesced  // replaced, while waiting, by a later trigger
};
std::string_view ToString(RunState s);  // "queued", "started", "refused", "coalesced"

struct WorkflowRun {
  int64_t id = 0;
  std::string workflow_id;
  std::string dedup_key;
  RunTrigger trigger;
  RunState state = RunState::kQueued;
  std::optional<std::string> job_id;
  std::optional<JobStatus> job_status;  // of job_id, as read with the run
  std::optional<std::string> error;
  UnixMillis created_at = 0;
};

}  // namespace docwright
