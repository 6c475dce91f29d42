// What the admin commands share: the options every command takes, the store they
// open, and how they report a failure. Internal to cli/.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "core/job.h"
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

// The budget flags of `project create|update` and `org create|update`, as
// typed; empty while not given.
struct BudgetFlags {
  std::string tokens;  // --token-budget: a number of tokens, or "none"
  std::string cost;    // --cost-budget: an amount in the price table's currency, or "none"
};

// Adds --token-budget and --cost-budget to `cmd`; `whose` ("the project's")
// names the budget in the help. `flags` must outlive parsing.
void AddBudgetOptions(CLI::App* cmd, BudgetFlags& flags, const std::string& whose);
// Sets each part of `budget` whose flag `cmd` was given ("none" lifts it).
// InvalidArgument naming the flag for a bad value (core/project_settings.h);
// `budget` is left as it was then.
Status ApplyBudgetFlags(const CLI::App& cmd, const BudgetFlags& flags, MonthlyBudget& budget);
// {"tokenBudget": tokens or null, "costBudget": amount or null} into `out`.
void AddBudgetJson(const MonthlyBudget& budget, nlohmann::ordered_json& out);
// "  token-budget 1000000  cost-budget 50" for the budgets set; "" for none.
std::string BudgetText(const MonthlyBudget& budget);

// The keys of the options' secret key file, creating it with a new key if
// there is none (core/secret_key_file.h).
Result<std::shared_ptr<const SecretBox>> LoadSecrets(const Common& c);

// Opens the store the options name, with their secret key file's keys.
Result<std::unique_ptr<Store>> Open(const Common& c);

}  // namespace docwright
