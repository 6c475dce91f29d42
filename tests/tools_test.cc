// The agent's tools on a real repository's workspace.
#include "agent/tools.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/git_repo.h"
#include "support/hostile_repo.h"
#include "support/temp_dir.h"

namespace docwright::agent {
namespace {

using nlohmann::json;

class ToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    remote_ = dir_ / "docs.git";
    testing::MakeRemoteFrom(remote_, DOCWRIGHT_SAMPLE_DOCS);
    mirror_ = std::move(*git::Mirror::Open(dir_ / "mirror.git", remote_, git::Credentials{}));
    snapshot_ = std::move(*mirror_->OpenSnapshot(*mirror_->FetchBranch("main")));
    workspace_ = std::make_unique<git::Workspace>(*snapshot_);
    tools_ = std::make_unique<Toolbox>(*workspace_);
  }
  ToolOutcome Call(const std::string& name, const json& args) {
    return tools_->Call(name, args.dump());
  }

  testing::TempDir dir_;
  std::string remote_;
  std::unique_ptr<git::Mirror> mirror_;
  std::unique_ptr<git::Snapshot> snapshot_;
  std::unique_ptr<git::Workspace> workspace_;
  std::unique_ptr<Toolbox> tools_;
};

TEST_F(ToolsTest, TheToolsAreExactlyTheDesignsWithObjectSchemas) {
  std::vector<std::string> names;
  for (const auto& spec : Toolbox::Specs()) {
    names.push_back(spec.name);
    json schema = json::parse(spec.parameters);
    EXPECT_EQ(schema["type"], "object") << spec.name;
    EXPECT_FALSE(spec.description.empty());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"list_files", "read_file", "search", "write_file",
                                             "edit_file", "delete_file", "move_file", "finish"}));
  json edit = json::parse(Toolbox::Specs()[4].parameters);
  EXPECT_EQ(edit["required"], (json{"path", "old_text", "new_text"}));
  EXPECT_TRUE(edit["properties"].contains("replace_all"));
}

TEST_F(ToolsTest, ListAndReadAreBoundedAndPaged) {
  auto root = Call("list_files", json::object());
  EXPECT_FALSE(root.is_error);
  EXPECT_NE(root.content.find("guides/\n"), std::string::npos) << root.content;
  EXPECT_NE(root.content.find("docs.json\n"), std::string::npos);
  EXPECT_NE(Call("list_files", {{"path", "guides"}}).content.find("guides/install.mdx"),
            std::string::npos);

  auto page = Call("read_file", {{"path", "quickstart.mdx"}, {"offset", 6}, {"limit", 2}});
  EXPECT_FALSE(page.is_error);
  EXPECT_EQ(page.content.rfind("6\t## Instal the CLI\n7\t\n", 0), 0u) << page.content;
  EXPECT_NE(page.content.find("call read_file with offset=8"), std::string::npos) << page.content;
  EXPECT_TRUE(Call("read_file", {{"path", "quickstart.mdx"}, {"offset", 999}}).is_error);
  EXPECT_TRUE(Call("read_file", {{"path", "nope.mdx"}}).is_error);

  // A long file comes a page at a time, within the output bound.
  std::string big;
  for (int i = 0; i < 5000; ++i) big += "line " + std::to_string(i) + " of a long page\n";
  ASSERT_FALSE(Call("write_file", {{"path", "big.md"}, {"content", big}}).is_error);
  auto first = Call("read_file", {{"path", "big.md"}});
  EXPECT_LE(first.content.size(), kMaxToolOutputBytes + 200);
  EXPECT_NE(first.content.find("offset=401"), std::string::npos);
}

TEST_F(ToolsTest, SearchFindsLinesAndCapsItsResults) {
  auto hits = Call("search", {{"pattern", "acme (login|deploy)"}});
  EXPECT_FALSE(hits.is_error);
  EXPECT_NE(hits.content.find("quickstart.mdx:17: acme login\n"), std::string::npos)
      << hits.content;
  EXPECT_NE(hits.content.find("reference/commands.mdx:6: ## acme login\n"), std::string::npos);
  auto in_guides = Call("search", {{"pattern", "acme (login|deploy)"}, {"path", "guides"}});
  EXPECT_EQ(in_guides.content,
            "guides/configuration.mdx:15: | `ACME_TOKEN` | the token, instead of `acme login` |\n")
      << "only under the path";
  EXPECT_EQ(Call("search", {{"pattern", "no such text anywhere"}}).content, "no matches\n");
  EXPECT_TRUE(Call("search", {{"pattern", "("}}).is_error) << "an invalid expression";
  std::string many;
  for (int i = 0; i < 300; ++i) many += "match\n";
  ASSERT_FALSE(Call("write_file", {{"path", "many.md"}, {"content", many}}).is_error);
  auto capped = Call("search", {{"pattern", "^match$"}});
  EXPECT_NE(capped.content.find("only the first 100 matches"), std::string::npos);
}

TEST_F(ToolsTest, EditIsExactAndUniqueUnlessToldOtherwise) {
  auto fixed = Call("edit_file", {{"path", "quickstart.mdx"},
                                  {"old_text", "## Instal the CLI"},
                                  {"new_text", "## Install the CLI"}});
  EXPECT_FALSE(fixed.is_error) << fixed.content;
  EXPECT_NE(workspace_->Read("quickstart.mdx")->text.find("## Install the CLI"), std::string::npos);
  auto absent = Call(
      "edit_file", {{"path", "quickstart.mdx"}, {"old_text", "Instal the CLI"}, {"new_text", "x"}});
  EXPECT_TRUE(absent.is_error);
  EXPECT_NE(absent.content.find("not found"), std::string::npos);
  auto twice = Call("edit_file",
                    {{"path", "quickstart.mdx"}, {"old_text", "```bash"}, {"new_text", "```sh"}});
  EXPECT_TRUE(twice.is_error);
  EXPECT_NE(twice.content.find("found 3 times"), std::string::npos) << twice.content;
  auto all = Call("edit_file", {{"path", "quickstart.mdx"},
                                {"old_text", "```bash"},
                                {"new_text", "```sh"},
                                {"replace_all", true}});
  EXPECT_FALSE(all.is_error);
  EXPECT_NE(all.content.find("replaced 3 occurrences"), std::string::npos);
}

TEST_F(ToolsTest, EditsThatWouldGrowPastTheLimitAndLongLinesAreBounded) {
  std::string dots(200000, '.');
  ASSERT_FALSE(Call("write_file", {{"path", "dots.md"}, {"content", dots}}).is_error);
  auto blown = Call("edit_file", {{"path", "dots.md"},
                                  {"old_text", "."},
                                  {"new_text", std::string(100, 'x')},
                                  {"replace_all", true}});
  EXPECT_TRUE(blown.is_error);
  EXPECT_NE(blown.content.find("over 1 MiB"), std::string::npos) << blown.content;
  auto line = Call("read_file", {{"path", "dots.md"}});
  EXPECT_FALSE(line.is_error);
  EXPECT_NE(line.content.find("[line cut at 4 KiB]"), std::string::npos);
  EXPECT_LT(line.content.size(), 5000u);
  EXPECT_TRUE(Call("read_file", {{"path", "dots.md"}, {"offset", 9223372036854775807LL}}).is_error);
}

// The text of a half-mebibyte old_text over a mebibyte of "aaaa…" made a plain
// search from each position take seconds of CPU a call; the edit is linear,
// and takes occurrences left to right without overlaps.
TEST_F(ToolsTest, EditFindsOccurrencesWithoutOverlapsInLinearTime) {
  ASSERT_FALSE(Call("write_file", {{"path", "a.md"}, {"content", "aaaaaaa"}}).is_error);
  auto all =
      Call("edit_file",
           {{"path", "a.md"}, {"old_text", "aaa"}, {"new_text", "b"}, {"replace_all", true}});
  EXPECT_EQ(all.content, "replaced 2 occurrences in a.md\n");
  EXPECT_EQ(workspace_->Read("a.md")->text, "bba");
  std::string text(1000000, 'a');
  ASSERT_FALSE(Call("write_file", {{"path", "big.md"}, {"content", text}}).is_error);
  std::string old_text(500000, 'a');
  old_text.back() = 'b';
  auto absent = Call("edit_file", {{"path", "big.md"}, {"old_text", old_text}, {"new_text", "x"}});
  EXPECT_TRUE(absent.is_error);
  EXPECT_NE(absent.content.find("not found"), std::string::npos);
  old_text.back() = 'a';
  auto twice = Call("edit_file", {{"path", "big.md"}, {"old_text", old_text}, {"new_text", "x"}});
  EXPECT_NE(twice.content.find("found 2 times"), std::string::npos) << twice.content;
}

// Tools over repositories of hostile shapes, charging a turn's budget.
class HostileToolsTest : public ::testing::Test {
 protected:
  void Open(const std::string& shape) {
    testing::MakeHostileRepo(dir_ / "remote.git", shape);
    mirror_ =
        std::move(*git::Mirror::Open(dir_ / "mirror.git", dir_ / "remote.git", git::Credentials{}));
    snapshot_ = std::move(*mirror_->OpenSnapshot(*mirror_->FetchBranch("main")));
    snapshot_->SetBudget(&budget_);
    workspace_ = std::make_unique<git::Workspace>(*snapshot_);
    tools_ = std::make_unique<Toolbox>(*workspace_);
  }
  ToolOutcome Call(const std::string& name, const json& args) {
    return tools_->Call(name, args.dump());
  }

  testing::TempDir dir_;
  WorkBudget budget_{WorkBudget::TurnLimits()};
  std::unique_ptr<git::Mirror> mirror_;
  std::unique_ptr<git::Snapshot> snapshot_;
  std::unique_ptr<git::Workspace> workspace_;
  std::unique_ptr<Toolbox> tools_;
};

TEST_F(HostileToolsTest, PathsToOneBlobAreSearchedOnce) {
  Open("one-blob --paths 3000 --size 1048576");
  auto hits = Call("search", {{"pattern", "nothing like this"}});
  EXPECT_EQ(hits.content, "no matches\n");
  EXPECT_EQ(budget_.used(WorkBudget::Meter::kBytesSearched), 1048576u + 17u)
      << "the blob and index.md, once each";
  auto many = Call("search", {{"pattern", "search me$"}});
  EXPECT_NE(many.content.find("many/p0000/page00000.md:1: "), std::string::npos) << many.content;
  EXPECT_NE(many.content.find("only the first 100 matches are shown"), std::string::npos);
}

TEST_F(HostileToolsTest, SearchAndListOverABillionLinksStopAtTheirVisitsAndSaySo) {
  Open("tree-bomb --leaf link");
  auto listed = Call("list_files", json::object());
  EXPECT_EQ(listed.content, "bomb/\nindex.md\n");
  auto found = Call("search", {{"pattern", "Welcome"}});
  EXPECT_NE(found.content.find("index.md:3: Welcome.\n"), std::string::npos) << found.content;
  EXPECT_NE(found.content.find("files were searched; narrow the path"), std::string::npos);
  EXPECT_LE(budget_.used(WorkBudget::Meter::kEntries), kMaxSearchVisits + 2000);
}

TEST_F(HostileToolsTest, ASpentBudgetEndsTheSearchWithAnError) {
  Open("one-blob --paths 200 --size 65536");
  budget_.Charge(WorkBudget::Meter::kBytesSearched, (uint64_t{1} << 30) - 1000);
  auto hits = Call("search", {{"pattern", "x"}});
  EXPECT_TRUE(hits.is_error);
  EXPECT_NE(hits.content.find("the limit of 1073741824 bytes searched was reached"),
            std::string::npos)
      << hits.content;
}

TEST_F(ToolsTest, WritesDeletesAndMovesStayInsideTheRepository) {
  EXPECT_FALSE(Call("write_file", {{"path", "guides/new.mdx"}, {"content", "# New\n"}}).is_error);
  EXPECT_FALSE(
      Call("move_file", {{"from", "guides/new.mdx"}, {"to", "guides/renamed.mdx"}}).is_error);
  EXPECT_FALSE(Call("delete_file", {{"path", "reference/commands.mdx"}}).is_error);
  for (const json& escape :
       {json{{"path", "../x.md"}, {"content", "x"}}, json{{"path", "/etc/x"}, {"content", "x"}},
        json{{"path", ".git/hooks/pre-commit"}, {"content", "x"}},
        json{{"path", "guides/../../x"}, {"content", "x"}}}) {
    EXPECT_TRUE(Call("write_file", escape).is_error) << escape;
  }
  EXPECT_TRUE(Call("read_file", {{"path", "../../etc/passwd"}}).is_error);
  EXPECT_TRUE(Call("list_files", {{"path", ".."}}).is_error);
  auto changes = workspace_->Changes();
  EXPECT_EQ(changes.size(), 2u);
  EXPECT_TRUE(changes.count("guides/renamed.mdx"));
  EXPECT_TRUE(changes.count("reference/commands.mdx"));
}

// The docs workspace and a second real repository, "sdk", to read as context.
class ContextToolsTest : public ToolsTest {
 protected:
  void SetUp() override {
    ToolsTest::SetUp();
    sdk_remote_ = dir_ / "sdk.git";
    testing::MakeRemoteWith(sdk_remote_, {{"src/client.ts", "export function createClient() {}\n"},
                                          {"README.md", "# SDK\n\nCall createClient first.\n"}});
    sdk_mirror_ =
        std::move(*git::Mirror::Open(dir_ / "sdk-mirror.git", sdk_remote_, git::Credentials{}));
    sdk_commit_ = *sdk_mirror_->FetchBranch("main");
    sdk_ = std::move(*sdk_mirror_->OpenSnapshot(sdk_commit_));
    sdk_->SetBudget(&budget_);
    context_ = {ContextSnapshot{.name = "sdk",
                                .branch = "main",
                                .commit = sdk_commit_,
                                .files = 2,
                                .snapshot = sdk_.get()}};
    tools_ = std::make_unique<Toolbox>(*workspace_, nullptr, context_);
  }
  // The toolbox holds views of the snapshot: it goes first.
  void TearDown() override { tools_.reset(); }

  WorkBudget budget_{WorkBudget::TurnLimits()};
  std::string sdk_remote_, sdk_commit_;
  std::unique_ptr<git::Mirror> sdk_mirror_;
  std::unique_ptr<git::Snapshot> sdk_;
  std::vector<ContextSnapshot> context_;
};

TEST_F(ContextToolsTest, ReadingToolsTakeAContextRepositoryByName) {
  auto read = Call("read_file", {{"repository", "sdk"}, {"path", "src/client.ts"}});
  EXPECT_FALSE(read.is_error) << read.content;
  EXPECT_EQ(read.content, "1\texport function createClient() {}\n");
  auto listed = Call("list_files", {{"repository", "sdk"}});
  EXPECT_EQ(listed.content, "README.md\nsrc/\n");
  EXPECT_EQ(Call("list_files", {{"repository", "sdk"}, {"path", "src"}}).content,
            "src/client.ts\n");
  auto found = Call("search", {{"repository", "sdk"}, {"pattern", "createClient"}});
  EXPECT_EQ(found.content,
            "README.md:3: Call createClient first.\nsrc/client.ts:1: export function "
            "createClient() {}\n");
  EXPECT_GT(budget_.used(WorkBudget::Meter::kBytesSearched), 0u) << "charged to the budget";

  // Without "repository" the tools read the docs repository, as before.
  EXPECT_TRUE(Call("read_file", {{"path", "src/client.ts"}}).is_error);
  EXPECT_FALSE(Call("read_file", {{"path", "quickstart.mdx"}}).is_error);
  EXPECT_TRUE(Call("read_file", {{"repository", "sdk"}, {"path", "quickstart.mdx"}}).is_error);
  EXPECT_EQ(Call("search", {{"pattern", "createClient"}}).content, "no matches\n");
}

TEST_F(ContextToolsTest, AnUnknownRepositoryIsAToolErrorNamingTheKnownOnes) {
  auto unknown = Call("read_file", {{"repository", "api"}, {"path", "README.md"}});
  EXPECT_TRUE(unknown.is_error);
  EXPECT_NE(unknown.content.find("no context repository named \"api\""), std::string::npos)
      << unknown.content;
  EXPECT_NE(unknown.content.find("the context repositories are: sdk"), std::string::npos)
      << unknown.content;
  EXPECT_TRUE(Call("list_files", {{"repository", "docs"}}).is_error);
  EXPECT_TRUE(Call("search", {{"repository", "SDK"}, {"pattern", "x"}}).is_error);
  EXPECT_NE(Call("list_files", {{"repository", 3}}).content.find("must be a string"),
            std::string::npos);
  // A long name comes back cut.
  auto long_name = Call("list_files", {{"repository", std::string(100000, 'x')}});
  EXPECT_TRUE(long_name.is_error);
  EXPECT_LT(long_name.content.size(), 400u);

  // A toolbox without context repositories says it has none.
  Toolbox plain(*workspace_);
  auto none = plain.Call("read_file", json{{"repository", "sdk"}, {"path", "x"}}.dump());
  EXPECT_TRUE(none.is_error);
  EXPECT_NE(none.content.find("this turn has none"), std::string::npos) << none.content;
}

TEST_F(ContextToolsTest, PathsIntoAContextRepositoryAreCheckedAsEverywhere) {
  for (const char* path : {"../sdk.git/config", "/etc/passwd", "src/../../x", ".git/config"}) {
    EXPECT_TRUE(Call("read_file", {{"repository", "sdk"}, {"path", path}}).is_error) << path;
  }
  EXPECT_TRUE(Call("list_files", {{"repository", "sdk"}, {"path", ".."}}).is_error);
  EXPECT_TRUE(Call("search", {{"repository", "sdk"}, {"pattern", "x"}, {"path", "../x"}}).is_error);
}

TEST_F(ContextToolsTest, WritesNeverTargetAContextRepository) {
  for (const auto& [tool, args] : std::vector<std::pair<std::string, json>>{
           {"write_file", {{"repository", "sdk"}, {"path", "src/client.ts"}, {"content", "x"}}},
           {"edit_file",
            {{"repository", "sdk"},
             {"path", "src/client.ts"},
             {"old_text", "createClient"},
             {"new_text", "makeClient"}}},
           {"delete_file", {{"repository", "sdk"}, {"path", "README.md"}}},
           {"move_file", {{"repository", "sdk"}, {"from", "README.md"}, {"to", "x.md"}}},
           // Nor the docs repository instead, when the model names one.
           {"write_file", {{"repository", "sdk"}, {"path", "index.mdx"}, {"content", "x"}}}}) {
    auto refused = Call(tool, args);
    EXPECT_TRUE(refused.is_error) << tool;
    EXPECT_NE(refused.content.find("read-only"), std::string::npos) << refused.content;
  }
  EXPECT_TRUE(workspace_->Changes().empty()) << "the docs workspace is untouched";
  EXPECT_EQ(Call("read_file", {{"repository", "sdk"}, {"path", "src/client.ts"}}).content,
            "1\texport function createClient() {}\n");
  EXPECT_EQ(testing::Sh("git --git-dir=" + sdk_remote_ + " rev-parse main"), sdk_commit_);

  // The schemas: "repository" for the reading tools only.
  for (const auto& spec : Toolbox::Specs()) {
    json schema = json::parse(spec.parameters);
    bool reads = spec.name == "list_files" || spec.name == "read_file" || spec.name == "search";
    EXPECT_EQ(schema["properties"].contains("repository"), reads) << spec.name;
    if (reads) {
      EXPECT_EQ(schema["properties"]["repository"]["type"], "string");
      for (const auto& r : schema["required"]) EXPECT_NE(r, "repository") << spec.name;
    }
  }
}

TEST_F(ToolsTest, MistakesAreToolErrorsAndFinishNeedsASummary) {
  EXPECT_NE(tools_->Call("read_file", "{\"path\": ").content.find("not valid JSON"),
            std::string::npos);
  EXPECT_NE(tools_->Call("read_file", "[1, 2]").content.find("JSON object"), std::string::npos);
  EXPECT_NE(Call("read_file", json::object()).content.find("missing required argument \"path\""),
            std::string::npos);
  EXPECT_NE(Call("rm", json::object()).content.find("unknown tool"), std::string::npos);
  EXPECT_TRUE(Call("finish", {{"summary", "  "}}).is_error);
  auto done = Call("finish", {{"summary", "Fixed it."}, {"title", "Fix it"}});
  EXPECT_TRUE(done.finished);
  EXPECT_EQ(done.summary, "Fixed it.");
  EXPECT_EQ(done.title, "Fix it");
}

}  // namespace
}  // namespace docwright::agent
