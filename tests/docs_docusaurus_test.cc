// The Docusaurus module on the URL options of its docs plugin: versions served
// where the plugin says (lastVersion, versions.<name>.path, onlyIncludeVersions),
// several plugin instances, translations under i18n/, slugs, category files and
// sidebar positions, and the id a new page is suggested under.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "docs/docs.h"
#include "support/docs_site.h"

namespace docwright::docs {
namespace {

using testing::Files;
using testing::Rows;

class DocusaurusTest : public testing::DocsSiteTest {};

TEST_F(DocusaurusTest, TheNewestReleaseIsServedAtTheBaseRoute) {
  git::Workspace& work = Open({
      {"docusaurus.config.js", "module.exports = {title: 'Acme'};\n"},
      {"versions.json", "[\"2.0\", \"1.0\"]\n"},
      {"docs/intro.md", "# Intro\n"},
      {"versioned_docs/version-2.0/legacy.md", "# Legacy\n"},
      {"versioned_docs/version-1.0/old.md", "# Old\n"},
  });
  Write("docs/new.md",
        "# New\n\n[legacy](/docs/legacy), [old](/docs/1.0/old), [next](/docs/next/intro), "
        "[intro](/docs/intro)\n[gone](/docs/2.0/legacy)\n");
  EXPECT_EQ(Rows(CheckChanges(work)),
            (std::vector<std::string>{
                "docs/new.md:4: link /docs/2.0/legacy does not resolve to a page or file"}));
}

TEST_F(DocusaurusTest, VersionPathsAndOnlyIncludedVersions) {
  git::Workspace& work = Open({
      {"docusaurus.config.js", R"js(module.exports = {
  presets: [['classic', {docs: {
    lastVersion: 'current',
    onlyIncludeVersions: ['current', '2.0'],
    versions: {'2.0': {label: '2.0 (stable)', path: 'stable'}},
  }}]],
};
)js"},
      {"versions.json", "[\"2.0\", \"1.0\"]\n"},
      {"docs/intro.md", "# Intro\n"},
      {"versioned_docs/version-2.0/legacy.md", "# Legacy\n"},
      {"versioned_docs/version-1.0/old.md", "# Old\n"},
  });
  Write("docs/new.md",
        "# New\n\n[a](/docs/intro) [b](/docs/stable/legacy)\n[c](/docs/2.0/legacy)\n"
        "[d](/docs/1.0/old)\n[e](/docs/next/intro)\n");
  EXPECT_EQ(Rows(CheckChanges(work)),
            (std::vector<std::string>{
                "docs/new.md:4: link /docs/2.0/legacy does not resolve to a page or file",
                "docs/new.md:5: link /docs/1.0/old does not resolve to a page or file",
                "docs/new.md:6: link /docs/next/intro does not resolve to a page or file",
            }));
}

TEST_F(DocusaurusTest, TheCurrentVersionAtAPathOfItsOwn) {
  git::Workspace& work = Open({
      {"docusaurus.config.js",
       "module.exports = {presets: [['classic', {docs: {versions: {current: {path: "
       "'dev'}}}}]]};\n"},
      {"versions.json", "[\"1.0\"]\n"},
      {"docs/intro.md", "# Intro\n"},
      {"versioned_docs/version-1.0/intro.md", "# Intro 1.0\n"},
  });
  Write("docs/new.md",
        "# New\n\n[dev](/docs/dev/intro) [last](/docs/intro)\n[next](/docs/next/intro)\n");
  EXPECT_EQ(Rows(CheckChanges(work)),
            (std::vector<std::string>{
                "docs/new.md:4: link /docs/next/intro does not resolve to a page or file"}));
}

Files Instances() {
  return {
      {"docusaurus.config.js", R"js(module.exports = {
  presets: [['classic', {docs: {routeBasePath: '/'}}]],
  plugins: [
    ['@docusaurus/plugin-content-docs', {
      id: 'community',
      path: 'community',
      routeBasePath: 'community',
      sidebarPath: './sidebarsCommunity.js',
    }],
  ],
};
)js"},
      {"sidebarsCommunity.js",
       "module.exports = {community: ['team', 'events/meetups', 'never-written']};\n"},
      {"community_versions.json", "[\"1.0\"]\n"},
      {"community_versioned_docs/version-1.0/team.md", "# Team 1.0\n"},
      {"docs/intro.md", "# Intro\n"},
      {"community/team.md", "# Team\n"},
      {"community/01-events/meetups.md", "# Meetups\n"},
  };
}

// Each instance has its folder, base route, sidebar and versions. An entry of
// another instance's sidebar that names no doc is left out: the checks report
// entries against the first instance's sidebar file only.
TEST_F(DocusaurusTest, SeveralDocsPluginInstances) {
  git::Workspace& work = Open(Instances());
  SiteMap map = BuildSiteMap(work);
  EXPECT_TRUE(map.navigation_generated);
  EXPECT_EQ(map.pages, (std::vector<std::string>{"community/01-events/meetups.md",
                                                 "community/team.md", "docs/intro.md"}));
  EXPECT_EQ(Rows(map), (std::vector<std::string>{
                           " | intro | docs/intro.md | Intro",
                           "community | team | community/team.md | Team",
                           "community | events/meetups | community/01-events/meetups.md | Meetups",
                       }));
  Write("docs/new.md",
        "# New\n\n[team](/community/team) [meet](/community/next/events/meetups) "
        "[intro](/intro)\n[nope](/community/nope)\n");
  EXPECT_EQ(Rows(CheckChanges(work)),
            (std::vector<std::string>{
                "docs/new.md:4: link /community/nope does not resolve to a page or file"}));
}

// A translation is served while its source doc exists; a doc not translated is
// served in the source's text, so links to it from a translation resolve; a
// link may carry the locale.
TEST_F(DocusaurusTest, TranslationsAreServedWhileTheirSourceExists) {
  git::Workspace& work = Open({
      {"docusaurus.config.js",
       "module.exports = {i18n: {defaultLocale: 'en', locales: ['en', 'fr']}};\n"},
      {"docs/intro.md", "# Intro\n"},
      {"docs/setup.md", "# Setup\n"},
      {"i18n/fr/docusaurus-plugin-content-docs/current/intro.md", "# Intro (fr)\n"},
      {"i18n/fr/docusaurus-plugin-content-docs/current/gone.md", "# Parti\n"},
  });
  Write("i18n/fr/docusaurus-plugin-content-docs/current/intro.md",
        "# Intro (fr)\n\n[setup](./setup.md) [route](/fr/docs/setup) [en](/docs/intro)\n"
        "[gone](./gone.md)\n");
  EXPECT_EQ(Rows(CheckChanges(work)),
            (std::vector<std::string>{"i18n/fr/docusaurus-plugin-content-docs/current/intro.md:4: "
                                      "link ./gone.md does not resolve to a page or file"}));
}

// Deleting a doc stops serving its translation: a French page's link to the
// translated ./setup.md resolved to it, and no longer does. The translation of
// the deleted doc still links to a served page, and reports nothing.
TEST_F(DocusaurusTest, DeletingADocBreaksLinksToItsTranslation) {
  git::Workspace& work = Open({
      {"docusaurus.config.js",
       "module.exports = {i18n: {defaultLocale: 'en', locales: ['en', 'fr']}};\n"},
      {"docs/intro.md", "# Intro\n"},
      {"docs/setup.md", "# Setup\n"},
      {"i18n/fr/docusaurus-plugin-content-docs/current/intro.md",
       "# Intro (fr)\n\nLisez [l'installation](./setup.md).\n"},
      {"i18n/fr/docusaurus-plugin-content-docs/current/setup.md",
       "# Installation\n\nRetour à [l'intro](./intro.md).\n"},
  });
  ASSERT_TRUE(work.Delete("docs/setup.md").ok());
  EXPECT_EQ(Rows(CheckChanges(work)),
            (std::vector<std::string>{
                "i18n/fr/docusaurus-plugin-content-docs/current/intro.md:3: link ./setup.md no "
                "longer resolves: these changes delete or move what it pointed at; update the "
                "link or remove it"}));
}

TEST_F(DocusaurusTest, ANewPageIsSuggestedUnderItsDocId) {
  git::Workspace& work = Open({
      {"docusaurus.config.js", "module.exports = {};\n"},
      {"sidebars.js", "module.exports = {docs: ['guides/install']};\n"},
      {"docs/02-guides/01-install.md", "# Install\n"},
  });
  Write("docs/02-guides/03-upgrade-notes.md", "---\nid: upgrading\n---\n# Upgrading\n");
  Write("docs/02-guides/04-rollback.md", "# Roll back\n");
  EXPECT_EQ(Rows(CheckChanges(work)),
            (std::vector<std::string>{
                "docs/02-guides/03-upgrade-notes.md:0: new page is not in the sidebar: add "
                "\"guides/upgrading\" to sidebars.js",
                "docs/02-guides/04-rollback.md:0: new page is not in the sidebar: add "
                "\"guides/rollback\" to sidebars.js",
            }));
}

// A relative slug is under the doc's folder without its ordering prefix; a
// category's generated index is served at its slug; autogenerated parts follow
// sidebar_position and the category's label.
TEST_F(DocusaurusTest, SlugsCategoriesAndPositions) {
  git::Workspace& work = Open({
      {"docusaurus.config.js", "module.exports = {};\n"},
      {"sidebars.js", "module.exports = {docs: [{type: 'autogenerated', dirName: '.'}]};\n"},
      {"docs/intro.md", "---\nslug: /\n---\n# Intro\n"},
      {"docs/02-guides/_category_.json",
       R"({"label": "Guides", "position": 2, "link": {"type": "generated-index", "slug": "/guides-overview"}})"},
      {"docs/02-guides/a.md", "---\nslug: custom-a\nsidebar_position: 2\n---\n# A\n"},
      {"docs/02-guides/b.md", "---\nsidebar_position: 1\n---\n# B\n"},
      {"docs/02-guides/c.md", "# C\n"},
  });
  EXPECT_EQ(Rows(BuildSiteMap(work)), (std::vector<std::string>{
                                          " | intro | docs/intro.md | Intro",
                                          "Guides | 02-guides/b | docs/02-guides/b.md | B",
                                          "Guides | 02-guides/a | docs/02-guides/a.md | A",
                                          "Guides | 02-guides/c | docs/02-guides/c.md | C",
                                      }));
  Write("docs/new.md",
        "# New\n\n[a](/docs/guides/custom-a) [overview](/docs/guides-overview) [home](/docs)\n"
        "[old a](/docs/02-guides/custom-a)\n");
  EXPECT_EQ(
      Rows(CheckChanges(work)),
      (std::vector<std::string>{
          "docs/new.md:4: link /docs/02-guides/custom-a does not resolve to a page or file"}));
}

// trailingSlash changes how URLs are written, not which pages exist: links with
// and without the slash, and relative links from a page, resolve either way
// (nothing to read for it: this holds with and without the option).
TEST_F(DocusaurusTest, TrailingSlashChangesNoPage) {
  git::Workspace& work = Open({
      {"docusaurus.config.js", "module.exports = {trailingSlash: false};\n"},
      {"docs/guide/index.md", "# Guide\n"},
      {"docs/guide/setup.md", "# Setup\n"},
      {"docs/install.md", "# Install\n"},
  });
  Write("docs/guide/new.md",
        "# New\n\n[a](/docs/guide/setup/) [b](/docs/guide/setup) [c](setup) [d](../install)\n");
  EXPECT_EQ(Rows(CheckChanges(work)), std::vector<std::string>{});
}

// A docs folder under i18n/ translates nothing: resolving a link there must not
// go round from the translation to its "source" and back.
TEST_F(DocusaurusTest, ADocsFolderUnderI18nIsNoTranslationOfItself) {
  git::Workspace& work = Open({
      {"docusaurus.config.js",
       "module.exports = {title: 'Acme', i18n: {defaultLocale: 'en', locales: ['en', 'fr']},\n"
       "  presets: [['classic', {docs: {path: "
       "'i18n/fr/docusaurus-plugin-content-docs/current'}}]]};\n"},
      {"i18n/fr/docusaurus-plugin-content-docs/current/intro.md", "# Intro\n"},
  });
  ASSERT_TRUE(work.Write("i18n/fr/docusaurus-plugin-content-docs/current/intro.md",
                         "# Intro\n\n[x](./missing) and [y](/docs/missing/deeper)\n")
                  .ok());
  std::vector<std::string> rows = Rows(CheckChanges(work));
  EXPECT_EQ(rows.size(), 2u) << ::testing::PrintToString(rows);
}

}  // namespace
}  // namespace docwright::docs
