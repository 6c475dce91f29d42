// The JSON of workflows, their runs and a project's context repositories
// (docs/api.md, "Workflows", "Context repositories"), as the API answers it and
// `docwright workflow ... --json` prints it: one writer for both, with the
// responses' JSON writer (core/json_writer.h). Also how a workflow's listing
// is read (its clash, next fire time and last run), for the same reason.
// Free functions without state, callable from any thread.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/json_writer.h"
#include "core/status.h"
#include "core/time.h"
#include "core/workflow.h"
#include "store/store.h"

namespace docwright {

// A workflow with what its listing shows beside its definition.
struct WorkflowView {
  Workflow workflow;
  // The project has workflows of both sources with this name: neither runs.
  bool clash = false;
  // A schedule's next fire time (enabled, no error, no clash); else nullopt.
  std::optional<UnixMillis> next_run_at;
  std::optional<WorkflowRun> last_run;  // the newest run
};

// The next time `w` fires by its schedule, after both `now` and its
// schedule_from; nullopt for another trigger, a disabled workflow, one with an
// error or a clash, or a schedule that does not parse or never fires.
std::optional<UnixMillis> NextRunAt(const Workflow& w, bool clash, UnixMillis now);

// The views of the project's workflows (both sources, in the store's order:
// by name, API before file), each with its clash, next fire time and last run.
// Errors are the store's.
Result<std::vector<WorkflowView>> ReadWorkflowViews(Store& store, const std::string& project_id,
                                                    UnixMillis now);

// The workflow named `name` among `views`: the API-defined one if both
// sources have it; nullptr if none.
const WorkflowView* FindWorkflowView(const std::vector<WorkflowView>& views,
                                     const std::string& name);

// The Workflow object; the RunTrigger object; a WorkflowRun object; a
// ContextRepository object.
void WriteWorkflow(const WorkflowView& view, JsonWriter& w);
void WriteRunTrigger(const RunTrigger& trigger, JsonWriter& w);
void WriteWorkflowRun(const WorkflowRun& run, JsonWriter& w);
void WriteContextRepository(const ContextRepository& repo, JsonWriter& w);

// Whole bodies: {"workflows": [...]}, a Workflow, {"runs": [...]},
// {"run": {...}}, {"repositories": [...]}, a ContextRepository.
std::string WorkflowListJson(const std::vector<WorkflowView>& views);
std::string WorkflowJson(const WorkflowView& view);
std::string WorkflowRunListJson(const std::vector<WorkflowRun>& runs);
std::string QueuedRunJson(const WorkflowRun& run);
std::string ContextRepositoryListJson(const std::vector<ContextRepository>& repos);
std::string ContextRepositoryJson(const ContextRepository& repo);

// A trigger as one line of text: "cron 0 9 * * 1 Europe/Berlin", "push main",
// "push (base branch)", "merge sdk", "merge sdk main", "manual".
std::string TriggerText(const WorkflowTrigger& t);

}  // namespace docwright
