// What the agent may write: git's rules for disguised paths, the default policy
// of a docs site, a project's rules, and the tools that apply them.
#include "agent/write_policy.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "agent/tools.h"
#include "git/git.h"
#include "support/git_repo.h"
#include "support/temp_dir.h"

namespace docwright::agent {
namespace {

using nlohmann::json;

TEST(CheckPathTest, DisguisedGitFoldersAreRefusedOnEveryFileSystemsTerms) {
  for (std::string path : {
           ".git/config",
           ".GIT/config",
           "docs/.Git/hooks/x",
           ".git./config",
           ".git /config",
           ".git. . /config",  // NTFS trailing dots, spaces
           ".git::$INDEX_ALLOCATION/config",
           ".git:stream",  // NTFS stream names
           "git~1/config",
           "GIT~1/hooks/pre-commit",  // NTFS 8.3 short name
           ".g\u200cit/config",
           "\u200d.git/config",
           ".git\ufeff/x",  // HFS+ ignored code points
           ".gi\u200et/config",
           ".git\u206a/config",
           "a/\u202e.git/b",
       }) {
    EXPECT_FALSE(git::CheckPath(path).ok()) << path;
  }
  EXPECT_FALSE(git::CheckPath(std::string("docs/\xff.md")).ok()) << "invalid UTF-8";
  EXPECT_FALSE(git::CheckPath("docs\\.git\\config").ok());
  EXPECT_FALSE(git::CheckPath("../x.md").ok());
  EXPECT_FALSE(git::CheckPath("/etc/passwd").ok());
  // Names that only look alike are ordinary files.
  for (std::string path : {".github/x.md", ".gitignore", "git/notes.md", "docs/.gitkeep",
                           "guides/intro.md", "caf\u00e9.md", "emoji/\u2764\ufe0f.md"}) {
    auto checked = git::CheckPath(path);
    ASSERT_TRUE(checked.ok()) << path << ": " << checked.status().message();
    EXPECT_EQ(*checked, path);
  }
  EXPECT_EQ(*git::CheckPath("./docs//a.md"), "docs/a.md");
}

TEST(CheckPathTest, ComparableNameFoldsWhatFileSystemsFold) {
  EXPECT_EQ(git::ComparableName(".GitModules. "), ".gitmodules");
  EXPECT_EQ(git::ComparableName(".gitmodules:$DATA"), ".gitmodules");
  EXPECT_EQ(git::ComparableName(".git\u200dmodules"), ".gitmodules");
  EXPECT_EQ(git::ComparableName("Workflows"), "workflows");
  EXPECT_NE(git::ComparableName(".gitmodulés"), ".gitmodules");
}

docs::SiteMap Site(docs::Framework framework, std::string config, std::string content_root) {
  docs::SiteMap map;
  map.framework = framework;
  map.config_path = std::move(config);
  map.content_root = std::move(content_root);
  return map;
}

TEST(WritePolicyTest, CiHookAndGitFilesAreRefusedInAnyDisguise) {
  WritePolicy mintlify(Site(docs::Framework::kMintlify, "docs.json", ""), {});
  for (std::string path : {
           ".github/workflows/ci.yml",
           ".github/workflows/sub/x.yaml",
           ".GitHub/Workflows/ci.yml",
           ".github/workflows./ci.yml",
           ".github/actions/setup/action.yml",
           ".gitlab-ci.yml",
           ".GITLAB-CI.YML",
           "sub/.gitlab-ci.yml",
           ".gitlab/ci/build.yml",
           ".circleci/config.yml",
           "Jenkinsfile",
           "jenkinsfile",
           "azure-pipelines.yml",
           "bitbucket-pipelines.yml",
           ".travis.yml",
           "netlify.toml",
           ".husky/pre-commit",
           ".githooks/post-checkout",
           ".pre-commit-config.yaml",
           ".gitmodules",
           ".gitmodules.",
           ".GITATTRIBUTES",
           "docs/.gitattributes",
           ".gitmodules::$DATA",
           "gitmod~1",
           ".gitea/workflows/x.yml",
           ".forgejo/workflows/x.yml",
           ".devcontainer/devcontainer.json",
           // NTFS short names of .gitmodules and .gitattributes
           "gitmod~2",
           "GITMOD~4",
           "gi7eba~9",
           "gitatt~1",
           "gi7d29~3",
           // what package managers, builds and code hosts run or obey
           "package.json",
           "website/package.json",
           "yarn.lock",
           ".npmrc",
           "Makefile",
           "requirements.txt",
           "requirements-docs.txt",
           "pyproject.toml",
           "docs/CODEOWNERS",
           ".lfsconfig",
           ".readthedocs.yaml",
           "amplify.yml",
           "docs/ci/action.yml",
           // the repository's instructions to agents, which steer every later turn
           "AGENTS.md",
           ".mintlify/AGENTS.md",
           "CLAUDE.md",
           ".cursorrules",
           "docs/agents.md",
       }) {
    Status s = mintlify.Check(path);
    EXPECT_FALSE(s.ok()) << path;
    EXPECT_NE(s.message().find("refused"), std::string::npos) << s.message();
  }
}

TEST(WritePolicyTest, TheDefaultIsTheSitesFilesAndMarkdownPages) {
  // A Mintlify site at the root: the whole repository, less dot-folders it does
  // not use.
  WritePolicy mintlify(Site(docs::Framework::kMintlify, "docs.json", ""), {});
  for (std::string path : {"docs.json", "guides/install.mdx", "images/logo.png",
                           ".mintlify/assets/x.png", "snippets/note.mdx", ".gitignore"}) {
    EXPECT_TRUE(mintlify.Check(path).ok()) << path << ": " << mintlify.Check(path).message();
    EXPECT_FALSE(mintlify.OutsideSite(path)) << path;
  }
  for (std::string path : {".vscode/settings.json", ".github/ISSUE_TEMPLATE/bug.md", ".env/x.md"}) {
    EXPECT_FALSE(mintlify.Check(path).ok()) << path;
  }
  // A Docusaurus site in website/: its folder, and pages anywhere (named in the
  // pull request as outside the site).
  WritePolicy docusaurus(
      Site(docs::Framework::kDocusaurus, "website/docusaurus.config.js", "website/docs"), {});
  EXPECT_TRUE(docusaurus.Check("website/docs/intro.md").ok());
  EXPECT_TRUE(docusaurus.Check("website/sidebars.js").ok()) << "the site's own configuration";
  EXPECT_TRUE(docusaurus.Check("website/docusaurus.config.js").ok());
  EXPECT_TRUE(WritePolicy::RunsAtBuild("website/docusaurus.config.js"));
  EXPECT_FALSE(WritePolicy::RunsAtBuild("website/docs/intro.md"));
  // Code a build runs is not a docs job's to change.
  for (std::string code : {"website/src/pages/index.js", "website/plugins/x.mjs",
                           "website/hooks.py", "website/scripts/build.sh", "website/a.PY"}) {
    EXPECT_FALSE(docusaurus.Check(code).ok()) << code;
  }
  EXPECT_TRUE(docusaurus.Check("website/static/img/a.png").ok());
  EXPECT_TRUE(docusaurus.Check("README.md").ok());
  EXPECT_TRUE(docusaurus.OutsideSite("README.md"));
  EXPECT_FALSE(docusaurus.OutsideSite("website/docs/intro.md"));
  EXPECT_FALSE(docusaurus.Check("src/server.js").ok());
  EXPECT_FALSE(docusaurus.Check("package.json").ok());
  EXPECT_NE(docusaurus.Check("static/logo.svg").message().find("website/"), std::string::npos);
  EXPECT_NE(docusaurus.Check("src/server.js").message().find("code"), std::string::npos);
  // A site that lives in a dot-folder uses it.
  WritePolicy hidden(Site(docs::Framework::kMkDocs, ".docs/mkdocs.yml", ".docs/docs"), {});
  EXPECT_TRUE(hidden.Check(".docs/docs/index.md").ok());
  EXPECT_FALSE(hidden.Check(".other/index.md").ok());
}

// In a repository of several sites (one per language, a Docusaurus website and
// an MkDocs handbook) the other sites' folders and configurations are the
// site's as well; code beside them is not.
TEST(WritePolicyTest, TheRepositorysOtherSitesMayBeChangedToo) {
  docs::SiteMap map = Site(docs::Framework::kMkDocs, "docs/en/mkdocs.yml", "docs/en/docs");
  map.other_sites = {"docs/fr/mkdocs.yml", "website/docusaurus.config.js", "docs/en/v2/mkdocs.yml"};
  WritePolicy policy(map, {});
  EXPECT_EQ(policy.site_folders(), (std::vector<std::string>{"docs/en", "docs/fr", "website"}))
      << "docs/en/v2 is inside docs/en";
  for (std::string path :
       {"docs/fr/mkdocs.yml", "docs/fr/docs/img/a.png", "docs/en/v2/x.yml",
        "website/docusaurus.config.js", "website/sidebars.js", "website/static/logo.svg"}) {
    EXPECT_TRUE(policy.Check(path).ok()) << path << ": " << policy.Check(path).message();
    EXPECT_FALSE(policy.OutsideSite(path)) << path;
  }
  for (std::string path : {"website/src/pages/index.js", "docs/fr/hooks.py", "src/a.png"}) {
    EXPECT_FALSE(policy.Check(path).ok()) << path;
  }
  EXPECT_FALSE(WritePolicy(Site(docs::Framework::kMkDocs, "docs/en/mkdocs.yml", "docs/en/docs"), {})
                   .Check("docs/fr/mkdocs.yml")
                   .ok())
      << "without the other sites, their files are outside";
}

TEST(WritePolicyTest, ProjectRulesWidenAndNarrowLastOneWinning) {
  auto site = Site(docs::Framework::kMintlify, "docs.json", "");
  WritePolicy narrowed(site, {"!legal/**", "!*.png", "legal/public.mdx"});
  EXPECT_FALSE(narrowed.Check("legal/terms.mdx").ok());
  EXPECT_NE(narrowed.Check("legal/terms.mdx").message().find("!legal/**"), std::string::npos);
  EXPECT_TRUE(narrowed.Check("legal/public.mdx").ok());
  EXPECT_FALSE(narrowed.Check("images/deep/logo.png").ok());
  EXPECT_TRUE(narrowed.Check("guides/install.mdx").ok());

  WritePolicy widened(site, {".github/workflows/docs.yml", "scripts/"});
  EXPECT_TRUE(widened.Check(".github/workflows/docs.yml").ok());
  EXPECT_FALSE(widened.Check(".github/workflows/release.yml").ok());
  EXPECT_TRUE(widened.Check("scripts/gen.py").ok());

  // Only the listed folders: everything else refused.
  WritePolicy only(site, {"!**", "guides/"});
  EXPECT_TRUE(only.Check("guides/a/b.mdx").ok());
  EXPECT_FALSE(only.Check("index.mdx").ok());
}

TEST(WritePolicyTest, WorkflowFoldersAreRefusedWhateverTheRules) {
  auto site = Site(docs::Framework::kMintlify, "docs.json", "");
  WritePolicy by_default(site, {});
  // Rules that would open anything else: the last one matching allows.
  WritePolicy widened(site, {".docwright/", ".mintlify/workflows/**", "*.md", "**"});
  WritePolicy hidden_site(Site(docs::Framework::kMkDocs, ".docwright/mkdocs.yml", ""), {"**"});
  for (std::string path : {
           ".docwright/workflows/changelog.md",
           ".docwright/workflows/sub/x.md",
           ".docwright/settings.json",
           ".docwright",
           "docs/.docwright/workflows/x.md",
           ".mintlify/workflows/changelog.md",
           ".mintlify/workflows/sub/x.md",
           // disguises a file system reads as them
           ".Docwright/workflows/x.md",
           ".DOCWRIGHT/x.md",
           ".docwright./x",
           ".docwright /x",
           ".docwright::$INDEX_ALLOCATION/x.md",
           ".doc\u200cwright/x.md",
           ".mintlify/Workflows/x.md",
           ".Mintlify./workflows./x.md",
           ".mintlify/WORKFLOWS /x.md",
       }) {
    for (const WritePolicy* policy : {&by_default, &widened, &hidden_site}) {
      Status s = policy->Check(path);
      EXPECT_FALSE(s.ok()) << path;
      EXPECT_NE(s.message().find("workflow definitions"), std::string::npos) << s.message();
    }
  }
  // The rest of Mintlify's folder stays the site's, and names that only look
  // alike are not the folders.
  EXPECT_TRUE(by_default.Check(".mintlify/assets/logo.png").ok());
  EXPECT_TRUE(by_default.Check(".mintlify/workflows.md").ok());
  EXPECT_TRUE(by_default.Check("workflows/changelog.md").ok());
  EXPECT_TRUE(by_default.Check("docwright/intro.md").ok());
  EXPECT_TRUE(widened.Check(".docwrite/x.md").ok());
  EXPECT_TRUE(widened.Check(".mintlify/workflow/x.md").ok());
}

TEST(WritePolicyTest, RulesMatchAsGitignorePatterns) {
  EXPECT_TRUE(RuleMatches("*.md", "a/b/c.md"));
  EXPECT_TRUE(RuleMatches("*.md", "c.md"));
  EXPECT_FALSE(RuleMatches("/*.md", "a/c.md"));
  EXPECT_TRUE(RuleMatches("/*.md", "c.md"));
  EXPECT_TRUE(RuleMatches("docs/*.md", "docs/a.md"));
  EXPECT_FALSE(RuleMatches("docs/*.md", "docs/x/a.md"));
  EXPECT_TRUE(RuleMatches("docs/**/*.md", "docs/a.md"));
  EXPECT_TRUE(RuleMatches("docs/**/*.md", "docs/x/y/a.md"));
  EXPECT_TRUE(RuleMatches("**/legal", "a/legal/x.md"));
  EXPECT_TRUE(RuleMatches("legal", "legal/x.md"));
  EXPECT_TRUE(RuleMatches("legal/", "a/legal/x.md"));
  EXPECT_FALSE(RuleMatches("legal/", "legal"));
  EXPECT_TRUE(RuleMatches("a?c.md", "abc.md"));
  EXPECT_FALSE(RuleMatches("a?c.md", "a/c.md"));
  EXPECT_TRUE(RuleMatches("!docs/**", "docs/a"));
  // Long runs of stars against a long path finish at once (no backtracking).
  std::string stars;
  for (int i = 0; i < 60; ++i) stars += "*a";
  EXPECT_FALSE(RuleMatches(stars + "b", std::string(4000, 'a')));
}

TEST(WritePolicyTest, BadRulesAreRefusedWithTheirText) {
  EXPECT_TRUE(CheckWriteRules({"docs/**", "!docs/legal/", "*.md"}).ok());
  for (std::vector<std::string> bad :
       std::vector<std::vector<std::string>>{{""},
                                             {"!"},
                                             {"../x"},
                                             {"docs/../../x"},
                                             {"a\\b"},
                                             {std::string("a\nb")},
                                             {std::string(300, 'a')}}) {
    EXPECT_FALSE(CheckWriteRules(bad).ok()) << bad[0];
  }
  EXPECT_FALSE(CheckWriteRules(std::vector<std::string>(65, "a")).ok());
}

class PolicyToolsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    remote_ = dir_ / "docs.git";
    testing::MakeRemoteFrom(remote_, DOCWRIGHT_SAMPLE_DOCS);
    mirror_ = std::move(*git::Mirror::Open(dir_ / "mirror.git", remote_, git::Credentials{}));
    snapshot_ = std::move(*mirror_->OpenSnapshot(*mirror_->FetchBranch("main")));
    workspace_ = std::make_unique<git::Workspace>(*snapshot_);
    policy_ = std::make_unique<WritePolicy>(docs::BuildSiteMap(*workspace_),
                                            std::vector<std::string>{"!guides/secret.mdx"});
    tools_ = std::make_unique<Toolbox>(*workspace_, policy_.get());
  }
  ToolOutcome Call(const std::string& name, const json& args) {
    return tools_->Call(name, args.dump());
  }

  testing::TempDir dir_;
  std::string remote_;
  std::unique_ptr<git::Mirror> mirror_;
  std::unique_ptr<git::Snapshot> snapshot_;
  std::unique_ptr<git::Workspace> workspace_;
  std::unique_ptr<WritePolicy> policy_;
  std::unique_ptr<Toolbox> tools_;
};

TEST_F(PolicyToolsTest, RefusedWritesAreToolErrorsAndChangeNothing) {
  auto ci = Call("write_file", {{"path", ".github/workflows/ci.yml"}, {"content", "on: push\n"}});
  EXPECT_TRUE(ci.is_error);
  EXPECT_NE(ci.content.find("protected"), std::string::npos) << ci.content;
  EXPECT_TRUE(Call("write_file", {{"path", ".gitlab-ci.yml"}, {"content", "x"}}).is_error);
  EXPECT_TRUE(Call("write_file", {{"path", ".g\u200cit/config"}, {"content", "x"}}).is_error);
  EXPECT_TRUE(Call("write_file", {{"path", "guides/secret.mdx"}, {"content", "x"}}).is_error);
  EXPECT_TRUE(Call("move_file", {{"from", "guides/install.mdx"}, {"to", ".github/workflows/x.yml"}})
                  .is_error);
  EXPECT_TRUE(Call("edit_file", {{"path", ".gitattributes"}, {"old_text", "a"}, {"new_text", "b"}})
                  .is_error);
  EXPECT_TRUE(Call("delete_file", {{"path", ".gitmodules"}}).is_error);
  EXPECT_TRUE(workspace_->Changes().empty());
  // What a docs job does still works.
  EXPECT_FALSE(Call("write_file", {{"path", "guides/new.mdx"}, {"content", "# New\n"}}).is_error);
  EXPECT_EQ(workspace_->Changes().size(), 1u);
}

}  // namespace
}  // namespace docwright::agent
