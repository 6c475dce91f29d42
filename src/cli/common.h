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
  bool json = false;

  std::string DatabaseUrl() const {
    return database.empty() ? data_dir + "/docwright.db" : database;
  }
  static std::string DefaultDataDir();
};

void AddCommon(CLI::App* cmd, Common& c, bool with_json);

// Prints "error: <message>" to stderr; returns the exit code 1.
int Fail(const Status& s);

// An organisation's name: 1 to 200 bytes; InvalidArgument naming --name otherwise.
Status CheckOrgName(const std::string& name);

// Opens the store the options name.
Result<std::unique_ptr<Store>> Open(const Common& c);

}  // namespace docwright
