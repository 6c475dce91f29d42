#include "cli/context_commands.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>

#include "api/workflow_views.h"
#include "cli/common.h"
#include "core/job.h"
#include "core/workflow.h"
#include "git/git.h"

namespace docwright {
namespace {

struct ContextOptions {
  std::string project_id, name, repository, branch;
  int git_timeout_s = 60;
  bool no_check = false;
};
using ContextOptionsPtr = std::shared_ptr<ContextOptions>;

// Reaches `repo` as the agent's turns will, with the project's credentials:
// refuses what they would fail on (no such repository, no access, a branch it
// does not have) and stores a local path absolute.
Status Probe(const Project& project, ContextRepository& repo, int timeout_s) {
  git::TransferLimits limits;
  limits.connect_timeout = std::chrono::seconds(std::min(timeout_s, 10));
  limits.idle_timeout = limits.transfer_timeout = std::chrono::seconds(timeout_s);
  auto probe = git::ProbeRemote(repo.repository, git::CredentialsFor(project), limits);
  if (!probe.ok()) return probe.status();
  repo.repository = probe->url;
  if (probe->branch_count == 0) {
    return Status::InvalidArgument("the repository " + repo.repository +
                                   " is empty: there is nothing to read");
  }
  const std::optional<std::string>& branch = repo.branch ? repo.branch : probe->default_branch;
  if (!branch) {
    return Status::InvalidArgument("the repository's HEAD names no branch: give --branch BRANCH");
  }
  if (!probe->HasBranch(*branch)) {
    return Status::InvalidArgument("the repository has no branch " + *branch +
                                   (repo.branch ? "" : " (its HEAD)") + "; give --branch BRANCH");
  }
  return Status();
}

int AddContext(const Common& common, const ContextOptions& o, const CLI::App& cmd) {
  ContextRepository repo;
  repo.project_id = o.project_id;
  repo.name = o.name;
  repo.repository = o.repository;
  if (Status s = CheckWorkflowName(repo.name); !s.ok()) return Fail(s);
  if (cmd.count("--branch") > 0) {
    if (Status s = CheckBranchName(o.branch); !s.ok()) return Fail(s);
    repo.branch = o.branch;
  }
  auto store = Open(common);
  if (!store.ok()) return Fail(store.status());
  auto project = (*store)->GetProjectById(o.project_id);
  if (!project.ok()) return Fail(project.status());
  if (!o.no_check) {
    if (Status s = Probe(*project, repo, o.git_timeout_s); !s.ok()) return Fail(s);
  }
  auto added = (*store)->AddContextRepository(repo);
  if (!added.ok()) return Fail(added.status());
  if (common.json) {
    std::cout << ContextRepositoryJson(*added) << "\n";
  } else {
    std::cout << added->name << "\n";
  }
  return 0;
}

int ListContext(const Common& common, const ContextOptions& o) {
  auto store = Open(common);
  if (!store.ok()) return Fail(store.status());
  if (auto project = (*store)->GetProjectById(o.project_id); !project.ok()) {
    return Fail(project.status());
  }
  auto repos = (*store)->ListContextRepositories(o.project_id);
  if (!repos.ok()) return Fail(repos.status());
  if (common.json) {
    std::cout << ContextRepositoryListJson(*repos) << "\n";
    return 0;
  }
  for (const ContextRepository& r : *repos) {
    std::cout << r.name << "  " << r.repository << "  " << r.branch.value_or("(its default branch)")
              << "\n";
  }
  return 0;
}

int RemoveContext(const Common& common, const ContextOptions& o) {
  auto store = Open(common);
  if (!store.ok()) return Fail(store.status());
  if (Status s = (*store)->RemoveContextRepository(o.project_id, o.name); !s.ok()) return Fail(s);
  std::cout << "Removed context repository " << o.name << ".\n";
  return 0;
}

}  // namespace

void AddContextCommands(CLI::App* project, Common& common, std::function<int()>& action) {
  auto* context = project->add_subcommand(
      "context", "a project's context repositories: code its agent may read, never write");
  context->require_subcommand(1);
  auto o = std::make_shared<ContextOptions>();

  auto* add = context->add_subcommand(
      "add", "add a context repository; reaches it with the project's credentials first");
  AddCommon(add, common, true);
  add->add_option("--project", o->project_id, "id of the project")->required();
  add->add_option("--name", o->name, "the name the agent reads it by (a-z, 0-9, - and _)")
      ->required();
  add->add_option("--repository", o->repository, "its URL (or a local path)")->required();
  add->add_option("--branch", o->branch, "the branch read (default: the remote's HEAD)");
  add->add_option("--git-timeout", o->git_timeout_s,
                  "seconds the check may wait for the remote (default: 60)")
      ->check(CLI::Range(1, 3600));
  add->add_flag("--no-check", o->no_check, "store the repository without reaching it");
  add->callback([&, o, add] { action = [&, o, add] { return AddContext(common, *o, *add); }; });

  auto* list = context->add_subcommand("list", "list a project's context repositories");
  AddCommon(list, common, true);
  list->add_option("--project", o->project_id, "id of the project")->required();
  list->callback([&, o] { action = [&, o] { return ListContext(common, *o); }; });

  auto* remove = context->add_subcommand(
      "remove", "remove a context repository (refused while a workflow names it)");
  AddCommon(remove, common, false);
  remove->add_option("--project", o->project_id, "id of the project")->required();
  remove->add_option("--name", o->name, "its name")->required();
  remove->callback([&, o] { action = [&, o] { return RemoveContext(common, *o); }; });
}

}  // namespace docwright
