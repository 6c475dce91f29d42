// `docwright org ...` and `docwright key ...`: organisations and their API keys,
// straight on the store.
#include "cli/admin_commands.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/common.h"
#include "core/api_key.h"
#include "core/time.h"

namespace docwright {
namespace {

using Json = nlohmann::ordered_json;

struct AdminOptions {
  std::string org_name;
  std::string key_org, key_name = "default", key_id;
};

Json KeyJson(const ApiKey& k) {
  return Json{{"id", k.id},
              {"orgId", k.org_id},
              {"name", k.name},
              {"prefix", k.prefix},
              {"createdAt", FormatRfc3339(k.created_at)},
              {"revokedAt", k.revoked_at ? Json(FormatRfc3339(*k.revoked_at)) : Json(nullptr)}};
}

}  // namespace

void AddAdminCommands(CLI::App& app, Common& common, std::function<int()>& action) {
  // Option values, alive as long as the commands' callbacks.
  auto opts = std::make_shared<AdminOptions>();
  // org
  auto* org = app.add_subcommand("org", "organisations");
  org->require_subcommand(1);
  auto* org_create = org->add_subcommand("create", "create an organisation; prints its id");
  AddCommon(org_create, common, true);
  org_create->add_option("--name", opts->org_name, "organisation name")->required();
  org_create->callback([&, opts] {
    action = [&, opts]() -> int {
      if (opts->org_name.empty() || opts->org_name.size() > 200) {
        return Fail(Status::InvalidArgument("--name must be 1 to 200 characters"));
      }
      auto store = Open(common);
      if (!store.ok()) return Fail(store.status());
      auto o = (*store)->CreateOrg(opts->org_name);
      if (!o.ok()) return Fail(o.status());
      if (common.json) {
        std::cout << Json{{"id", o->id},
                          {"name", o->name},
                          {"createdAt", FormatRfc3339(o->created_at)}}
                         .dump()
                  << "\n";
      } else {
        std::cout << "Created organisation \"" << o->name << "\".\n" << o->id << "\n";
      }
      return 0;
    };
  });

  // key
  auto* key = app.add_subcommand("key", "admin API keys");
  key->require_subcommand(1);
  auto* key_create = key->add_subcommand("create", "create a key; prints it, once");
  AddCommon(key_create, common, true);
  key_create->add_option("--org", opts->key_org, "organisation id")->required();
  key_create->add_option("--name", opts->key_name, "a name to recognise the key by");
  key_create->callback([&, opts] {
    action = [&, opts]() -> int {
      if (opts->key_name.empty() || opts->key_name.size() > 200) {
        return Fail(Status::InvalidArgument("--name must be 1 to 200 characters"));
      }
      auto store = Open(common);
      if (!store.ok()) return Fail(store.status());
      GeneratedApiKey k = GenerateApiKey(opts->key_org, opts->key_name);
      Status s = (*store)->CreateApiKey(k.record);
      if (!s.ok()) return Fail(s);
      if (common.json) {
        Json j = KeyJson(k.record);
        j["key"] = k.secret;
        std::cout << j.dump() << "\n";
      } else {
        std::cout << "Created API key " << k.record.id << " (\"" << k.record.name
                  << "\"). Store it now: it is not shown again.\n"
                  << k.secret << "\n";
      }
      return 0;
    };
  });
  auto* key_list = key->add_subcommand("list", "list an organisation's keys");
  AddCommon(key_list, common, true);
  key_list->add_option("--org", opts->key_org, "organisation id")->required();
  key_list->callback([&, opts] {
    action = [&, opts]() -> int {
      auto store = Open(common);
      if (!store.ok()) return Fail(store.status());
      auto keys = (*store)->ListApiKeys(opts->key_org);
      if (!keys.ok()) return Fail(keys.status());
      if (common.json) {
        Json arr = Json::array();
        for (const auto& k : *keys) arr.push_back(KeyJson(k));
        std::cout << arr.dump() << "\n";
      } else {
        for (const auto& k : *keys) {
          std::cout << k.id << "  " << k.prefix << "...  " << k.name << "  "
                    << FormatRfc3339(k.created_at)
                    << (k.revoked_at ? "  revoked " + FormatRfc3339(*k.revoked_at) : "") << "\n";
        }
      }
      return 0;
    };
  });
  auto* key_revoke = key->add_subcommand("revoke", "revoke a key; it stops working at once");
  AddCommon(key_revoke, common, true);
  key_revoke->add_option("KEY_ID", opts->key_id, "id of the key")->required();
  key_revoke->callback([&, opts] {
    action = [&, opts]() -> int {
      auto store = Open(common);
      if (!store.ok()) return Fail(store.status());
      Status s = (*store)->RevokeApiKey(opts->key_id);
      if (!s.ok()) return Fail(s);
      if (common.json) {
        std::cout << Json{{"id", opts->key_id}, {"revoked", true}}.dump() << "\n";
      } else {
        std::cout << "Revoked API key " << opts->key_id << ".\n";
      }
      return 0;
    };
  });
}

}  // namespace docwright
