#include "cli/project_commands.h"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/common.h"
#include "core/project_settings.h"
#include "core/text.h"
#include "core/time.h"
#include "forge/forge.h"

namespace docwright {
namespace {

using Json = nlohmann::ordered_json;

struct ProjectOptions {
  std::string org, repository, ref = "main", forge = "local", api_url, token, model;
  std::string ssh_key, known_hosts;
  int64_t rate = kDefaultRateLimitPerHour;
  int64_t max_active = 0;  // 0: no cap
  std::vector<std::string> models, write_paths;
  std::string id;
};

Json ProjectJson(const Project& p) {
  return Json{
      {"id", p.id},
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
      {"createdAt", FormatRfc3339(p.created_at)}};
}

// --models and --write-paths, each a comma-separated list.
std::pair<CLI::Option*, CLI::Option*> AddListOptions(CLI::App* cmd, ProjectOptions& o) {
  auto* models = cmd->add_option("--models", o.models,
                                 "models a job may ask for, comma-separated (default: any; \"\" "
                                 "for any)")
                     ->delimiter(',');
  auto* write = cmd->add_option("--write-paths", o.write_paths,
                                "what the agent may change beyond or within the docs site: "
                                "gitignore-style patterns, comma-separated, later ones winning, "
                                "'!' to refuse (default: the docs site's files)")
                    ->delimiter(',');
  return {models, write};
}

}  // namespace

void AddProjectCommands(CLI::App& app, Common& common, std::function<int()>& action) {
  auto* project = app.add_subcommand("project", "projects: a documentation repository each");
  project->require_subcommand(1);
  auto o = std::make_shared<ProjectOptions>();
  // The options live in *o, which the callbacks keep alive.
  std::string &p_org = o->org, &p_repo = o->repository, &p_ref = o->ref, &p_forge = o->forge;
  std::string &p_api_url = o->api_url, &p_token = o->token, &p_model = o->model;
  std::string &p_ssh_key = o->ssh_key, &p_known_hosts = o->known_hosts, &p_id = o->id;
  int64_t& p_rate = o->rate;
  int64_t& p_max_active = o->max_active;
  std::vector<std::string>&p_models = o->models, &p_write_paths = o->write_paths;
  auto* project_create = project->add_subcommand("create", "create a project; prints its id");
  AddCommon(project_create, common, true);
  project_create->add_option("--org", p_org, "organisation id")->required();
  project_create->add_option("--repository", p_repo, "URL or path of the docs repository")
      ->required();
  project_create->add_option("--ref", p_ref, "base branch of pull requests");
  project_create->add_option("--forge", p_forge, "local, github, gitlab or gitea");
  project_create->add_option("--forge-api-url", p_api_url, "API base URL of the forge");
  project_create->add_option("--ssh-key", p_ssh_key,
                             "private key file for an SSH repository URL (no passphrase)");
  project_create->add_option("--ssh-known-hosts", p_known_hosts,
                             "known_hosts file listing the SSH server's host key "
                             "(default: ~/.ssh/known_hosts)");
  project_create->add_option("--forge-token", p_token, "token for the forge and git pushes")
      ->envname("DOCWRIGHT_FORGE_TOKEN");
  project_create->add_option("--model", p_model, "model for this project's jobs");
  project_create->add_option("--rate-limit", p_rate, "jobs + messages per hour");
  project_create->add_option("--max-active", p_max_active,
                             "turns of this project running at once, on all nodes (0: no cap)");
  AddListOptions(project_create, *o);
  project_create->callback([&, o] {
    action = [&, o]() -> int {
      Project p;
      p.org_id = p_org;
      p.repository = p_repo;
      p.base_ref = p_ref;
      auto forge = ParseForge(p_forge);
      if (!forge)
        return Fail(Status::InvalidArgument("--forge must be local, github, gitlab or gitea"));
      p.forge = *forge;
      if (!p_api_url.empty()) p.forge_api_url = p_api_url;
      if (!p_token.empty()) p.forge_token = p_token;
      if (!p_ssh_key.empty() || !p_known_hosts.empty()) {
        if (p_ssh_key.empty()) {
          return Fail(Status::InvalidArgument("--ssh-known-hosts needs --ssh-key"));
        }
        if (p_known_hosts.empty()) {
          auto home = Env("HOME");
          if (!home) return Fail(Status::InvalidArgument("--ssh-key needs --ssh-known-hosts"));
          p_known_hosts = *home + "/.ssh/known_hosts";
        }
        for (std::string* file : {&p_ssh_key, &p_known_hosts}) {
          std::error_code ec;
          auto absolute = std::filesystem::absolute(*file, ec);
          if (ec || !std::filesystem::is_regular_file(absolute, ec) ||
              access(absolute.c_str(), R_OK) != 0) {
            return Fail(Status::InvalidArgument("cannot read " + *file));
          }
          *file = absolute.string();
        }
        p.ssh_key_path = p_ssh_key;
        p.ssh_known_hosts_path = p_known_hosts;
      }
      if (!p_model.empty()) p.model = p_model;
      p.rate_limit_per_hour = p_rate;
      if (p_max_active != 0) p.max_active = p_max_active;
      p.models = p_models;
      p.write_paths = p_write_paths;
      Status settings = CheckProjectSettings(p);
      if (!settings.ok()) return Fail(settings);
      if (p.forge != ForgeKind::kLocal) {
        auto usable = forge::MakeForge(p, forge::ForgeContext{});
        if (!usable.ok()) return Fail(usable.status());
      }
      auto store = Open(common);
      if (!store.ok()) return Fail(store.status());
      auto created = (*store)->CreateProject(p);
      if (!created.ok()) return Fail(created.status());
      if (common.json) {
        std::cout << ProjectJson(*created).dump() << "\n";
      } else {
        std::cout << "Created project for " << created->repository << ".\n" << created->id << "\n";
      }
      return 0;
    };
  });
  auto* project_list = project->add_subcommand("list", "list an organisation's projects");
  AddCommon(project_list, common, true);
  project_list->add_option("--org", p_org, "organisation id")->required();
  project_list->callback([&, o] {
    action = [&, o]() -> int {
      auto store = Open(common);
      if (!store.ok()) return Fail(store.status());
      auto projects = (*store)->ListProjects(p_org);
      if (!projects.ok()) return Fail(projects.status());
      if (common.json) {
        Json arr = Json::array();
        for (const auto& p : *projects) arr.push_back(ProjectJson(p));
        std::cout << arr.dump() << "\n";
      } else {
        for (const auto& p : *projects) {
          std::cout << p.id << "  " << ToString(p.forge) << "  " << p.repository << "  "
                    << p.base_ref << "\n";
        }
      }
      return 0;
    };
  });

  auto* project_update =
      project->add_subcommand("update",
                              "change a project's model, model allow-list, write "
                              "rules, rate limit, cap of turns in flight or forge token");
  AddCommon(project_update, common, true);
  project_update->add_option("PROJECT_ID", p_id, "id of the project")->required();
  project_update->add_option("--org", p_org, "organisation id")->required();
  auto* model_opt = project_update->add_option("--model", p_model,
                                               "model for this project's jobs (\"\" for none)");
  auto* rate_opt = project_update->add_option("--rate-limit", p_rate, "jobs + messages per hour");
  auto* max_active_opt =
      project_update->add_option("--max-active", p_max_active,
                                 "turns of this project running at once, on all nodes (0: no cap)");
  auto* token_opt =
      project_update->add_option("--forge-token", p_token, "token for the forge and git pushes");
  // Named variables, not a structured binding: clang 14 cannot capture those.
  const auto list_opts = AddListOptions(project_update, *o);
  CLI::Option* models_opt = list_opts.first;
  CLI::Option* write_opt = list_opts.second;
  project_update->callback(
      [&, o, model_opt, rate_opt, max_active_opt, token_opt, models_opt, write_opt] {
        action = [&, o, model_opt, rate_opt, max_active_opt, token_opt, models_opt,
                  write_opt]() -> int {
          auto store = Open(common);
          if (!store.ok()) return Fail(store.status());
          auto found = (*store)->GetProject(Scope{p_org, p_id});
          if (!found.ok()) return Fail(found.status());
          Project p = std::move(*found);
          if (model_opt->count() > 0)
            p.model = p_model.empty() ? std::nullopt : std::optional(p_model);
          if (rate_opt->count() > 0) p.rate_limit_per_hour = p_rate;
          if (max_active_opt->count() > 0) {
            p.max_active = p_max_active == 0 ? std::nullopt : std::optional(p_max_active);
          }
          if (token_opt->count() > 0) {
            p.forge_token = p_token.empty() ? std::nullopt : std::optional(p_token);
          }
          if (models_opt->count() > 0) p.models = p_models;
          if (write_opt->count() > 0) p.write_paths = p_write_paths;
          Status settings = CheckProjectSettings(p);
          if (!settings.ok()) return Fail(settings);
          Status s = (*store)->UpdateProject(p);
          if (!s.ok()) return Fail(s);
          if (common.json) {
            std::cout << ProjectJson(p).dump() << "\n";
          } else {
            std::cout << "Updated project " << p.id << ".\n";
          }
          return 0;
        };
      });
}

}  // namespace docwright
