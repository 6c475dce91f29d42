// Turns that read a project's context repositories: real bare repositories on
// disk, the real store (SQLite), and the documentation agent against a fake
// model that calls the tools as a model would.
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "agent/model_agent.h"
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
using testing::Sh;

constexpr const char* kModelKey = "sk-test-model-secret";
constexpr const char* kClientV1 = "export function createClient() {}\n";

FakeStep Step(std::vector<FakeToolCall> calls) {
  FakeStep s;
  s.tool_calls = std::move(calls);
  return s;
}
FakeToolCall Call(std::string name, json arguments) {
  return FakeToolCall{std::move(name), std::move(arguments), std::nullopt};
}
FakeToolCall Finish() { return Call("finish", {{"summary", "Read the code; nothing to change."}}); }

class ContextRepositoriesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    docs_ = dir_ / "docs.git";
    testing::MakeDocsRemote(docs_);
    sdk_ = dir_ / "sdk.git";
    testing::MakeRemoteWith(sdk_, {{"src/client.ts", kClientV1}, {"README.md", "# SDK\n"}});
    store_ = std::move(*OpenSqliteStore(dir_ / "db.sqlite", testing::TestSecrets()));
    org_ = *store_->CreateOrg("acme");
    Project p;
    p.org_id = org_.id;
    p.repository = docs_;
    p.base_ref = "main";
    project_ = *store_->CreateProject(p);
  }

  void TearDown() override {
    turns_.reset();
    if (model_) {
      for (const auto& v : model_->Violations()) ADD_FAILURE() << "off the provider's API: " << v;
    }
  }

  // The model answers with `script`; the turns run the real agent against it.
  void Start(std::vector<FakeStep> script) {
    model_ = std::make_unique<FakeModelServer>(FakeModelServer::Wire::kOpenAI, kModelKey,
                                               std::move(script));
    agent_ = std::make_unique<agent::ModelAgent>(llm::ProviderConfig{
        .provider = "openai", .base_url = model_->BaseUrl(), .api_key = kModelKey});
    RepositoryTurnsOptions o;
    o.mirrors_dir = dir_ / "mirrors";
    o.public_url = "http://docwright.test";
    o.default_model = "docs-model-1";
    turns_ = std::make_unique<RepositoryTurns>(*store_, *agent_, o);
  }

  void AddContext(const std::string& name, const std::string& repository,
                  std::optional<std::string> branch = std::nullopt) {
    auto added = store_->AddContextRepository(ContextRepository{.project_id = project_.id,
                                                                .name = name,
                                                                .repository = repository,
                                                                .branch = std::move(branch)});
    ASSERT_TRUE(added.ok()) << added.status().message();
  }

  TurnInput Input(const std::string& prompt) {
    auto job = store_->CreateJob(Scope{org_.id, project_.id}, NewJob{prompt});
    EXPECT_TRUE(job.ok());
    Message m;
    m.job_id = job->id;
    m.seq = 1;
    m.prompt = prompt;
    return TurnInput{.job = *job, .project = project_, .message = m};
  }

  TurnOutcome Run(const TurnInput& in) {
    CancelToken cancel;
    return turns_->RunTurn(in, cancel);
  }

  // The system prompt of the model's request `i`.
  std::string System(size_t i) {
    auto requests = model_->Requests();
    EXPECT_GT(requests.size(), i);
    if (requests.size() <= i) return "";
    EXPECT_EQ(requests[i]["messages"][0]["role"], "system");
    return requests[i]["messages"][0]["content"].get<std::string>();
  }

  // The turn's call of `tool` whose arguments hold `needle`.
  static const TranscriptStep* ToolStep(const TurnOutcome& r, const std::string& tool,
                                        const std::string& needle) {
    for (const TranscriptStep& s : r.steps) {
      if (s.kind == TranscriptStep::Kind::kTool && s.tool == tool &&
          s.arguments.find(needle) != std::string::npos) {
        return &s;
      }
    }
    return nullptr;
  }

  // Every ref of the bare repository `repo` and where it points.
  static std::string Refs(const std::string& repo) {
    return Sh("git --git-dir=" + repo + " for-each-ref --format='%(refname) %(objectname)'");
  }

  static std::string Head(const std::string& repo, const std::string& branch = "main") {
    return Sh("git --git-dir=" + repo + " rev-parse " + branch);
  }

  testing::TempDir dir_;
  std::string docs_, sdk_;
  std::unique_ptr<Store> store_;
  Org org_;
  Project project_;
  std::unique_ptr<FakeModelServer> model_;
  std::unique_ptr<agent::ModelAgent> agent_;
  std::unique_ptr<RepositoryTurns> turns_;
};

TEST_F(ContextRepositoriesTest, TheAgentReadsAContextRepositoryAtTheCommitTheTurnFetched) {
  AddContext("sdk", sdk_);  // no branch: the remote's default one
  Start({Step({Call("read_file", {{"repository", "sdk"}, {"path", "src/client.ts"}}),
               Call("read_file", {{"repository", "api"}, {"path", "README.md"}})}),
         Step({Finish()})});
  std::string refs_before = Refs(sdk_);
  std::string v1 = Head(sdk_);

  TurnOutcome r = Run(Input("Document createClient"));
  ASSERT_TRUE(r.succeeded) << r.error.value_or("");
  const TranscriptStep* read = ToolStep(r, "read_file", "\"sdk\"");
  ASSERT_NE(read, nullptr);
  EXPECT_FALSE(read->is_error) << read->result;
  EXPECT_EQ(read->result, std::string("1\t") + kClientV1);
  const TranscriptStep* unknown = ToolStep(r, "read_file", "\"api\"");
  ASSERT_NE(unknown, nullptr);
  EXPECT_TRUE(unknown->is_error);
  EXPECT_NE(unknown->result.find("the context repositories are: sdk"), std::string::npos)
      << unknown->result;

  // The system prompt lists it, the same at every step.
  std::string system = System(0);
  EXPECT_NE(system.find("- sdk: branch main, commit " + v1.substr(0, 12) + ", 2 files"),
            std::string::npos)
      << system;
  EXPECT_NE(system.find("read-only"), std::string::npos);
  EXPECT_EQ(System(1), system) << "byte-stable across the turn's steps";
  bool told = false;
  for (const TranscriptStep& s : r.steps) {
    if (s.kind == TranscriptStep::Kind::kContext &&
        s.text.find("sdk (main at " + v1.substr(0, 12) + ")") != std::string::npos) {
      told = true;
    }
  }
  EXPECT_TRUE(told) << "the transcript says what the turn read";

  // Read, never written: the context repository's refs are as they were, and
  // its mirror is the pool's.
  EXPECT_EQ(Refs(sdk_), refs_before);
  EXPECT_TRUE(std::filesystem::exists(dir_ / ("mirrors/context/" + project_.id + "/sdk.git")));
  EXPECT_TRUE(std::filesystem::exists(dir_ / ("mirrors/" + project_.id + ".git")))
      << "the docs repository's mirror is where it always was";

  // The code moves on: the next turn reads it at its new head.
  std::string seed = dir_ / "sdk-work";
  Sh(std::string(testing::kGit) + " clone -q " + sdk_ + " " + seed + " && cd " + seed +
     " && printf 'export function createClient(options) {}\\n' > src/client.ts && " +
     testing::kGit + " commit -qam 'Options' && " + testing::kGit + " push -q origin HEAD:main");
  std::string v2 = Head(sdk_);
  ASSERT_NE(v2, v1);
  TurnOutcome again = Run(Input("Document the options"));
  ASSERT_TRUE(again.succeeded) << again.error.value_or("");
  read = ToolStep(again, "read_file", "\"sdk\"");
  ASSERT_NE(read, nullptr);
  EXPECT_EQ(read->result, "1\texport function createClient(options) {}\n");
  EXPECT_NE(System(2).find("commit " + v2.substr(0, 12)), std::string::npos) << System(2);
  EXPECT_EQ(Head(sdk_), v2) << "nothing pushed to it";
}

TEST_F(ContextRepositoriesTest, AContextRepositoryThatCannotBeReadDoesNotFailTheTurn) {
  AddContext("sdk", sdk_, "main");
  AddContext("gone", dir_ / "missing.git", "main");
  AddContext("old", sdk_, "no-such-branch");
  Start({Step({Call("list_files", {{"repository", "gone"}})}), Step({Finish()})});
  std::string refs_before = Refs(sdk_);

  TurnOutcome r = Run(Input("Document the SDK"));
  ASSERT_TRUE(r.succeeded) << r.error.value_or("");
  std::string system = System(0);
  EXPECT_NE(system.find("- sdk: branch main, commit " + Head(sdk_).substr(0, 12)),
            std::string::npos)
      << system;
  EXPECT_NE(system.find("could not be read for this turn"), std::string::npos) << system;
  EXPECT_NE(system.find("- gone: could not be read: "), std::string::npos) << system;
  EXPECT_NE(system.find("- old: could not be read: the repository has no branch no-such-branch"),
            std::string::npos)
      << system;
  EXPECT_EQ(system.find("- gone: branch"), std::string::npos);
  const TranscriptStep* listed = ToolStep(r, "list_files", "\"gone\"");
  ASSERT_NE(listed, nullptr);
  EXPECT_TRUE(listed->is_error) << "not readable this turn: unknown to the tools";
  EXPECT_NE(listed->result.find("the context repositories are: sdk"), std::string::npos)
      << listed->result;
  EXPECT_EQ(Refs(sdk_), refs_before);
}

TEST_F(ContextRepositoriesTest, AJobsOwnListChoosesItsContextRepositories) {
  std::string api = dir_ / "api.git";
  testing::MakeRemoteWith(api, {{"openapi.yaml", "openapi: 3.1.0\n"}});
  AddContext("sdk", sdk_);
  AddContext("api", api);
  Start({Step({Finish()})});

  TurnInput in = Input("Document the API");
  in.job.context = std::vector<std::string>{"api", "nope"};
  TurnOutcome r = Run(in);
  ASSERT_TRUE(r.succeeded) << r.error.value_or("");
  std::string system = System(0);
  EXPECT_NE(system.find("- api: branch main, commit " + Head(api).substr(0, 12) + ", 1 file\n"),
            std::string::npos)
      << system;
  EXPECT_EQ(system.find("- sdk:"), std::string::npos) << "not in the job's list";
  EXPECT_NE(system.find("- nope: the project has no context repository of that name"),
            std::string::npos)
      << system;
}

TEST_F(ContextRepositoriesTest, WithoutContextRepositoriesThePromptHasNoSuchSection) {
  Start({Step({Call("read_file", {{"repository", "sdk"}, {"path", "src/client.ts"}})}),
         Step({Finish()})});
  TurnOutcome r = Run(Input("Fix a typo"));
  ASSERT_TRUE(r.succeeded) << r.error.value_or("");
  EXPECT_EQ(System(0).find("Context repositories"), std::string::npos);
  const TranscriptStep* read = ToolStep(r, "read_file", "\"sdk\"");
  ASSERT_NE(read, nullptr);
  EXPECT_TRUE(read->is_error);
  EXPECT_NE(read->result.find("this turn has none"), std::string::npos) << read->result;
  EXPECT_FALSE(std::filesystem::exists(dir_ / ("mirrors/context/" + project_.id)));
}

}  // namespace
}  // namespace docwright
