// Docs-site knowledge over real repositories: small sample sites committed with
// the git command line, read through a mirror, a snapshot and a workspace, and
// edited in the workspace as the agent would.
#include "docs/docs.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "support/docs_site.h"
#include "support/git_repo.h"
#include "support/temp_dir.h"

namespace docwright::docs {
namespace {

using docwright::testing::kGit;
using docwright::testing::Sh;

using testing::Files;
using testing::Rows;
using DocsTest = testing::DocsSiteTest;

// A Mintlify site as one is found in the wild: tabs holding groups, a nested
// group, an OpenAPI operation, snippets, an image, a draft nobody links to.
Files MintlifySite() {
  return {
      {"docs.json", R"json({
  "$schema": "https://mintlify.com/docs.json",
  "theme": "mint",
  "name": "Acme",
  "navigation": {
    "tabs": [
      {
        "tab": "Guides",
        "groups": [
          {
            "group": "Getting started",
            "pages": ["index", "quickstart"]
          },
          {
            "group": "Guides",
            "pages": [
              "guides/install",
              {
                "group": "Advanced",
                "pages": ["guides/advanced/tuning"]
              }
            ]
          }
        ]
      },
      {
        "tab": "API reference",
        "groups": [
          {
            "group": "Users",
            "pages": ["api-reference/users", "GET /users"]
          }
        ]
      }
    ]
  }
}
)json"},
      {"index.mdx",
       "---\ntitle: Home\ndescription: Acme documentation\n---\n\n"
       "Welcome. Start with the [quickstart](/quickstart).\n"},
      {"quickstart.mdx",
       "---\ntitle: \"Quickstart\"\n---\n\n# Get going\n\n"
       "<Steps>\n  <Step title=\"Install\">\n    See [install](/guides/install).\n"
       "  </Step>\n</Steps>\n"},
      {"guides/install.mdx",
       "# Install Acme\n\nRun `acme install`.\n\n"
       "![Logo](/images/logo.png)\n"},
      {"guides/advanced/tuning.md", "---\ntitle: Tuning\n---\nFaster.\n\n## Cache\n\nWarm.\n"},
      {"api-reference/users.mdx", "---\ntitle: Users\nopenapi: GET /users\n---\n"},
      {"drafts/old.mdx", "# Old draft\n"},
      {"snippets/note.mdx", "<Note>Shared.</Note>\n"},
      {"README.md", "# Acme docs\n\nRun `mint dev`.\n"},
      {"images/logo.png", std::string("\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01", 20)},
  };
}

// --- Site maps --------------------------------------------------------------------

TEST_F(DocsTest, MintlifyDocsJsonTabsAndNestedGroups) {
  SiteMap map = BuildSiteMap(Open(MintlifySite()));
  EXPECT_EQ(map.framework, Framework::kMintlify);
  EXPECT_EQ(ToString(map.framework), "Mintlify");
  EXPECT_EQ(map.config_path, "docs.json");
  EXPECT_EQ(map.content_root, "");
  EXPECT_FALSE(map.navigation_generated);
  EXPECT_EQ(Rows(map), (std::vector<std::string>{
                           "Guides > Getting started | index | index.mdx | Home",
                           "Guides > Getting started | quickstart | quickstart.mdx | Quickstart",
                           "Guides > Guides | guides/install | guides/install.mdx | Install Acme",
                           "Guides > Guides > Advanced | guides/advanced/tuning | "
                           "guides/advanced/tuning.md | Tuning",
                           "API reference > Users | api-reference/users | "
                           "api-reference/users.mdx | Users",
                       }));
  EXPECT_EQ(map.pages,
            (std::vector<std::string>{"README.md", "api-reference/users.mdx", "drafts/old.mdx",
                                      "guides/advanced/tuning.md", "guides/install.mdx",
                                      "index.mdx", "quickstart.mdx", "snippets/note.mdx"}));
  EXPECT_FALSE(map.pages_truncated);
}

TEST_F(DocsTest, MintlifyRenderIsACompactTree) {
  SiteMap map = BuildSiteMap(Open(MintlifySite()));
  EXPECT_EQ(map.Render(4096),
            "Framework: Mintlify (docs.json)\n"
            "New pages: add a .mdx file with frontmatter `title:` and list it in docs.json "
            "navigation (path without extension).\n"
            "Navigation:\n"
            "- Guides\n"
            "  - Getting started\n"
            "    - index: Home\n"
            "    - quickstart: Quickstart\n"
            "  - Guides\n"
            "    - guides/install: Install Acme\n"
            "    - Advanced\n"
            "      - guides/advanced/tuning: Tuning\n"
            "- API reference\n"
            "  - Users\n"
            "    - api-reference/users: Users\n"
            // Snippets and the repository's README are not pages of the site.
            "Pages not in navigation: drafts/old.mdx\n");
}

TEST_F(DocsTest, RenderIsCutAtALineWithANote) {
  SiteMap map = BuildSiteMap(Open(MintlifySite()));
  std::string full = map.Render(1 << 20);
  for (size_t max : {size_t{120}, size_t{200}, size_t{300}, full.size() - 1}) {
    std::string cut = map.Render(max);
    EXPECT_LE(cut.size(), max);
    ASSERT_FALSE(cut.empty()) << max;
    EXPECT_EQ(cut.back(), '\n');
    size_t note = cut.rfind('\n', cut.size() - 2);
    std::string last = cut.substr(note + 1);
    EXPECT_NE(last.find("more lines"), std::string::npos) << last;
    EXPECT_NE(last.find("left out"), std::string::npos) << last;
    // What comes before the note is a prefix of the full text, cut at a line.
    EXPECT_EQ(full.compare(0, note + 1, cut, 0, note + 1), 0);
  }
  EXPECT_EQ(map.Render(10), "");  // not even the note fits
}

TEST_F(DocsTest, OlderMintJsonWithAMissingPage) {
  SiteMap map = BuildSiteMap(Open({
      {"mint.json", R"json({
  "name": "Acme",
  "navigation": [
    {"group": "Getting started", "pages": ["introduction"]},
    {"group": "Guides", "pages": ["guides/setup", "guides/gone"]}
  ]
})json"},
      {"introduction.mdx", "---\ntitle: Introduction\n---\n"},
      {"guides/setup.md", "# Setup\n"},
  }));
  EXPECT_EQ(map.framework, Framework::kMintlify);
  EXPECT_EQ(map.config_path, "mint.json");
  EXPECT_EQ(Rows(map), (std::vector<std::string>{
                           "Getting started | introduction | introduction.mdx | Introduction",
                           "Guides | guides/setup | guides/setup.md | Setup",
                           "Guides | guides/gone |  | ",
                       }));
  EXPECT_NE(map.Render(4096).find("  - guides/gone (missing file!)\n"), std::string::npos);
}

TEST_F(DocsTest, MintlifySiteInADocsFolder) {
  SiteMap map = BuildSiteMap(Open({
      {"README.md", "# The product\n"},
      {"src/main.cc", "int main() {}\n"},
      {"docs/docs.json", R"({"navigation": {"groups": [{"group": "Start", "pages": ["intro"]}]}})"},
      {"docs/intro.mdx", "---\ntitle: Intro\n---\n"},
  }));
  EXPECT_EQ(map.framework, Framework::kMintlify);
  EXPECT_EQ(map.config_path, "docs/docs.json");
  EXPECT_EQ(map.content_root, "docs");
  EXPECT_EQ(Rows(map), (std::vector<std::string>{"Start | intro | docs/intro.mdx | Intro"}));
  EXPECT_EQ(map.pages, (std::vector<std::string>{"docs/intro.mdx"}));
  EXPECT_NE(map.Render(4096).find("(path relative to docs/ without extension)"), std::string::npos);
}

TEST_F(DocsTest, TheTestRemoteIsAMintlifySite) {
  std::string bare = dir_ / "acme.git";
  testing::MakeDocsRemote(bare);
  auto mirror = git::Mirror::Open(dir_ / "m.git", bare, git::Credentials{});
  ASSERT_TRUE(mirror.ok());
  auto snapshot = (*mirror)->OpenSnapshot(*(*mirror)->FetchBranch("main"));
  ASSERT_TRUE(snapshot.ok());
  git::Workspace work(**snapshot);
  SiteMap map = BuildSiteMap(work);
  EXPECT_EQ(Rows(map), (std::vector<std::string>{" | index | index.mdx | Home",
                                                 " | quickstart | quickstart.mdx | Quickstart"}));
  EXPECT_TRUE(CheckChanges(work).problems.empty());
}

Files DocusaurusSite() {
  return {
      {"docusaurus.config.js", "module.exports = {title: 'Acme', presets: [['classic', {}]]};\n"},
      {"sidebars.js", R"js(// @ts-check
/** @type {import('@docusaurus/plugin-content-docs').SidebarsConfig} */
const sidebars = {
  docs: [
    'intro',
    {
      type: 'category',
      label: 'Tutorial',
      link: {type: 'doc', id: 'tutorial/overview'},
      items: ['tutorial/basics', {type: 'doc', id: 'tutorial/extras', label: 'Extras'}],
    },
    {type: 'category', label: 'Reference', items: [{type: 'autogenerated', dirName: 'reference'}]},
    {type: 'link', label: 'GitHub', href: 'https://github.com/acme'},
    // 'commented-out',
  ],
};

module.exports = sidebars;
)js"},
      {"docs/intro.md", "---\ntitle: Introduction\nsidebar_position: 1\n---\n\nHello.\n"},
      {"docs/tutorial/overview.md", "# Tutorial\n"},
      {"docs/tutorial/01-basics.md", "# Basics\n"},
      {"docs/tutorial/extras.mdx", "---\nid: extras\n---\n# Extras\n"},
      {"docs/reference/cli.md", "# CLI\n"},
      {"docs/reference/api/client.md", "# Client\n"},
      {"docs/_shared.md", "Partial.\n"},
      {"docs/unlisted.md", "# Unlisted\n"},
      {"static/img/logo.svg", "<svg/>\n"},
      {"blog/2024-01-01-hello.md", "# Hello\n"},
  };
}

TEST_F(DocsTest, DocusaurusSidebarsJsIsReadAsData) {
  SiteMap map = BuildSiteMap(Open(DocusaurusSite()));
  EXPECT_EQ(map.framework, Framework::kDocusaurus);
  EXPECT_EQ(map.config_path, "sidebars.js");
  EXPECT_EQ(map.content_root, "docs");
  EXPECT_FALSE(map.navigation_generated);
  EXPECT_EQ(Rows(map), (std::vector<std::string>{
                           " | intro | docs/intro.md | Introduction",
                           "Tutorial | tutorial/overview | docs/tutorial/overview.md | Tutorial",
                           "Tutorial | tutorial/basics | docs/tutorial/01-basics.md | Basics",
                           "Tutorial | tutorial/extras | docs/tutorial/extras.mdx | Extras",
                           "Reference | reference/cli | docs/reference/cli.md | CLI",
                           "Reference > api | reference/api/client | "
                           "docs/reference/api/client.md | Client",
                       }));
  std::string text = map.Render(4096);
  EXPECT_NE(text.find("Framework: Docusaurus (sidebars.js)\n"), std::string::npos) << text;
  EXPECT_NE(text.find("list its id (path under docs/ without extension) in sidebars.js"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Pages not in navigation: docs/unlisted.md\n"), std::string::npos) << text;
}

TEST_F(DocsTest, DocusaurusSidebarsJson) {
  SiteMap map = BuildSiteMap(Open({
      {"website/docusaurus.config.ts", "export default {title: 'Acme'};\n"},
      {"website/sidebars.json", R"({"docs": {"Getting Started": ["start", "missing"]}})"},
      {"website/docs/start.mdx", "---\ntitle: Start here\n---\n"},
  }));
  EXPECT_EQ(map.framework, Framework::kDocusaurus);
  EXPECT_EQ(map.config_path, "website/sidebars.json");
  EXPECT_EQ(map.content_root, "website/docs");
  EXPECT_EQ(Rows(map), (std::vector<std::string>{
                           "Getting Started | start | website/docs/start.mdx | Start here",
                           "Getting Started | missing |  | ",
                       }));
}

TEST_F(DocsTest, DocusaurusWithoutSidebarsFollowsTheFolders) {
  SiteMap map = BuildSiteMap(Open({
      {"docusaurus.config.ts", "const config = {title: 'Acme'};\nexport default config;\n"},
      {"docs/index.md", "# Welcome\n"},
      {"docs/guides/b.md", "# B\n"},
      {"docs/guides/a.md", "# A\n"},
      {"docs/setup.md", "# Setup\n"},
  }));
  EXPECT_EQ(map.framework, Framework::kDocusaurus);
  EXPECT_EQ(map.config_path, "docusaurus.config.ts");
  EXPECT_TRUE(map.navigation_generated);
  EXPECT_EQ(Rows(map), (std::vector<std::string>{
                           " | index | docs/index.md | Welcome",
                           " | setup | docs/setup.md | Setup",
                           "guides | guides/a | docs/guides/a.md | A",
                           "guides | guides/b | docs/guides/b.md | B",
                       }));
  std::string text = map.Render(4096);
  EXPECT_NE(text.find("the sidebar follows the folders"), std::string::npos) << text;
  EXPECT_EQ(text.find("Pages not in navigation"), std::string::npos) << text;
}

Files MkDocsSite() {
  return {
      {"mkdocs.yml", R"yaml(site_name: Acme
docs_dir: content
theme:
  name: material
markdown_extensions:
  - pymdownx.emoji:
      emoji_index: !!python/name:material.extensions.emoji.twemoji
nav:
  - Home: index.md
  - Guide:
      - guide/install.md
      - Configure: guide/configure.md
      - Deep dive:
          - guide/deep/internals.md
  - Changelog: https://github.com/acme/acme/releases
)yaml"},
      {"content/index.md", "# Acme\n"},
      {"content/guide/install.md", "---\ntitle: Installing\n---\n# Install\n"},
      {"content/guide/configure.md", "Intro without heading.\n\n## Options\n"},
      {"content/guide/deep/internals.md", "# Internals\n"},
      {"content/extra.md", "# Extra\n"},
  };
}

TEST_F(DocsTest, MkDocsNavWithDocsDir) {
  SiteMap map = BuildSiteMap(Open(MkDocsSite()));
  EXPECT_EQ(map.framework, Framework::kMkDocs);
  EXPECT_EQ(map.config_path, "mkdocs.yml");
  EXPECT_EQ(map.content_root, "content");
  EXPECT_FALSE(map.navigation_generated);
  EXPECT_EQ(Rows(map), (std::vector<std::string>{
                           " | index.md | content/index.md | Acme",
                           "Guide | guide/install.md | content/guide/install.md | Installing",
                           "Guide | guide/configure.md | content/guide/configure.md | ",
                           "Guide > Deep dive | guide/deep/internals.md | "
                           "content/guide/deep/internals.md | Internals",
                       }));
  std::string text = map.Render(4096);
  EXPECT_NE(text.find("list it in nav: of mkdocs.yml (path relative to content/, with "
                      "extension)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Pages not in navigation: content/extra.md\n"), std::string::npos) << text;
}

TEST_F(DocsTest, MkDocsWithoutNavFollowsTheFolders) {
  SiteMap map = BuildSiteMap(Open({
      {"mkdocs.yaml", "site_name: Acme\n"},
      {"docs/index.md", "# Home\n"},
      {"docs/usage.md", "# Usage\n"},
  }));
  EXPECT_EQ(map.framework, Framework::kMkDocs);
  EXPECT_EQ(map.config_path, "mkdocs.yaml");
  EXPECT_EQ(map.content_root, "docs");
  EXPECT_TRUE(map.navigation_generated);
  EXPECT_EQ(Rows(map), (std::vector<std::string>{" | index.md | docs/index.md | Home",
                                                 " | usage.md | docs/usage.md | Usage"}));
}

TEST_F(DocsTest, PlainMarkdownRepository) {
  SiteMap map = BuildSiteMap(Open({
      {"README.md", "# Acme\n"},
      {"guide/setup.md", "Setup\n=====\n"},
      {"guide/usage.mdx", "# Usage\n"},
      {".github/PULL_REQUEST_TEMPLATE.md", "# PR\n"},
      {"node_modules/x/README.md", "# dependency\n"},
      {"main.py", "print('hi')\n"},
  }));
  EXPECT_EQ(map.framework, Framework::kMarkdown);
  EXPECT_EQ(map.config_path, "");
  EXPECT_EQ(map.content_root, "");
  EXPECT_TRUE(map.navigation_generated);
  EXPECT_EQ(map.pages,
            (std::vector<std::string>{"README.md", "guide/setup.md", "guide/usage.mdx"}));
  EXPECT_EQ(map.Render(4096),
            "Framework: Markdown (no site configuration)\n"
            "New pages: add a .md file starting with a `# Title` heading and link to it from a "
            "related page; there is no navigation file.\n"
            "Navigation (follows the folders):\n"
            "- README.md: Acme\n"
            "- guide\n"
            "  - guide/setup.md: Setup\n"  // a setext heading is a heading too
            "  - guide/usage.mdx: Usage\n");
}

TEST_F(DocsTest, TitlesFromFrontmatterThenHeadings) {
  std::string big = "# Big\n" + std::string(git::kMaxReadBytes + 10, 'x') + "\n";
  SiteMap map = BuildSiteMap(Open({
      {"mint.json", R"({"navigation": [{"group": "G", "pages":
          ["quoted", "heading", "fenced", "none", "badyaml", "big", "emptytitle"]}]})"},
      {"quoted.mdx", "---\ntitle: 'Quoted: yes'\n---\n# Not this\n"},
      {"heading.mdx", "---\ndescription: no title here\n---\n\nText.\n\n# The heading ##\n"},
      {"fenced.mdx", "```md\n# Not a title\n```\n\n## Second level\n\n# Real title\n"},
      {"none.mdx", "Just text.\n"},
      {"badyaml.mdx", "---\ntitle: [broken\n---\n# From heading\n"},
      {"big.mdx", big},
      {"emptytitle.mdx", "---\ntitle: \"\"\n---\n# Heading wins\n"},
  }));
  EXPECT_EQ(Rows(map), (std::vector<std::string>{
                           "G | quoted | quoted.mdx | Quoted: yes",
                           "G | heading | heading.mdx | The heading",
                           "G | fenced | fenced.mdx | Real title",
                           "G | none | none.mdx | ",
                           "G | badyaml | badyaml.mdx | From heading",
                           // Too large to read: it exists, without a title.
                           "G | big | big.mdx | ",
                           "G | emptytitle | emptytitle.mdx | Heading wins",
                       }));
}

TEST_F(DocsTest, TheWalkIsBounded) {
  Files files = {{"mkdocs.yml", "site_name: Acme\n"}};
  for (int i = 0; i < 30; ++i) files["docs/page" + std::to_string(100 + i) + ".md"] = "# P\n";
  git::Workspace& work = Open(files);
  SiteMap bounded = BuildSiteMap(work, {.max_files = 10});
  EXPECT_TRUE(bounded.pages_truncated);
  EXPECT_LE(bounded.pages.size(), 10u);
  EXPECT_NE(bounded.Render(4096).find("more pages may exist"), std::string::npos);
  SiteMap full = BuildSiteMap(work);
  EXPECT_FALSE(full.pages_truncated);
  EXPECT_EQ(full.pages.size(), 30u);
}

TEST_F(DocsTest, TheMapSeesTheWorkspaceEdits) {
  git::Workspace& work = Open(MintlifySite());
  ASSERT_TRUE(work.Delete("drafts/old.mdx").ok());
  Write("guides/upgrade.mdx", "---\ntitle: Upgrade\n---\n");
  SiteMap map = BuildSiteMap(work);
  EXPECT_EQ(std::count(map.pages.begin(), map.pages.end(), "drafts/old.mdx"), 0);
  EXPECT_EQ(std::count(map.pages.begin(), map.pages.end(), "guides/upgrade.mdx"), 1);
  EXPECT_NE(map.Render(4096).find("Pages not in navigation: guides/upgrade.mdx\n"),
            std::string::npos);
}

// --- Checks ---------------------------------------------------------------------

TEST_F(DocsTest, AGoodChangeHasNoProblems) {
  git::Workspace& work = Open(MintlifySite());
  Write("guides/upgrade.mdx", R"md(---
title: Upgrade
description: "Moving to Acme 2"
---

import Note from '/snippets/note.mdx';

Read [install](./install) and the [tuning guide](advanced/tuning#cache) first,
then the [quickstart](/quickstart#step-2) and the [home page](/).
See [the API](https://acme.example/api), [mail us](mailto:docs@acme.example) or [jump](#steps).

<Card title="Install" href="/guides/install" icon="download">
  Get the CLI. <img src="/images/logo.png" alt="logo" />
</Card>

<Frame>
  ![Logo](../images/logo.png)
</Frame>

Inline code is not markup: `<Tabs>` and `[x](/nowhere)`.

```bash
# Not a heading; <Unclosed> and [links](/nowhere) are code here.
acme upgrade
```

{/* <Commented> out */}

[ref]: /guides/install
)md");
  std::string config = work.Read("docs.json")->text;
  config.replace(config.find("\"guides/install\","), 17, "\"guides/install\", \"guides/upgrade\",");
  Write("docs.json", config);
  Write("quickstart.mdx",
        "---\ntitle: Quickstart\n---\n\n1. [Install](/guides/install)\n\n## Step 2\n\nRun it.\n");
  EXPECT_EQ(Rows(CheckChanges(work)), std::vector<std::string>{});
}

TEST_F(DocsTest, FrontmatterMustBeValidYaml) {
  Open(MintlifySite());
  Write("guides/install.mdx", "---\ntitle: Install\nsidebarTitle: a: b\n---\n# Install\n");
  Write("quickstart.mdx", "---\ntitle: Quickstart\n\nNo closing line.\n");
  Write("index.mdx", "---\n- a\n- list\n---\n");
  EXPECT_EQ(Rows(CheckChanges(*work_)),
            (std::vector<std::string>{
                "guides/install.mdx:3: frontmatter is not valid YAML: illegal map value",
                "index.mdx:2: frontmatter must be YAML `key: value` lines",
                "quickstart.mdx:1: frontmatter is not closed: add a line with --- after it",
            }));
}

TEST_F(DocsTest, CodeBlocksMustBeClosed) {
  Open(MintlifySite());
  Write("guides/install.mdx",
        "---\ntitle: Install\n---\n\n```bash\nacme install\n```\n\n"
        "Then:\n\n````md\n```js\nnested\n```\n");
  EXPECT_EQ(Rows(CheckChanges(*work_)),
            (std::vector<std::string>{"guides/install.mdx:11: code block opened here is never "
                                      "closed: add a closing ```` line"}));
}

TEST_F(DocsTest, MdxTagsMustBalance) {
  Open(MintlifySite());
  Write("quickstart.mdx", R"md(---
title: Quickstart
---

<Steps>
  <Step title="Install">
    Install it.
</Steps>

Text with a stray </Card> here.

<Note>
  Never closed.

A break<br> in MDX.

<Tip>ok</Tip> <Icon icon="check" /> <>fragment</> <https://acme.example> 1 < 2
)md");
  Write("guides/plain.md", "---\ntitle: Plain\n---\n<div>\nHTML in Markdown is not JSX.\n");
  std::string config = work_->Read("docs.json")->text;
  config.replace(config.find("\"guides/install\","), 17, "\"guides/install\", \"guides/plain\",");
  Write("docs.json", config);
  EXPECT_EQ(Rows(CheckChanges(*work_)),
            (std::vector<std::string>{
                "quickstart.mdx:6: <Step> is not closed before </Steps> on line 8",
                "quickstart.mdx:10: </Card> has no matching opening tag",
                "quickstart.mdx:12: <Note> is never closed: add </Note> or write it as <Note />",
                "quickstart.mdx:15: <br> must be self-closing in MDX: write <br />",
            }));
}

TEST_F(DocsTest, JsonAndYamlMustParse) {
  Open(MintlifySite());
  Write("docs.json", "{\n  \"name\": \"Acme\",\n  \"navigation\": [\n    \"index\",\n  ]\n}\n");
  Write("openapi.yaml", "openapi: 3.0.0\ninfo:\n  title: [Acme\n  version: 1\n");
  Write(".vscode/settings.json", "{\n  // editors allow comments\n  \"a\": 1\n}\n");
  std::vector<Problem> problems = CheckChanges(*work_).problems;
  ASSERT_EQ(problems.size(), 2u) << ::testing::PrintToString(Rows(problems));
  EXPECT_EQ(problems[0].path, "docs.json");
  EXPECT_EQ(problems[0].line, 5);
  EXPECT_EQ(problems[0].message.rfind("invalid JSON: syntax error", 0), 0u) << problems[0].message;
  EXPECT_EQ(problems[1].path, "openapi.yaml");
  EXPECT_GE(problems[1].line, 3);
  EXPECT_EQ(problems[1].message.rfind("invalid YAML: ", 0), 0u) << problems[1].message;
}

TEST_F(DocsTest, DeletedPageStillInNavigation) {
  git::Workspace& work = Open(MintlifySite());
  ASSERT_TRUE(work.Delete("guides/install.mdx").ok());
  EXPECT_EQ(
      Rows(CheckChanges(work)),
      (std::vector<std::string>{
          "docs.json:17: navigation lists \"guides/install\" but "
          "neither guides/install.mdx nor guides/install.md exists",
          "quickstart.mdx:9: link /guides/install no longer resolves: these changes delete or "
          "move what it pointed at; update the link or remove it",
      }));
}

TEST_F(DocsTest, MovedPageMustBeRelisted) {
  git::Workspace& work = Open(MintlifySite());
  ASSERT_TRUE(work.Move("guides/install.mdx", "guides/setup.mdx").ok());
  EXPECT_EQ(
      Rows(CheckChanges(work)),
      (std::vector<std::string>{
          "docs.json:17: navigation lists \"guides/install\" but neither "
          "guides/install.mdx nor guides/install.md exists",
          "guides/setup.mdx:0: new page is not in navigation: add \"guides/setup\" to a "
          "group's pages in docs.json",
          "quickstart.mdx:9: link /guides/install no longer resolves: these changes delete or "
          "move what it pointed at; update the link or remove it",
      }));
}

// Links in pages the change does not touch: the ones it breaks are reported,
// the ones that were broken already are not (they are not its doing).
TEST_F(DocsTest, LinksToDeletedOrMovedFilesFromOtherPages) {
  Files site = MintlifySite();
  site["guides/advanced/tuning.md"] =
      "---\ntitle: Tuning\n---\nSee [the old page](/guides/gone) and\n"
      "[install](../install) and ![logo](/images/logo.png).\n";
  git::Workspace& work = Open(site);
  ASSERT_TRUE(work.Delete("images/logo.png").ok());
  ASSERT_TRUE(work.Move("guides/install.mdx", "guides/setup.mdx").ok());
  std::string config = work.Read("docs.json")->text;
  config.replace(config.find("\"guides/install\""), 16, "\"guides/setup\"");
  Write("docs.json", config);
  // The moved page's own image is checked with the page, as a changed page.
  EXPECT_EQ(
      Rows(CheckChanges(work)),
      (std::vector<std::string>{
          "guides/advanced/tuning.md:5: link ../install no longer resolves: these changes "
          "delete or move what it pointed at; update the link or remove it",
          "guides/advanced/tuning.md:5: image /images/logo.png no longer resolves: these "
          "changes delete or move what it pointed at; update the link or remove it",
          "quickstart.mdx:9: link /guides/install no longer resolves: these changes delete or "
          "move what it pointed at; update the link or remove it",
          "guides/setup.mdx:5: image /images/logo.png does not resolve to a file",
      }));
  // Links brought up to date: nothing left to say.
  Write("guides/advanced/tuning.md",
        "---\ntitle: Tuning\n---\nSee [the old page](/guides/gone) "
        "and\n[setup](../setup).\n");
  Write("quickstart.mdx", "---\ntitle: \"Quickstart\"\n---\n\nSee [setup](/guides/setup).\n");
  Write("guides/setup.mdx", "# Install Acme\n\nRun `acme install`.\n");
  // The link broken before, on a line the edit kept, is the site's: a note.
  CheckReport report = CheckChanges(work);
  EXPECT_EQ(Rows(report), std::vector<std::string>{});
  EXPECT_EQ(Rows(report.notes),
            (std::vector<std::string>{
                "guides/advanced/tuning.md:4: already before these changes: link /guides/gone "
                "does not resolve to a page or file",
            }));
}

TEST_F(DocsTest, NewPageMustBeInNavigation) {
  Open(MintlifySite());
  Write("guides/new.mdx", "---\ntitle: New\n---\n");
  Write("snippets/warning.mdx", "<Warning>Careful.</Warning>\n");  // a snippet, not a page
  // Not new: an edited page is left where navigation has it (or not).
  Write("drafts/old.mdx", "# Old draft, edited\n");
  EXPECT_EQ(Rows(CheckChanges(*work_)),
            (std::vector<std::string>{"guides/new.mdx:0: new page is not in navigation: add "
                                      "\"guides/new\" to a group's pages in docs.json"}));
}

TEST_F(DocsTest, BrokenLinksAndImages) {
  Open(MintlifySite());
  Write("guides/links.mdx", R"md(---
title: Links
---

See [install](./instal), [setup](/guides/instal#anchor) and [ok](/guides/install).
![Missing](/images/missing.png) and ![rel](../images/nope.png "title")
<img src="/images/nope.svg" /> <Card href="/nowhere">x</Card>
[escape](../../etc/passwd) and [a reference][ref]

[ref]: /missing/ref
[unused]: /not/a/link/until/used
)md");
  std::string config = work_->Read("docs.json")->text;
  config.replace(config.find("\"guides/install\","), 17, "\"guides/install\", \"guides/links\",");
  Write("docs.json", config);
  EXPECT_EQ(Rows(CheckChanges(*work_)),
            (std::vector<std::string>{
                "guides/links.mdx:5: link ./instal does not resolve to a page or file",
                "guides/links.mdx:5: link /guides/instal#anchor does not resolve to a page or file",
                "guides/links.mdx:7: link /nowhere does not resolve to a page or file",
                "guides/links.mdx:8: link ../../etc/passwd points outside the repository",
                "guides/links.mdx:8: link /missing/ref does not resolve to a page or file",
                "guides/links.mdx:6: image /images/missing.png does not resolve to a file",
                "guides/links.mdx:6: image ../images/nope.png does not resolve to a file",
                "guides/links.mdx:7: image /images/nope.svg does not resolve to a file",
            }));
}

TEST_F(DocsTest, ProblemsAreSortedAndBounded) {
  Open(MintlifySite());
  Write("b.mdx", "[x](/nope1)\n[y](/nope2)\n");
  Write("a.mdx", "```\nunclosed\n");
  std::vector<Problem> all = CheckChanges(*work_).problems;
  ASSERT_GE(all.size(), 4u);  // 3 in the pages, 2 pages not in navigation
  // By severity (the pages left out of navigation first), then path and line.
  for (size_t i = 1; i < all.size(); ++i) {
    EXPECT_TRUE(std::tie(all[i - 1].kind, all[i - 1].path, all[i - 1].line) <=
                std::tie(all[i].kind, all[i].path, all[i].line));
  }
  EXPECT_EQ(all[0].kind, ProblemKind::kNavigation);
  std::vector<Problem> two = CheckChanges(*work_, {.max_problems = 2}).problems;
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].path, "a.mdx");
  EXPECT_EQ(two[1].path, "b.mdx");
  EXPECT_EQ(CheckChanges(*work_, {.max_problems = 0}).problems.size(), 0u);
}

TEST_F(DocsTest, MkDocsChecks) {
  git::Workspace& work = Open(MkDocsSite());
  ASSERT_TRUE(work.Delete("content/guide/configure.md").ok());
  Write("content/guide/new.md",
        "# New\n\nBack to [install](install.md) and [home](../index.md).\n"
        "Broken: [x](missing.md).\n");
  EXPECT_EQ(Rows(CheckChanges(work)),
            (std::vector<std::string>{
                "content/guide/new.md:0: new page is not in navigation: add \"guide/new.md\" to "
                "nav: in mkdocs.yml",
                "mkdocs.yml:12: nav lists \"guide/configure.md\" but "
                "content/guide/configure.md does not exist",
                "content/guide/new.md:4: link missing.md does not resolve to a page or file",
            }));
  Write("mkdocs.yml", "site_name: Acme\nnav:\n  - Home: index.md\n   - bad\n");
  std::vector<Problem> problems = CheckChanges(work).problems;
  auto yaml = std::find_if(problems.begin(), problems.end(),
                           [](const Problem& p) { return p.kind == ProblemKind::kSyntax; });
  ASSERT_NE(yaml, problems.end()) << ::testing::PrintToString(Rows(problems));
  EXPECT_EQ(yaml->path, "mkdocs.yml");
  EXPECT_EQ(yaml->line, 4);
  EXPECT_EQ(yaml->message.rfind("invalid YAML: ", 0), 0u) << yaml->message;
}

TEST_F(DocsTest, DocusaurusChecks) {
  git::Workspace& work = Open(DocusaurusSite());
  Write("docs/tutorial/advanced.md",
        "# Advanced\n\nAfter [basics](./basics) and [the intro](/docs/intro), "
        "see ![logo](/img/logo.svg) and [the blog](/blog/hello).\n[Nope](/docs/nope)\n");
  Write("docs/reference/api/server.md", "# Server\n");  // autogenerated: listed by itself
  Write("docs/_include.md", "Partial.\n");
  EXPECT_EQ(Rows(CheckChanges(work)),
            (std::vector<std::string>{
                "docs/tutorial/advanced.md:0: new page is not in the sidebar: add "
                "\"tutorial/advanced\" to sidebars.js",
                "docs/tutorial/advanced.md:4: link /docs/nope does not resolve to a page or file",
            }));
  ASSERT_TRUE(work.Delete("docs/tutorial/extras.mdx").ok());
  std::vector<Problem> problems = CheckChanges(work).problems;
  ASSERT_EQ(problems.size(), 3u) << ::testing::PrintToString(Rows(problems));
  // The sidebar entry of the deleted doc first: navigation is the severest kind.
  EXPECT_EQ(problems[1].path, "sidebars.js");
  EXPECT_EQ(problems[1].line, 10);
  EXPECT_NE(problems[1].message.find("\"tutorial/extras\""), std::string::npos);
}

// A Docusaurus doc may be named by the `id:` in its frontmatter rather than by
// its file: links that way resolve, and break when the doc is deleted.
TEST_F(DocsTest, DocusaurusLinksByFrontmatterIdBreakWhenTheDocGoes) {
  git::Workspace& work = Open({
      {"docusaurus.config.js", "module.exports = {title: 'Acme'};\n"},
      {"docs/01-intro.md", "---\nid: start-here\n---\n# Intro\n"},
      {"docs/guide.md", "# Guide\n\nFirst [start here](/docs/start-here).\n"},
  });
  Write("docs/faq.md", "# FAQ\n\nSee [the start](/docs/start-here).\n");
  EXPECT_EQ(Rows(CheckChanges(work)), std::vector<std::string>{}) << "the id resolves";
  ASSERT_TRUE(work.Delete("docs/01-intro.md").ok());
  EXPECT_EQ(Rows(CheckChanges(work)),
            (std::vector<std::string>{
                "docs/guide.md:3: link /docs/start-here no longer resolves: these changes delete "
                "or move what it pointed at; update the link or remove it",
                "docs/faq.md:3: link /docs/start-here does not resolve to a page or file",
            }));
}

TEST_F(DocsTest, GeneratedNavigationNeedsNoListing) {
  git::Workspace& work = Open({
      {"docusaurus.config.js", "module.exports = {};\n"},
      {"sidebars.js", "module.exports = {docs: [{type: 'autogenerated', dirName: '.'}]};\n"},
      {"docs/intro.md", "# Intro\n"},
  });
  Write("docs/more.md", "# More\n\nSee [intro](intro.md).\n");
  EXPECT_TRUE(BuildSiteMap(work).navigation_generated);
  EXPECT_EQ(Rows(CheckChanges(work)), std::vector<std::string>{});
}

TEST_F(DocsTest, PlainMarkdownChecks) {
  git::Workspace& work = Open({
      {"README.md", "# Acme\n\nSee [the guide](guide/) and [setup](guide/setup.md).\n"},
      {"guide/setup.md", "# Setup\n"},
  });
  Write("guide/new.md", "# New\n\n[Up](../README.md), [folder](../guide), [gone](old.md)\n");
  EXPECT_EQ(
      Rows(CheckChanges(work)),
      (std::vector<std::string>{"guide/new.md:3: link old.md does not resolve to a page or file"}));
}

TEST_F(DocsTest, BinaryAndLargeFilesExistWithoutBeingRead) {
  Files site = MintlifySite();
  site["guides/big.md"] = "# Big\n" + std::string(git::kMaxReadBytes + 10, 'x') + "\n";
  git::Workspace& work = Open(site);
  ASSERT_TRUE(work.Move("images/logo.png", "images/brand.png").ok());
  Write("guides/install.mdx", "# Install\n\n![Logo](/images/brand.png) and [big](./big)\n");
  Write("drafts/blob.md", std::string("\0\x01\x02binary", 9));  // stored, never read back
  EXPECT_EQ(Rows(CheckChanges(work)),
            (std::vector<std::string>{"drafts/blob.md:0: new page is not in navigation: add "
                                      "\"drafts/blob\" to a group's pages in docs.json"}));
}

}  // namespace
}  // namespace docwright::docs
