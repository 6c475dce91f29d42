// The SQL store: workflows (core/workflow.h), defined through the API or read
// from the files of a project's docs repository (SyncFileWorkflows). Every
// write of a project's workflows takes the project's lock first, as the
// decisions of their runs do (workflow_runs.cc).
#include <algorithm>
#include <set>

#include "core/ids.h"
#include "store/sql/internal.h"
#include "store/sql/statements.h"
#include "store/sql/workflow_statements.h"

namespace docwright::sql {
namespace {

constexpr const char* kNoWorkflow = "workflow not found";
// A file's path and commit as the engine reports them.
constexpr size_t kMaxFilePathBytes = 1024;
constexpr size_t kMaxCommitBytes = 128;
constexpr size_t kMaxErrorBytes = 2000;

std::string SourceName(WorkflowSource s) { return s == WorkflowSource::kFile ? "file" : "api"; }

// Whether two definitions are alike in what the file or the API defines (not
// `enabled`, nor where a file was read).
bool SameDefinition(const Workflow& a, const Workflow& b) {
  return a.name == b.name && a.title == b.title && a.prompt == b.prompt &&
         a.trigger.kind == b.trigger.kind && a.trigger.cron == b.trigger.cron &&
         a.trigger.time_zone == b.trigger.time_zone &&
         a.trigger.repository == b.trigger.repository && a.trigger.branch == b.trigger.branch &&
         a.context == b.context && a.publish == b.publish && a.model == b.model &&
         a.runs_per_day == b.runs_per_day && a.error == b.error;
}

// Whether the schedule's slots changed: the new ones fire from now, not from
// the old schedule's last slot (which would fire a missed slot at once).
bool SameSchedule(const Workflow& a, const Workflow& b) {
  return a.trigger.kind == b.trigger.kind && a.trigger.cron == b.trigger.cron &&
         a.trigger.time_zone == b.trigger.time_zone;
}

// Inserts `w` (`insert`), or replaces its row.
Status WriteRow(Connection& c, bool insert, const Workflow& w) {
  std::string source = SourceName(w.source);
  std::string kind(ToString(w.trigger.kind));
  std::string context = JoinLines(w.context);
  std::optional<std::string> publish;
  if (w.publish) publish = std::string(ToString(*w.publish));
  if (insert) {
    return c
        .Exec(kInsertWorkflow, {V(w.id),
                                V(w.project_id),
                                V(w.name),
                                V(source),
                                V(w.title),
                                V(w.prompt),
                                V(kind),
                                V(w.trigger.cron),
                                V(w.trigger.time_zone),
                                V(w.trigger.repository),
                                V(w.trigger.branch),
                                V(context),
                                V(publish),
                                V(w.model),
                                V(w.runs_per_day),
                                V(w.enabled),
                                V(w.file_path),
                                V(w.file_commit),
                                V(w.error),
                                V(w.created_at),
                                V(w.updated_at),
                                V(w.schedule_from)})
        .status();
  }
  return c
      .Exec(kUpdateWorkflow,
            {V(w.id), V(w.name), V(w.title), V(w.prompt), V(kind), V(w.trigger.cron),
             V(w.trigger.time_zone), V(w.trigger.repository), V(w.trigger.branch), V(context),
             V(publish), V(w.model), V(w.runs_per_day), V(w.enabled), V(w.file_path),
             V(w.file_commit), V(w.error), V(w.updated_at), V(w.schedule_from)})
      .status();
}

// InvalidArgument if `w` names a context repository the project lacks.
Status CheckContextNames(Connection& c, const Workflow& w) {
  std::vector<std::string> names = w.context;
  if (w.trigger.kind == TriggerKind::kMerge) names.push_back(w.trigger.repository);
  for (const std::string& name : names) {
    auto r = c.Exec(kContextRepositoryExists, {V(w.project_id), V(name)});
    if (!r.ok()) return r.status();
    if (!r->Next() || r->Int(0) == 0) {
      return Status::InvalidArgument("the project has no context repository named " + name +
                                     " (add it first)");
    }
  }
  return Status();
}

// Conflict if the project has another API-defined workflow named `w.name`.
Status CheckNameFree(Connection& c, const Workflow& w) {
  auto r = c.Exec(kSelectWorkflowByName, {V(w.project_id), V("api"), V(w.name)});
  if (!r.ok()) return r.status();
  if (r->Next() && r->Text("id") != w.id) {
    return Status::Conflict("the project has a workflow named " + w.name);
  }
  return Status();
}

Status LockProject(Connection& c, const std::string& project_id) {
  auto r = c.Exec(kLockProject, {V(project_id)});
  if (!r.ok()) return r.status();
  if (!r->Next()) return Status::NotFound("project not found");
  return Status();
}

// A file's workflow as the engine reported it: bounded, or InvalidArgument.
Status CheckFileWorkflow(const Workflow& w) {
  if (w.name.empty() || w.name.size() > kMaxWorkflowNameChars * 4) {
    return Status::InvalidArgument("a workflow file's name must be 1 to " +
                                   std::to_string(kMaxWorkflowNameChars) + " characters");
  }
  if (w.file_path.empty() || w.file_path.size() > kMaxFilePathBytes) {
    return Status::InvalidArgument("a workflow file's path must be 1 to " +
                                   std::to_string(kMaxFilePathBytes) + " bytes");
  }
  if (w.prompt.size() > kMaxPromptChars * 4 || w.title.size() > kMaxWorkflowTitleChars * 4) {
    return Status::InvalidArgument("the workflow file " + w.file_path + " is too long");
  }
  return Status();
}

}  // namespace

Workflow ReadWorkflow(const Rows& r) {
  Workflow w;
  w.id = r.Text("id");
  w.project_id = r.Text("project_id");
  w.name = r.Text("name");
  w.source = r.Text("source") == "file" ? WorkflowSource::kFile : WorkflowSource::kApi;
  w.title = r.Text("title");
  w.prompt = r.Text("prompt");
  // A kind this version does not know runs by hand only.
  w.trigger.kind = ParseTriggerKind(r.Text("trigger_kind")).value_or(TriggerKind::kManual);
  w.trigger.cron = r.Text("cron");
  w.trigger.time_zone = r.Text("time_zone");
  w.trigger.repository = r.Text("trigger_repository");
  w.trigger.branch = r.Text("trigger_branch");
  w.context = SplitLines(r.Text("context"));
  if (auto publish = r.OptText("publish")) w.publish = ParsePublishMode(*publish);
  w.model = r.OptText("model");
  w.runs_per_day = r.Int("runs_per_day");
  w.enabled = r.Int("enabled") != 0;
  w.file_path = r.Text("file_path");
  w.file_commit = r.Text("file_commit");
  w.error = r.OptText("error");
  w.created_at = r.Int("created_at");
  w.updated_at = r.Int("updated_at");
  w.schedule_from = r.Int("schedule_from");
  return w;
}

Result<Workflow> SqlStore::LoadWorkflow(Connection& c, const std::string& id, bool lock) {
  auto r = c.Exec(lock ? kLockWorkflow : kSelectWorkflow, {V(id)});
  if (!r.ok()) return r.status();
  if (!r->Next()) return Status::NotFound(kNoWorkflow);
  return ReadWorkflow(*r);
}

Result<Workflow> SqlStore::CreateWorkflow(Workflow w) {
  if (Status s = CheckWorkflow(w); !s.ok()) return s;
  w.source = WorkflowSource::kApi;
  w.file_path.clear();
  w.file_commit.clear();
  w.error.reset();
  w.id = NewId();  // once: the write may run again
  Status s = Write([&](Connection& c) -> Status {
    // Under the project's lock, so two creates never both pass the count.
    if (Status locked = LockProject(c, w.project_id); !locked.ok()) return locked;
    auto now = Now(c);
    if (!now.ok()) return now.status();
    w.created_at = w.updated_at = w.schedule_from = *now;
    if (Status names = CheckContextNames(c, w); !names.ok()) return names;
    if (Status free = CheckNameFree(c, w); !free.ok()) return free;
    auto n = One(c, kCountWorkflows, {V(w.project_id)});
    if (!n.ok()) return n.status();
    if (*n >= static_cast<int64_t>(kMaxWorkflowsPerProject)) {
      return Status::ResourceExhausted("the project has " + std::to_string(*n) +
                                       " workflows (through the API and in files), "
                                       "the most it may have: remove one first");
    }
    return WriteRow(c, true, w);
  });
  if (!s.ok()) return s;
  return w;
}

Result<Workflow> SqlStore::GetWorkflow(const std::string& workflow_id) {
  return ReadOne(kSelectWorkflow, {V(workflow_id)}, &ReadWorkflow, kNoWorkflow);
}

Result<std::vector<Workflow>> SqlStore::ListWorkflows(const std::string& project_id) {
  return ReadAll(kSelectWorkflows, {V(project_id)}, &ReadWorkflow);
}

Result<std::vector<Workflow>> SqlStore::ListWorkflowsByTrigger(TriggerKind kind, int limit) {
  std::string name(ToString(kind));
  return ReadAll(kSelectWorkflowsByTrigger, {V(name), V(std::clamp(limit, 0, 100000))},
                 &ReadWorkflow);
}

Result<Workflow> SqlStore::UpdateWorkflow(const Workflow& given) {
  std::optional<Workflow> updated;
  Status s = Write([&](Connection& c) -> Status {
    updated.reset();
    auto current = LoadWorkflow(c, given.id, false);
    if (!current.ok()) return current.status();
    if (Status locked = LockProject(c, current->project_id); !locked.ok()) return locked;
    current = LoadWorkflow(c, given.id, true);  // as of the locks
    if (!current.ok()) return current.status();
    auto now = Now(c);
    if (!now.ok()) return now.status();
    Workflow w = *current;
    if (current->source == WorkflowSource::kFile) {
      if (!SameDefinition(*current, given)) {
        return Status::Conflict("the workflow " + current->name + " is defined in " +
                                current->file_path +
                                ": change that file (only enabled can be changed here)");
      }
    } else {
      Workflow next = given;
      next.id = current->id;
      next.project_id = current->project_id;
      next.source = WorkflowSource::kApi;
      next.created_at = current->created_at;
      next.schedule_from = current->schedule_from;
      next.file_path.clear();
      next.file_commit.clear();
      next.error.reset();
      if (Status checked = CheckWorkflow(next); !checked.ok()) return checked;
      if (Status names = CheckContextNames(c, next); !names.ok()) return names;
      if (Status free = CheckNameFree(c, next); !free.ok()) return free;
      if (!SameSchedule(*current, next)) next.schedule_from = *now;
      w = std::move(next);
    }
    w.enabled = given.enabled;
    // Slots missed while disabled do not fire.
    if (w.enabled && !current->enabled) w.schedule_from = *now;
    w.updated_at = *now;
    if (Status written = WriteRow(c, false, w); !written.ok()) return written;
    updated = std::move(w);
    return Status();
  });
  if (!s.ok()) return s;
  return std::move(*updated);
}

Status SqlStore::DeleteWorkflow(const std::string& workflow_id) {
  return Write([&](Connection& c) -> Status {
    auto w = LoadWorkflow(c, workflow_id, false);
    if (!w.ok()) return w.status();
    if (Status locked = LockProject(c, w->project_id); !locked.ok()) return locked;
    w = LoadWorkflow(c, workflow_id, true);
    if (!w.ok()) return w.status();
    if (w->source == WorkflowSource::kFile) {
      return Status::Conflict("the workflow " + w->name + " is defined in " + w->file_path +
                              ": remove that file to remove it");
    }
    if (Status d = Run(c, kDeleteQueuedRuns, {V(workflow_id)}); !d.ok()) return d;
    return Run(c, kDeleteWorkflow, {V(workflow_id)});
  });
}

Status SqlStore::SyncFileWorkflows(const std::string& project_id, const std::string& commit,
                                   std::vector<Workflow> files) {
  if (commit.empty() || commit.size() > kMaxCommitBytes) {
    return Status::InvalidArgument("a commit id must be 1 to " + std::to_string(kMaxCommitBytes) +
                                   " bytes");
  }
  if (files.size() > kMaxWorkflowsPerProject) {
    return Status::InvalidArgument("at most " + std::to_string(kMaxWorkflowsPerProject) +
                                   " workflow files are read");
  }
  std::set<std::string> names;
  for (Workflow& f : files) {
    if (Status s = CheckFileWorkflow(f); !s.ok()) return s;
    if (!names.insert(f.name).second) {
      return Status::InvalidArgument("two workflow files are named " + f.name);
    }
    f.project_id = project_id;
    f.source = WorkflowSource::kFile;
    f.file_commit = commit;
    if (f.error && f.error->size() > kMaxErrorBytes) {
      *f.error = f.error->substr(0, kMaxErrorBytes) + "...";
    }
  }
  return Write([&](Connection& c) -> Status {
    if (Status locked = LockProject(c, project_id); !locked.ok()) return locked;
    auto now = Now(c);
    if (!now.ok()) return now.status();
    std::vector<Workflow> stored;
    {
      auto r = c.Exec(kSelectWorkflowsOfSource, {V(project_id), V("file")});
      if (!r.ok()) return r.status();
      while (r->Next()) stored.push_back(ReadWorkflow(*r));
    }
    for (const Workflow& f : files) {
      auto it = std::find_if(stored.begin(), stored.end(),
                             [&](const Workflow& s) { return s.name == f.name; });
      Workflow w = f;
      if (it == stored.end()) {
        w.id = NewId();
        w.created_at = w.updated_at = w.schedule_from = *now;
        if (Status s = WriteRow(c, true, w); !s.ok()) return s;
        continue;
      }
      // Its id, enabled flag and schedule stay: a file rewritten is the same
      // workflow.
      w.id = it->id;
      w.created_at = it->created_at;
      w.enabled = it->enabled;
      w.schedule_from = SameSchedule(*it, w) ? it->schedule_from : *now;
      bool same = SameDefinition(*it, w);
      w.updated_at = same ? it->updated_at : *now;
      if (same && it->file_path == w.file_path && it->file_commit == w.file_commit) continue;
      if (Status s = WriteRow(c, false, w); !s.ok()) return s;
    }
    for (const Workflow& s : stored) {
      if (names.count(s.name) > 0) continue;
      if (Status d = Run(c, kDeleteQueuedRuns, {V(s.id)}); !d.ok()) return d;
      if (Status d = Run(c, kDeleteWorkflow, {V(s.id)}); !d.ok()) return d;
    }
    return Status();
  });
}

}  // namespace docwright::sql
