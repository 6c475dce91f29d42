#include "api/workflow_views.h"

#include <algorithm>

#include "core/cron.h"
#include "core/job_json.h"

namespace docwright {

std::optional<UnixMillis> NextRunAt(const Workflow& w, bool clash, UnixMillis now) {
  if (w.trigger.kind != TriggerKind::kSchedule || !w.enabled || w.error || clash) {
    return std::nullopt;
  }
  auto schedule = CronSchedule::Parse(w.trigger.cron, w.trigger.time_zone);
  if (!schedule.ok()) return std::nullopt;
  return schedule->NextAfter(std::max(now, w.schedule_from));
}

Result<std::vector<WorkflowView>> ReadWorkflowViews(Store& store, const std::string& project_id,
                                                    UnixMillis now) {
  auto list = store.ListWorkflows(project_id);
  if (!list.ok()) return list.status();
  // Before any workflow is moved into its view.
  std::vector<bool> clashes;
  for (const Workflow& w : *list) {
    clashes.push_back(std::any_of(list->begin(), list->end(), [&](const Workflow& other) {
      return other.name == w.name && other.source != w.source;
    }));
  }
  std::vector<WorkflowView> views;
  views.reserve(list->size());
  for (size_t i = 0; i < list->size(); ++i) {
    Workflow& w = (*list)[i];
    const bool clash = clashes[i];
    auto runs = store.ListWorkflowRuns(w.id, 1);
    if (!runs.ok()) return runs.status();
    WorkflowView view;
    view.clash = clash;
    view.next_run_at = NextRunAt(w, clash, now);
    if (!runs->empty()) view.last_run = std::move(runs->front());
    view.workflow = std::move(w);
    views.push_back(std::move(view));
  }
  return views;
}

const WorkflowView* FindWorkflowView(const std::vector<WorkflowView>& views,
                                     const std::string& name) {
  const WorkflowView* found = nullptr;
  for (const WorkflowView& v : views) {
    if (v.workflow.name != name) continue;
    if (v.workflow.source == WorkflowSource::kApi) return &v;
    if (!found) found = &v;
  }
  return found;
}

namespace {

// "" is null: an empty branch means the repository's own.
void OptBranch(const std::string& branch, JsonWriter& w) {
  if (branch.empty()) {
    w.Null();
  } else {
    w.String(branch);
  }
}

void WriteTrigger(const WorkflowTrigger& t, JsonWriter& w) {
  w.BeginObject();
  w.Key("kind").String(ToString(t.kind));
  switch (t.kind) {
    case TriggerKind::kSchedule:
      w.Key("cron").String(t.cron);
      w.Key("timeZone").String(t.time_zone);
      break;
    case TriggerKind::kPush:
      w.Key("branch");
      OptBranch(t.branch, w);
      break;
    case TriggerKind::kMerge:
      w.Key("repository").String(t.repository);
      w.Key("branch");
      OptBranch(t.branch, w);
      break;
    case TriggerKind::kManual:
      break;
  }
  w.EndObject();
}

}  // namespace

void WriteRunTrigger(const RunTrigger& trigger, JsonWriter& w) {
  // RunTriggerJson is the one writer of the object (core/workflow.h).
  w.Raw(RunTriggerJson(trigger));
}

void WriteWorkflowRun(const WorkflowRun& run, JsonWriter& w) {
  w.BeginObject();
  w.Key("id").Int(run.id);
  w.Key("state").String(ToString(run.state));
  w.Key("jobId").OptString(run.job_id);
  w.Key("jobStatus");
  if (run.job_status) {
    w.String(ToString(*run.job_status));
  } else {
    w.Null();
  }
  w.Key("trigger");
  WriteRunTrigger(run.trigger, w);
  w.Key("error").OptString(run.error);
  w.Key("createdAt").String(FormatRfc3339(run.created_at));
  w.EndObject();
}

void WriteWorkflow(const WorkflowView& view, JsonWriter& w) {
  const Workflow& f = view.workflow;
  const bool file = f.source == WorkflowSource::kFile;
  w.BeginObject();
  w.Key("id").String(f.id);
  w.Key("name").String(f.name);
  w.Key("title").String(f.title.empty() ? f.name : f.title);
  w.Key("source").String(file ? "file" : "api");
  w.Key("file");
  if (file) {
    w.String(f.file_path);
  } else {
    w.Null();
  }
  w.Key("error").OptString(f.error);
  w.Key("prompt").String(f.prompt);
  w.Key("trigger");
  WriteTrigger(f.trigger, w);
  w.Key("context").BeginArray();
  for (const std::string& name : f.context) w.String(name);
  w.EndArray();
  w.Key("publish");
  if (f.publish) {
    w.String(ToString(*f.publish));
  } else {
    w.Null();
  }
  w.Key("model").OptString(f.model);
  w.Key("runsPerDay").Int(f.runs_per_day);
  w.Key("enabled").Bool(f.enabled);
  w.Key("clash").Bool(view.clash);
  w.Key("nextRunAt");
  WriteOptTime(view.next_run_at, w);
  w.Key("lastRun");
  if (view.last_run) {
    WriteWorkflowRun(*view.last_run, w);
  } else {
    w.Null();
  }
  w.Key("createdAt").String(FormatRfc3339(f.created_at));
  w.Key("updatedAt").String(FormatRfc3339(f.updated_at));
  w.EndObject();
}

void WriteContextRepository(const ContextRepository& repo, JsonWriter& w) {
  w.BeginObject();
  w.Key("name").String(repo.name);
  w.Key("repository").String(repo.repository);
  w.Key("branch").OptString(repo.branch);
  w.Key("createdAt").String(FormatRfc3339(repo.created_at));
  w.EndObject();
}

std::string WorkflowListJson(const std::vector<WorkflowView>& views) {
  std::string out;
  JsonWriter w(&out);
  w.BeginObject().Key("workflows").BeginArray();
  for (const WorkflowView& v : views) WriteWorkflow(v, w);
  w.EndArray().EndObject();
  return out;
}

std::string WorkflowJson(const WorkflowView& view) {
  std::string out;
  JsonWriter w(&out);
  WriteWorkflow(view, w);
  return out;
}

std::string WorkflowRunListJson(const std::vector<WorkflowRun>& runs) {
  std::string out;
  JsonWriter w(&out);
  w.BeginObject().Key("runs").BeginArray();
  for (const WorkflowRun& r : runs) WriteWorkflowRun(r, w);
  w.EndArray().EndObject();
  return out;
}

std::string QueuedRunJson(const WorkflowRun& run) {
  std::string out;
  JsonWriter w(&out);
  w.BeginObject().Key("run");
  WriteWorkflowRun(run, w);
  w.EndObject();
  return out;
}

std::string ContextRepositoryListJson(const std::vector<ContextRepository>& repos) {
  std::string out;
  JsonWriter w(&out);
  w.BeginObject().Key("repositories").BeginArray();
  for (const ContextRepository& r : repos) WriteContextRepository(r, w);
  w.EndArray().EndObject();
  return out;
}

std::string ContextRepositoryJson(const ContextRepository& repo) {
  std::string out;
  JsonWriter w(&out);
  WriteContextRepository(repo, w);
  return out;
}

std::string TriggerText(const WorkflowTrigger& t) {
  switch (t.kind) {
    case TriggerKind::kSchedule:
      return "cron " + t.cron + " " + t.time_zone;
    case TriggerKind::kPush:
      return "push " + (t.branch.empty() ? std::string("(base branch)") : t.branch);
    case TriggerKind::kMerge:
      return "merge " + t.repository + (t.branch.empty() ? "" : " " + t.branch);
    case TriggerKind::kManual:
      break;
  }
  return "manual";
}

}  // namespace docwright
