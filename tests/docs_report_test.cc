// What the checks report, and how: an old problem is known by what it is
// wherever its line moved, the severest problems come first, and a list cut at
// its cap says how many more there are and of which kinds.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "docs/docs.h"
#include "support/docs_site.h"

namespace docwright::docs {
namespace {

using testing::Files;
using testing::Rows;
using DocsReportTest = testing::DocsSiteTest;

std::vector<std::string> Messages(const std::vector<Problem>& list) {
  std::vector<std::string> out;
  for (const Problem& p : list) out.push_back(ToText(p));
  return out;
}

bool AnyContains(const std::vector<Problem>& list, const std::string& text) {
  for (const Problem& p : list) {
    if (p.message.find(text) != std::string::npos) return true;
  }
  return false;
}

// A Mintlify site whose navigation lists pages never written (an old problem).
Files SiteWithOldNavigationProblems() {
  return {
      {"docs.json", R"json({
  "name": "Acme",
  "navigation": {
    "groups": [
      {"group": "Start", "pages": ["index", "install", "never-written"]},
      {"group": "Guides", "pages": ["guides/one", "guides/two", "guides/planned"]}
    ]
  }
})json"},
      {"index.mdx", "---\ntitle: Home\n---\n\nWelcome. Read [install](/install).\n"},
      {"install.mdx", "---\ntitle: Install\n---\n\nInstall it.\n"},
      {"guides/one.mdx", "---\ntitle: One\n---\n\nFirst.\n"},
      {"guides/two.mdx", "---\ntitle: Two\n---\n\nSecond.\n"},
  };
}

TEST_F(DocsReportTest, RewritingTheConfigurationWithOtherFormattingBringsNoOldProblemBack) {
  git::Workspace& work = Open(SiteWithOldNavigationProblems());
  // As a model rewrites a whole file: other indentation, other wrapping, every
  // line different.
  nlohmann::ordered_json config = nlohmann::ordered_json::parse(work.Read("docs.json")->text);
  ASSERT_TRUE(work.Write("docs.json", config.dump(4) + "\n").ok());
  CheckReport report = CheckChanges(work);
  EXPECT_EQ(Rows(report), std::vector<std::string>{});
  EXPECT_TRUE(
      AnyContains(report.notes, "already before these changes: navigation lists \"never-written\""))
      << ::testing::PrintToString(Messages(report.notes));
  EXPECT_TRUE(AnyContains(report.notes, "navigation lists \"guides/planned\""));

  // All on one line, and an entry of the turn's own that names no page: only
  // that one is the turn's.
  config["navigation"]["groups"][1]["pages"].push_back("guides/three");
  ASSERT_TRUE(work.Write("docs.json", config.dump()).ok());
  report = CheckChanges(work);
  ASSERT_EQ(report.problems.size(), 1u) << ::testing::PrintToString(Rows(report));
  EXPECT_EQ(report.problems[0].kind, ProblemKind::kNavigation);
  EXPECT_EQ(report.problems[0].subject, "guides/three");
  EXPECT_EQ(report.problems[0].path, "docs.json");
}

TEST_F(DocsReportTest, AReWrappedParagraphKeepsItsOldBrokenLinkOld) {
  Files site = SiteWithOldNavigationProblems();
  site["install.mdx"] =
      "---\ntitle: Install\n---\n\nInstall it with the package manager of your system, then\n"
      "read the [old setup guide](/setup-long-gone) which explains the first\n"
      "steps in more detail than this page does.\n";
  git::Workspace& work = Open(site);
  ASSERT_TRUE(work.Write("install.mdx",
                         "---\ntitle: Install\n---\n\n  Install it with the package manager of\n"
                         "  your system, then read the [old setup guide](/setup-long-gone)\n"
                         "  which explains the first steps in more detail than this page does.\n")
                  .ok());
  CheckReport report = CheckChanges(work);
  EXPECT_EQ(Rows(report), std::vector<std::string>{});
  EXPECT_TRUE(AnyContains(report.notes, "already before these changes: link /setup-long-gone"));

  // Written anew, with other words around it, the link is the turn's to fix.
  ASSERT_TRUE(work.Write("install.mdx",
                         "---\ntitle: Install\n---\n\nSee the [setup guide](/setup-long-gone).\n")
                  .ok());
  EXPECT_EQ(Rows(CheckChanges(work)),
            (std::vector<std::string>{
                "install.mdx:5: link /setup-long-gone does not resolve to a page or file"}));
}

// An MkDocs site where many pages link to one page.
Files MuchLinkedPage(int linking) {
  Files site;
  std::string nav = "site_name: Acme\nnav:\n  - Home: index.md\n  - Target: target.md\n";
  site["docs/index.md"] = "# Home\n\nWelcome.\n";
  site["docs/target.md"] = "# Target\n\nThe page everyone links to.\n";
  for (int i = 0; i < linking; ++i) {
    std::string name = "page" + std::to_string(i) + ".md";
    site["docs/" + name] = "# Page " + std::to_string(i) + "\n\nSee [the target](target.md).\n";
    nav += "  - Page " + std::to_string(i) + ": " + name + "\n";
  }
  site["mkdocs.yml"] = nav;
  return site;
}

TEST_F(DocsReportTest, ACutListSaysHowManyMoreAndTheSeverestComeFirst) {
  git::Workspace& work = Open(MuchLinkedPage(8));
  ASSERT_TRUE(work.Delete("docs/target.md").ok());
  Limits limits;
  limits.max_problems = 3;
  CheckReport report = CheckChanges(work, limits);
  ASSERT_EQ(report.problems.size(), 3u) << ::testing::PrintToString(Rows(report));
  // The navigation entry of the deleted page sorts after the pages by path, but
  // comes first by severity.
  EXPECT_EQ(report.problems[0].kind, ProblemKind::kNavigation);
  EXPECT_EQ(report.problems[0].path, "mkdocs.yml");
  EXPECT_EQ(report.problems[0].line, 4);
  EXPECT_EQ(report.problems[1].kind, ProblemKind::kRemoved);
  EXPECT_EQ(report.problems[1].path, "docs/page0.md");
  EXPECT_EQ(report.problems[2].path, "docs/page1.md");
  EXPECT_EQ(report.more_problems, "and 6 more not listed: 6 links to removed pages in 6 files");
  EXPECT_EQ(report.Summary(), "9 problems: 1 navigation entry, 8 links to removed pages");
  std::vector<std::string> lines = report.ProblemLines();
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines.back(), report.more_problems);
  EXPECT_EQ(lines[1],
            "docs/page0.md:3: link target.md no longer resolves: these changes delete "
            "or move what it pointed at; update the link or remove it");

  // Under the cap nothing is said to be left out.
  limits.max_problems = 50;
  report = CheckChanges(work, limits);
  EXPECT_EQ(report.problems.size(), 9u);
  EXPECT_EQ(report.more_problems, "");
  EXPECT_EQ(report.ProblemLines().size(), 9u);
}

TEST_F(DocsReportTest, KindsComeBySeverityWhateverTheirPaths) {
  Files site = MuchLinkedPage(1);
  git::Workspace& work = Open(site);
  // A broken image, a broken link, a syntax error and a navigation entry, each
  // in a file whose path sorts the other way round.
  ASSERT_TRUE(work.Write("docs/a.md", "# A\n\n![diagram](missing.png)\n").ok());
  ASSERT_TRUE(work.Write("docs/b.md", "# B\n\n[gone](nowhere.md)\n").ok());
  ASSERT_TRUE(work.Write("docs/c.md", "# C\n\n```sh\nopen fence\n").ok());
  std::string nav = work.Read("mkdocs.yml")->text;
  ASSERT_TRUE(
      work.Write("mkdocs.yml", nav + "  - A: a.md\n  - B: b.md\n  - C: c.md\n  - Z: z.md\n").ok());
  CheckReport report = CheckChanges(work);
  std::vector<ProblemKind> kinds;
  for (const Problem& p : report.problems) kinds.push_back(p.kind);
  EXPECT_EQ(kinds, (std::vector<ProblemKind>{ProblemKind::kNavigation, ProblemKind::kSyntax,
                                             ProblemKind::kLink, ProblemKind::kImage}))
      << ::testing::PrintToString(Rows(report));
  EXPECT_EQ(report.Summary(),
            "4 problems: 1 navigation entry, 1 syntax error, 1 broken link, 1 broken image");
}

// A line of hundreds of old broken links, re-indented: its problems are old,
// and the line is compared once, in time linear in the page.
TEST_F(DocsReportTest, ALongLineOfOldProblemsIsComparedOnce) {
  Files site = SiteWithOldNavigationProblems();
  std::string row;
  for (int i = 0; i < 600; ++i) row += "|[a](x)";
  site["install.mdx"] = "---\ntitle: Install\n---\n\n" + row + "|\n";
  git::Workspace& work = Open(site);
  ASSERT_TRUE(work.Write("install.mdx", "---\ntitle: Install\n---\n\n    " + row + "|\n").ok());
  CheckReport report = CheckChanges(work);
  EXPECT_EQ(Rows(report), std::vector<std::string>{});
  EXPECT_TRUE(AnyContains(report.notes, "already before these changes: link x"));
}

// Notes come by file and line whatever their kinds, so that a remark on a page
// is not pushed out of the list by the site's many old navigation entries.
TEST_F(DocsReportTest, NotesComeByFileAndLine) {
  Files site = SiteWithOldNavigationProblems();
  std::string config = site["docs.json"];
  std::string planned;
  for (int i = 0; i < 40; ++i) planned += ", \"planned/p" + std::to_string(i) + "\"";
  config.replace(config.find("\"guides/planned\""), 16, "\"guides/planned\"" + planned);
  site["docs.json"] = config;
  git::Workspace& work = Open(site);
  // A page without content: a remark, on a path that sorts first.
  ASSERT_TRUE(work.Write("a-empty.mdx", "---\ntitle: Empty\n---\n").ok());
  std::string nav = work.Read("docs.json")->text;
  nav.replace(nav.find("\"index\""), 7, "\"a-empty\", \"index\"");
  ASSERT_TRUE(work.Write("docs.json", nav).ok());
  CheckReport report = CheckChanges(work);
  EXPECT_EQ(Rows(report), std::vector<std::string>{});
  ASSERT_EQ(report.notes.size(), 30u);
  EXPECT_EQ(report.notes[0].path, "a-empty.mdx");
  EXPECT_EQ(report.notes[0].message, "the page has no content");
}

}  // namespace
}  // namespace docwright::docs
