// Mintlify sites as each format has them: mint.json's groups with their
// versions, tabs and anchors; docs.json's languages and versions together;
// OpenAPI specs at every level of navigation; redirects with wildcards.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "docs/docs.h"
#include "support/docs_site.h"

namespace docwright::docs {
namespace {

using testing::Files;
using testing::Rows;
using DocsMintlifyTest = testing::DocsSiteTest;

std::string Page(const std::string& title, const std::string& body) {
  return "---\ntitle: " + title + "\n---\n\n" + body;
}

bool AnyNoteContains(const CheckReport& report, const std::string& text) {
  for (const Problem& p : report.notes) {
    if (p.message.find(text) != std::string::npos) return true;
  }
  return false;
}

// The older mint.json: versions named on groups, tabs and anchors beside the
// navigation naming the folders they show, one tab generating pages from a
// spec.
Files MintJsonSite() {
  return {
      {"mint.json", R"json({
  "name": "Acme",
  "versions": ["v2", "v1"],
  "tabs": [
    {"name": "API Reference", "url": "api-reference"},
    {"name": "REST", "url": "rest", "openapi": "openapi.json"},
    {"name": "Blog", "url": "https://blog.example.com"}
  ],
  "anchors": [
    {"name": "SDKs", "url": "sdks", "icon": "code"},
    {"name": "Community", "url": "https://community.example.com"}
  ],
  "navigation": [
    {"group": "Getting started", "version": "v2", "pages": [
      "v2/quickstart",
      {"group": "Install", "pages": ["v2/install/linux"]}
    ]},
    {"group": "Getting started", "version": "v1", "pages": ["v1/quickstart"]},
    {"group": "Endpoints", "pages": ["api-reference/users"]},
    {"group": "Python", "pages": ["sdks/python"]},
    {"group": "Help", "pages": ["help"]}
  ]
})json"},
      {"openapi.json", R"({"openapi": "3.0.0", "paths": {}})"},
      {"v2/quickstart.mdx", Page("Quickstart", "Version 2.\n")},
      {"v2/install/linux.mdx", Page("Linux", "Install on Linux.\n")},
      {"v1/quickstart.mdx", Page("Quickstart", "Version 1.\n")},
      {"api-reference/users.mdx", Page("Users", "The users.\n")},
      {"sdks/python.mdx", Page("Python", "The Python SDK.\n")},
      {"help.mdx", Page("Help", "Ask us.\n")},
  };
}

TEST_F(DocsMintlifyTest, MintJsonGroupsShowTheirVersionAndTheirTabOrAnchor) {
  SiteMap map = BuildSiteMap(Open(MintJsonSite()));
  EXPECT_EQ(map.config_path, "mint.json");
  EXPECT_EQ(Rows(map),
            (std::vector<std::string>{
                "v2 > Getting started | v2/quickstart | v2/quickstart.mdx | Quickstart",
                "v2 > Getting started > Install | v2/install/linux | v2/install/linux.mdx | Linux",
                "v1 > Getting started | v1/quickstart | v1/quickstart.mdx | Quickstart",
                "API Reference > Endpoints | api-reference/users | api-reference/users.mdx | Users",
                "SDKs > Python | sdks/python | sdks/python.mdx | Python",
                "Help | help | help.mdx | Help",
            }));
}

TEST_F(DocsMintlifyTest, MintJsonPagesOfTwoVersionsMayShareTheirTitles) {
  git::Workspace& work = Open(MintJsonSite());
  Write("v2/upgrade.mdx", Page("Upgrade", "To version 2.\n"));
  Write("v1/upgrade.mdx", Page("Upgrade", "To version 1.\n"));
  std::string config = work.Read("mint.json")->text;
  config.replace(config.find("\"v2/quickstart\","), 16, "\"v2/quickstart\", \"v2/upgrade\",");
  config.replace(config.find("[\"v1/quickstart\"]"), 17, "[\"v1/quickstart\", \"v1/upgrade\"]");
  Write("mint.json", config);
  CheckReport report = CheckChanges(work);
  EXPECT_EQ(Rows(report), std::vector<std::string>{});
  // Each version shows its own group: no reader sees the two side by side.
  EXPECT_FALSE(AnyNoteContains(report, "has the same title"))
      << ::testing::PrintToString(Rows(report.notes));
}

TEST_F(DocsMintlifyTest, MintJsonTabAndAnchorFoldersAreRoutesAndATabsSpecServesPages) {
  Open(MintJsonSite());
  Write("help.mdx", Page("Help",
                         "See the [API](/api-reference), the [SDKs](/sdks/),\n"
                         "the [list of users](/rest/users/list-users),\n"
                         "and [nothing](/nowhere).\n"));
  EXPECT_EQ(Rows(CheckChanges(*work_)),
            (std::vector<std::string>{
                "help.mdx:7: link /nowhere does not resolve to a page or file",
            }));
}

TEST_F(DocsMintlifyTest, OperationsMayNameTheirSpec) {
  git::Workspace& work = Open({
      {"docs.json", R"({"navigation": {"groups": [{"group": "API", "pages": ["intro"]}]}})"},
      {"intro.mdx", Page("Intro", "Welcome.\n")},
  });
  Write("docs.json", R"json({"navigation": {"groups": [{"group": "API", "pages": [
  "intro",
  "openapi/users.json GET /users",
  "https://api.example.com/openapi.yaml POST /users",
  "specs/events.yaml webhook orderUpdated",
  "delete /users/{id}"
]}]}})json");
  EXPECT_EQ(Rows(CheckChanges(work)), std::vector<std::string>{});
  EXPECT_EQ(Rows(BuildSiteMap(work)),
            (std::vector<std::string>{"API | intro | intro.mdx | Intro"}));
}

TEST_F(DocsMintlifyTest, OpenApiAtEveryLevelWithLanguagesAndVersionsTogether) {
  git::Workspace& work = Open({
      {"docs.json", R"json({
  "name": "Acme",
  "navigation": {
    "openapi": "root.json",
    "versions": [
      {"version": "v2", "openapi": {"source": "v2.json", "directory": "v2-api"},
       "languages": [
         {"language": "en", "tabs": [{"tab": "API",
           "openapi": ["a.json", {"source": "b.json", "directory": "b-api"}],
           "pages": ["en/index"]}]},
         {"language": "fr", "anchors": [{"anchor": "API",
           "openapi": {"source": "fr.json", "directory": "fr-api"},
           "pages": ["fr/index"]}]}
       ]},
      {"version": "v1", "dropdowns": [{"dropdown": "API", "groups": [
        {"group": "Endpoints", "openapi": {"source": "v1.json", "directory": "v1-api"},
         "pages": ["v1/index", "GET /users"]}
      ]}]}
    ]
  }
})json"},
      {"en/index.mdx", Page("Home", "Welcome.\n")},
      {"fr/index.mdx", Page("Accueil", "Bienvenue.\n")},
      {"v1/index.mdx", Page("Home", "Version 1.\n")},
  });
  EXPECT_EQ(Rows(BuildSiteMap(work)), (std::vector<std::string>{
                                          "v2 > en > API | en/index | en/index.mdx | Home",
                                          "v2 > fr > API | fr/index | fr/index.mdx | Accueil",
                                          "v1 > API > Endpoints | v1/index | v1/index.mdx | Home",
                                      }));
  Write("en/index.mdx", Page("Home",
                             "Welcome.\n\n"
                             "[navigation's spec](/api-reference/users/list)\n"
                             "[version's](/v2-api/users/list)\n"
                             "[tab's second](/b-api/users/list)\n"
                             "[anchor's](/fr-api/users/list)\n"
                             "[group's](/v1-api/users/list)\n"
                             "[under a language](/fr/api-reference/users/list)\n"
                             "[under a version](/v2/b-api/users/list)\n"
                             "[elsewhere](/elsewhere/users/list)\n"));
  EXPECT_EQ(Rows(CheckChanges(work)),
            (std::vector<std::string>{
                "en/index.mdx:14: link /elsewhere/users/list does not resolve to a page or file",
            }));
}

// A redirect chain is followed for at most a few hops (past them the link is
// trusted), and what one link learnt of a destination is not taken for another
// with more hops left: /r3 reaches r5, which is no page.
TEST_F(DocsMintlifyTest, RedirectChainsAreFollowedWithTheHopsLeft) {
  std::string redirects;
  for (int i = 0; i < 5; ++i) {
    redirects += std::string(i ? ", " : "") + "{\"source\": \"/r" + std::to_string(i) +
                 "\", \"destination\": \"/r" + std::to_string(i + 1) + "\"}";
  }
  git::Workspace& work = Open({
      {"docs.json",
       "{\"name\": \"Acme\", \"navigation\": {\"pages\": [\"index\"]}, \"redirects\": [" +
           redirects + "]}"},
      {"index.mdx", Page("Home", "Welcome.\n")},
  });
  Write("index.mdx", Page("Home", "Welcome.\n\n[far](/r0)\n[near](/r3)\n"));
  EXPECT_EQ(Rows(CheckChanges(work)),
            (std::vector<std::string>{"index.mdx:8: link /r3 does not resolve to a page or file"}));
}

// Links through one redirect to one page: each link's anchor is checked against
// that page, the first one and the later ones alike.
TEST_F(DocsMintlifyTest, AnchorsOfLinksThroughARedirectAreCheckedEachTime) {
  git::Workspace& work = Open({
      {"docs.json", R"json({"name": "Acme", "navigation": {"pages": ["index", "new/a"]},
  "redirects": [{"source": "/old/:slug*", "destination": "/new/:slug*"}]})json"},
      {"index.mdx", Page("Home", "Welcome.\n")},
      {"new/a.mdx", Page("A", "## Intro\n\nText.\n")},
  });
  Write("index.mdx", Page("Home", "Welcome.\n\n[a](/old/a#intro)\n[b](/old/a#no-such-heading)\n"));
  EXPECT_EQ(Rows(CheckChanges(work)),
            (std::vector<std::string>{"index.mdx:8: anchor #no-such-heading of link "
                                      "/old/a#no-such-heading names no heading of new/a.mdx"}));
}

TEST_F(DocsMintlifyTest, RedirectsWithWildcards) {
  git::Workspace& work = Open({
      {"docs.json", R"json({
  "name": "Acme",
  "navigation": {"pages": ["index"]},
  "redirects": [
    {"source": "/articles/concepts-*", "destination": "/index"},
    {"source": "/old/:slug?", "destination": "/"},
    {"source": "/blog/:year/:slug+", "destination": "/"},
    {"source": "/a/:rest*/edit", "destination": "/"},
    {"source": "/beta/:slug*", "destination": "/v2/:slug*"},
    {"source": "/v1-:name", "destination": "/"},
    {"source": "/Guides/Start", "destination": "/"}
  ]
})json"},
      {"index.mdx", Page("Home", "Welcome.\n")},
      // Where /beta and /beta/intro/more lead.
      {"v2/index.mdx", Page("Version 2", "New.\n")},
      {"v2/intro/more.mdx", Page("More", "More.\n")},
  });
  Write("index.mdx", Page("Home",
                          "Welcome.\n\n"
                          "[a](/articles/concepts-overview)\n"
                          "[b](/old)\n"
                          "[c](/old/page)\n"
                          "[d](/blog/2024/post/part-two)\n"
                          "[e](/a/edit) [f](/a/x/y/edit)\n"
                          "[g](/beta) [h](/beta/intro/more)\n"
                          "[i](/v1-setup) [j](/guides/start)\n"
                          "[k](/articles/overview)\n"
                          "[l](/blog/2024)\n"
                          "[m](/a/x/view)\n"
                          "[n](/old/a/b)\n"));
  EXPECT_EQ(Rows(CheckChanges(work)),
            (std::vector<std::string>{
                "index.mdx:14: link /articles/overview does not resolve to a page or file",
                "index.mdx:15: link /blog/2024 does not resolve to a page or file",
                "index.mdx:16: link /a/x/view does not resolve to a page or file",
                "index.mdx:17: link /old/a/b does not resolve to a page or file",
            }));
}

// A language folder is no more than where its pages live: a translation whose
// English page is deleted is still served, and links to it still work.
TEST_F(DocsMintlifyTest, ATranslationOutlivesItsSourcePage) {
  git::Workspace& work = Open({
      {"docs.json", R"json({"navigation": {"languages": [
  {"language": "en", "pages": ["en/index", "en/guide"]},
  {"language": "fr", "pages": ["fr/index", "fr/guide"]}
]}})json"},
      {"en/index.mdx", Page("Home", "Read the [guide](/en/guide).\n")},
      {"en/guide.mdx", Page("Guide", "A guide.\n")},
      {"fr/index.mdx", Page("Accueil", "Lisez le [guide](/fr/guide).\n")},
      {"fr/guide.mdx", Page("Guide", "Un guide.\n")},
  });
  ASSERT_TRUE(work.Delete("en/guide.mdx").ok());
  Write("docs.json", R"json({"navigation": {"languages": [
  {"language": "en", "pages": ["en/index"]},
  {"language": "fr", "pages": ["fr/index", "fr/guide"]}
]}})json");
  EXPECT_EQ(Rows(CheckChanges(work)),
            (std::vector<std::string>{
                "en/index.mdx:5: link /en/guide no longer resolves: these changes delete or move "
                "what it pointed at; update the link or remove it",
            }));
}

}  // namespace
}  // namespace docwright::docs
