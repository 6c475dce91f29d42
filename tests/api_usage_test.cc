// The job's `usage` extension field: always present on every job view, from the
// totals the store keeps on the job, with the estimated cost in the currency of
// the server's price table (`serve --prices`) and null without one. Black-box
// over loopback (every answer also checked against docs/openapi.json by the
// fixture), and the writer itself in-process.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>

#include "core/job_json.h"
#include "core/json_writer.h"
#include "store/sqlite_store.h"
#include "support/service_fixture.h"

namespace docwright::testing {
namespace {

using ApiUsageTest = ServiceTest;

const char* const kUsageKeys[] = {
    "model",        "inputTokens",   "cachedInputTokens", "cacheWriteTokens",
    "outputTokens", "estimatedCost", "currency",          "unpricedTurns"};

void ExpectUsageShape(const json& job) {
  ASSERT_TRUE(job.contains("usage")) << job.dump();
  const json& usage = job["usage"];
  ASSERT_TRUE(usage.is_object()) << job.dump();
  ASSERT_EQ(usage.size(), std::size(kUsageKeys)) << usage.dump();
  for (const char* key : kUsageKeys) EXPECT_TRUE(usage.contains(key)) << key;
  EXPECT_EQ(usage["model"], job["model"]);
}

TEST_F(ApiUsageTest, EveryJobViewCarriesUsageAndNoCostWithoutAPriceTable) {
  json created = CreateJob("Fix the typo");
  ExpectUsageShape(created);
  EXPECT_EQ(created["usage"]["inputTokens"], 0);
  EXPECT_EQ(created["usage"]["estimatedCost"], nullptr);
  json done = WaitForEnd(created["id"]);
  ExpectUsageShape(done);
  EXPECT_EQ(done["usage"]["currency"], nullptr) << "the server has no price table";
  EXPECT_EQ(done["usage"]["estimatedCost"], nullptr);
  HttpResult list = Get("/v2/agent/" + project_a_ + "/jobs", key_a_);
  ASSERT_EQ(list.status, 200) << list.body;
  const json listed = list.Json();  // (a range-for over a temporary's member would dangle)
  for (const json& j : listed["jobs"]) ExpectUsageShape(j);
  HttpResult follow =
      Post(Job(project_a_, created["id"]) + "/message", Prompt("And the API page"), key_a_);
  ASSERT_EQ(follow.status, 200) << follow.body;
  ExpectUsageShape(follow.Json());
}

TEST_F(ApiUsageTest, UsageShowsWhatTheTurnsRecordedWithTheTablesCurrency) {
  ASSERT_EQ(server_->Terminate(), 0);
  std::string priced_job, unpriced_job;
  {
    // Two jobs whose turns end with known usage, as the runner would end them.
    auto store =
        OpenSqliteStore(dir_ / "docwright.db", testing::KeyFileSecrets(dir_ / "secret.key"));
    ASSERT_TRUE(store.ok()) << store.status().message();
    auto turn = [&](const TokenUsage& usage, std::optional<int64_t> cost, std::string* id) {
      auto job = (*store)->CreateJob(Scope{org_a_, project_a_},
                                     NewJob{"Fix the typo", std::nullopt, std::nullopt, false});
      ASSERT_TRUE(job.ok()) << job.status().message();
      *id = job->id;
      auto claimed = (*store)->ClaimTurn("w", std::chrono::milliseconds(60000), kMaxTurnAttempts);
      ASSERT_TRUE(claimed.ok() && claimed->has_value());
      ASSERT_EQ((*claimed)->job.id, job->id);
      TurnOutcome outcome{.succeeded = true, .summary = "done"};
      outcome.usage = usage;
      outcome.model = "claude-sonnet-4-5";
      outcome.cost_micros = cost;
      ASSERT_TRUE((*store)->FinishTurn((*claimed)->turn_id, "w", outcome).ok());
    };
    turn({.input_tokens = 12000,
          .output_tokens = 700,
          .cached_input_tokens = 9000,
          .cache_write_tokens = 2000},
         12345678, &priced_job);
    turn({.input_tokens = 300, .output_tokens = 20}, std::nullopt, &unpriced_job);
  }
  std::ofstream(dir_ / "prices.json")
      << R"({"currency": "EUR", "models": {"claude-sonnet-4*": {"input": 3, "output": 15}}})";
  StartServer(kScripted, {"--lease-seconds", "1", "--prices", dir_ / "prices.json"});

  HttpResult got = Get(Job(project_a_, priced_job), key_a_);
  ASSERT_EQ(got.status, 200) << got.body;
  json job = got.Json();
  ExpectUsageShape(job);
  const json& usage = job["usage"];
  EXPECT_EQ(usage["inputTokens"], 12000);
  EXPECT_EQ(usage["cachedInputTokens"], 9000);
  EXPECT_EQ(usage["cacheWriteTokens"], 2000);
  EXPECT_EQ(usage["outputTokens"], 700);
  EXPECT_DOUBLE_EQ(usage["estimatedCost"].get<double>(), 12.345678);
  EXPECT_NE(got.body.find("\"estimatedCost\":12.345678,"), std::string::npos)
      << "the exact decimal: " << got.body;
  EXPECT_EQ(usage["currency"], "EUR");
  EXPECT_EQ(usage["unpricedTurns"], 0);

  // The transcript shows each turn's tokens by kind, model and cost.
  HttpResult transcript = Get(Job(project_a_, priced_job) + "/messages", key_a_);
  ASSERT_EQ(transcript.status, 200) << transcript.body;
  const json transcript_json = transcript.Json();
  const json& turn_view = transcript_json["messages"][0]["turn"];
  EXPECT_EQ(turn_view["usage"], json({{"inputTokens", 12000},
                                      {"outputTokens", 700},
                                      {"cachedInputTokens", 9000},
                                      {"cacheWriteTokens", 2000}}));
  EXPECT_EQ(turn_view["model"], "claude-sonnet-4-5");
  EXPECT_DOUBLE_EQ(turn_view["estimatedCost"].get<double>(), 12.345678);
  EXPECT_EQ(transcript_json["usage"]["cachedInputTokens"], 9000);
  json unpriced_turn =
      Get(Job(project_a_, unpriced_job) + "/messages", key_a_).Json()["messages"][0]["turn"];
  EXPECT_EQ(unpriced_turn["estimatedCost"], nullptr);
  EXPECT_EQ(unpriced_turn["usage"]["outputTokens"], 20);
  // The poll's ETag covers the usage; a repeat is a 304.
  HttpResult again =
      client_->Send("GET", Job(project_a_, priced_job), "",
                    {{"Authorization", "Bearer " + key_a_}, {"If-None-Match", got.Header("etag")}});
  EXPECT_EQ(again.status, 304);

  json unpriced = Get(Job(project_a_, unpriced_job), key_a_).Json();
  EXPECT_EQ(unpriced["usage"]["inputTokens"], 300);
  EXPECT_EQ(unpriced["usage"]["unpricedTurns"], 1);
  EXPECT_EQ(unpriced["usage"]["estimatedCost"], nullptr) << "no turn of it was priced";
  EXPECT_EQ(unpriced["usage"]["currency"], "EUR");

  // Another organisation's key sees nothing of it.
  EXPECT_EQ(Get(Job(project_a_, priced_job), key_b_).status, 404);
}

// `value` without its "description" members, at any depth.
json WithoutDescriptions(json value) {
  if (value.is_object()) {
    value.erase("description");
    for (auto& [key, member] : value.items()) member = WithoutDescriptions(member);
  }
  return value;
}

// docs/api.md's JSON Schema of the field is the OpenAPI document's, and the
// AgentJob of the document requires it.
TEST(JobUsageDocs, TheSchemaInTheApiDocsIsTheDocumentsSchema) {
  std::string path = DOCWRIGHT_OPENAPI;
  std::ifstream openapi_in(path);
  ASSERT_TRUE(openapi_in) << path;
  json doc = json::parse(openapi_in);
  const json& schemas = doc["components"]["schemas"];
  EXPECT_EQ(schemas["AgentJob"]["properties"]["usage"]["$ref"], "#/components/schemas/JobUsage");
  const json& required = schemas["AgentJob"]["required"];
  EXPECT_NE(std::find(required.begin(), required.end(), "usage"), required.end());

  path.replace(path.rfind("openapi.json"), std::string("openapi.json").size(), "api.md");
  std::ifstream md_in(path);
  ASSERT_TRUE(md_in) << path;
  std::stringstream text;
  text << md_in.rdbuf();
  const std::string md = text.str();
  size_t at = md.find("\n## Usage\n");
  ASSERT_NE(at, std::string::npos) << "docs/api.md has no Usage section";
  size_t open = md.find("```json\n", at);
  size_t close = md.find("\n```", open + 8);
  ASSERT_NE(close, std::string::npos);
  json documented = json::parse(md.substr(open + 8, close - open - 8));
  EXPECT_EQ(documented, WithoutDescriptions(schemas["JobUsage"]));
}

TEST(JobUsageJson, CostsAreExactDecimalsAndNullWithoutACurrency) {
  EXPECT_EQ(CostJsonNumber(0), "0");
  EXPECT_EQ(CostJsonNumber(1), "0.000001");
  EXPECT_EQ(CostJsonNumber(2500000), "2.5");
  EXPECT_EQ(CostJsonNumber(12345678), "12.345678");
  EXPECT_EQ(CostJsonNumber(1000000000000000000), "1000000000000");
  EXPECT_EQ(CostJsonNumber(-1500000), "-1.5");

  Job job;
  job.model = "m\"1";
  job.usage.tokens = {
      .input_tokens = 5, .output_tokens = 6, .cached_input_tokens = 3, .cache_write_tokens = 1};
  job.usage.turns = 2;
  job.usage.unpriced_turns = 1;
  job.usage.cost_micros = 42;
  auto render = [&](std::string_view currency) {
    std::string out;
    JsonWriter w(&out);
    WriteJobUsage(job, currency, w);
    return out;
  };
  EXPECT_EQ(render("USD"),
            R"({"model":"m\"1","inputTokens":5,"cachedInputTokens":3,"cacheWriteTokens":1,)"
            R"("outputTokens":6,"estimatedCost":0.000042,"currency":"USD","unpricedTurns":1})");
  EXPECT_EQ(render(""),
            R"({"model":"m\"1","inputTokens":5,"cachedInputTokens":3,"cacheWriteTokens":1,)"
            R"("outputTokens":6,"estimatedCost":null,"currency":null,"unpricedTurns":1})");
  job.usage.unpriced_turns = 2;  // every turn unpriced: no cost to show
  EXPECT_NE(render("USD").find("\"estimatedCost\":null,\"currency\":\"USD\""), std::string::npos);
  job.model.reset();
  EXPECT_EQ(render("USD").rfind("{\"model\":null,", 0), 0u);

  // The AgentJob carries it last.
  std::string agent_job;
  JsonWriter w(&agent_job);
  WriteAgentJob(job, w, "USD");
  auto parsed = nlohmann::ordered_json::parse(agent_job);
  EXPECT_EQ(parsed.begin().key(), "id");
  EXPECT_EQ((--parsed.end()).key(), "usage");
}

}  // namespace
}  // namespace docwright::testing
