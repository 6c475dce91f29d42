// GitBook and mdBook sites: SUMMARY.md as their navigation, .gitbook.yaml's
// root, summary and redirects, book.toml's src, and the SUMMARY.md reader on
// hostile input.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "docs/docs.h"
#include "docs/internal.h"
#include "support/docs_site.h"

namespace docwright::docs {
namespace {

using testing::Files;
using testing::Rows;
using DocsGitBookTest = testing::DocsSiteTest;

// A GitBook site synced from docs/: groups, nested pages, a link title, a
// draft, an external entry, a commented-out entry, redirects (one to no page),
// an image in GitBook's assets folder, a page the summary leaves out.
Files GitBookSite() {
  return {
      {".gitbook.yaml",
       "root: ./docs/\n"
       "structure:\n"
       "  readme: README.md\n"
       "  summary: SUMMARY.md\n"
       "redirects:\n"
       "  old/setup: guides/install.md\n"
       "  help: support.md\n"},
      {"docs/SUMMARY.md",
       "# Table of contents\n"
       "\n"
       "* [Introduction](README.md)\n"
       "\n"
       "## Guides\n"
       "\n"
       "* [Guides](guides/README.md)\n"
       "  * [Install](guides/install.md)\n"
       "  * [Configure](guides/configure.md \"Configuring\")\n"
       "    * [Advanced](guides/advanced.md)\n"
       "* [Draft]()\n"
       "\n"
       "## Reference\n"
       "\n"
       "* [API](reference/api.md)\n"
       "* [Website](https://example.com)\n"
       "<!-- * [Hidden](hidden.md) -->\n"},
      {"docs/README.md", "# Acme\n\nStart with [installing](guides/install.md).\n"},
      {"docs/guides/README.md", "# Guides\n\nThe [install guide](install.md).\n"},
      {"docs/guides/install.md", "# Install\n\nThen [configure](configure.md).\n"},
      {"docs/guides/configure.md", "# Configure\n\nSee [advanced](advanced.md).\n"},
      {"docs/guides/advanced.md", "# Advanced\n\nBack to [the guides](./).\n"},
      {"docs/reference/api.md", "# API\n\nSee [install](../guides/install.md).\n"},
      {"docs/orphan.md", "# Orphan\n\nNever listed.\n"},
      {"docs/.gitbook/assets/shot.png", "png\n"},
      {"README.md", "# Acme repository\n"},
      {"src/main.c", "int main(void) { return 0; }\n"},
  };
}

// An mdBook book in book/: a prefix chapter, separators, parts, numbered
// chapters nested, a draft chapter with a child, a suffix chapter.
Files MdBookSite() {
  return {
      {"book.toml",
       "[book]\n"
       "title = \"Acme\"\n"
       "src = \"book\"\n"
       "\n"
       "[output.html]\n"
       "src = \"not-this\"\n"},
      {"book/SUMMARY.md",
       "# Summary\n"
       "\n"
       "[Introduction](README.md)\n"
       "\n"
       "---\n"
       "\n"
       "# User guide\n"
       "\n"
       "- [Install](guide/install.md)\n"
       "  - [On Linux](guide/linux.md)\n"
       "- [Future]()\n"
       "  - [Nested under a draft](guide/nested.md)\n"
       "\n"
       "# Reference\n"
       "\n"
       "1. [CLI](reference/cli.md)\n"
       "   1. [Flags](reference/flags.md)\n"
       "\n"
       "---\n"
       "\n"
       "[Contributors](contributors.md)\n"},
      {"book/README.md", "# Introduction\n"},
      {"book/guide/install.md", "# Install\n"},
      {"book/guide/linux.md", "# Linux\n"},
      {"book/guide/nested.md", "# Nested\n"},
      {"book/reference/cli.md", "# CLI\n"},
      {"book/reference/flags.md", "# Flags\n"},
      {"book/contributors.md", "# Contributors\n"},
  };
}

TEST_F(DocsGitBookTest, GitBookIsFoundByItsConfigurationAndReadFromItsRoot) {
  SiteMap map = BuildSiteMap(Open(GitBookSite()));
  EXPECT_EQ(map.framework, Framework::kGitBook);
  EXPECT_EQ(ToString(map.framework), "GitBook");
  EXPECT_EQ(map.config_path, ".gitbook.yaml");
  EXPECT_EQ(map.content_root, "docs");
  EXPECT_FALSE(map.navigation_generated);
  // SUMMARY.md is the navigation, not a page; pages outside the root are not
  // the site's.
  EXPECT_EQ(map.pages, (std::vector<std::string>{
                           "docs/README.md", "docs/guides/README.md", "docs/guides/advanced.md",
                           "docs/guides/configure.md", "docs/guides/install.md", "docs/orphan.md",
                           "docs/reference/api.md"}));
}

TEST_F(DocsGitBookTest, GitBookSummaryGroupsNestingAndDrafts) {
  SiteMap map = BuildSiteMap(Open(GitBookSite()));
  EXPECT_EQ(Rows(map),
            (std::vector<std::string>{
                " | README.md | docs/README.md | Acme",
                "Guides | guides/README.md | docs/guides/README.md | Guides",
                "Guides > Guides | guides/install.md | docs/guides/install.md | Install",
                "Guides > Guides | guides/configure.md | docs/guides/configure.md | Configure",
                "Guides > Guides > Configure | guides/advanced.md | docs/guides/advanced.md | "
                "Advanced",
                "Reference | reference/api.md | docs/reference/api.md | API",
            }));
  std::string text = map.Render(4096);
  EXPECT_NE(text.find("Framework: GitBook (.gitbook.yaml)"), std::string::npos) << text;
  EXPECT_NE(text.find("a line `* [Title](path.md)` for it in docs/SUMMARY.md"), std::string::npos)
      << text;
  EXPECT_NE(text.find("Pages not in navigation: docs/orphan.md"), std::string::npos) << text;
}

TEST_F(DocsGitBookTest, MdBookIsFoundByBookTomlAndReadsItsSrc) {
  SiteMap map = BuildSiteMap(Open(MdBookSite()));
  EXPECT_EQ(map.framework, Framework::kGitBook);
  EXPECT_EQ(map.config_path, "book.toml");
  EXPECT_EQ(map.content_root, "book");
  EXPECT_EQ(Rows(map), (std::vector<std::string>{
                           " | README.md | book/README.md | Introduction",
                           "User guide | guide/install.md | book/guide/install.md | Install",
                           "User guide > Install | guide/linux.md | book/guide/linux.md | Linux",
                           "User guide > Future | guide/nested.md | book/guide/nested.md | Nested",
                           "Reference | reference/cli.md | book/reference/cli.md | CLI",
                           "Reference > CLI | reference/flags.md | book/reference/flags.md | Flags",
                           " | contributors.md | book/contributors.md | Contributors",
                       }));
}

TEST_F(DocsGitBookTest, ABareSummaryMarksASiteAndOtherConfigurationsComeFirst) {
  SiteMap bare = BuildSiteMap(Open(
      {{"docs/SUMMARY.md", "* [A](a.md)\n"}, {"docs/a.md", "# A\n"}, {"src/main.c", "int x;\n"}}));
  EXPECT_EQ(bare.framework, Framework::kGitBook);
  EXPECT_EQ(bare.config_path, "docs/SUMMARY.md");
  EXPECT_EQ(bare.content_root, "docs");
  EXPECT_EQ(Rows(bare), (std::vector<std::string>{" | a.md | docs/a.md | A"}));
}

TEST_F(DocsGitBookTest, MkDocsWinsOverASummaryInTheSameFolder) {
  SiteMap map = BuildSiteMap(Open({{"mkdocs.yml", "site_name: Acme\n"},
                                   {"SUMMARY.md", "* [A](docs/index.md)\n"},
                                   {"docs/index.md", "# Home\n"}}));
  EXPECT_EQ(map.framework, Framework::kMkDocs);
}

TEST_F(DocsGitBookTest, ANewPageLeftOutOfTheSummaryIsReportedWithItsLine) {
  Open(GitBookSite());
  Write("docs/guides/upgrade-notes.md", "# Upgrade notes\n\nSee [install](install.md).\n");
  EXPECT_EQ(Rows(CheckChanges(*work_)),
            (std::vector<std::string>{
                "docs/guides/upgrade-notes.md:0: new page is not in SUMMARY.md, so it is not "
                "published: add the line \"* [Upgrade notes](guides/upgrade-notes.md)\" to "
                "docs/SUMMARY.md (indented under its parent page to nest it)"}));
}

TEST_F(DocsGitBookTest, ANewPageListedInTheSummaryReportsNothing) {
  Open(GitBookSite());
  Write("docs/guides/upgrade-notes.md", "# Upgrade notes\n\nSee [install](install.md).\n");
  std::string summary = work_->Read("docs/SUMMARY.md")->text;
  std::string after = "    * [Advanced](guides/advanced.md)\n";
  summary.insert(summary.find(after) + after.size(),
                 "    * [Upgrade notes](guides/upgrade-notes.md)\n");
  Write("docs/SUMMARY.md", summary);
  EXPECT_EQ(Rows(CheckChanges(*work_)), std::vector<std::string>{});
}

TEST_F(DocsGitBookTest, AnEntryForNoPageIsReportedOnItsLine) {
  Open(GitBookSite());
  std::string summary = work_->Read("docs/SUMMARY.md")->text;
  summary.replace(summary.find("(guides/install.md)"), 19, "(guides/instal.md)");
  Write("docs/SUMMARY.md", summary);
  EXPECT_EQ(Rows(CheckChanges(*work_)),
            (std::vector<std::string>{"docs/SUMMARY.md:8: SUMMARY.md lists \"guides/instal.md\" "
                                      "but docs/guides/instal.md does not exist"}));
}

TEST_F(DocsGitBookTest, DeletingAListedPageReportsItsEntryAndTheLinksToIt) {
  Open(GitBookSite());
  ASSERT_TRUE(work_->Delete("docs/guides/configure.md").ok());
  EXPECT_EQ(Rows(CheckChanges(*work_)),
            (std::vector<std::string>{
                "docs/SUMMARY.md:9: SUMMARY.md lists \"guides/configure.md\" but "
                "docs/guides/configure.md does not exist",
                "docs/guides/install.md:3: link configure.md no longer resolves: these changes "
                "delete or move what it pointed at; update the link or remove it"}));
}

TEST_F(DocsGitBookTest, LinksResolveRelativeToThePageWithReadmesAndRedirects) {
  Open(GitBookSite());
  Write("docs/guides/links.md",
        "# Links\n"
        "\n"
        "[home](../README.md), [the guides](./), [guides again](../guides),\n"
        "[install](install.md), [configure](/guides/configure), [old setup](/old/setup),\n"
        "![shot](../.gitbook/assets/shot.png), [api](../reference/api.md).\n"
        "\n"
        "[typo](instal.md)\n"
        "\n"
        "[help](/help)\n");
  std::string summary = work_->Read("docs/SUMMARY.md")->text;
  summary += "* [Links](guides/links.md)\n";
  Write("docs/SUMMARY.md", summary);
  // /help redirects to support.md, which does not exist: broken on the site.
  EXPECT_EQ(Rows(CheckChanges(*work_)),
            (std::vector<std::string>{
                "docs/guides/links.md:7: link instal.md does not resolve to a page or file",
                "docs/guides/links.md:9: link /help does not resolve to a page or file"}));
}

TEST_F(DocsGitBookTest, MdBookLinksMayNameTheHtmlPage) {
  Open(MdBookSite());
  Write("book/guide/install.md",
        "# Install\n\n[CLI](../reference/cli.html), [home](../index.html), "
        "[linux](linux.md).\n\n[gone](../reference/nope.html)\n");
  EXPECT_EQ(Rows(CheckChanges(*work_)),
            (std::vector<std::string>{"book/guide/install.md:5: link ../reference/nope.html does "
                                      "not resolve to a page or file"}));
}

// --- Hostile input ----------------------------------------------------------------

TEST(GitBookSummaryTest, NestingEntriesAndLinesAreBounded) {
  std::string text;
  for (int i = 0; i < 30000; ++i) {
    text += std::string(i % 300, ' ') + "- [" + std::string(300, 'x') + "](p.md)\n";
  }
  Limits limits;
  Budget budget(limits);
  bool complete = true;
  std::vector<SummaryItem> items = ReadSummary(text, budget, &complete);
  EXPECT_FALSE(complete);
  EXPECT_EQ(items.size(), kMaxNavEntries);
  for (const SummaryItem& item : items) {
    ASSERT_LE(item.group.size(), 5 * kMaxNameBytes);
    ASSERT_LE(item.label.size(), kMaxNameBytes);
  }
}

TEST(GitBookSummaryTest, BracketsParenthesesAndCommentsStayLinear) {
  std::string text = "- " + std::string(1 << 20, '[') + "](" + std::string(1 << 20, '(') + "\n" +
                     "<!-- never closed\n" + std::string(1 << 20, '-') + "\n* [Hidden](x.md)\n";
  Limits limits;
  Budget budget(limits);
  bool complete = true;
  std::vector<SummaryItem> items = ReadSummary(text, budget, &complete);
  EXPECT_TRUE(complete);
  ASSERT_EQ(items.size(), 1u);
  EXPECT_LE(items[0].label.size(), kMaxNameBytes);
  EXPECT_LE(items[0].destination.size(), kMaxNameBytes);
}

TEST(GitBookSummaryTest, TheBudgetStopsTheRead) {
  std::string text;
  for (int i = 0; i < 10000; ++i) text += "* [P](p" + std::to_string(i) + ".md)\n";
  Limits limits{.max_steps = 1000};
  Budget budget(limits);
  bool complete = true;
  std::vector<SummaryItem> items = ReadSummary(text, budget, &complete);
  EXPECT_FALSE(complete);
  EXPECT_LT(items.size(), 1000u);
}

TEST_F(DocsGitBookTest, AHugeSummaryIsReadWithinBounds) {
  std::string summary;
  for (int i = 0; i < 25000; ++i) summary += "* [P](p.md)\n";
  SiteMap map = BuildSiteMap(Open({{"SUMMARY.md", summary}, {"p.md", "# P\n"}}));
  EXPECT_EQ(map.framework, Framework::kGitBook);
  EXPECT_LE(map.navigation.size(), kMaxNavEntries);
}

}  // namespace
}  // namespace docwright::docs
