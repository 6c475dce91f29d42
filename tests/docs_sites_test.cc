// Where the sites of a repository are found (docs/internal.h FindSites, SiteOf,
// PreferredSite), on repositories laid out like real ones: per-language MkDocs
// configurations under docs/<language>/, a Docusaurus website/ and a blog next to
// it, the docs of a monorepo's packages, and a project's --site-root.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "docs/docs.h"
#include "docs/internal.h"
#include "support/docs_site.h"

namespace docwright::testing {
namespace {

using docs::SiteLocation;

class DocsSitesTest : public DocsSiteTest {
 protected:
  // The sites of the workspace as "config_path @ site_root", in FindSites' order.
  std::vector<std::string> Sites(const std::string& site_root = "", size_t max_files = 2000) {
    docs::Limits limits;
    docs::Budget budget(limits);
    docs::Changes changes = work_->Changes();
    std::vector<SiteLocation> found =
        docs::FindSites(docs::SiteLoad{*work_, changes, max_files, budget, site_root});
    return Names(found);
  }

  static std::vector<std::string> Names(const std::vector<SiteLocation>& sites) {
    std::vector<std::string> names;
    for (const SiteLocation& site : sites) names.push_back(Name(site));
    return names;
  }

  static std::string Name(const SiteLocation& site) {
    return site.config_path + " @ " + site.site_root;
  }
};

const std::string kMkDocsHome = "site_name: Docs\nnav:\n  - Home: index.md\n";

// A multilingual MkDocs site keeps one mkdocs.yml per language (FastAPI's
// layout): each is found two levels down, and read with its own docs_dir.
TEST_F(DocsSitesTest, AConfigurationTwoLevelsDownIsFoundAndRead) {
  Open({{"README.md", "# Project\n"},
        {"src/main.py", "print()\n"},
        {"docs/en/mkdocs.yml", kMkDocsHome},
        {"docs/en/docs/index.md", "# Home\n"}});
  EXPECT_EQ(Sites(), std::vector<std::string>{"docs/en/mkdocs.yml @ docs/en"});
  docs::SiteMap map = docs::BuildSiteMap(*work_);
  EXPECT_EQ(map.framework, docs::Framework::kMkDocs);
  EXPECT_EQ(map.config_path, "docs/en/mkdocs.yml");
  EXPECT_EQ(map.content_root, "docs/en/docs");
  EXPECT_EQ(map.pages, std::vector<std::string>{"docs/en/docs/index.md"});
  ASSERT_EQ(map.navigation.size(), 1u);
  EXPECT_EQ(map.navigation[0].path, "docs/en/docs/index.md");
}

// Every site is found: shallowest first; at one depth the usual folders first,
// then English (the source language), then by path. A folder with two
// configurations is one site, of the preferred module.
TEST_F(DocsSitesTest, SeveralSitesAreFoundShallowestFirst) {
  Open({{"README.md", "# Project\n"},
        {"blog/mkdocs.yml", "site_name: Blog\n"},
        {"website/docusaurus.config.js", "module.exports = {title: 'Site'};\n"},
        {"website/mkdocs.yml", "site_name: Old\n"},
        {"docs/de/mkdocs.yml", kMkDocsHome},
        {"docs/en/mkdocs.yml", kMkDocsHome},
        {"docs/fr/mkdocs.yml", kMkDocsHome},
        {"docs/en/docs/index.md", "# Home\n"},
        {"docs/en/v2/mkdocs.yml", kMkDocsHome},
        {"packages/api/docs.json", "{\"navigation\": []}\n"},
        {"packages/api/index.mdx", "# API\n"}});
  EXPECT_EQ(Sites(), (std::vector<std::string>{
                         "website/docusaurus.config.js @ website",
                         "blog/mkdocs.yml @ blog",
                         "docs/en/mkdocs.yml @ docs/en",
                         "docs/de/mkdocs.yml @ docs/de",
                         "docs/fr/mkdocs.yml @ docs/fr",
                         "packages/api/docs.json @ packages/api",
                         "docs/en/v2/mkdocs.yml @ docs/en/v2",
                     }));
}

// Installed packages, hidden folders, tests and examples hold no site of the
// repository's own, and the search goes two levels below the root (three below
// the usual folders) and no deeper: here the repository is plain Markdown.
TEST_F(DocsSitesTest, SitesAreNotLookedForInPackagesFixturesOrDeeper) {
  Open({{"README.md", "# Project\n"},
        {"node_modules/pkg/mkdocs.yml", kMkDocsHome},
        {".github/docs/mkdocs.yml", kMkDocsHome},
        {"examples/demo/docusaurus.config.js", "module.exports = {};\n"},
        {"tests/fixtures/docs.json", "{}\n"},
        {"vendor/lib/mkdocs.yml", kMkDocsHome},
        {"a/b/c/mkdocs.yml", kMkDocsHome},
        {"docs/a/b/c/mkdocs.yml", kMkDocsHome}});
  EXPECT_EQ(Sites(), std::vector<std::string>{" @ "});
  EXPECT_EQ(docs::BuildSiteMap(*work_).framework, docs::Framework::kMarkdown);
}

// mkdocs-monorepo-plugin: a configuration the root's `!include`s is part of the
// root's site; one nobody includes is a site of its own.
TEST_F(DocsSitesTest, AnIncludedMkDocsConfigurationIsPartOfTheSiteIncludingIt) {
  Open({{"mkdocs.yml",
         "site_name: All\nnav:\n  - Home: index.md\n  - API: '!include ./api/mkdocs.yml'\n"},
        {"docs/index.md", "# Home\n"},
        {"api/mkdocs.yml", "site_name: API\n"},
        {"tools/mkdocs.yml", "site_name: Tools\n"}});
  EXPECT_EQ(Sites(), (std::vector<std::string>{"mkdocs.yml @ ", "tools/mkdocs.yml @ tools"}));
}

// An include is matched by its whole path: "./legacy-api/mkdocs.yml" does not
// take in the site of api/.
TEST_F(DocsSitesTest, AnIncludeNamesOneConfigurationByItsWholePath) {
  Open({{"mkdocs.yml",
         "site_name: All\nnav:\n  - Home: index.md\n  - Old API: !include "
         "./legacy-api/mkdocs.yml\n"},
        {"docs/index.md", "# Home\n"},
        {"legacy-api/mkdocs.yml", "site_name: Legacy\n"},
        {"api/mkdocs.yml", "site_name: API\n"}});
  EXPECT_EQ(Sites(), (std::vector<std::string>{"mkdocs.yml @ ", "api/mkdocs.yml @ api"}));
}

// A file belongs to the deepest site whose folder holds it; the changes are
// about the site holding most of the changed pages, else most of the changed
// files, else the first site.
TEST_F(DocsSitesTest, TheSiteOfTheChangedPagesIsPreferred) {
  const docs::FrameworkModule* mkdocs = &docs::MkDocsModule();
  std::vector<SiteLocation> sites = {{mkdocs, "mkdocs.yml", ""},
                                     {mkdocs, "docs/en/mkdocs.yml", "docs/en"},
                                     {mkdocs, "docs/fr/mkdocs.yml", "docs/fr"}};
  EXPECT_EQ(Name(docs::SiteOf(sites, "docs/fr/docs/a.md")), "docs/fr/mkdocs.yml @ docs/fr");
  EXPECT_EQ(Name(docs::SiteOf(sites, "docs/english/a.md")), "mkdocs.yml @ ");
  EXPECT_EQ(Name(docs::SiteOf(sites, "docs/en/mkdocs.yml")), "docs/en/mkdocs.yml @ docs/en");
  std::vector<SiteLocation> nested = {sites[1], sites[2]};
  EXPECT_EQ(Name(docs::SiteOf(nested, "README.md")), "docs/en/mkdocs.yml @ docs/en")
      << "in no site: the first";

  auto preferred = [&](const std::vector<std::string>& paths) {
    docs::Changes changes;
    for (const std::string& path : paths) changes[path] = git::Change{};
    return Name(docs::PreferredSite(nested, changes));
  };
  EXPECT_EQ(preferred({}), "docs/en/mkdocs.yml @ docs/en");
  EXPECT_EQ(preferred({"docs/en/docs/a.md", "docs/fr/docs/a.md", "docs/fr/docs/b.md"}),
            "docs/fr/mkdocs.yml @ docs/fr");
  EXPECT_EQ(preferred({"docs/en/docs/a.md", "docs/fr/docs/a.md"}), "docs/en/mkdocs.yml @ docs/en")
      << "a tie goes to the first site";
  EXPECT_EQ(preferred({"docs/en/img/a.png", "docs/en/img/b.png", "docs/fr/docs/a.md"}),
            "docs/fr/mkdocs.yml @ docs/fr")
      << "pages count before other files";
  EXPECT_EQ(preferred({"docs/fr/mkdocs.yml", "README.md", "CHANGELOG.md"}),
            "docs/fr/mkdocs.yml @ docs/fr")
      << "pages in no site do not count; the configuration's site is preferred";
}

// In a multilingual repository the map shows the English site until a turn
// changes another language's pages; then it is that site's, with its own pages
// only.
TEST_F(DocsSitesTest, TheMapOfAMultiSiteRepositoryIsTheChangedSitesOwn) {
  Open({{"docs/en/mkdocs.yml", kMkDocsHome},
        {"docs/en/docs/index.md", "# Home\n"},
        {"docs/en/docs/setup.md", "# Setup\n"},
        {"docs/fr/mkdocs.yml", "site_name: Docs\nnav:\n  - Accueil: index.md\n"},
        {"docs/fr/docs/index.md", "# Accueil\n"}});
  docs::SiteMap before = docs::BuildSiteMap(*work_);
  EXPECT_EQ(before.config_path, "docs/en/mkdocs.yml");
  EXPECT_EQ(before.other_sites, std::vector<std::string>{"docs/fr/mkdocs.yml"});
  EXPECT_EQ(before.pages,
            (std::vector<std::string>{"docs/en/docs/index.md", "docs/en/docs/setup.md"}));

  Write("docs/fr/docs/guide.md", "# Guide\n");
  docs::SiteMap after = docs::BuildSiteMap(*work_);
  EXPECT_EQ(after.config_path, "docs/fr/mkdocs.yml");
  EXPECT_EQ(after.other_sites, std::vector<std::string>{"docs/en/mkdocs.yml"});
  EXPECT_EQ(after.content_root, "docs/fr/docs");
  EXPECT_EQ(after.pages,
            (std::vector<std::string>{"docs/fr/docs/guide.md", "docs/fr/docs/index.md"}));
  ASSERT_EQ(after.navigation.size(), 1u);
  EXPECT_EQ(after.navigation[0].path, "docs/fr/docs/index.md");
  EXPECT_EQ(after.navigation[0].title, "Accueil");
}

// A project's --site-root overrides the search: the configuration there, or the
// pages there as plain Markdown when it has none.
TEST_F(DocsSitesTest, TheProjectsSiteRootOverridesDetection) {
  Open({{"docs.json", "{\"navigation\": {\"pages\": [\"index\"]}}\n"},
        {"index.mdx", "# Home\n"},
        {"README.md", "# Project\n"},
        {"handbook/guide.md", "# Guide\n"},
        {"handbook/teams/support.md", "# Support\n"},
        {"docs/en/mkdocs.yml", kMkDocsHome},
        {"docs/en/docs/index.md", "# Home\n"}});
  EXPECT_EQ(docs::BuildSiteMap(*work_).config_path, "docs.json");

  EXPECT_EQ(Sites("handbook"), std::vector<std::string>{" @ handbook"});
  docs::SiteMap handbook = docs::BuildSiteMap(*work_, {.site_root = "handbook"});
  EXPECT_EQ(handbook.framework, docs::Framework::kMarkdown);
  EXPECT_EQ(handbook.config_path, "");
  EXPECT_EQ(handbook.content_root, "handbook");
  EXPECT_TRUE(handbook.other_sites.empty()) << "the project's site alone";
  EXPECT_EQ(handbook.pages,
            (std::vector<std::string>{"handbook/guide.md", "handbook/teams/support.md"}));
  EXPECT_EQ(Rows(handbook),
            (std::vector<std::string>{" | handbook/guide.md | handbook/guide.md | Guide",
                                      "teams | handbook/teams/support.md | "
                                      "handbook/teams/support.md | Support"}));

  EXPECT_EQ(Sites("docs/en"), std::vector<std::string>{"docs/en/mkdocs.yml @ docs/en"});
  docs::SiteMap english = docs::BuildSiteMap(*work_, {.site_root = "docs/en"});
  EXPECT_EQ(english.framework, docs::Framework::kMkDocs);
  EXPECT_EQ(english.pages, std::vector<std::string>{"docs/en/docs/index.md"});
}

// The search lists a bounded number of folders and of paths: a root with
// hundreds of folders is not listed to the end. The usual folders come first.
TEST_F(DocsSitesTest, TheSearchStopsAtItsBounds) {
  Files files{{"docs/mkdocs.yml", kMkDocsHome}};
  for (int i = 0; i < 500; ++i) {
    char name[8];
    std::snprintf(name, sizeof name, "f%03d", i);
    files[std::string(name) + "/mkdocs.yml"] = kMkDocsHome;
  }
  Open(files);
  // 400 folders: the root, docs/, f000/ to f397/.
  std::vector<std::string> sites = Sites();
  ASSERT_EQ(sites.size(), 399u);
  EXPECT_EQ(sites.front(), "docs/mkdocs.yml @ docs");
  EXPECT_EQ(sites.back(), "f397/mkdocs.yml @ f397");
  // 520 paths: the root's 501 entries, then one a folder up to f017/.
  sites = Sites("", 520);
  ASSERT_EQ(sites.size(), 19u);
  EXPECT_EQ(sites.front(), "docs/mkdocs.yml @ docs");
  EXPECT_EQ(sites.back(), "f017/mkdocs.yml @ f017");
}

}  // namespace
}  // namespace docwright::testing
