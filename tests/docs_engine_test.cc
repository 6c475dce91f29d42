// The docs engine against what real sites do and what an attacker writes: only
// the turn's own problems are sent for repair; each framework resolves pages,
// links, redirects and assets as the published site does; no page or
// configuration can make a check run away.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "core/turn.h"
#include "docs/docs.h"
#include "support/docs_site.h"

namespace docwright::docs {
namespace {

using testing::Files;
using testing::Rows;
using DocsEngineTest = testing::DocsSiteTest;

bool AnyContains(const std::vector<Problem>& list, const std::string& text) {
  return std::any_of(list.begin(), list.end(),
                     [&](const Problem& p) { return p.message.find(text) != std::string::npos; });
}

std::string Page(const std::string& title, const std::string& body) {
  return "---\ntitle: " + title + "\n---\n\n" + body;
}

// A Mintlify site with two languages, the second half translated: its
// navigation lists Japanese pages that were never written, and one English page
// has carried a broken link for a long time.
Files HalfTranslatedMintlify() {
  Files site = {
      {"docs.json", R"json({
  "name": "Acme",
  "navigation": {
    "languages": [
      {"language": "en", "groups": [
        {"group": "Start", "pages": ["en/index", "en/install"]},
        {"group": "Guides", "pages": ["en/guides/one", "en/guides/two"]}
      ]},
      {"language": "ja", "groups": [
        {"group": "Start", "pages": ["ja/index", "ja/install"]},
        {"group": "Guides", "pages": ["ja/guides/one", "ja/guides/two"]}
      ]}
    ]
  }
})json"},
      {"en/index.mdx", Page("Home", "Welcome. Read [install](/en/install).\n")},
      {"en/install.mdx",
       Page("Install", "Install it.\n\nThe [old page](/en/removed-long-ago) is gone.\n")},
      {"en/guides/one.mdx", Page("One", "First guide.\n")},
      {"en/guides/two.mdx", Page("Two", "Second guide, after [one](/en/guides/one).\n")},
      {"ja/index.mdx", Page("ホーム", "ようこそ。\n")},
  };
  return site;
}

TEST_F(DocsEngineTest, AppendingToAPageOfAHalfTranslatedSiteReportsNothing) {
  git::Workspace& work = Open(HalfTranslatedMintlify());
  std::string page = work.Read("en/guides/one.mdx")->text;
  ASSERT_TRUE(work.Write("en/guides/one.mdx", page + "\nOne more sentence.\n").ok());
  CheckReport report = CheckChanges(work);
  EXPECT_EQ(Rows(report), std::vector<std::string>{});
  // The site's own problems are notes for the pull request, not repair requests.
  EXPECT_TRUE(AnyContains(report.notes,
                          "already before these changes: navigation lists "
                          "\"ja/install\""))
      << ::testing::PrintToString(Rows(report.notes));
}

TEST_F(DocsEngineTest, AddingAPageWithItsNavigationEntryReportsNothing) {
  git::Workspace& work = Open(HalfTranslatedMintlify());
  ASSERT_TRUE(
      work.Write("en/guides/three.mdx", Page("Three", "See [two](/en/guides/two).\n")).ok());
  std::string config = work.Read("docs.json")->text;
  config.replace(config.find("\"en/guides/two\""), 15, "\"en/guides/two\", \"en/guides/three\"");
  ASSERT_TRUE(work.Write("docs.json", config).ok());
  EXPECT_EQ(Rows(CheckChanges(work)), std::vector<std::string>{});

  // A navigation entry for a page that does not exist is the turn's doing.
  config.replace(config.find("\"en/guides/three\""), 17, "\"en/guides/three\", \"en/guides/four\"");
  ASSERT_TRUE(work.Write("docs.json", config).ok());
  EXPECT_EQ(Rows(CheckChanges(work)),
            (std::vector<std::string>{"docs.json:7: navigation lists \"en/guides/four\" but "
                                      "neither en/guides/four.mdx nor en/guides/four.md exists"}));
}

TEST_F(DocsEngineTest, AnOldBrokenLinkIsTheTurnsOnceItsLineIsEdited) {
  git::Workspace& work = Open(HalfTranslatedMintlify());
  std::string page = work.Read("en/install.mdx")->text;
  ASSERT_TRUE(work.Write("en/install.mdx", "Intro line.\n\n" + page).ok());
  CheckReport appended = CheckChanges(work);
  EXPECT_EQ(Rows(appended), std::vector<std::string>{}) << "the link was broken before";
  EXPECT_TRUE(AnyContains(appended.notes, "link /en/removed-long-ago"));

  std::string edited = page;
  edited.replace(edited.find("is gone."), 8, "was removed.");
  ASSERT_TRUE(work.Write("en/install.mdx", edited).ok());
  EXPECT_EQ(Rows(CheckChanges(work)),
            (std::vector<std::string>{"en/install.mdx:7: link /en/removed-long-ago does not "
                                      "resolve to a page or file"}));
}

TEST_F(DocsEngineTest, MintlifyRefsAndRedirects) {
  git::Workspace& work = Open({
      {"docs.json", R"json({
  "name": "Acme",
  "navigation": {"$ref": "./config/navigation.json"},
  "redirects": {"$ref": "./config/redirects.json"}
})json"},
      {"config/navigation.json",
       R"json({"groups": [{"group": "Start", "pages": ["index", "guides/setup"]}]})json"},
      {"config/redirects.json", R"json([
  {"source": "/old/:slug*", "destination": "/guides/:slug*"},
  {"source": "/legacy", "destination": "/"},
  {"source": "/v1/:page/intro", "destination": "/"}
])json"},
      {"index.mdx", Page("Home", "Start with [setup](/guides/setup).\n")},
      {"guides/setup.mdx", Page("Setup", "Set it up.\n")},
  });
  SiteMap map = BuildSiteMap(work);
  EXPECT_EQ(Rows(map), (std::vector<std::string>{
                           "Start | index | index.mdx | Home",
                           "Start | guides/setup | guides/setup.mdx | Setup",
                       }));
  std::string page = work.Read("index.mdx")->text;
  ASSERT_TRUE(work.Write("index.mdx", page + "\nMoved: [a](/old/setup), [b](/old/deep/er/page#x), "
                                             "[c](/legacy/), [d](/v1/users/intro).\n"
                                             "Missing: [e](/v1/users/other), [f](/nothing).\n")
                  .ok());
  // /old/deep/er/page redirects to /guides/deep/er/page, which is no page: a
  // 404 on the published site.
  EXPECT_EQ(Rows(CheckChanges(work)),
            (std::vector<std::string>{
                "index.mdx:7: link /old/deep/er/page#x does not resolve to a page or file",
                "index.mdx:8: link /v1/users/other does not resolve to a page or file",
                "index.mdx:8: link /nothing does not resolve to a page or file",
            }));
}

TEST_F(DocsEngineTest, MkDocsNavNamesFoldersAndToleratesTags) {
  git::Workspace& work = Open({
      {"mkdocs.yml", R"yaml(site_name: Acme
site_url: !ENV [SITE_URL, "https://docs.example.com"]
markdown_extensions:
  - pymdownx.emoji:
      emoji_index: !!python/name:material.extensions.emoji.twemoji
exclude_docs: |
  drafts/private.md
not_in_nav: |
  /notes/*.md
nav:
  - Home: index.md
  - User Guide: user-guide/
  - Reference: reference
  - External: https://example.com
)yaml"},
      {"docs/index.md", "# Home\n\nSee the [guide](user-guide/start.md).\n"},
      {"docs/user-guide/start.md", "# Start\n"},
      {"docs/user-guide/advanced/tuning.md", "# Tuning\n"},
      {"docs/reference/api.md", "# API\n"},
      {"docs/drafts/private.md", "# Private\n"},
  });
  SiteMap map = BuildSiteMap(work);
  EXPECT_EQ(Rows(map), (std::vector<std::string>{
                           " | index.md | docs/index.md | Home",
                           "User Guide | user-guide/start.md | docs/user-guide/start.md | Start",
                           "User Guide > advanced | user-guide/advanced/tuning.md | "
                           "docs/user-guide/advanced/tuning.md | Tuning",
                           "Reference | reference/api.md | docs/reference/api.md | API",
                       }));
  EXPECT_EQ(std::count(map.pages.begin(), map.pages.end(), "docs/drafts/private.md"), 0)
      << "exclude_docs";

  std::string index = work.Read("docs/index.md")->text;
  ASSERT_TRUE(work.Write("docs/index.md", index + "\nOne more line.\n").ok());
  ASSERT_TRUE(work.Write("docs/user-guide/new.md", "# New\n").ok());  // under a listed folder
  ASSERT_TRUE(work.Write("docs/notes/today.md", "# Today\n").ok());   // not_in_nav
  EXPECT_EQ(Rows(CheckChanges(work)), std::vector<std::string>{});

  ASSERT_TRUE(work.Write("docs/other.md", "# Other\n").ok());
  EXPECT_EQ(Rows(CheckChanges(work)),
            (std::vector<std::string>{"docs/other.md:0: new page is not in navigation: add "
                                      "\"other.md\" to nav: in mkdocs.yml"}));
}

TEST_F(DocsEngineTest, DocusaurusConfigSlugsStaticFoldersAndVersions) {
  git::Workspace& work = Open({
      {"docusaurus.config.ts", R"ts(import type {Config} from '@docusaurus/types';
const config: Config = {
  title: 'Acme',
  staticDirectories: ['public'],
  presets: [
    ['classic', {docs: {path: 'guides', routeBasePath: '/', sidebarPath: './sidebars.ts'}}],
  ],
};
export default config;
)ts"},
      {"sidebars.ts", "export default {docs: [{type: 'autogenerated', dirName: '.'}]};\n"},
      {"versions.json", "[\"1.0\"]\n"},
      {"guides/intro.md", "---\nslug: /start\n---\n# Intro\n"},
      {"guides/setup/01-install.md", "# Install\n"},
      {"versioned_docs/version-1.0/intro.md", "# Old intro\n"},
      {"public/img/logo.png", "png"},
  });
  SiteMap map = BuildSiteMap(work);
  EXPECT_EQ(map.content_root, "guides");
  ASSERT_TRUE(work.Write("guides/new.md",
                         "# New\n\n[a](/start) [b](/setup/install) [c](/1.0/intro) "
                         "[d](/next/intro) ![e](/img/logo.png) [f](./setup/install)\n\n"
                         "[g](/docs/intro) ![h](/static/img/logo.png)\n")
                  .ok());
  // 1.0 is the last version: Docusaurus serves it at the base route only, so
  // /1.0/intro is no page of the published site.
  EXPECT_EQ(Rows(CheckChanges(work)),
            (std::vector<std::string>{
                "guides/new.md:3: link /1.0/intro does not resolve to a page or file",
                "guides/new.md:5: link /docs/intro does not resolve to a page or file",
                "guides/new.md:5: image /static/img/logo.png does not resolve to a file",
            }));
}

TEST_F(DocsEngineTest, MdxLinksInsideJsxImportsAndCode) {
  git::Workspace& work = Open({
      {"docs.json", R"({"navigation": {"groups": [{"group": "G", "pages": ["index", "page"]}]}})"},
      {"index.mdx", Page("Home", "Hi.\n")},
      {"snippets/ok.mdx", "Shared.\n"},
      {"page.mdx", Page("Page", "Old.\n")},
  });
  ASSERT_TRUE(work.Write("page.mdx", R"mdx(---
title: Page
---
import Ok from '/snippets/ok.mdx'
import Missing from '/snippets/missing.mdx'
import {Card} from 'some-package'

<Note>
  See [home](/index) and [nope](./nope).
</Note>

<Card icon={<Icon name="x" />} href="/gone" title={"a > b"}>
  Text with `<NotATag>` in code.
</Card>

```jsx
<Unclosed>
```

{/* <AlsoNotATag> */}
<Ok />
)mdx")
                  .ok());
  EXPECT_EQ(Rows(CheckChanges(work)),
            (std::vector<std::string>{
                "page.mdx:5: import /snippets/missing.mdx does not resolve to a file",
                "page.mdx:9: link ./nope does not resolve to a page or file",
                "page.mdx:12: link /gone does not resolve to a page or file",
            }));
}

TEST_F(DocsEngineTest, LinesAreNumberedByLineFeedsAsTheAgentReadsThem) {
  // An old editor's lone carriage return ends a line for cmark-gfm, not for
  // the agent's file tools: the problems name the lines the agent sees.
  git::Workspace& work = Open({
      {"docs.json", R"({"navigation": {"groups": [{"group": "G", "pages": ["index", "page"]}]}})"},
      {"index.mdx", Page("Home", "Hi.\n")},
      {"page.md", "# Page\n"},
  });
  ASSERT_TRUE(
      work.Write("page.md", "# Page\n\nOne.\rTwo.\rThree.\n\nSee [nope](./nope).\n\n```js\nx\n")
          .ok());
  EXPECT_EQ(Rows(CheckChanges(work)),
            (std::vector<std::string>{
                "page.md:7: code block opened here is never closed: add a closing ``` line",
                "page.md:5: link ./nope does not resolve to a page or file",
            }));
}

TEST_F(DocsEngineTest, StyleRemarksAreNotesNeverProblems) {
  git::Workspace& work = Open({
      {"docs.json", R"({"navigation": {"groups": [{"group": "G", "pages": ["a", "b", "c"]}]}})"},
      {"a.mdx", Page("Alpha", "Text.\n")},
      {"b.mdx", Page("Beta", "Text.\n")},
  });
  ASSERT_TRUE(work.Write("b.mdx", Page("Alpha", "## Part\n\n#### Detail\n\nText.\n")).ok());
  ASSERT_TRUE(work.Write("c.mdx", "---\ntitle: Gamma\n---\n").ok());
  CheckReport report = CheckChanges(work);
  EXPECT_EQ(Rows(report), std::vector<std::string>{});
  EXPECT_EQ(Rows(report.notes),
            (std::vector<std::string>{
                "b.mdx:0: has the same title as a.mdx in navigation group \"G\"",
                "b.mdx:7: heading \"Detail\" skips from level 2 to 4",
                "c.mdx:0: the page has no content",
            }));
}

TEST_F(DocsEngineTest, DocusaurusTemplateOptionsAndFolderRoutes) {
  // The options as Docusaurus's own template writes them: in parentheses, after a
  // type comment. Docs at the root of the site; a folder is served at its index.
  git::Workspace& work = Open({
      {"docusaurus.config.js", R"js(// @ts-check
/** @type {import('@docusaurus/types').Config} */
const config = {
  presets: [
    [
      'classic',
      /** @type {import('@docusaurus/preset-classic').Options} */
      ({
        docs: {routeBasePath: '/', sidebarPath: require.resolve('./sidebars.js')},
      }),
    ],
  ],
};
module.exports = config;
)js"},
      {"docs/intro.md", "# Intro\n"},
      {"docs/01-getting-started/index.md", "# Getting started\n"},
      {"docs/guide/guide.md", "# Guide\n"},
  });
  ASSERT_TRUE(work.Write("docs/new.md",
                         "# New\n\n[a](/intro) [b](/getting-started) [c](/guide) "
                         "[d](/category/tutorials) [e](/docs/intro)\n")
                  .ok());
  EXPECT_EQ(Rows(CheckChanges(work)),
            (std::vector<std::string>{
                "docs/new.md:3: link /docs/intro does not resolve to a page or file",
            }));
}

TEST_F(DocsEngineTest, AMovedPageKeepsItsOldProblemsAsNotes) {
  git::Workspace& work = Open({
      {"docs.json", R"({"navigation": {"groups": [{"group": "G", "pages": ["a", "b"]}]}})"},
      {"a.mdx", Page("A", "See [step 2](/steps/step-2), gone long ago.\n")},
      {"b.mdx", Page("B", "Text.\n")},
  });
  ASSERT_TRUE(work.Move("a.mdx", "moved/a.mdx").ok());
  std::string config = work.Read("docs.json")->text;
  config.replace(config.find("\"a\""), 3, "\"moved/a\"");
  ASSERT_TRUE(work.Write("docs.json", config).ok());
  CheckReport report = CheckChanges(work);
  EXPECT_EQ(Rows(report), std::vector<std::string>{});
  EXPECT_TRUE(AnyContains(report.notes, "link /steps/step-2"));

  // A new broken link that differs only in a number is the turn's.
  std::string page = work.Read("moved/a.mdx")->text;
  ASSERT_TRUE(work.Write("moved/a.mdx", page + "\nAnd [step 3](/steps/step-3).\n").ok());
  EXPECT_EQ(Rows(CheckChanges(work)),
            (std::vector<std::string>{
                "moved/a.mdx:7: link /steps/step-3 does not resolve to a page or file",
            }));
}

TEST_F(DocsEngineTest, WhatRealSitesWriteIsNotAProblem) {
  // A fence inside a block quote closed at the end of the file; an image in raw
  // HTML relative to the page's own URL in MkDocs.
  git::Workspace& mkdocs = Open({
      {"mkdocs.yml", "site_name: X\n"},
      {"docs/img/a.png", "png"},
      {"docs/guide/setup.md", "# Setup\n"},
  });
  ASSERT_TRUE(mkdocs
                  .Write("docs/guide/setup.md",
                         "# Setup\n\n<img src=\"../../img/a.png\">\n\n> Note:\n>\n> ```sh\n"
                         "> run\n> ```\n")
                  .ok());
  EXPECT_EQ(Rows(CheckChanges(mkdocs)), std::vector<std::string>{});
}

TEST_F(DocsEngineTest, AReadmeMayLinkToItsCodeHostsPages) {
  git::Workspace& plain = Open({{"README.md", "# Tool\n"}});
  ASSERT_TRUE(plain.Write("README.md", "# Tool\n\nReport bugs in [issues](../../issues).\n").ok());
  EXPECT_EQ(Rows(CheckChanges(plain)), std::vector<std::string>{});
}

TEST_F(DocsEngineTest, MintlifyRootPagesAndGeneratedApiPages) {
  git::Workspace& work = Open({
      {"docs.json", R"json({"navigation": {"groups": [
  {"group": "Authentication", "root": "auth/index", "pages": ["auth/tokens"]},
  {"group": "API", "openapi": {"source": "openapi.json", "directory": "reference/api"},
   "pages": ["GET /users", "POST /users"]}
]}})json"},
      {"openapi.json", "{}\n"},
      {"auth/index.mdx", Page("Authentication", "Sign in.\n")},
      {"auth/tokens.mdx", Page("Tokens", "Tokens.\n")},
  });
  // The group's label is what the sidebar shows for its root page: a title the
  // turn makes differ from it is worth a note.
  ASSERT_TRUE(work.Write("auth/index.mdx",
                         Page("Overview",
                              "Sign in.\n\nSee [the users API](/reference/api/users/get-users) "
                              "and [nothing](/reference/users).\n"))
                  .ok());
  CheckReport report = CheckChanges(work);
  EXPECT_EQ(Rows(report),
            (std::vector<std::string>{
                "auth/index.mdx:7: link /reference/users does not resolve to a page or file",
            }))
      << "pages generated from the OpenAPI spec are trusted, others are not";
  EXPECT_EQ(Rows(report.notes),
            (std::vector<std::string>{"auth/index.mdx:0: the page's title \"Overview\" differs "
                                      "from its navigation label \"Authentication\""}));
}

// --- Hostile input ----------------------------------------------------------------

TEST_F(DocsEngineTest, PagesThatWereQuadraticAreReadInLinearTime) {
  // Each of these took minutes to hours and gigabytes before (the first in the
  // hand-written link scanner, the second in cmark-gfm 0.29's bracket matching);
  // ctest's timeout is what would catch a regression.
  git::Workspace& work = Open({{"index.md", "# Home\n"}});
  std::string brackets, images;
  while (brackets.size() < 900000) brackets += "](";
  while (images.size() < 900000) images += "![[]()";
  // cmark-gfm's other quadratic inputs: brackets hidden from a naive count by
  // code spans, and raw HTML openers without an end.
  std::string hidden, processing, cdata;
  while (hidden.size() < 300000) hidden += "![x`]`";
  while (hidden.size() < 600000) hidden += "[]()";
  while (processing.size() < 900000) processing += "a<?";
  while (cdata.size() < 900000) cdata += "a<![CDATA[";
  for (const std::string& page : {brackets, images, hidden, processing, cdata}) {
    ASSERT_TRUE(work.Write("page.md", page + "\n\n[after](missing.md)\n").ok());
    CheckReport report = CheckChanges(work);
    EXPECT_TRUE(AnyContains(report.problems, "link missing.md does not resolve"))
        << "the page is read to its end: " << ::testing::PrintToString(Rows(report.notes));
  }
}

TEST_F(DocsEngineTest, AYamlAliasBombIsWalkedWithinBounds) {
  git::Workspace& work =
      Open({{"mkdocs.yml", testing::MkDocsAliasBomb()}, {"docs/index.md", "# Home\n"}});
  SiteMap map = BuildSiteMap(work);
  EXPECT_GT(map.navigation.size(), 0u);
  EXPECT_LE(map.navigation.size(), 20000u);

  ASSERT_TRUE(work.Write("docs/index.md", "# Home\n\nMore.\n").ok());
  CheckReport report = CheckChanges(work);
  EXPECT_EQ(Rows(report), std::vector<std::string>{});
  EXPECT_TRUE(AnyContains(report.notes, "larger than the checks read"))
      << ::testing::PrintToString(Rows(report.notes));

  // The turn's cancel token stops the walk.
  CancelToken cancel;
  cancel.Cancel(CancelToken::Reason::kArchived);
  EXPECT_EQ(BuildSiteMap(work, {.cancel = &cancel}).navigation.size(), 0u);
  CheckReport cancelled = CheckChanges(work, {.cancel = &cancel});
  EXPECT_EQ(cancelled.problems.size(), 0u);
}

TEST_F(DocsEngineTest, ABudgetSpentIsSaidInANote) {
  git::Workspace& work = Open(HalfTranslatedMintlify());
  ASSERT_TRUE(work.Write("en/guides/one.mdx", Page("One", "[x](/nowhere)\n")).ok());
  CheckReport report = CheckChanges(work, {.max_steps = 20});
  EXPECT_TRUE(AnyContains(report.notes, "the checks stopped early"))
      << ::testing::PrintToString(Rows(report.notes));
}

}  // namespace
}  // namespace docwright::docs
