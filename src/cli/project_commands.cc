#include "cli/project_commands.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/common.h"
#include "cli/context_commands.h"
#include "cli/hook_commands.h"
#include "cli/webhook_commands.h"
#include "core/api_key.h"
#include "core/project_settings.h"
#include "core/text.h"
#include "core/time.h"
#include "core/usage.h"
#include "forge/forge.h"
#include "git/git.h"

namespace docwright {
namespace {

using Json = nlohmann::ordered_json;

// The flags of `project create` and `project update`, as typed. `update`
// changes only the settings whose flags were given.
struct ProjectOptions {
  std::string org, repository, ref, forge = "local", api_url, token, model;
  std::string ssh_key, known_hosts, site_root;
  std::string publish = "pull_request";
  int64_t rate = kDefaultRateLimitPerHour;
  int64_t max_active = 0;  // 0: no cap
  std::vector<std::string> models, write_paths;
  BudgetFlags budget;
  int git_timeout_s = 60;
  bool no_check = false;
  std::string id;
};

Json ProjectJson(const Project& p) {
  Json j{{"id", p.id},
         {"orgId", p.org_id},
         {"repository", p.repository},
         {"ref", p.base_ref},
         {"forge", ToString(p.forge)},
         {"forgeApiUrl", p.forge_api_url ? Json(*p.forge_api_url) : Json(nullptr)},
         {"forgeTokenSet", p.forge_token.has_value()},
         {"sshKey", p.ssh_key_path ? Json(*p.ssh_key_path) : Json(nullptr)},
         {"sshKnownHosts", p.ssh_known_hosts_path ? Json(*p.ssh_known_hosts_path) : Json(nullptr)},
         {"model", p.model ? Json(*p.model) : Json(nullptr)},
         {"rateLimitPerHour", p.rate_limit_per_hour},
         {"maxActive", p.max_active ? Json(*p.max_active) : Json(nullptr)},
         {"models", p.models},
         {"writePaths", p.write_paths},
         {"siteRoot", p.site_root.empty() ? Json(nullptr) : Json(p.site_root)},
         {"publish", ToString(p.publish)},
         {"createdAt", FormatRfc3339(p.created_at)},
         {"archivedAt", p.archived_at ? Json(FormatRfc3339(*p.archived_at)) : Json(nullptr)}};
  AddBudgetJson(p.budget, j);
  return j;
}

// The settings flags of both commands. Defaults are create's; `update` reads a
// flag only when it was given.
void AddSettingsOptions(CLI::App* cmd, ProjectOptions& o, bool update) {
  const std::string none = update ? " (\"\" for none)" : "";
  cmd->add_option("--repository", o.repository,
                  "path of a bare repository on this machine, or URL of the docs repository "
                  "(checked: it must be reachable)");
  cmd->add_option("--ref", o.ref,
                  update ? "base branch of pull requests (checked: it must exist)"
                         : "base branch of pull requests (default: the repository's default "
                           "branch, its HEAD)");
  cmd->add_option("--forge", o.forge, "local, github, gitlab or gitea (default: local)");
  cmd->add_option("--forge-api-url", o.api_url, "API base URL of the forge" + none);
  cmd->add_option("--ssh-key", o.ssh_key,
                  "private key file for an SSH repository URL (no passphrase)" + none);
  cmd->add_option("--ssh-known-hosts", o.known_hosts,
                  "known_hosts file listing the SSH server's host key (default: "
                  "~/.ssh/known_hosts)");
  auto* token =
      cmd->add_option("--forge-token", o.token, "token for the forge and git pushes" + none);
  if (!update) token->envname("DOCWRIGHT_FORGE_TOKEN");
  cmd->add_option("--model", o.model,
                  "model for this project's jobs (default: the server's)" + none);
  cmd->add_option(
      "--rate-limit", o.rate,
      "jobs + messages per hour (default: " + std::to_string(kDefaultRateLimitPerHour) + ")");
  cmd->add_option("--max-active", o.max_active,
                  "turns of this project running at once, on all nodes (default 0: no cap)");
  cmd->add_option("--models", o.models,
                  "models a job may ask for, comma-separated (default: any; \"\" for any)")
      ->delimiter(',');
  cmd->add_option("--write-paths", o.write_paths,
                  "what the agent may change beyond or within the docs site: gitignore-style "
                  "patterns, comma-separated, later ones winning, '!' to refuse (default: the "
                  "docs site's files)")
      ->delimiter(',');
  cmd->add_option("--site-root", o.site_root,
                  "folder of the docs site in the repository, relative to its root (default: "
                  "found by the site's configuration file)" +
                      none);
  cmd->add_option("--publish", o.publish,
                  "how jobs publish their changes unless their workflow says: pull_request (the "
                  "default), push (onto the base branch, when the checks report no new problem) "
                  "or automerge (a pull request, merged once the checks pass)");
  AddBudgetOptions(cmd, o.budget, "the project's (its organisation's applies as well)");
  cmd->add_option("--git-timeout", o.git_timeout_s,
                  "seconds the repository check may wait for the remote (default: 60)")
      ->check(CLI::Range(1, 3600));
  cmd->add_flag("--no-check", o.no_check,
                "store the repository without reaching it (one not reachable from here yet); "
                "a wrong one fails the first job instead");
}

std::optional<std::string> NoneIfEmpty(const std::string& s) {
  return s.empty() ? std::nullopt : std::optional(s);
}

// A readable file, made absolute; InvalidArgument otherwise.
Result<std::string> ReadableFile(const std::string& file) {
  std::error_code ec;
  auto absolute = std::filesystem::absolute(file, ec);
  if (ec || !std::filesystem::is_regular_file(absolute, ec) ||
      access(absolute.c_str(), R_OK) != 0) {
    return Status::InvalidArgument("cannot read " + file);
  }
  return absolute.string();
}

// Applies the flags `cmd` was given (all of them for `create`) to `p`.
Status ApplyOptions(const CLI::App& cmd, const ProjectOptions& o, Project& p, bool create) {
  auto given = [&](const char* flag) { return create || cmd.count(flag) > 0; };
  if (given("--repository")) p.repository = o.repository;
  if (cmd.count("--ref") > 0) p.base_ref = o.ref;
  if (given("--forge")) {
    auto forge = ParseForge(o.forge);
    if (!forge) return Status::InvalidArgument("--forge must be local, github, gitlab or gitea");
    p.forge = *forge;
  }
  if (given("--forge-api-url")) p.forge_api_url = NoneIfEmpty(o.api_url);
  if (given("--forge-token")) p.forge_token = NoneIfEmpty(o.token);
  if (given("--model")) p.model = NoneIfEmpty(o.model);
  if (given("--rate-limit")) p.rate_limit_per_hour = o.rate;
  if (given("--max-active")) {
    p.max_active = o.max_active == 0 ? std::nullopt : std::optional(o.max_active);
  }
  if (given("--models")) p.models = o.models;
  if (Status s = ApplyBudgetFlags(cmd, o.budget, p.budget); !s.ok()) return s;
  if (given("--write-paths")) p.write_paths = o.write_paths;
  if (given("--site-root")) p.site_root = o.site_root;  // checked by CheckProjectSettings
  if (given("--publish")) {
    auto publish = ParsePublishMode(o.publish);
    if (!publish) {
      return Status::InvalidArgument("--publish must be pull_request, push or automerge");
    }
    p.publish = *publish;
  }
  if (given("--ssh-key") || cmd.count("--ssh-known-hosts") > 0) {
    std::string key = cmd.count("--ssh-key") > 0 ? o.ssh_key : p.ssh_key_path.value_or("");
    std::string hosts = o.known_hosts;
    if (key.empty()) {
      if (!hosts.empty()) return Status::InvalidArgument("--ssh-known-hosts needs --ssh-key");
      p.ssh_key_path.reset();
      p.ssh_known_hosts_path.reset();
      return Status();
    }
    if (hosts.empty()) hosts = p.ssh_known_hosts_path.value_or("");
    if (hosts.empty()) {
      auto home = Env("HOME");
      if (!home) return Status::InvalidArgument("--ssh-key needs --ssh-known-hosts");
      hosts = *home + "/.ssh/known_hosts";
    }
    auto key_file = ReadableFile(key);
    if (!key_file.ok()) return key_file.status();
    auto hosts_file = ReadableFile(hosts);
    if (!hosts_file.ok()) return hosts_file.status();
    p.ssh_key_path = *key_file;
    p.ssh_known_hosts_path = *hosts_file;
  }
  return Status();
}

// Reaches the project's repository as its turns will, with its credentials,
// within `timeout`; stores a local path absolute, and takes the repository's
// default branch when no --ref was given. Refuses, saying what to do, what a
// turn would fail on: see git::ProbeRemote, and a branch that does not exist.
// An empty repository is allowed, with a note on stderr.
Status CheckRepository(Project& p, bool ref_given, int timeout_s) {
  git::TransferLimits limits;
  limits.connect_timeout = std::chrono::seconds(std::min(timeout_s, 10));
  limits.idle_timeout = limits.transfer_timeout = std::chrono::seconds(timeout_s);
  auto probe = git::ProbeRemote(p.repository, git::CredentialsFor(p), limits);
  if (!probe.ok()) return probe.status();
  p.repository = probe->url;
  std::string known;  // for messages
  for (size_t i = 0; i < probe->branches.size() && i < 10; ++i) {
    known += (i ? ", " : "") + probe->branches[i];
  }
  if (probe->branch_count > 10) known += ", ...";
  if (!ref_given) {
    const auto& head = probe->default_branch;
    if (head && (probe->branch_count == 0 || probe->HasBranch(*head))) {
      p.base_ref = *head;
    } else if (probe->branch_count == 1) {  // HEAD names a branch never pushed
      p.base_ref = probe->branches.front();
    } else if (probe->branch_count == 0) {  // an empty remote may name none
      p.base_ref = "main";
    } else {
      return Status::InvalidArgument(
          "the repository's HEAD names no branch it has: give --ref BRANCH (its branches: " +
          known + ")");
    }
  }
  if (probe->branch_count == 0) {
    std::cerr << "note: the repository is empty: push the docs to its branch " << p.base_ref
              << " before the first job\n";
    return Status();
  }
  if (!probe->HasBranch(p.base_ref)) {
    return Status::InvalidArgument("the repository has no branch " + p.base_ref +
                                   " (its branches: " + known + "); give --ref BRANCH");
  }
  return Status();
}

// The checks of both commands, before anything is stored.
Status CheckProject(Project& p, bool check_repository, bool ref_given, int timeout_s) {
  Status settings = CheckProjectSettings(p);
  if (!settings.ok()) return settings;
  if (p.forge != ForgeKind::kLocal) {
    auto usable = forge::MakeForge(p, forge::ForgeContext{});
    if (!usable.ok()) return usable.status();
  }
  return check_repository ? CheckRepository(p, ref_given, timeout_s) : Status();
}

void Print(const Common& common, const Project& p, const std::string& text) {
  if (common.json) {
    std::cout << ProjectJson(p).dump() << "\n";
  } else {
    std::cout << text;
  }
}

using ProjectOptionsPtr = std::shared_ptr<ProjectOptions>;

// `project create`: checks the organisation, then the project, then stores it.
int CreateProject(const Common& common, const ProjectOptions& o, const CLI::App& cmd) {
  Project p;
  p.org_id = o.org;
  if (Status s = ApplyOptions(cmd, o, p, true); !s.ok()) return Fail(s);
  const bool ref_given = cmd.count("--ref") > 0;
  if (!ref_given) p.base_ref = "main";  // settled by the check below
  // What is quick to check first: the organisation, before the remote.
  auto store = Open(common);
  if (!store.ok()) return Fail(store.status());
  if (auto org = (*store)->GetOrg(p.org_id); !org.ok()) return Fail(org.status());
  if (Status s = CheckProject(p, !o.no_check, ref_given, o.git_timeout_s); !s.ok()) {
    return Fail(s);
  }
  auto created = (*store)->CreateProject(p);
  if (!created.ok()) return Fail(created.status());
  Print(common, *created,
        "Created project for " + created->repository + " (base branch " + created->base_ref +
            ").\n" + created->id + "\n");
  return 0;
}

void AddCreateCommand(CLI::App* project, Common& common, std::function<int()>& action,
                      const ProjectOptionsPtr& o) {
  auto* create = project->add_subcommand(
      "create", "create a project; checks its repository, then prints its id");
  AddCommon(create, common, true);
  create->add_option("--org", o->org, "organisation id")->required();
  AddSettingsOptions(create, *o, false);
  create->get_option("--repository")->required();
  create->callback(
      [&, o, create] { action = [&, o, create] { return CreateProject(common, *o, *create); }; });
}

int ListProjects(const Common& common, const ProjectOptions& o) {
  auto store = Open(common);
  if (!store.ok()) return Fail(store.status());
  auto projects = (*store)->ListProjects(o.org);
  if (!projects.ok()) return Fail(projects.status());
  if (common.json) {
    Json arr = Json::array();
    for (const auto& p : *projects) arr.push_back(ProjectJson(p));
    std::cout << arr.dump() << "\n";
  } else {
    for (const auto& p : *projects) {
      std::cout << p.id << "  " << ToString(p.forge) << "  " << p.repository << "  " << p.base_ref
                << BudgetText(p.budget) << (p.archived_at ? "  archived" : "") << "\n";
    }
  }
  return 0;
}

void AddListCommand(CLI::App* project, Common& common, std::function<int()>& action,
                    const ProjectOptionsPtr& o) {
  auto* list = project->add_subcommand("list", "list an organisation's projects");
  AddCommon(list, common, true);
  list->add_option("--org", o->org, "organisation id")->required();
  list->callback([&, o] { action = [&, o] { return ListProjects(common, *o); }; });
}

// `project get`: one project's settings (never its forge token).
int GetProject(const Common& common, const ProjectOptions& o) {
  auto store = Open(common);
  if (!store.ok()) return Fail(store.status());
  auto p = (*store)->GetProject(Scope{o.org, o.id});
  if (!p.ok()) return Fail(p.status());
  if (common.json) {
    std::cout << ProjectJson(*p).dump() << "\n";
    return 0;
  }
  auto none = [](const std::optional<std::string>& v) { return v ? *v : std::string("(none)"); };
  auto joined = [](const std::vector<std::string>& list, const char* empty) {
    std::string out;
    for (const std::string& s : list) out += (out.empty() ? "" : ",") + s;
    return out.empty() ? std::string(empty) : out;
  };
  std::cout << "id             " << p->id << "\n"
            << "org            " << p->org_id << "\n"
            << "repository     " << p->repository << "\n"
            << "ref            " << p->base_ref << "\n"
            << "forge          " << ToString(p->forge)
            << (p->forge_api_url ? " (" + *p->forge_api_url + ")" : "") << "\n"
            << "forge token    " << (p->forge_token ? "set" : "(none)") << "\n"
            << "model          " << none(p->model) << "\n"
            << "models         " << joined(p->models, "(any)") << "\n"
            << "rate limit     " << p->rate_limit_per_hour << " an hour\n"
            << "max active     "
            << (p->max_active ? std::to_string(*p->max_active) : std::string("(no cap)")) << "\n"
            << "token budget   "
            << (p->budget.tokens ? std::to_string(*p->budget.tokens) + " tokens a month"
                                 : std::string("(none)"))
            << "\n"
            << "cost budget    "
            << (p->budget.cost_micros ? FormatCost(*p->budget.cost_micros, "") + " a month"
                                      : std::string("(none)"))
            << "\n"
            << "publish        " << ToString(p->publish) << "\n"
            << "write paths    " << joined(p->write_paths, "(the docs site's files)") << "\n"
            << "site root      "
            << (p->site_root.empty() ? std::string("(found by its configuration file)")
                                     : p->site_root)
            << "\n"
            << "created        " << FormatRfc3339(p->created_at) << "\n"
            << (p->archived_at ? "archived       " + FormatRfc3339(*p->archived_at) + "\n" : "");
  return 0;
}

void AddGetCommand(CLI::App* project, Common& common, std::function<int()>& action,
                   const ProjectOptionsPtr& o) {
  auto* get =
      project->add_subcommand("get", "show a project's settings, budgets included (no secrets)");
  AddCommon(get, common, true);
  get->add_option("PROJECT_ID", o->id, "id of the project")->required();
  get->add_option("--org", o->org, "organisation id")->required();
  get->callback([&, o] { action = [&, o] { return GetProject(common, *o); }; });
}

// `project update`: applies the flags given; checks the repository again when
// one of them changes how it is reached.
int UpdateProject(const Common& common, const ProjectOptions& o, const CLI::App& cmd) {
  auto store = Open(common);
  if (!store.ok()) return Fail(store.status());
  auto found = (*store)->GetProject(Scope{o.org, o.id});
  if (!found.ok()) return Fail(found.status());
  Project p = std::move(*found);
  if (Status s = ApplyOptions(cmd, o, p, false); !s.ok()) return Fail(s);
  // What the repository check depends on: where it is, how to log in to it,
  // and the branch.
  bool reach = false;
  for (const char* flag :
       {"--repository", "--ref", "--forge-token", "--ssh-key", "--ssh-known-hosts", "--forge"}) {
    reach = reach || cmd.count(flag) > 0;
  }
  if (Status s = CheckProject(p, reach && !o.no_check, true, o.git_timeout_s); !s.ok()) {
    return Fail(s);
  }
  Status s = (*store)->UpdateProject(p);
  if (!s.ok()) return Fail(s);
  Print(common, p, "Updated project " + p.id + ".\n");
  return 0;
}

void AddUpdateCommand(CLI::App* project, Common& common, std::function<int()>& action,
                      const ProjectOptionsPtr& o) {
  auto* update = project->add_subcommand(
      "update", "change any of a project's settings; a new repository or ref is checked");
  AddCommon(update, common, true);
  update->add_option("PROJECT_ID", o->id, "id of the project")->required();
  update->add_option("--org", o->org, "organisation id")->required();
  AddSettingsOptions(update, *o, true);
  update->callback(
      [&, o, update] { action = [&, o, update] { return UpdateProject(common, *o, *update); }; });
}

int ArchiveProject(const Common& common, const ProjectOptions& o) {
  auto store = Open(common);
  if (!store.ok()) return Fail(store.status());
  auto archived = (*store)->ArchiveProject(Scope{o.org, o.id});
  if (!archived.ok()) return Fail(archived.status());
  Print(common, *archived, "Archived project " + archived->id + ".\n");
  return 0;
}

void AddArchiveCommand(CLI::App* project, Common& common, std::function<int()>& action,
                       const ProjectOptionsPtr& o) {
  auto* archive = project->add_subcommand(
      "archive",
      "archive a project: new jobs and follow-ups are refused (409), running turns finish, "
      "its jobs stay readable");
  AddCommon(archive, common, true);
  archive->add_option("PROJECT_ID", o->id, "id of the project")->required();
  archive->add_option("--org", o->org, "organisation id")->required();
  archive->callback([&, o] { action = [&, o] { return ArchiveProject(common, *o); }; });
}

int DeleteProject(const Common& common, const ProjectOptions& o) {
  auto store = Open(common);
  if (!store.ok()) return Fail(store.status());
  Status s = (*store)->DeleteProject(Scope{o.org, o.id});
  if (!s.ok()) return Fail(s);
  // The mirror is a cache of the repository: a server that still holds it
  // open keeps reading its own copy until it restarts.
  std::error_code ec;
  std::filesystem::remove_all(common.data_dir + "/mirrors/" + o.id + ".git", ec);
  std::cout << "Deleted project " << o.id << ".\n";
  return 0;
}

void AddDeleteCommand(CLI::App* project, Common& common, std::function<int()>& action,
                      const ProjectOptionsPtr& o) {
  auto* remove = project->add_subcommand(
      "delete",
      "delete a project with all its jobs and local pull requests, and its mirror in the data "
      "directory; refused while one of its jobs is active");
  AddCommon(remove, common, false);
  remove->add_option("PROJECT_ID", o->id, "id of the project")->required();
  remove->add_option("--org", o->org, "organisation id")->required();
  remove->callback([&, o] { action = [&, o] { return DeleteProject(common, *o); }; });
}

// The flags of `quickstart`: a project's, and the organisation's name.
struct QuickstartOptions {
  ProjectOptions project;
  std::string name = "default";
  std::string url = "http://127.0.0.1:8080";
};

// What `quickstart` made, to print.
struct Quickstarted {
  Org org;
  GeneratedApiKey key;
  Project project;
};

// Makes the organisation, its key and the checked project `p` in the store.
Result<Quickstarted> MakeQuickstart(const Common& common, const std::string& org_name, Project p) {
  auto store = Open(common);
  if (!store.ok()) return store.status();
  auto org = (*store)->CreateOrg(org_name);
  if (!org.ok()) return org.status();
  GeneratedApiKey key = GenerateApiKey(org->id, "quickstart");
  if (Status s = (*store)->CreateApiKey(key.record); !s.ok()) return s;
  p.org_id = org->id;
  auto project = (*store)->CreateProject(p);
  if (!project.ok()) return project.status();
  return Quickstarted{std::move(*org), std::move(key), std::move(*project)};
}

void PrintQuickstart(const Common& common, const Quickstarted& made, const std::string& url) {
  std::string base = url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  const std::string curl =
      "curl -s -X POST '" + base + "/v2/agent/" + made.project.id +
      "/job' -H 'Authorization: Bearer " + made.key.secret +
      "' -H 'Content-Type: application/json' -d '{\"prompt\": \"Fix the typos on the "
      "first page\"}'";
  if (common.json) {
    std::cout << Json{{"orgId", made.org.id},   {"keyId", made.key.record.id},
                      {"key", made.key.secret}, {"project", ProjectJson(made.project)},
                      {"curl", curl},           {"dashboard", base + "/ui/"}}
                     .dump()
              << "\n";
    return;
  }
  std::cout << "Created organisation " << made.org.id << " (\"" << made.org.name << "\"), project "
            << made.project.id << " for " << made.project.repository << " (base branch "
            << made.project.base_ref
            << "), and an API key. Store the key now: it is not shown again.\n\n"
            << "  DOCWRIGHT_API_KEY=" << made.key.secret << "\n"
            << "  DOCWRIGHT_PROJECT=" << made.project.id << "\n\n"
            << "A first job (the service must be running, with a model configured):\n\n"
            << "  " << curl << "\n\n"
            << "Then follow it: build/docwright job follow JOB_ID --key \"$DOCWRIGHT_API_KEY\" "
               "--project "
            << made.project.id << "\n\n"
            << "Or in a browser: " << base << "/ui/ (sign in with the key).\n";
}

int Quickstart(const Common& common, const QuickstartOptions& o, const CLI::App& cmd) {
  Project p;
  if (Status s = ApplyOptions(cmd, o.project, p, true); !s.ok()) return Fail(s);
  const bool ref_given = cmd.count("--ref") > 0;
  if (!ref_given) p.base_ref = "main";
  if (Status s = CheckOrgName(o.name); !s.ok()) return Fail(s);
  // Nothing is made unless the project can be: its checks come first.
  if (Status s = CheckProject(p, !o.project.no_check, ref_given, o.project.git_timeout_s);
      !s.ok()) {
    return Fail(s);
  }
  auto made = MakeQuickstart(common, o.name, std::move(p));
  if (!made.ok()) return Fail(made.status());
  PrintQuickstart(common, *made, o.url);
  return 0;
}

}  // namespace

void AddProjectCommands(CLI::App& app, Common& common, std::function<int()>& action) {
  auto* project = app.add_subcommand("project", "projects: a documentation repository each");
  project->require_subcommand(1);
  auto o = std::make_shared<ProjectOptions>();  // kept alive by the callbacks
  AddCreateCommand(project, common, action, o);
  AddListCommand(project, common, action, o);
  AddGetCommand(project, common, action, o);
  AddUpdateCommand(project, common, action, o);
  AddArchiveCommand(project, common, action, o);
  AddDeleteCommand(project, common, action, o);
  AddWebhookCommands(project, common, action);
  AddContextCommands(project, common, action);
  AddHookCommands(project, common, action);
}

void AddQuickstartCommand(CLI::App& app, Common& common, std::function<int()>& action) {
  auto o = std::make_shared<QuickstartOptions>();
  auto* quick = app.add_subcommand(
      "quickstart",
      "one step to a first job: checks the repository, then creates an organisation, an API "
      "key and a project, and prints the key (once), the project id and the curl of a first "
      "job");
  AddCommon(quick, common, true);
  AddSettingsOptions(quick, o->project, false);
  quick->get_option("--repository")->required();
  quick->add_option("--name", o->name, "name of the organisation")->capture_default_str();
  quick->add_option("--url", o->url, "the server's URL, for the printed curl")
      ->envname("DOCWRIGHT_PUBLIC_URL")
      ->capture_default_str();
  quick->callback(
      [&, o, quick] { action = [&, o, quick] { return Quickstart(common, *o, *quick); }; });
}

}  // namespace docwright
