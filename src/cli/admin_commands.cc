// `docwright org ...`, `docwright key ...`, `docwright backup` and
// `docwright secret-key ...`, straight on the store.
#include "cli/admin_commands.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/common.h"
#include "core/api_key.h"
#include "core/project_settings.h"
#include "core/secret_key_file.h"
#include "core/time.h"

namespace docwright {
namespace {

using Json = nlohmann::ordered_json;

struct AdminOptions {
  std::string org_name, org_id, backup_to;
  int64_t org_max_active = 0;  // 0: no cap
  BudgetFlags org_budget;
  std::string key_org, key_name = "default", key_id;
  std::string key_role = "admin";
  std::vector<std::string> key_projects;  // none: the whole organisation
};

Json KeyJson(const ApiKey& k) {
  return Json{{"id", k.id},
              {"orgId", k.org_id},
              {"name", k.name},
              {"prefix", k.prefix},
              {"role", ToString(k.role)},
              {"projects", k.projects ? Json(*k.projects) : Json(nullptr)},
              {"createdAt", FormatRfc3339(k.created_at)},
              {"lastUsedAt", k.last_used_at ? Json(FormatRfc3339(*k.last_used_at)) : Json(nullptr)},
              {"revokedAt", k.revoked_at ? Json(FormatRfc3339(*k.revoked_at)) : Json(nullptr)}};
}

// "a,b" (a key's projects, in a line of text).
std::string JoinIds(const std::vector<std::string>& ids) {
  std::string out;
  for (const std::string& id : ids) out += (out.empty() ? "" : ",") + id;
  return out.empty() ? "(none)" : out;
}

Json OrgJson(const Org& o) {
  Json j{{"id", o.id},
         {"name", o.name},
         {"maxActive", o.max_active ? Json(*o.max_active) : Json(nullptr)},
         {"createdAt", FormatRfc3339(o.created_at)}};
  AddBudgetJson(o.budget, j);
  return j;
}

using AdminOptionsPtr = std::shared_ptr<AdminOptions>;

// The --max-active flag of `org create` and `org update`.
CLI::Option* AddMaxActiveOption(CLI::App* cmd, AdminOptions& o) {
  return cmd->add_option("--max-active", o.org_max_active,
                         "turns of the organisation running at once, on all nodes (0: no cap)");
}

int CreateOrg(const Common& common, const AdminOptions& opts, const CLI::App& cmd) {
  if (Status name = CheckOrgName(opts.org_name); !name.ok()) return Fail(name);
  std::optional<int64_t> cap;
  if (opts.org_max_active != 0) cap = opts.org_max_active;
  if (Status s = CheckMaxActive(cap); !s.ok()) return Fail(s);
  MonthlyBudget budget;
  if (Status s = ApplyBudgetFlags(cmd, opts.org_budget, budget); !s.ok()) return Fail(s);
  auto store = Open(common);
  if (!store.ok()) return Fail(store.status());
  auto o = (*store)->CreateOrg(opts.org_name);
  if (!o.ok()) return Fail(o.status());
  if (cap || !budget.empty()) {
    o->max_active = cap;
    o->budget = budget;
    if (Status s = (*store)->UpdateOrg(*o); !s.ok()) return Fail(s);
  }
  if (common.json) {
    std::cout << OrgJson(*o).dump() << "\n";
  } else {
    std::cout << "Created organisation \"" << o->name << "\".\n" << o->id << "\n";
  }
  return 0;
}

void AddOrgCreateCommand(CLI::App* org, Common& common, std::function<int()>& action,
                         const AdminOptionsPtr& opts) {
  auto* create = org->add_subcommand("create", "create an organisation; prints its id");
  AddCommon(create, common, true);
  create->add_option("--name", opts->org_name, "organisation name")->required();
  AddMaxActiveOption(create, *opts);
  AddBudgetOptions(create, opts->org_budget, "the organisation's (all its projects together)");
  create->callback([&, opts, create] {
    action = [&, opts, create] { return CreateOrg(common, *opts, *create); };
  });
}

int ListOrgs(const Common& common) {
  auto store = Open(common);
  if (!store.ok()) return Fail(store.status());
  auto orgs = (*store)->ListOrgs();
  if (!orgs.ok()) return Fail(orgs.status());
  if (common.json) {
    Json arr = Json::array();
    for (const auto& o : *orgs) arr.push_back(OrgJson(o));
    std::cout << arr.dump() << "\n";
  } else {
    for (const auto& o : *orgs) {
      std::cout << o.id << "  " << o.name << "  " << FormatRfc3339(o.created_at)
                << (o.max_active ? "  max-active " + std::to_string(*o.max_active) : "")
                << BudgetText(o.budget) << "\n";
    }
  }
  return 0;
}

void AddOrgListCommand(CLI::App* org, Common& common, std::function<int()>& action) {
  auto* list = org->add_subcommand("list", "list every organisation: id, name, cap, budgets");
  AddCommon(list, common, true);
  list->callback([&] { action = [&] { return ListOrgs(common); }; });
}

// `org update`: changes what `name_given`, `cap_given` and the budget flags of
// `cmd` say was given.
int UpdateOrg(const Common& common, const AdminOptions& opts, const CLI::App& cmd, bool name_given,
              bool cap_given) {
  auto store = Open(common);
  if (!store.ok()) return Fail(store.status());
  auto found = (*store)->GetOrg(opts.org_id);
  if (!found.ok()) return Fail(found.status());
  Org o = std::move(*found);
  if (name_given) o.name = opts.org_name;
  if (cap_given) {
    o.max_active = opts.org_max_active == 0 ? std::nullopt : std::optional(opts.org_max_active);
  }
  if (Status name = CheckOrgName(o.name); !name.ok()) return Fail(name);
  if (Status cap = CheckMaxActive(o.max_active); !cap.ok()) return Fail(cap);
  if (Status s = ApplyBudgetFlags(cmd, opts.org_budget, o.budget); !s.ok()) return Fail(s);
  if (Status s = (*store)->UpdateOrg(o); !s.ok()) return Fail(s);
  if (common.json) {
    std::cout << OrgJson(o).dump() << "\n";
  } else {
    std::cout << "Updated organisation " << o.id << ".\n";
  }
  return 0;
}

void AddOrgUpdateCommand(CLI::App* org, Common& common, std::function<int()>& action,
                         const AdminOptionsPtr& opts) {
  auto* update = org->add_subcommand("update", "change an organisation's name, cap or budgets");
  AddCommon(update, common, true);
  update->add_option("ORG_ID", opts->org_id, "id of the organisation")->required();
  auto* name = update->add_option("--name", opts->org_name, "organisation name");
  auto* cap = AddMaxActiveOption(update, *opts);
  AddBudgetOptions(update, opts->org_budget, "the organisation's (all its projects together)");
  update->callback([&, opts, name, cap, update] {
    action = [&, opts, name, cap, update] {
      return UpdateOrg(common, *opts, *update, name->count() > 0, cap->count() > 0);
    };
  });
}

int Backup(const Common& common, const AdminOptions& opts) {
  Status s = BackupDatabase(common.DatabaseUrl(), opts.backup_to);
  if (!s.ok()) return Fail(s);
  if (common.json) {
    std::cout << Json{{"backup", opts.backup_to}}.dump() << "\n";
  } else {
    std::cout << "Wrote a copy of the database to " << opts.backup_to << ".\n";
  }
  return 0;
}

void AddBackupCommand(CLI::App& app, Common& common, std::function<int()>& action,
                      const AdminOptionsPtr& opts) {
  auto* backup = app.add_subcommand(
      "backup", "write a consistent copy of the database to a new file, while the service runs");
  AddCommon(backup, common, true);
  backup->add_option("--to", opts->backup_to, "the new file")->required();
  backup->callback([&, opts] { action = [&, opts] { return Backup(common, *opts); }; });
}

// `secret-key add`: a new current key first in the key file. What the store
// holds is sealed again under it by `secret-key rotate`, once every process
// that uses the database has the new file.
int AddSecretKeyToFile(const Common& common) {
  auto id = AddSecretKey(common.SecretKeyFile());
  if (!id.ok()) return Fail(id.status());
  if (common.json) {
    std::cout << Json{{"keyId", *id}, {"file", common.SecretKeyFile()}}.dump() << "\n";
  } else {
    std::cout << "Added key " << *id << " first in " << common.SecretKeyFile()
              << "; the older keys still open what they sealed.\n"
              << "Give every process the new file (restart them), then run "
                 "`docwright secret-key rotate`.\n"
              << *id << "\n";
  }
  return 0;
}

// `secret-key rotate`: every stored secret sealed again under the current key.
int RotateSecrets(const Common& common) {
  auto secrets = LoadSecrets(common);
  if (!secrets.ok()) return Fail(secrets.status());
  const std::string key_id = (*secrets)->current_key_id();
  auto store = OpenStore(common.DatabaseUrl(), std::move(*secrets));
  if (!store.ok()) return Fail(store.status());
  auto resealed = (*store)->ResealSecrets();
  if (!resealed.ok()) return Fail(resealed.status());
  if (common.json) {
    std::cout << Json{{"keyId", key_id}, {"resealed", *resealed}}.dump() << "\n";
  } else {
    std::cout << "Sealed " << *resealed << " secret" << (*resealed == 1 ? "" : "s")
              << " again under key " << key_id
              << "; every stored secret is now sealed under it, and the older keys may be "
                 "removed from the key file.\n";
  }
  return 0;
}

void AddSecretKeyCommands(CLI::App& app, Common& common, std::function<int()>& action) {
  auto* secret_key = app.add_subcommand("secret-key", "the key file sealing stored secrets");
  secret_key->require_subcommand(1);
  auto* add = secret_key->add_subcommand(
      "add", "put a new key first in the secret key file (older keys still open); prints its id");
  AddCommon(add, common, true);
  add->callback([&] { action = [&] { return AddSecretKeyToFile(common); }; });
  auto* rotate = secret_key->add_subcommand(
      "rotate", "seal every stored secret again under the key file's first key");
  AddCommon(rotate, common, true);
  rotate->callback([&] { action = [&] { return RotateSecrets(common); }; });
}

int CreateKey(const Common& common, const AdminOptions& opts) {
  if (opts.key_name.empty() || opts.key_name.size() > 200) {
    return Fail(Status::InvalidArgument("--name must be 1 to 200 characters"));
  }
  auto role = ParseKeyRole(opts.key_role);
  if (!role) return Fail(Status::InvalidArgument("--role must be admin or member"));
  if (opts.key_projects.size() > kMaxKeyProjects) {
    return Fail(Status::InvalidArgument("a key may be limited to at most " +
                                        std::to_string(kMaxKeyProjects) + " projects"));
  }
  auto store = Open(common);
  if (!store.ok()) return Fail(store.status());
  std::optional<std::vector<std::string>> projects;
  if (!opts.key_projects.empty()) {
    projects.emplace();
    for (const std::string& id : opts.key_projects) {
      // Only the organisation's own projects: a key never names another's.
      auto p = (*store)->GetProject(Scope{opts.key_org, id});
      if (!p.ok())
        return Fail(
            Status::InvalidArgument("--project " + id + ": no such project in the organisation"));
      if (std::find(projects->begin(), projects->end(), id) == projects->end()) {
        projects->push_back(id);
      }
    }
  }
  GeneratedApiKey k = GenerateApiKey(opts.key_org, opts.key_name, *role, std::move(projects));
  Status s = (*store)->CreateApiKey(k.record);
  if (!s.ok()) return Fail(s);
  if (common.json) {
    Json j = KeyJson(k.record);
    j["key"] = k.secret;
    std::cout << j.dump() << "\n";
  } else {
    std::cout << "Created API key " << k.record.id << " (\"" << k.record.name << "\", "
              << ToString(k.record.role) << ", "
              << (k.record.projects ? "projects " + JoinIds(*k.record.projects) : "all projects")
              << "). Store it now: it is not shown again.\n"
              << k.secret << "\n";
  }
  return 0;
}

void AddKeyCreateCommand(CLI::App* key, Common& common, std::function<int()>& action,
                         const AdminOptionsPtr& opts) {
  auto* create = key->add_subcommand("create", "create a key; prints it, once");
  AddCommon(create, common, true);
  create->add_option("--org", opts->key_org, "organisation id")->required();
  create->add_option("--name", opts->key_name, "a name to recognise the key by");
  create
      ->add_option("--role", opts->key_role,
                   "admin (everything, keys included) or member (jobs only)")
      ->check(CLI::IsMember({"admin", "member"}))
      ->capture_default_str();
  create->add_option("--project", opts->key_projects,
                     "a project the key is limited to (repeatable; none: every project)");
  create->callback([&, opts] { action = [&, opts] { return CreateKey(common, *opts); }; });
}

int ListKeys(const Common& common, const AdminOptions& opts) {
  auto store = Open(common);
  if (!store.ok()) return Fail(store.status());
  auto keys = (*store)->ListApiKeys(opts.key_org);
  if (!keys.ok()) return Fail(keys.status());
  if (common.json) {
    Json arr = Json::array();
    for (const auto& k : *keys) arr.push_back(KeyJson(k));
    std::cout << arr.dump() << "\n";
  } else {
    for (const auto& k : *keys) {
      std::cout << k.id << "  " << k.prefix << "...  " << k.name << "  " << ToString(k.role) << "  "
                << (k.projects ? "projects " + JoinIds(*k.projects) : "all projects") << "  "
                << FormatRfc3339(k.created_at)
                << (k.revoked_at ? "  revoked " + FormatRfc3339(*k.revoked_at) : "") << "\n";
    }
  }
  return 0;
}

void AddKeyListCommand(CLI::App* key, Common& common, std::function<int()>& action,
                       const AdminOptionsPtr& opts) {
  auto* list = key->add_subcommand("list", "list an organisation's keys");
  AddCommon(list, common, true);
  list->add_option("--org", opts->key_org, "organisation id")->required();
  list->callback([&, opts] { action = [&, opts] { return ListKeys(common, *opts); }; });
}

int RevokeKey(const Common& common, const AdminOptions& opts) {
  auto store = Open(common);
  if (!store.ok()) return Fail(store.status());
  Status s = (*store)->RevokeApiKey(opts.key_id);
  if (!s.ok()) return Fail(s);
  if (common.json) {
    std::cout << Json{{"id", opts.key_id}, {"revoked", true}}.dump() << "\n";
  } else {
    std::cout << "Revoked API key " << opts.key_id << ".\n";
  }
  return 0;
}

void AddKeyRevokeCommand(CLI::App* key, Common& common, std::function<int()>& action,
                         const AdminOptionsPtr& opts) {
  auto* revoke = key->add_subcommand("revoke", "revoke a key; it stops working at once");
  AddCommon(revoke, common, true);
  revoke->add_option("KEY_ID", opts->key_id, "id of the key")->required();
  revoke->callback([&, opts] { action = [&, opts] { return RevokeKey(common, *opts); }; });
}

}  // namespace

void AddAdminCommands(CLI::App& app, Common& common, std::function<int()>& action) {
  // Option values, alive as long as the commands' callbacks.
  auto opts = std::make_shared<AdminOptions>();
  auto* org = app.add_subcommand("org", "organisations");
  org->require_subcommand(1);
  AddOrgCreateCommand(org, common, action, opts);
  AddOrgListCommand(org, common, action);
  AddOrgUpdateCommand(org, common, action, opts);

  AddBackupCommand(app, common, action, opts);
  AddSecretKeyCommands(app, common, action);

  auto* key = app.add_subcommand("key", "admin API keys");
  key->require_subcommand(1);
  AddKeyCreateCommand(key, common, action, opts);
  AddKeyListCommand(key, common, action, opts);
  AddKeyRevokeCommand(key, common, action, opts);
}

}  // namespace docwright
