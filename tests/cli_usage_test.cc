// The command line of usage and budgets, black-box: the real binary on a real
// SQLite file. Budgets set with `project`/`org` `create|update` round-trip
// through `project get` and `org list`, bad values are refused naming the
// flag, and `docwright usage` adds up what the store recorded per turn, by
// model, by day and by project, as text and as JSON.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "core/time.h"
#include "store/sqlite_store.h"
#include "support/secrets.h"
#include "support/server_process.h"
#include "support/service_fixture.h"
#include "support/temp_dir.h"

namespace docwright::testing {
namespace {

constexpr int64_t kDayMs = 24 * 60 * 60 * 1000;

class CliUsageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = OpenSqliteStore(dir_ / "docwright.db", KeyFileSecrets(dir_ / "secret.key"));
    ASSERT_TRUE(opened.ok()) << opened.status().message();
    store_ = std::move(*opened);
    acme_ = store_->CreateOrg("acme")->id;
    globex_ = store_->CreateOrg("globex")->id;
    docs_ = MakeProject(acme_);
    api_ = MakeProject(acme_);
    other_ = MakeProject(globex_);
  }

  std::string MakeProject(const std::string& org) {
    Project p;
    p.org_id = org;
    p.repository = "https://git.example/" + org + "/docs";
    p.base_ref = "main";
    auto made = store_->CreateProject(p);
    EXPECT_TRUE(made.ok()) << made.status().message();
    return made.ok() ? made->id : "";
  }

  // A job of `project` whose one turn ends having used `usage` of `model`,
  // priced at `cost` micros (none: the model was not priced).
  void EndTurn(const std::string& org, const std::string& project, const std::string& model,
               TokenUsage usage, std::optional<int64_t> cost) {
    auto job = store_->CreateJob(Scope{org, project},
                                 NewJob{"Fix the typo", std::nullopt, std::nullopt, false});
    ASSERT_TRUE(job.ok()) << job.status().message();
    auto claimed = store_->ClaimTurn("w", std::chrono::milliseconds(60000), kMaxTurnAttempts);
    ASSERT_TRUE(claimed.ok() && claimed->has_value());
    ASSERT_EQ((*claimed)->job.id, job->id);
    TurnOutcome outcome{.succeeded = true, .summary = "done"};
    outcome.usage = usage;
    outcome.model = model;
    outcome.cost_micros = cost;
    ASSERT_TRUE(store_->FinishTurn((*claimed)->turn_id, "w", outcome).ok());
  }

  CommandResult Run(std::vector<std::string> args, int expected_exit = 0) {
    args.insert(args.end(), {"--data-dir", dir_.path()});
    CommandResult r = RunCommand(kReal, args);
    EXPECT_EQ(r.exit_code, expected_exit) << r.out << r.err;
    return r;
  }
  json RunJson(std::vector<std::string> args) {
    args.push_back("--json");
    CommandResult r = Run(std::move(args));
    json j = json::parse(r.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.out;
    return j;
  }
  // Refused with exit code 1 and a message on stderr that contains `why`.
  void ExpectRefused(std::vector<std::string> args, const std::string& why) {
    CommandResult r = Run(std::move(args), 1);
    EXPECT_NE(r.err.find(why), std::string::npos) << r.err;
  }

  TempDir dir_;
  std::unique_ptr<Store> store_;
  std::string acme_, globex_, docs_, api_, other_;
};

TEST_F(CliUsageTest, ProjectBudgetsRoundTripAndBadValuesAreRefused) {
  json set = RunJson({"project", "update", docs_, "--org", acme_, "--token-budget", "1000000",
                      "--cost-budget", "50"});
  EXPECT_EQ(set["tokenBudget"], 1000000);
  EXPECT_EQ(set["costBudget"], 50);
  json got = RunJson({"project", "get", docs_, "--org", acme_});
  EXPECT_EQ(got["id"], docs_);
  EXPECT_EQ(got["tokenBudget"], 1000000);
  EXPECT_EQ(got["costBudget"], 50);
  std::string text = Run({"project", "get", docs_, "--org", acme_}).out;
  EXPECT_NE(text.find("1000000 tokens a month"), std::string::npos) << text;
  EXPECT_NE(text.find("50.00 a month"), std::string::npos) << text;

  // What is not given stays; "none" lifts one budget and keeps the other.
  json kept = RunJson({"project", "update", docs_, "--org", acme_, "--rate-limit", "9"});
  EXPECT_EQ(kept["tokenBudget"], 1000000);
  EXPECT_EQ(kept["costBudget"], 50);
  json lifted = RunJson({"project", "update", docs_, "--org", acme_, "--token-budget", "none",
                         "--cost-budget", "12.345678"});
  EXPECT_EQ(lifted["tokenBudget"], nullptr);
  EXPECT_DOUBLE_EQ(lifted["costBudget"].get<double>(), 12.345678);
  EXPECT_EQ(RunJson({"project", "get", docs_, "--org", acme_})["tokenBudget"], nullptr);

  // A project made with budgets; one without has none.
  json made =
      RunJson({"project", "create", "--org", acme_, "--repository", "https://git.example/acme/more",
               "--ref", "main", "--no-check", "--token-budget", "250", "--cost-budget", "0.5"});
  EXPECT_EQ(made["tokenBudget"], 250);
  EXPECT_DOUBLE_EQ(made["costBudget"].get<double>(), 0.5);
  json plain = RunJson({"project", "get", api_, "--org", acme_});
  EXPECT_EQ(plain["tokenBudget"], nullptr);
  EXPECT_EQ(plain["costBudget"], nullptr);

  for (const char* bad : {"0", "-5", "1e6", "1,000", "abc", "1000000000000001"}) {
    ExpectRefused(
        {"project", "update", docs_, "--org", acme_, std::string("--token-budget=") + bad},
        "--token-budget");
  }
  for (const char* bad : {"0", "-1", "1.1234567", "ten", "1e3", "10000000000000"}) {
    ExpectRefused({"project", "update", docs_, "--org", acme_, std::string("--cost-budget=") + bad},
                  "--cost-budget");
  }
  ExpectRefused({"project", "create", "--org", acme_, "--repository", "https://git.example/x/y",
                 "--no-check", "--token-budget=0"},
                "--token-budget");
  // A refused update changed nothing.
  EXPECT_DOUBLE_EQ(RunJson({"project", "get", docs_, "--org", acme_})["costBudget"].get<double>(),
                   12.345678);
  // Another organisation's project is not found.
  Run({"project", "get", other_, "--org", acme_}, 1);
}

TEST_F(CliUsageTest, OrganisationBudgetsRoundTripAndAreListed) {
  json made = RunJson(
      {"org", "create", "--name", "initech", "--token-budget", "500", "--cost-budget", "12.5"});
  EXPECT_EQ(made["tokenBudget"], 500);
  EXPECT_DOUBLE_EQ(made["costBudget"].get<double>(), 12.5);
  std::string id = made["id"];
  json listed = RunJson({"org", "list"});
  ASSERT_EQ(listed.size(), 3u);
  EXPECT_EQ(listed[2]["id"], id);
  EXPECT_EQ(listed[2]["tokenBudget"], 500);
  EXPECT_EQ(listed[0]["tokenBudget"], nullptr) << "acme has no budget";
  std::string table = Run({"org", "list"}).out;
  EXPECT_NE(table.find("token-budget 500  cost-budget 12.50"), std::string::npos) << table;

  json updated = RunJson({"org", "update", id, "--cost-budget", "none", "--token-budget", "700"});
  EXPECT_EQ(updated["tokenBudget"], 700);
  EXPECT_EQ(updated["costBudget"], nullptr);
  EXPECT_EQ(updated["name"], "initech");
  json renamed = RunJson({"org", "update", id, "--name", "initrode"});
  EXPECT_EQ(renamed["tokenBudget"], 700) << "what is not given stays";

  ExpectRefused({"org", "update", id, "--token-budget=-1"}, "--token-budget");
  ExpectRefused({"org", "update", id, "--cost-budget=0"}, "--cost-budget");
  ExpectRefused({"org", "create", "--name", "x", "--cost-budget=abc"}, "--cost-budget");
  EXPECT_EQ(RunJson({"org", "list"}).size(), 3u) << "a refused create made nothing";
}

TEST_F(CliUsageTest, UsageAddsUpByModelDayAndProject) {
  EndTurn(acme_, docs_, "claude-sonnet-4-5",
          {.input_tokens = 10000,
           .output_tokens = 500,
           .cached_input_tokens = 8000,
           .cache_write_tokens = 1000},
          12345678);
  EndTurn(acme_, docs_, "gpt-4o", {.input_tokens = 2000, .output_tokens = 100}, std::nullopt);
  EndTurn(acme_, api_, "claude-sonnet-4-5",
          {.input_tokens = 5000, .output_tokens = 250, .cached_input_tokens = 4000}, 1000000);
  EndTurn(globex_, other_, "claude-sonnet-4-5", {.input_tokens = 999999, .output_tokens = 1},
          5000000);
  store_.reset();

  const UnixMillis now = NowMillis();
  const std::string today = FormatRfc3339(now).substr(0, 10);
  const std::string tomorrow = FormatRfc3339(now + kDayMs).substr(0, 10);
  json u = RunJson({"usage", "--org", acme_, "--since", today, "--until", tomorrow});
  EXPECT_EQ(u["orgId"], acme_);
  EXPECT_EQ(u["projectId"], nullptr);
  EXPECT_EQ(u["since"], today + "T00:00:00.000Z");
  EXPECT_EQ(u["until"], tomorrow + "T00:00:00.000Z");
  EXPECT_EQ(u["currency"], nullptr);
  const json& total = u["total"];
  EXPECT_EQ(total["turns"], 3);
  EXPECT_EQ(total["unpricedTurns"], 1);
  EXPECT_EQ(total["inputTokens"], 17000);
  EXPECT_EQ(total["cachedInputTokens"], 12000);
  EXPECT_EQ(total["cacheWriteTokens"], 1000);
  EXPECT_EQ(total["outputTokens"], 850);
  EXPECT_EQ(total["totalTokens"], 17850);
  EXPECT_DOUBLE_EQ(total["estimatedCost"].get<double>(), 13.345678);

  ASSERT_EQ(u["byModel"].size(), 2u) << u.dump();
  EXPECT_EQ(u["byModel"][0]["model"], "claude-sonnet-4-5");
  EXPECT_EQ(u["byModel"][0]["turns"], 2);
  EXPECT_EQ(u["byModel"][0]["inputTokens"], 15000);
  EXPECT_DOUBLE_EQ(u["byModel"][0]["estimatedCost"].get<double>(), 13.345678);
  EXPECT_EQ(u["byModel"][1]["model"], "gpt-4o");
  EXPECT_EQ(u["byModel"][1]["unpricedTurns"], 1);
  EXPECT_EQ(u["byModel"][1]["estimatedCost"], nullptr) << "no turn of it was priced";
  ASSERT_EQ(u["byDay"].size(), 1u);
  EXPECT_EQ(u["byDay"][0]["day"], today);
  EXPECT_EQ(u["byDay"][0]["turns"], 3);
  ASSERT_EQ(u["byProject"].size(), 2u);
  for (const json& p : u["byProject"]) {
    ASSERT_TRUE(p["projectId"] == docs_ || p["projectId"] == api_) << p;
    EXPECT_EQ(p["turns"], p["projectId"] == docs_ ? 2 : 1);
    EXPECT_EQ(p["outputTokens"], p["projectId"] == docs_ ? 600 : 250);
  }

  // One project, named alone or with its organisation; the currency from --prices.
  std::ofstream(dir_ / "prices.json")
      << R"({"currency": "EUR", "models": {"claude-sonnet-4*": {"input": 3, "output": 15}}})";
  json one = RunJson({"usage", "--project", api_, "--since", today, "--until", tomorrow, "--prices",
                      dir_ / "prices.json"});
  EXPECT_EQ(one["orgId"], acme_);
  EXPECT_EQ(one["projectId"], api_);
  EXPECT_EQ(one["currency"], "EUR");
  EXPECT_EQ(one["total"]["turns"], 1);
  EXPECT_DOUBLE_EQ(one["total"]["estimatedCost"].get<double>(), 1.0)
      << "the cost recorded when the turn ended, not priced again";
  EXPECT_EQ(RunJson({"usage", "--project", api_, "--org", acme_, "--since", today, "--until",
                     tomorrow})["total"]["turns"],
            1);
  Run({"usage", "--project", other_, "--org", acme_}, 1);

  // The default period is this month so far: today's turns are in it.
  json month = RunJson({"usage", "--org", globex_});
  EXPECT_EQ(month["since"], today.substr(0, 8) + "01T00:00:00.000Z");
  EXPECT_EQ(month["total"]["turns"], 1);
  EXPECT_EQ(month["total"]["inputTokens"], 999999);
  // Nothing ended then.
  json empty = RunJson({"usage", "--org", acme_, "--since", "2020-01-01", "--until", "2020-02-01"});
  EXPECT_EQ(empty["total"]["turns"], 0);
  EXPECT_EQ(empty["total"]["estimatedCost"], nullptr);
  EXPECT_TRUE(empty["byModel"].empty());

  // Text: the totals and the three tables.
  std::string text = Run({"usage", "--org", acme_, "--since", today, "--until", tomorrow,
                          "--prices", dir_ / "prices.json"})
                         .out;
  EXPECT_NE(text.find("turns 3 (1 unpriced)  input 17000 (cached 12000, cache writes 1000)  "
                      "output 850  total 17850  estimated cost 13.345678 EUR"),
            std::string::npos)
      << text;
  for (const std::string& line : {std::string("By model"), std::string("By day (UTC)"),
                                  std::string("By project"), std::string("gpt-4o"), docs_, api_}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << "\n" << text;
  }
}

TEST_F(CliUsageTest, UsageRefusesBadArguments) {
  ExpectRefused({"usage"}, "give --org ORG_ID or --project PROJECT_ID");
  for (const char* bad : {"2026-02-30", "26-11-01", "2026-11-1", "2026/11/01", "yesterday"}) {
    ExpectRefused({"usage", "--org", acme_, "--since", bad}, "--since must be a day as YYYY-MM-DD");
  }
  ExpectRefused({"usage", "--org", acme_, "--until", "2026-13-01"}, "--until must be a day");
  ExpectRefused({"usage", "--org", acme_, "--since", "2026-11-02", "--until", "2026-11-01"},
                "--until must be after --since");
  ExpectRefused({"usage", "--org", acme_, "--since", "2026-11-01", "--until", "2026-11-01"},
                "--until must be after --since");
  std::ofstream(dir_ / "bad-prices.json") << R"({"currency": "usd", "models": {}})";
  Run({"usage", "--org", acme_, "--prices", dir_ / "bad-prices.json"}, 1);
  Run({"usage", "--org", acme_, "--prices", dir_ / "missing.json"}, 1);
  CommandResult unknown = Run({"usage", "--org", "01a202ea-0000-7000-8000-000000000000"}, 1);
  EXPECT_NE(unknown.err.find("not found"), std::string::npos) << unknown.err;
}

}  // namespace
}  // namespace docwright::testing
