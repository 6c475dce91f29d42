// What the admin commands share: the options every command takes, the store they
// open, and how they report a failure. Internal to cli/.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "core/status.h"
#include "store/store.h"

namespace CLI {
class App;
}

namespace docwright {

// The environment variable `name`, unless unset or empty.
std::optional<std::string> Env(const char* name);

// Options every command takes.
struct Common {
  std::string data_dir = DefaultDataDir();
  std::string database;
  std::string secret_key_file;
  bool json = false;

  std::string DatabaseUrl() const {
    return database.empty() ? data_dir + "/docwright.db" : database;
  }
  // The key file that seals the database's secrets: by default in the data dir,
  // beside (not inside) a SQLite database, so a copy of the database alone
  // gives up no secret.
  std::string SecretKeyFile() const {
    return secret_key_file.empty() ? data_dir + "/secret.key" : secret_key_file;
  }
  static std::string DefaultDataDir();
};

void AddCommon(CLI::App* cmd, Common& c, bool with_json);

// Prints "error: <message>" to stderr; returns the exit code 1.
int Fail(const Status& s);

// An organisation's name: 1 to 200 bytes; InvalidArgument naming --name otherwise.
Status CheckOrgName(const std::string& name);

// The keys of the options' secret key file, creating it with a new key if
// there is none (core/secret_key_file.h).
Result<std::shared_ptr<const SecretBox>> LoadSecrets(const Common& c);

// Opens the store the options name, with their secret key file's keys.
Result<std::unique_ptr<Store>> Open(const Common& c);

}  // namespace docwright
