#include "cli/common.h"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>

#include "core/secret_key_file.h"

namespace docwright {

std::optional<std::string> Env(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return std::nullopt;
  return std::string(v);
}

std::string Common::DefaultDataDir() {
  if (auto xdg = Env("XDG_DATA_HOME")) return *xdg + "/docwright";
  if (auto home = Env("HOME")) return *home + "/.local/share/docwright";
  return "./docwright-data";
}

void AddCommon(CLI::App* cmd, Common& c, bool with_json) {
  cmd->add_option("--data-dir", c.data_dir, "where docwright keeps its data")
      ->envname("DOCWRIGHT_DATA_DIR");
  cmd->add_option("--database", c.database, "database URL (default: SQLite file in the data dir)")
      ->envname("DOCWRIGHT_DATABASE_URL");
  cmd->add_option("--secret-key-file", c.secret_key_file,
                  "key file sealing the stored secrets (default: secret.key in the data dir; "
                  "created if missing)")
      ->envname("DOCWRIGHT_SECRET_KEY_FILE");
  if (with_json) cmd->add_flag("--json", c.json, "print JSON instead of text");
}

int Fail(const Status& s) {
  std::cerr << "error: " << s.message() << "\n";
  return 1;
}

Result<std::shared_ptr<const SecretBox>> LoadSecrets(const Common& c) {
  auto box = LoadSecretKeyFile(c.SecretKeyFile());
  if (!box.ok()) return box.status();
  return std::make_shared<const SecretBox>(std::move(*box));
}

Result<std::unique_ptr<Store>> Open(const Common& c) {
  auto secrets = LoadSecrets(c);
  if (!secrets.ok()) return secrets.status();
  return OpenStore(c.DatabaseUrl(), std::move(*secrets));
}

Status CheckOrgName(const std::string& name) {
  if (name.empty() || name.size() > 200) {
    return Status::InvalidArgument("--name must be 1 to 200 characters");
  }
  return Status();
}

}  // namespace docwright
