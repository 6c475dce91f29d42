#include "cli/common.h"

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <iostream>

#include "core/job_json.h"
#include "core/project_settings.h"
#include "core/secret_key_file.h"
#include "core/usage.h"

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

void AddBudgetOptions(CLI::App* cmd, BudgetFlags& flags, const std::string& whose) {
  cmd->add_option("--token-budget", flags.tokens,
                  whose + " monthly token budget (calendar month in UTC): tokens, or none");
  cmd->add_option("--cost-budget", flags.cost,
                  whose +
                      " monthly cost budget, in the price table's currency (serve --prices): an "
                      "amount such as 50 or 12.5, or none");
}

Status ApplyBudgetFlags(const CLI::App& cmd, const BudgetFlags& flags, MonthlyBudget& budget) {
  MonthlyBudget changed = budget;
  if (cmd.count("--token-budget") > 0) {
    auto tokens = ParseTokenBudget(flags.tokens);
    if (!tokens.ok()) return tokens.status();
    changed.tokens = *tokens;
  }
  if (cmd.count("--cost-budget") > 0) {
    auto cost = ParseCostBudget(flags.cost);
    if (!cost.ok()) return cost.status();
    changed.cost_micros = *cost;
  }
  if (Status s = CheckBudget(changed); !s.ok()) return s;
  budget = changed;
  return Status();
}

void AddBudgetJson(const MonthlyBudget& budget, nlohmann::ordered_json& out) {
  out["tokenBudget"] =
      budget.tokens ? nlohmann::ordered_json(*budget.tokens) : nlohmann::ordered_json(nullptr);
  // The exact decimal of the micros, as the API writes costs.
  out["costBudget"] = budget.cost_micros
                          ? nlohmann::ordered_json::parse(CostJsonNumber(*budget.cost_micros))
                          : nlohmann::ordered_json(nullptr);
}

std::string BudgetText(const MonthlyBudget& budget) {
  std::string out;
  if (budget.tokens) out += "  token-budget " + std::to_string(*budget.tokens);
  if (budget.cost_micros) out += "  cost-budget " + FormatCost(*budget.cost_micros, "");
  return out;
}

Status CheckOrgName(const std::string& name) {
  if (name.empty() || name.size() > 200) {
    return Status::InvalidArgument("--name must be 1 to 200 characters");
  }
  return Status();
}

}  // namespace docwright
