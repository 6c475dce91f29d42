// Workflow files: the parser of one file (each key, the reference's example,
// errors with their lines, hostile input) and the reader of a docs repository's
// workflow folders over a real repository.
#include "workflows/workflow_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "core/work_budget.h"
#include "git/git.h"
#include "support/git_repo.h"
#include "support/temp_dir.h"

namespace docwright::workflows {
namespace {

using docwright::testing::kGit;
using docwright::testing::Sh;

const char* const kDocsUrl = "https://github.com/acme/docs";

std::vector<ContextRepository> Contexts() {
  ContextRepository sdk;
  sdk.name = "sdk";
  sdk.repository = "https://github.com/acme/sdk.git";
  ContextRepository product;
  product.name = "product";
  product.repository = "git@github.com:Your-Org/your-product.git";
  return {sdk, product};
}

Workflow Parse(std::string_view content,
               std::string_view path = ".docwright/workflows/changelog.md") {
  return ParseWorkflowFile(path, content, Contexts(), kDocsUrl);
}

std::string ErrorOf(const Workflow& w) { return w.error.value_or(""); }

// A file of `settings` (YAML lines) and a prompt.
std::string File(const std::string& settings, const std::string& prompt = "Do the work.\n") {
  return "---\n" + settings + "---\n" + prompt;
}

TEST(WorkflowFileTest, TheReferencesExampleFile) {
  Workflow w = Parse(
      "---\n"
      "name: Update changelog\n"
      "on:\n"
      "  cron: \"0 9 * * 1\"\n"
      "context:\n"
      "  - repo: your-org/your-product\n"
      "automerge: false\n"
      "---\n"
      "\n"
      "Read the pull requests merged this week and add an entry to the changelog.\n\n");
  ASSERT_FALSE(w.error) << *w.error;
  EXPECT_EQ(w.source, WorkflowSource::kFile);
  EXPECT_EQ(w.name, "changelog");
  EXPECT_EQ(w.file_path, ".docwright/workflows/changelog.md");
  EXPECT_EQ(w.title, "Update changelog");
  EXPECT_EQ(w.trigger.kind, TriggerKind::kSchedule);
  EXPECT_EQ(w.trigger.cron, "0 9 * * 1");
  EXPECT_EQ(w.trigger.time_zone, "UTC");
  EXPECT_EQ(w.context, std::vector<std::string>{"product"}) << "found by its URL's ending";
  EXPECT_FALSE(w.publish) << "automerge: false is the project's default";
  EXPECT_EQ(w.prompt, "Read the pull requests merged this week and add an entry to the changelog.");
  EXPECT_FALSE(w.model);
  EXPECT_EQ(w.runs_per_day, kDefaultWorkflowRunsPerDay);
  EXPECT_TRUE(w.enabled);
}

TEST(WorkflowFileTest, EveryKey) {
  Workflow w = Parse(
      File("name: '  API changes  '\n"
           "on:\n"
           "  cron: '30 8 * * mon-fri'\n"
           "  timeZone: Europe/Berlin\n"
           "context: [sdk, {repo: acme/sdk}, {repo: 'https://github.com/acme/docs.git'}, product]\n"
           "automerge: true\n"
           "publish: push\n"
           "model: claude-sonnet\n"
           "runsPerDay: 5\n"
           "enabled: false\n"
           "unknown: {nested: [1, 2]}\n"));
  ASSERT_FALSE(w.error) << *w.error;
  EXPECT_EQ(w.title, "API changes");
  EXPECT_EQ(w.trigger.kind, TriggerKind::kSchedule);
  EXPECT_EQ(w.trigger.cron, "30 8 * * mon-fri");
  EXPECT_EQ(w.trigger.time_zone, "Europe/Berlin");
  // One entry per repository, the docs repository (always read) dropped.
  EXPECT_EQ(w.context, (std::vector<std::string>{"sdk", "product"}));
  EXPECT_EQ(w.publish, PublishMode::kPush) << "publish wins over automerge";
  EXPECT_EQ(w.model, "claude-sonnet");
  EXPECT_EQ(w.runs_per_day, 5);
  EXPECT_FALSE(w.enabled);

  // The other spellings.
  w =
      Parse(File("on:\n  cron: '@daily'\n  timezone: America/New_York\nruns_per_day: 7\n"
                 "automerge: true\ncontext: sdk\n"));
  ASSERT_FALSE(w.error) << *w.error;
  EXPECT_EQ(w.trigger.time_zone, "America/New_York");
  EXPECT_EQ(w.runs_per_day, 7);
  EXPECT_EQ(w.publish, PublishMode::kAutomerge);
  EXPECT_EQ(w.context, std::vector<std::string>{"sdk"});
  EXPECT_EQ(w.title, "");
}

TEST(WorkflowFileTest, PushAndMergeTriggers) {
  Workflow w = Parse(File("on:\n  push: {branch: main}\n"));
  ASSERT_FALSE(w.error) << *w.error;
  EXPECT_EQ(w.trigger.kind, TriggerKind::kPush);
  EXPECT_EQ(w.trigger.branch, "main");

  w = Parse(File("on:\n  push:\n"));
  ASSERT_FALSE(w.error) << *w.error;
  EXPECT_EQ(w.trigger.kind, TriggerKind::kPush);
  EXPECT_EQ(w.trigger.branch, "") << "the project's base branch";

  // The reference's shape: a list of one, the repository as "org/name".
  w = Parse(File("on:\n  push:\n    - repo: ACME/sdk\n      branch: release/2.x\n"));
  ASSERT_FALSE(w.error) << *w.error;
  EXPECT_EQ(w.trigger.kind, TriggerKind::kMerge);
  EXPECT_EQ(w.trigger.repository, "sdk");
  EXPECT_EQ(w.trigger.branch, "release/2.x");

  w = Parse(File("on:\n  push: {repo: sdk}\n"));
  ASSERT_FALSE(w.error) << *w.error;
  EXPECT_EQ(w.trigger.kind, TriggerKind::kMerge);
  EXPECT_EQ(w.trigger.repository, "sdk");
  EXPECT_EQ(w.trigger.branch, "");

  // The docs repository named as the reference names it: a push.
  w = Parse(File("on:\n  push: [{repo: acme/docs, branch: main}]\n"));
  ASSERT_FALSE(w.error) << *w.error;
  EXPECT_EQ(w.trigger.kind, TriggerKind::kPush);
  EXPECT_EQ(w.trigger.branch, "main");

  // A plain name the project does not have (yet) is kept: the store checks it.
  w = Parse(File("on:\n  push: {repo: api}\n"));
  ASSERT_FALSE(w.error) << *w.error;
  EXPECT_EQ(w.trigger.repository, "api");

  for (const char* on : {"on:\n  manual: true\n", "on: manual\n"}) {
    w = Parse(File(on));
    ASSERT_FALSE(w.error) << on << *w.error;
    EXPECT_EQ(w.trigger.kind, TriggerKind::kManual) << on;
  }
}

TEST(WorkflowFileTest, ErrorsSayWhatAndOnWhichLine) {
  struct Case {
    std::string settings;
    std::string error;  // the start of the expected error
  };
  for (const Case& c : std::vector<Case>{
           {"name: x\non:\n  cron: '0 9 * * 1'\n  manual: true\n",
            "line 4: a workflow has one trigger"},
           {"on:\n  push: {branch: main}\n  cron: '@daily'\n",
            "line 3: a workflow has one trigger"},
           {"on:\n  cron: '61 9 * * *'\n", "line 3: on.cron: "},
           {"on:\n  cron: '0 9 * * 1'\n  timezone: Mars/Olympus\n", "line 4: on.timezone: "},
           {"on:\n  cron: [0, 9]\n", "line 3: on.cron: a text"},
           {"on: {manual: true}\npublish: sideways\n", "line 3: publish: \"sideways\" is not"},
           {"on: {manual: true}\nrunsPerDay: many\n", "line 3: runsPerDay: a whole number"},
           {"on: {manual: true}\nrunsPerDay: 0\n", "line 3: runsPerDay: from 1"},
           {"on: {manual: true}\nenabled: maybe\n", "line 3: enabled: true or false"},
           {"on: {manual: true}\nautomerge: [x]\n", "line 3: automerge: true or false"},
           {"on: {manual: true}\nname: {a: b}\n", "line 3: name: a text"},
           {"on:\n  manual: false\n", "line 3: on.manual: true"},
           {"on:\n  timezone: UTC\n", "line 3: on: names no trigger"},
           {"on: [cron]\n", "line 2: on: one trigger"},
           {"name: x\n", "line 2: on: is missing"},
           {"on:\n  push:\n    - repo: sdk\n    - repo: product\n",
            "line 4: on.push: one repository"},
           {"on:\n  push: {repo: other/thing}\n", "line 3: on.push.repo: \"other/thing\" is none"},
           {"on:\n  push: {branch: 'a..b'}\n", "line 3: on.push.branch: "},
           {"on: {manual: true}\ncontext:\n  - repo: elsewhere/lib\n", "line 4: context: "},
           {"on: {manual: true}\ncontext: {repo: sdk}\n", "line 3: context: a list"},
           {"on: {manual: true}\ncontext:\n  - {branch: x}\n", "line 4: context: each entry"},
           {"on: {manual: true}\nname: [unclosed\n", "line "},
       }) {
    Workflow w = Parse(File(c.settings));
    ASSERT_TRUE(w.error) << c.settings;
    EXPECT_EQ(w.error->rfind(c.error, 0), 0u) << c.settings << "\n" << *w.error;
    // A refused file keeps its name and path, and nothing else is set.
    EXPECT_EQ(w.name, "changelog");
    EXPECT_EQ(w.file_path, ".docwright/workflows/changelog.md");
    EXPECT_EQ(w.source, WorkflowSource::kFile);
    EXPECT_EQ(w.prompt, "") << c.settings;
    EXPECT_EQ(w.trigger.kind, TriggerKind::kManual) << c.settings;
  }
  // What CheckWorkflow refuses becomes the error too.
  Workflow w = Parse(
      File("name: " + std::string(kMaxWorkflowTitleChars + 1, 't') + "\non: {manual: true}\n"));
  ASSERT_TRUE(w.error);
}

TEST(WorkflowFileTest, TheSettingsAndThePromptAreBothRequired) {
  Workflow w = Parse("Just a prompt, no settings.\n");
  ASSERT_TRUE(w.error);
  EXPECT_EQ(w.error->rfind("line 1: a workflow file starts with its settings", 0), 0u) << *w.error;
  EXPECT_TRUE(Parse("").error);

  w = Parse("---\non: {manual: true}\nThe prompt, never closed.\n");
  ASSERT_TRUE(w.error);
  EXPECT_EQ(w.error->rfind("line 1: the settings are not closed", 0), 0u) << *w.error;

  w = Parse("---\non: {manual: true}\n---\n  \n\n\t\n");
  ASSERT_TRUE(w.error);
  EXPECT_EQ(w.error->rfind("line 4: the prompt", 0), 0u) << *w.error;

  w = Parse("---\n---\nA prompt.\n");
  ASSERT_TRUE(w.error);
  EXPECT_NE(w.error->find("the settings are empty"), std::string::npos) << *w.error;

  // A byte order mark, CRLF line ends and spaces after the delimiters are fine.
  w = Parse("\xEF\xBB\xBF---  \r\non:\r\n  manual: true\r\n--- \r\nThe prompt.\r\n");
  ASSERT_FALSE(w.error) << *w.error;
  EXPECT_EQ(w.prompt, "The prompt.");
}

TEST(WorkflowFileTest, SizeAndBytesAreBounded) {
  std::string head = "---\non: {manual: true}\n---\n";
  std::string exact = head + std::string(kMaxWorkflowFileBytes - head.size(), 'p');
  Workflow w = Parse(exact);
  EXPECT_FALSE(w.error) << *w.error;
  w = Parse(exact + "p");
  ASSERT_TRUE(w.error);
  EXPECT_NE(w.error->find("over 64 KiB"), std::string::npos) << *w.error;

  w = Parse(File("on: {manual: true}\n", "Bad \xC3\x28 bytes.\n"));
  ASSERT_TRUE(w.error);
  EXPECT_NE(w.error->find("UTF-8"), std::string::npos);
  w = Parse(File("on: {manual: true}\n", std::string("NUL\0byte", 8)));
  ASSERT_TRUE(w.error);
  EXPECT_NE(w.error->find("NUL"), std::string::npos);
}

TEST(WorkflowFileTest, AnchorsAndAliasesAreRefused) {
  // A billion laughs: each line doubles ten times what the one before holds.
  std::string bomb = "a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n";
  for (char c = 'b'; c <= 'j'; ++c) {
    std::string prev(1, static_cast<char>(c - 1));
    bomb += std::string(1, c) + ": &" + c + " [";
    for (int i = 0; i < 10; ++i) bomb += (i ? ", *" : "*") + prev;
    bomb += "]\n";
  }
  Workflow w = Parse(File("on: {manual: true}\n" + bomb));
  ASSERT_TRUE(w.error);
  EXPECT_EQ(w.error->rfind("line 3: anchors and aliases", 0), 0u) << *w.error;

  // An unquoted cron of stars reads as an alias: the error says to quote it.
  w = Parse(File("on:\n  cron: *\n"));
  ASSERT_TRUE(w.error);
  w = Parse(File("on: {manual: true}\nname: &n x\nmodel: *n\n"));
  ASSERT_TRUE(w.error);
  EXPECT_NE(w.error->find("quoted"), std::string::npos) << *w.error;

  // Nesting as deep as the size allows: an error, not a crash.
  std::string deep = "on: {manual: true}\nx: " + std::string(30000, '[') + "\n";
  w = Parse(File(deep));
  EXPECT_TRUE(w.error);
}

TEST(WorkflowFileTest, TheNameIsTheFilesStem) {
  Workflow w = Parse(File("on: manual\n"), ".mintlify/workflows/api-changes_2.md");
  ASSERT_FALSE(w.error) << *w.error;
  EXPECT_EQ(w.name, "api-changes_2");

  w = Parse(File("on: manual\n"), ".docwright/workflows/API Changes.md");
  ASSERT_TRUE(w.error);
  EXPECT_EQ(w.name, "API Changes") << "shown as it is";
  EXPECT_EQ(w.error->rfind("the file's name: ", 0), 0u) << *w.error;

  // A name that could forge a terminal's or a log's output is made printable.
  w = Parse(File("on: manual\n"), ".docwright/workflows/\x1b[31mred\n.md");
  ASSERT_TRUE(w.error);
  EXPECT_EQ(w.name.find_first_of("\x1b\n"), std::string::npos) << w.name;
}

// A docs repository with workflow files, read as the engine reads it.
class ReadWorkflowFilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    remote_ = dir_ / "docs.git";
    seed_ = dir_ / "seed";
    Sh(std::string(kGit) + " init -q --bare " + remote_);
    Sh(std::string(kGit) + " init -q " + seed_);
    Write("docs.json", "{\"name\": \"Acme\"}\n");
  }

  void Write(const std::string& path, const std::string& content) {
    std::filesystem::create_directories(std::filesystem::path(seed_ + "/" + path).parent_path());
    std::ofstream(seed_ + "/" + path) << content;
  }

  // Commits the seed, pushes it, and opens a snapshot of the pushed commit.
  std::unique_ptr<git::Snapshot> Push() {
    Sh("cd " + seed_ + " && " + kGit + " add -A && " + kGit + " commit -qm files && " + kGit +
       " push -q " + remote_ + " HEAD:main");
    if (!mirror_) {
      auto mirror = git::Mirror::Open(dir_ / "mirror.git", remote_, git::Credentials{});
      EXPECT_TRUE(mirror.ok()) << mirror.status().message();
      if (!mirror.ok()) return nullptr;
      mirror_ = std::move(*mirror);
    }
    auto head = mirror_->FetchBranch("main");
    EXPECT_TRUE(head.ok()) << head.status().message();
    if (!head.ok()) return nullptr;
    head_ = *head;
    auto snap = mirror_->OpenSnapshot(*head);
    EXPECT_TRUE(snap.ok()) << snap.status().message();
    return snap.ok() ? std::move(*snap) : nullptr;
  }

  testing::TempDir dir_;
  std::string remote_, seed_, head_;
  std::unique_ptr<git::Mirror> mirror_;
};

TEST_F(ReadWorkflowFilesTest, BothFoldersTheDocwrightOneWinning) {
  Write(".docwright/workflows/changelog.md",
        File("name: Changelog\non:\n  cron: '0 9 * * 1'\n", "Write the changelog.\n"));
  Write(".docwright/workflows/notes.txt", "not a workflow\n");
  Write(".docwright/workflows/sub/deep.md", File("on: manual\n"));
  Write(".docwright/workflows/big.md", File("on: manual\n", std::string(70000, 'x')));
  Write(".mintlify/workflows/changelog.md", File("on: manual\n", "The other one.\n"));
  Write(".mintlify/workflows/api-changes.md",
        File("on:\n  push: [{repo: acme/sdk, branch: main}]\n", "Document the API.\n"));
  Write(".mintlify/workflows/Bad Name.md", File("on: manual\n"));
  Write(".mintlify/workflows/broken.md", File("on:\n  cron: '0 9 * * 1'\n  manual: true\n"));
  Write(".mintlify/workflows.md", "# Not in the folder\n");
  Sh("ln -s ../../docs.json " + seed_ + "/.mintlify/workflows/link.md");
  auto snap = Push();
  ASSERT_TRUE(snap);

  auto read = ReadWorkflowFiles(*snap, Contexts(), kDocsUrl);
  ASSERT_TRUE(read.ok()) << read.status().message();
  std::map<std::string, Workflow> by_path;
  for (const Workflow& w : *read) {
    EXPECT_EQ(w.file_commit, head_) << w.file_path;
    EXPECT_EQ(w.source, WorkflowSource::kFile);
    by_path[w.file_path] = w;
  }
  ASSERT_EQ(read->size(), 7u);
  std::vector<std::string> paths;
  for (const auto& [path, w] : by_path) paths.push_back(path);
  EXPECT_EQ(paths, (std::vector<std::string>{
                       ".docwright/workflows/big.md",
                       ".docwright/workflows/changelog.md",
                       ".mintlify/workflows/Bad Name.md",
                       ".mintlify/workflows/api-changes.md",
                       ".mintlify/workflows/broken.md",
                       ".mintlify/workflows/changelog.md",
                       ".mintlify/workflows/link.md",
                   }));

  const Workflow& changelog = by_path[".docwright/workflows/changelog.md"];
  EXPECT_FALSE(changelog.error) << *changelog.error;
  EXPECT_EQ(changelog.name, "changelog");
  EXPECT_EQ(changelog.prompt, "Write the changelog.");

  const Workflow& duplicate = by_path[".mintlify/workflows/changelog.md"];
  ASSERT_TRUE(duplicate.error);
  EXPECT_NE(duplicate.error->find("also defined in .docwright/workflows/changelog.md"),
            std::string::npos)
      << *duplicate.error;
  EXPECT_EQ(duplicate.name, ".mintlify/workflows/changelog.md") << "names stay unique";

  const Workflow& api = by_path[".mintlify/workflows/api-changes.md"];
  EXPECT_FALSE(api.error) << *api.error;
  EXPECT_EQ(api.trigger.kind, TriggerKind::kMerge);
  EXPECT_EQ(api.trigger.repository, "sdk");

  EXPECT_NE(ErrorOf(by_path[".docwright/workflows/big.md"]).find("over 64 KiB"), std::string::npos);
  EXPECT_NE(ErrorOf(by_path[".mintlify/workflows/Bad Name.md"]).find("the file's name"),
            std::string::npos);
  EXPECT_EQ(ErrorOf(by_path[".mintlify/workflows/broken.md"])
                .rfind("line 3: a workflow has one trigger", 0),
            0u);
  EXPECT_NE(ErrorOf(by_path[".mintlify/workflows/link.md"]).find("symbolic link"),
            std::string::npos);
}

TEST_F(ReadWorkflowFilesTest, NoFoldersNoWorkflowsAndAtMostTheLimit) {
  Write(".docwright/README", "the folder is a file's parent, the workflows folder is absent\n");
  auto snap = Push();
  ASSERT_TRUE(snap);
  auto read = ReadWorkflowFiles(*snap, {});
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_TRUE(read->empty());

  for (size_t i = 0; i < kMaxWorkflowsPerProject + 5; ++i) {
    Write(".mintlify/workflows/w" + std::to_string(100 + i) + ".md", File("on: manual\n"));
  }
  snap.reset();
  snap = Push();
  ASSERT_TRUE(snap);
  read = ReadWorkflowFiles(*snap, {});
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->size(), kMaxWorkflowsPerProject);

  // The reads charge the snapshot's budget: a spent one is the error.
  WorkBudget::Limits limits;
  limits.bytes_read = 100;
  WorkBudget budget(limits);
  snap->SetBudget(&budget);
  read = ReadWorkflowFiles(*snap, {});
  ASSERT_FALSE(read.ok());
  EXPECT_EQ(read.status().code(), Code::kResourceExhausted) << read.status().message();
  snap->SetBudget(nullptr);
}

}  // namespace
}  // namespace docwright::workflows
