// MkDocs as published sites configure it: YAML 1.1 booleans, nav links, INHERIT
// for per-language sites, mkdocs-static-i18n translations (suffix and folder
// structures), mkdocs-monorepo-plugin's !include, awesome-pages `.pages` files.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "docs/docs.h"
#include "support/docs_site.h"

namespace docwright::docs {
namespace {

using testing::Files;
using testing::Rows;
using DocsMkDocsTest = testing::DocsSiteTest;

bool AnyContains(const std::vector<Problem>& list, const std::string& text) {
  return std::any_of(list.begin(), list.end(),
                     [&](const Problem& p) { return p.message.find(text) != std::string::npos; });
}

TEST_F(DocsMkDocsTest, UseDirectoryUrlsReadsPyYamlBooleans) {
  // "False" is false to PyYAML: pages are files, so "extra/" is relative to the
  // page's folder, not to the page.
  git::Workspace& work = Open({
      {"mkdocs.yml", "site_name: X\nuse_directory_urls: False\n"},
      {"docs/guide/setup.md", "# Setup\n"},
      {"docs/guide/setup/extra/index.md", "# Extra\n"},
  });
  ASSERT_TRUE(work.Write("docs/guide/setup.md", "# Setup\n\nSee [extra](extra/).\n").ok());
  EXPECT_EQ(Rows(CheckChanges(work)),
            (std::vector<std::string>{
                "docs/guide/setup.md:3: link extra/ does not resolve to a page or file"}));
}

// docs_dir is relative to the configuration's folder and may leave it, as
// website/mkdocs.yml's "../docs" does.
TEST_F(DocsMkDocsTest, DocsDirMayLeaveTheConfigurationsFolder) {
  git::Workspace& work = Open({
      {"website/mkdocs.yml", "site_name: X\ndocs_dir: ../docs\nnav:\n  - Home: index.md\n"},
      {"docs/index.md", "# Home\n"},
      {"docs/setup.md", "# Setup\n"},
  });
  Limits limits;
  limits.site_root = "website";
  SiteMap map = BuildSiteMap(work, limits);
  EXPECT_EQ(map.content_root, "docs");
  EXPECT_EQ(map.pages, (std::vector<std::string>{"docs/index.md", "docs/setup.md"}));
  std::string config = work.Read("website/mkdocs.yml")->text;
  ASSERT_TRUE(work.Write("website/mkdocs.yml", config + "  - Setup: setup.md\n").ok());
  EXPECT_EQ(Rows(CheckChanges(work, limits)), std::vector<std::string>{});
}

TEST_F(DocsMkDocsTest, NavLinksAreNotPages) {
  git::Workspace& work = Open({
      {"mkdocs.yml", R"yaml(site_name: X
nav:
  - Home: index.md
  - Blog: /blog/
  - Mirror: //mirror.example.com/docs/
  - Chat: irc://chat.example.com/acme
  - Mail: mailto:team@example.com
)yaml"},
      {"docs/index.md", "# Home\n"},
  });
  EXPECT_EQ(Rows(BuildSiteMap(work)),
            std::vector<std::string>{" | index.md | docs/index.md | Home"});
}

TEST_F(DocsMkDocsTest, PerLanguageSiteInheritsItsNavAndTheMissingPages) {
  git::Workspace& work = Open({
      {"docs/en/mkdocs.yml", R"yaml(site_name: Acme
use_directory_urls: false
nav:
  - Home: index.md
  - Guide: guide.md
  - Missing: never.md
)yaml"},
      {"docs/en/docs/index.md", "# Home\n"},
      {"docs/en/docs/guide.md", "# Guide\n"},
      {"docs/fr/mkdocs.yml", "INHERIT: ../en/mkdocs.yml\nsite_name: Acme FR\n"},
      {"docs/fr/docs/index.md", "# Accueil\n"},
  });
  Limits limits;
  limits.site_root = "docs/fr";  // found by detection at depth once sites are looked for there
  SiteMap map = BuildSiteMap(work, limits);
  EXPECT_EQ(map.config_path, "docs/fr/mkdocs.yml");
  EXPECT_EQ(map.content_root, "docs/fr/docs");
  EXPECT_EQ(Rows(map), (std::vector<std::string>{
                           " | index.md | docs/fr/docs/index.md | Accueil",
                           " | guide.md | docs/en/docs/guide.md | Guide",
                           " | never.md |  | ",
                       }));

  // The French site is built with the English guide: a link to it resolves.
  ASSERT_TRUE(
      work.Write("docs/fr/docs/index.md", "# Accueil\n\nVoir le [guide](guide.md).\n").ok());
  CheckReport report = CheckChanges(work, limits);
  EXPECT_EQ(Rows(report), std::vector<std::string>{});
  EXPECT_TRUE(AnyContains(report.notes,
                          "already before these changes: nav lists \"never.md\" but "
                          "docs/fr/docs/never.md does not exist"));
}

const char kI18nSuffix[] = R"yaml(site_name: X
plugins:
  - search
  - i18n:
      docs_structure: suffix
      languages:
        - locale: en
          default: true
          name: English
        - locale: fr
          name: Français
        - locale: de
          name: Deutsch
          build: false
nav:
  - Home: index.md
  - Setup: setup.md
)yaml";

TEST_F(DocsMkDocsTest, I18nSuffixTranslationsAreNotPagesOfNavigation) {
  git::Workspace& work = Open({
      {"mkdocs.yml", kI18nSuffix},
      {"docs/index.md", "# Home\n"},
      {"docs/setup.en.md", "# Setup\n"},
      {"docs/index.fr.md", "# Accueil\n"},
      {"docs/setup.de.md", "# Einrichtung\n"},
  });
  SiteMap map = BuildSiteMap(work);
  EXPECT_EQ(Rows(map), (std::vector<std::string>{" | index.md | docs/index.md | Home",
                                                 " | setup.md | docs/setup.en.md | Setup"}));
  EXPECT_EQ(map.pages, (std::vector<std::string>{"docs/index.md", "docs/setup.en.md"}));

  // A new translation needs no nav entry; a link names a page without its
  // language; German is not built, so its files are not served.
  ASSERT_TRUE(
      work.Write("docs/setup.fr.md", "# Configuration\n\nVoir [l'accueil](index.md).\n").ok());
  ASSERT_TRUE(
      work.Write("docs/index.md",
                 "# Home\n\nRead the [setup](setup.md) and the [German setup](setup.de.md).\n")
          .ok());
  EXPECT_EQ(Rows(CheckChanges(work)),
            (std::vector<std::string>{
                "docs/index.md:3: link setup.de.md does not resolve to a page or file"}));
}

TEST_F(DocsMkDocsTest, I18nFolderTranslationsAreNotPagesOfNavigation) {
  git::Workspace& work = Open({
      {"mkdocs.yml", R"yaml(site_name: X
plugins:
  - i18n:
      docs_structure: folder
      languages:
        - locale: en
          default: true
        - locale: ja
nav:
  - Home: index.md
  - Guide: guide.md
)yaml"},
      {"docs/en/index.md", "# Home\n"},
      {"docs/en/guide.md", "# Guide\n"},
      {"docs/ja/index.md", "# Home JA\n"},
  });
  SiteMap map = BuildSiteMap(work);
  EXPECT_EQ(Rows(map), (std::vector<std::string>{" | index.md | docs/en/index.md | Home",
                                                 " | guide.md | docs/en/guide.md | Guide"}));
  ASSERT_TRUE(work.Write("docs/ja/guide.md", "# Guide JA\n\nSee [home](index.md).\n").ok());
  EXPECT_EQ(Rows(CheckChanges(work)), std::vector<std::string>{});
}

TEST_F(DocsMkDocsTest, MonorepoIncludesAreReadWithTheirOwnDocsFolders) {
  git::Workspace& work = Open({
      {"mkdocs.yml", R"yaml(site_name: Platform
plugins:
  - monorepo
nav:
  - Home: index.md
  - Billing: '!include ./services/billing/mkdocs.yml'
  - Search: !include ./services/search/mkdocs.yml
  - Gone: '!include ./services/gone/mkdocs.yml'
)yaml"},
      {"docs/index.md", "# Home\n"},
      {"services/billing/mkdocs.yml",
       "site_name: billing\nnav:\n  - Overview: index.md\n  - Invoices: invoices.md\n"},
      {"services/billing/docs/index.md", "# Billing\n"},
      {"services/billing/docs/invoices.md", "# Invoices\n"},
      {"services/search/mkdocs.yml", "site_name: search\ndocs_dir: pages\n"},
      {"services/search/pages/index.md", "# Search\n"},
      {"services/search/pages/query/syntax.md", "# Syntax\n"},
  });
  EXPECT_EQ(Rows(BuildSiteMap(work)),
            (std::vector<std::string>{
                " | index.md | docs/index.md | Home",
                "Billing | index.md | services/billing/docs/index.md | Billing",
                "Billing | invoices.md | services/billing/docs/invoices.md | Invoices",
                "Search | services/search/pages/index.md | services/search/pages/index.md | Search",
                "Search > query | services/search/pages/query/syntax.md | "
                "services/search/pages/query/syntax.md | Syntax",
                " | !include ./services/gone/mkdocs.yml |  | ",
            }));

  // An included site is served under its site_name.
  ASSERT_TRUE(work.Write("services/billing/docs/invoices.md",
                         "# Invoices\n\nSee [search syntax](/search/query/syntax/) and "
                         "[overview](index.md).\n")
                  .ok());
  CheckReport report = CheckChanges(work);
  EXPECT_EQ(Rows(report), std::vector<std::string>{});
  EXPECT_TRUE(AnyContains(
      report.notes, "nav includes \"./services/gone/mkdocs.yml\" but no MkDocs configuration"));
}

TEST_F(DocsMkDocsTest, AwesomePagesFilesHideFoldersAndListPages) {
  git::Workspace& work = Open({
      {"mkdocs.yml", "site_name: X\nplugins:\n  - search\n  - awesome-pages\n"},
      {"docs/index.md", "# Home\n"},
      {"docs/guide/.pages", "title: Guide\nnav:\n  - install.md\n  - Usage: usage.md\n"},
      {"docs/guide/install.md", "# Install\n"},
      {"docs/guide/usage.md", "# Usage\n"},
      {"docs/guide/old.md", "# Old\n"},
      {"docs/blog/.pages", "nav:\n  - first.md\n  - ...\n"},
      {"docs/blog/first.md", "# First\n"},
      {"docs/blog/second.md", "# Second\n"},
      {"docs/drafts/.pages", "hide: true\n"},
      {"docs/drafts/wip.md", "# WIP\n"},
  });
  EXPECT_EQ(Rows(BuildSiteMap(work)),
            (std::vector<std::string>{
                " | index.md | docs/index.md | Home",
                "blog | blog/first.md | docs/blog/first.md | First",
                "blog | blog/second.md | docs/blog/second.md | Second",
                "guide | guide/install.md | docs/guide/install.md | Install",
                "guide | guide/usage.md | docs/guide/usage.md | Usage",
            }));
  // A page of a folder whose .pages lists its pages must be listed there; one
  // of a folder with "..." is in navigation already.
  ASSERT_TRUE(work.Write("docs/guide/new.md", "# New\n").ok());
  ASSERT_TRUE(work.Write("docs/blog/third.md", "# Third\n").ok());
  EXPECT_EQ(Rows(CheckChanges(work)),
            (std::vector<std::string>{"docs/guide/new.md:0: new page is not in navigation: add "
                                      "\"new.md\" to nav: in docs/guide/.pages"}));
}

}  // namespace
}  // namespace docwright::docs
