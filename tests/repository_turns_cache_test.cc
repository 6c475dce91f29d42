// Turns that start from one commit share what depends only on it, through the
// node's docs cache (docs/commit_cache.h): a real bare repository and the local
// forge, the real store (SQLite), and the documentation agent against a fake
// model that fixes a typo and finishes.
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "agent/model_agent.h"
#include "docs/commit_cache.h"
#include "fakes/fake_model.h"
#include "runner/repository_turns.h"
#include "store/sqlite_store.h"
#include "support/git_repo.h"
#include "support/secrets.h"
#include "support/temp_dir.h"

namespace docwright {
namespace {

using nlohmann::json;
using testing::FakeModelServer;
using testing::FakeStep;
using testing::FakeToolCall;

constexpr const char* kModelKey = "sk-test-model-secret";
constexpr const char* kModel = "docs-model-1";

FakeStep Step(std::string name, json arguments) {
  FakeStep s;
  s.tool_calls = {FakeToolCall{std::move(name), std::move(arguments), std::nullopt}};
  return s;
}

class RepositoryTurnsCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    remote_ = dir_ / "docs.git";
    testing::MakeDocsRemote(remote_);
    store_ = std::move(*OpenSqliteStore(dir_ / "db.sqlite", testing::TestSecrets()));
    org_ = *store_->CreateOrg("acme");
    Project p;
    p.org_id = org_.id;
    p.repository = remote_;
    p.base_ref = "main";
    project_ = *store_->CreateProject(p);
    // Every conversation makes the same fix, then finishes.
    model_ = std::make_unique<FakeModelServer>(
        FakeModelServer::Wire::kOpenAI, kModelKey,
        std::vector<FakeStep>{Step("edit_file", {{"path", "quickstart.mdx"},
                                                 {"old_text", "Instal the CLI."},
                                                 {"new_text", "Install the CLI."}}),
                              Step("finish", {{"summary", "Fixed a typo."}})});
    agent_ = std::make_unique<agent::ModelAgent>(llm::ProviderConfig{
        .provider = "openai", .base_url = model_->BaseUrl(), .api_key = kModelKey});
    RepositoryTurnsOptions o;
    o.mirrors_dir = dir_ / "mirrors";
    o.public_url = "http://docwright.test";
    o.default_model = kModel;
    o.docs_cache = cache_;
    turns_ = std::make_unique<RepositoryTurns>(*store_, *agent_, o);
  }

  void TearDown() override {
    turns_.reset();
    for (const auto& v : model_->Violations()) ADD_FAILURE() << "off the provider's API: " << v;
  }

  // A new job with `prompt`, its turn claimed, run and recorded as the runner
  // does.
  TurnOutcome RunJob(const std::string& prompt) {
    Scope scope{org_.id, project_.id};
    auto job = store_->CreateJob(scope, NewJob{prompt});
    EXPECT_TRUE(job.ok()) << job.status().message();
    auto claimed = store_->ClaimTurn("w", std::chrono::seconds(60), kMaxTurnAttempts);
    EXPECT_TRUE(claimed.ok() && claimed->has_value());
    if (!claimed.ok() || !claimed->has_value()) return {};
    TurnInput in = **claimed;
    CancelToken cancel;
    TurnOutcome r = turns_->RunTurn(in, cancel);
    auto finished = store_->FinishTurn(in.turn_id, "w", r);
    EXPECT_TRUE(finished.ok() && *finished == LeaseState::kHeld);
    return r;
  }

  testing::TempDir dir_;
  std::string remote_;
  std::unique_ptr<Store> store_;
  Org org_;
  Project project_;
  std::unique_ptr<FakeModelServer> model_;
  std::unique_ptr<agent::ModelAgent> agent_;
  std::shared_ptr<docs::CommitCache> cache_ = std::make_shared<docs::CommitCache>();
  std::unique_ptr<RepositoryTurns> turns_;
};

TEST_F(RepositoryTurnsCacheTest, JobsFromOneCommitBuildItsSiteMapOnceAndTheStoryIsTheAgentsCheck) {
  TurnOutcome first = RunJob("Fix the typo in the quickstart");
  ASSERT_TRUE(first.succeeded) << first.error.value_or("");
  ASSERT_TRUE(first.pr_link);
  // The first job: the runner's map of main is built (a miss, kept), the agent
  // is handed it and builds none, renders it for the prompt (a miss, kept),
  // its check at finish is made (a miss, kept); the branch's story finds the
  // base's map, and the check of the same bytes taken from the pushed commit.
  docs::CommitCache::Stats s = cache_->stats();
  EXPECT_EQ(s.misses, 3u);
  EXPECT_EQ(s.stores, 3u);
  EXPECT_EQ(s.hits, 2u);

  // The second job starts from the same commit and makes the same fix: the
  // map, its text, the agent's check and the story's map and check are all
  // found.
  TurnOutcome second = RunJob("Fix the quickstart's typo");
  ASSERT_TRUE(second.succeeded) << second.error.value_or("");
  ASSERT_TRUE(second.pr_link);
  EXPECT_NE(*second.pr_link, *first.pr_link);
  s = cache_->stats();
  EXPECT_EQ(s.misses, 3u) << "one site map, its text and one check, for both jobs";
  EXPECT_EQ(s.stores, 3u);
  EXPECT_EQ(s.hits, 7u);
  EXPECT_EQ(s.entries, 3u);
  const auto requests = model_->Requests();
  ASSERT_EQ(requests.size(), 4u);
  EXPECT_EQ(requests[0]["messages"][0], requests[2]["messages"][0])
      << "both jobs' system prompts are the same";
  EXPECT_NE(requests[0]["messages"][0]["content"].get<std::string>().find("Navigation"),
            std::string::npos);
  EXPECT_EQ(model_->Requests().size(), 4u) << "no repair round: one check a job";
}

}  // namespace
}  // namespace docwright
