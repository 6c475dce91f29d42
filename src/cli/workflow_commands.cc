#include "cli/workflow_commands.h"

#include <CLI/CLI.hpp>
#include <fstream>
#include <iostream>
#include <iterator>

#include "api/workflow_views.h"
#include "cli/common.h"
#include "core/ids.h"
#include "core/job.h"
#include "core/text.h"
#include "core/time.h"
#include "core/workflow.h"

namespace docwright {
namespace {

// The flags of the workflow commands, as typed. `update` changes only what
// its flags name.
struct WorkflowOptions {
  std::string project_id, name, title, prompt, prompt_file;
  std::string cron, time_zone, on_merge, branch, context, publish, model;
  bool on_push = false, manual = false, disabled = false;
  int64_t runs_per_day = kDefaultWorkflowRunsPerDay;
};
using WorkflowOptionsPtr = std::shared_ptr<WorkflowOptions>;

bool Given(const CLI::App& cmd, const char* flag) { return cmd.count(flag) > 0; }

// At most a prompt's worth of the file (a prompt is at most kMaxPromptChars
// characters of up to four bytes each); CheckWorkflow checks the rest.
Result<std::string> ReadPromptFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::InvalidArgument("--prompt-file: cannot read " + path);
  std::string text;
  text.resize(kMaxPromptChars * 4 + 1);
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > kMaxPromptChars * 4) {
    return Status::InvalidArgument("--prompt-file: the file is larger than a prompt may be");
  }
  return text;
}

std::vector<std::string> SplitNames(const std::string& list) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= list.size()) {
    size_t comma = list.find(',', pos);
    if (comma == std::string::npos) comma = list.size();
    std::string_view item = TrimSpace(std::string_view(list).substr(pos, comma - pos));
    if (!item.empty()) out.emplace_back(item);
    pos = comma + 1;
  }
  return out;
}

// The trigger flags onto `w`: one of --cron, --on-push, --on-merge, --manual
// replaces the trigger; alone, --time-zone and --branch change the current
// one's.
Status ApplyTrigger(const CLI::App& cmd, const WorkflowOptions& o, Workflow& w, bool create) {
  int kinds = 0;
  for (const char* flag : {"--cron", "--on-push", "--on-merge", "--manual"}) {
    kinds += Given(cmd, flag) ? 1 : 0;
  }
  if (kinds > 1) {
    return Status::InvalidArgument("give one trigger: --cron, --on-push, --on-merge or --manual");
  }
  if (kinds == 0 && create) {
    return Status::InvalidArgument(
        "give a trigger: --cron EXPR [--time-zone TZ], --on-push [--branch B], --on-merge REPO "
        "[--branch B] or --manual");
  }
  WorkflowTrigger t = w.trigger;
  if (Given(cmd, "--cron")) {
    t = WorkflowTrigger{.kind = TriggerKind::kSchedule, .cron = o.cron};
  } else if (Given(cmd, "--on-push")) {
    t = WorkflowTrigger{.kind = TriggerKind::kPush};
  } else if (Given(cmd, "--on-merge")) {
    t = WorkflowTrigger{.kind = TriggerKind::kMerge, .repository = o.on_merge};
  } else if (Given(cmd, "--manual")) {
    t = WorkflowTrigger{.kind = TriggerKind::kManual};
  }
  if (Given(cmd, "--time-zone")) {
    if (t.kind != TriggerKind::kSchedule) {
      return Status::InvalidArgument("--time-zone is for a schedule (--cron)");
    }
    t.time_zone = o.time_zone;
  }
  if (Given(cmd, "--branch")) {
    if (t.kind != TriggerKind::kPush && t.kind != TriggerKind::kMerge) {
      return Status::InvalidArgument("--branch is for --on-push or --on-merge");
    }
    t.branch = o.branch;
  }
  w.trigger = std::move(t);
  return Status();
}

// The flags onto `w`, then CheckWorkflow.
Status ApplyFlags(const CLI::App& cmd, const WorkflowOptions& o, Workflow& w, bool create) {
  if (Given(cmd, "--prompt") && Given(cmd, "--prompt-file")) {
    return Status::InvalidArgument("give --prompt or --prompt-file, not both");
  }
  if (Given(cmd, "--prompt")) w.prompt = o.prompt;
  if (Given(cmd, "--prompt-file")) {
    auto text = ReadPromptFile(o.prompt_file);
    if (!text.ok()) return text.status();
    w.prompt = std::move(*text);
  }
  if (create && !Given(cmd, "--prompt") && !Given(cmd, "--prompt-file")) {
    return Status::InvalidArgument("give the prompt: --prompt TEXT or --prompt-file FILE");
  }
  if (Status s = ApplyTrigger(cmd, o, w, create); !s.ok()) return s;
  if (Given(cmd, "--title")) w.title = o.title;
  if (Given(cmd, "--context")) w.context = SplitNames(o.context);
  if (Given(cmd, "--publish")) {
    if (o.publish.empty()) {
      w.publish.reset();
    } else {
      auto mode = ParsePublishMode(o.publish);
      if (!mode) return Status::InvalidArgument("--publish: pull_request, push or automerge");
      w.publish = *mode;
    }
  }
  if (Given(cmd, "--model")) {
    w.model = o.model.empty() ? std::nullopt : std::optional<std::string>(o.model);
  }
  if (Given(cmd, "--runs-per-day")) w.runs_per_day = o.runs_per_day;
  if (Given(cmd, "--disabled")) w.enabled = false;
  return CheckWorkflow(w);
}

Result<std::unique_ptr<Store>> OpenForProject(const Common& common, const std::string& project) {
  auto store = Open(common);
  if (!store.ok()) return store.status();
  if (auto p = (*store)->GetProjectById(project); !p.ok()) return p.status();
  return store;
}

// The workflow `name` of the project, as the API finds it (API-defined first).
Result<WorkflowView> FindView(Store& store, const std::string& project, const std::string& name) {
  auto views = ReadWorkflowViews(store, project, NowMillis());
  if (!views.ok()) return views.status();
  const WorkflowView* found = FindWorkflowView(*views, name);
  if (!found) return Status::NotFound("the project has no workflow " + name);
  return *found;
}

std::string Outcome(const std::optional<WorkflowRun>& run) {
  if (!run) return "-";
  std::string out(ToString(run->state));
  if (run->job_id) out += " " + *run->job_id;
  if (run->job_status) out += " " + std::string(ToString(*run->job_status));
  if (run->error) out += ": " + *run->error;
  return out;
}

void PrintView(const Common& common, const WorkflowView& v, const std::string& text) {
  if (common.json) {
    std::cout << WorkflowJson(v) << "\n";
  } else {
    std::cout << text;
  }
}

// One row of `workflow list`, and its error or clash below it.
void PrintRow(const WorkflowView& v) {
  const Workflow& w = v.workflow;
  std::cout << w.name << "  " << (w.source == WorkflowSource::kFile ? "file" : "api") << "  "
            << TriggerText(w.trigger) << "  " << (w.enabled ? "enabled" : "disabled") << "  "
            << (v.next_run_at ? FormatRfc3339(*v.next_run_at) : "-") << "  " << Outcome(v.last_run)
            << "\n";
  if (w.error) std::cout << "    error: " << *w.error << "\n";
  if (v.clash) {
    std::cout << "    clash: defined both by a file and through the API; neither runs\n";
  }
}

int CreateWorkflow(const Common& common, const WorkflowOptions& o, const CLI::App& cmd) {
  Workflow w;
  w.project_id = o.project_id;
  w.name = o.name;
  if (Status s = ApplyFlags(cmd, o, w, true); !s.ok()) return Fail(s);
  auto store = OpenForProject(common, o.project_id);
  if (!store.ok()) return Fail(store.status());
  auto made = (*store)->CreateWorkflow(w);
  if (!made.ok()) return Fail(made.status());
  auto view = FindView(**store, o.project_id, made->name);
  if (!view.ok()) return Fail(view.status());
  PrintView(common, *view, "Created workflow " + made->name + " (" + made->id + ").\n");
  return 0;
}

int ListWorkflows(const Common& common, const WorkflowOptions& o) {
  auto store = OpenForProject(common, o.project_id);
  if (!store.ok()) return Fail(store.status());
  auto views = ReadWorkflowViews(**store, o.project_id, NowMillis());
  if (!views.ok()) return Fail(views.status());
  if (common.json) {
    std::cout << WorkflowListJson(*views) << "\n";
    return 0;
  }
  for (const WorkflowView& v : *views) PrintRow(v);
  return 0;
}

int GetWorkflow(const Common& common, const WorkflowOptions& o) {
  auto store = OpenForProject(common, o.project_id);
  if (!store.ok()) return Fail(store.status());
  auto view = FindView(**store, o.project_id, o.name);
  if (!view.ok()) return Fail(view.status());
  const Workflow& w = view->workflow;
  std::string text =
      "name:      " + w.name + "\nid:        " + w.id +
      "\ntitle:     " + (w.title.empty() ? w.name : w.title) +
      "\nsource:    " + (w.source == WorkflowSource::kFile ? "file " + w.file_path : "api") +
      "\ntrigger:   " + TriggerText(w.trigger) + "\nenabled:   " + (w.enabled ? "yes" : "no") +
      "\nnext:      " + (view->next_run_at ? FormatRfc3339(*view->next_run_at) : "-") +
      "\nlast run:  " + Outcome(view->last_run) + "\n";
  if (w.error) text += "error:     " + *w.error + "\n";
  if (view->clash) text += "clash:     defined both by a file and through the API\n";
  text += "\n" + w.prompt + "\n";
  PrintView(common, *view, text);
  return 0;
}

int UpdateWorkflow(const Common& common, const WorkflowOptions& o, const CLI::App& cmd) {
  auto store = OpenForProject(common, o.project_id);
  if (!store.ok()) return Fail(store.status());
  auto view = FindView(**store, o.project_id, o.name);
  if (!view.ok()) return Fail(view.status());
  Workflow w = view->workflow;
  if (Status s = ApplyFlags(cmd, o, w, false); !s.ok()) return Fail(s);
  auto updated = (*store)->UpdateWorkflow(w);
  if (!updated.ok()) return Fail(updated.status());
  auto again = FindView(**store, o.project_id, o.name);
  if (!again.ok()) return Fail(again.status());
  PrintView(common, *again, "Updated workflow " + updated->name + ".\n");
  return 0;
}

int SetEnabled(const Common& common, const WorkflowOptions& o, bool enabled) {
  auto store = OpenForProject(common, o.project_id);
  if (!store.ok()) return Fail(store.status());
  auto view = FindView(**store, o.project_id, o.name);
  if (!view.ok()) return Fail(view.status());
  Workflow w = view->workflow;
  w.enabled = enabled;
  auto updated = (*store)->UpdateWorkflow(w);
  if (!updated.ok()) return Fail(updated.status());
  std::cout << (enabled ? "Enabled" : "Disabled") << " workflow " << updated->name << ".\n";
  return 0;
}

int DeleteWorkflow(const Common& common, const WorkflowOptions& o) {
  auto store = OpenForProject(common, o.project_id);
  if (!store.ok()) return Fail(store.status());
  auto view = FindView(**store, o.project_id, o.name);
  if (!view.ok()) return Fail(view.status());
  if (Status s = (*store)->DeleteWorkflow(view->workflow.id); !s.ok()) return Fail(s);
  std::cout << "Deleted workflow " << o.name << " (its jobs stay).\n";
  return 0;
}

// As POST .../workflows/{name}/run: a run by hand, disabled or not.
int RunWorkflow(const Common& common, const WorkflowOptions& o) {
  auto store = OpenForProject(common, o.project_id);
  if (!store.ok()) return Fail(store.status());
  auto view = FindView(**store, o.project_id, o.name);
  if (!view.ok()) return Fail(view.status());
  const Workflow& w = view->workflow;
  WorkflowRunRequest request{.workflow_id = w.id,
                             .dedup_key = "manual:" + NewId(),
                             .trigger = RunTrigger{.kind = "manual", .workflow = w.name},
                             .prompt = w.prompt,
                             .by_hand = true};
  auto started = (*store)->StartWorkflowRun(request);
  if (!started.ok()) return Fail(started.status());
  using Kind = WorkflowRunStart::Outcome;
  switch (started->outcome) {
    case Kind::kStarted:
      if (!started->job) break;
      std::cout << started->job->id << "\n";
      return 0;
    case Kind::kQueued:
      std::cout << "queued: a run of " << w.name << " is under way; this one starts after it\n";
      return 0;
    case Kind::kRefused:
      return Fail(Status::Conflict("refused: " + started->run.error.value_or("not started")));
    case Kind::kDuplicate:
      break;
  }
  return Fail(Status::Internal("the run was not started"));
}

void AddProjectAndName(CLI::App* cmd, WorkflowOptions& o) {
  cmd->add_option("--project", o.project_id, "id of the project")->required();
  cmd->add_option("--name", o.name, "the workflow's name")->required();
}

// The definition flags of create and update.
void AddDefinitionFlags(CLI::App* cmd, WorkflowOptions& o) {
  cmd->add_option("--prompt", o.prompt, "what the agent is to do");
  cmd->add_option("--prompt-file", o.prompt_file, "a file holding the prompt");
  cmd->add_option("--cron", o.cron, "run on a schedule: five cron fields or @daily, @weekly...");
  cmd->add_option("--time-zone", o.time_zone, "the schedule's IANA time zone (default UTC)");
  cmd->add_flag("--on-push", o.on_push, "run when the docs repository's branch moves");
  cmd->add_option("--on-merge", o.on_merge,
                  "run when this context repository's branch moves (a merge)");
  cmd->add_option("--branch", o.branch, "the branch --on-push or --on-merge watches");
  cmd->add_flag("--manual", o.manual, "run by hand only");
  cmd->add_option("--context", o.context,
                  "the context repositories its runs read, comma-separated (default: all)");
  cmd->add_option("--publish", o.publish, "pull_request (default), push or automerge");
  cmd->add_option("--model", o.model, "the model its runs use (default: the project's)");
  cmd->add_option("--runs-per-day", o.runs_per_day, "runs a day at most (default 20)")
      ->check(CLI::Range(int64_t{1}, kMaxWorkflowRunsPerDay));
  cmd->add_option("--title", o.title, "the title shown (default: the name)");
  cmd->add_flag("--disabled", o.disabled, "disable it (it still runs by hand)");
}

// A subcommand taking --project and --name, running `run`.
CLI::App* AddNamed(CLI::App* workflow, Common& common, std::function<int()>& action,
                   const WorkflowOptionsPtr& o, const char* name, const char* help, bool json,
                   std::function<int(const Common&, const WorkflowOptions&)> run) {
  auto* cmd = workflow->add_subcommand(name, help);
  AddCommon(cmd, common, json);
  AddProjectAndName(cmd, *o);
  cmd->callback([&, o, run] { action = [&, o, run] { return run(common, *o); }; });
  return cmd;
}

}  // namespace

void AddWorkflowCommands(CLI::App& app, Common& common, std::function<int()>& action) {
  auto* workflow = app.add_subcommand(
      "workflow",
      "a project's workflows: saved instructions run on a schedule, on a push or "
      "merge, or by hand");
  workflow->require_subcommand(1);
  auto o = std::make_shared<WorkflowOptions>();

  auto* create = workflow->add_subcommand("create", "define a workflow");
  AddCommon(create, common, true);
  AddProjectAndName(create, *o);
  AddDefinitionFlags(create, *o);
  create->callback(
      [&, o, create] { action = [&, o, create] { return CreateWorkflow(common, *o, *create); }; });

  auto* list = workflow->add_subcommand(
      "list", "a project's workflows: trigger, state, next run, last outcome, errors");
  AddCommon(list, common, true);
  list->add_option("--project", o->project_id, "id of the project")->required();
  list->callback([&, o] { action = [&, o] { return ListWorkflows(common, *o); }; });

  AddNamed(workflow, common, action, o, "get", "a workflow's definition and state", true,
           GetWorkflow);

  auto* update = workflow->add_subcommand(
      "update", "change a workflow's definition (what the flags name; not a file's)");
  AddCommon(update, common, true);
  AddProjectAndName(update, *o);
  AddDefinitionFlags(update, *o);
  update->callback(
      [&, o, update] { action = [&, o, update] { return UpdateWorkflow(common, *o, *update); }; });

  AddNamed(workflow, common, action, o, "enable", "enable a workflow (a file's too)", false,
           [](const Common& c, const WorkflowOptions& opt) { return SetEnabled(c, opt, true); });
  AddNamed(workflow, common, action, o, "disable", "disable a workflow (a file's too)", false,
           [](const Common& c, const WorkflowOptions& opt) { return SetEnabled(c, opt, false); });
  AddNamed(workflow, common, action, o, "delete", "delete a workflow (not a file's)", false,
           DeleteWorkflow);
  AddNamed(workflow, common, action, o, "run",
           "run a workflow now, by hand (a disabled one too); prints the job's id", false,
           RunWorkflow);
}

}  // namespace docwright
