// Links' fragments: each framework's slug rule, explicit and HTML ids, and the
// check of `page#section` and `#section` in the links a change writes.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "docs/docs.h"
#include "docs/internal.h"
#include "support/docs_site.h"

namespace docwright::docs {
namespace {

using testing::Files;
using testing::Rows;
using DocsAnchorsTest = testing::DocsSiteTest;

std::vector<Heading> Headings(std::vector<std::pair<std::string, std::string>> texts_and_ids) {
  std::vector<Heading> out;
  for (auto& [text, id] : texts_and_ids) {
    Heading h;
    h.slug_text = text;
    h.id = id;
    out.push_back(h);
  }
  return out;
}

TEST(SlugTest, GitHubKeepsLettersDropsPunctuationAndTurnsSpacesToHyphens) {
  EXPECT_EQ(Slug(SlugRule::kGitHub, "Hello World"), "hello-world");
  EXPECT_EQ(Slug(SlugRule::kGitHub, "What's new?"), "whats-new");
  EXPECT_EQ(Slug(SlugRule::kGitHub, "C++ & Rust_lang"), "c--rust_lang");
  EXPECT_EQ(Slug(SlugRule::kGitHub, "Step 1: Install"), "step-1-install");
  EXPECT_EQ(Slug(SlugRule::kGitHub, "Über Café"), "über-café");
  EXPECT_EQ(Slug(SlugRule::kGitHub, "Привет мир"), "привет-мир");
  EXPECT_EQ(Slug(SlugRule::kGitHub, "日本語の見出し"), "日本語の見出し");
  EXPECT_EQ(Slug(SlugRule::kGitHub, "🚀 Launch"), "-launch");
  // A character the rule is not written out for: the id is not known.
  EXPECT_EQ(Slug(SlugRule::kGitHub, "ℂ numbers"), std::nullopt);
}

TEST(SlugTest, PythonMarkdownDropsWhatIsNotAsciiAfterNfkd) {
  EXPECT_EQ(Slug(SlugRule::kPythonMarkdown, "Hello World"), "hello-world");
  EXPECT_EQ(Slug(SlugRule::kPythonMarkdown, "What's new?"), "whats-new");
  EXPECT_EQ(Slug(SlugRule::kPythonMarkdown, "C++ & Rust_lang"), "c-rust_lang");
  EXPECT_EQ(Slug(SlugRule::kPythonMarkdown, "Hello - World"), "hello-world");
  EXPECT_EQ(Slug(SlugRule::kPythonMarkdown, "Über Café"), "uber-cafe");
  EXPECT_EQ(Slug(SlugRule::kPythonMarkdown, "Straße"), "strae");
  EXPECT_EQ(Slug(SlugRule::kPythonMarkdown, "Привет мир"), "");
  EXPECT_EQ(Slug(SlugRule::kPythonMarkdown, "🚀 Launch"), "launch");
  EXPECT_EQ(Slug(SlugRule::kPythonMarkdown, "Chapter Ⅳ"), std::nullopt);
}

TEST(SlugTest, RepeatedSlugsAreToldApartEachFrameworksWay) {
  auto three = Headings({{"Setup", ""}, {"Setup", ""}, {"Setup", ""}});
  EXPECT_EQ(HeadingIds(SlugRule::kGitHub, three),
            (std::vector<std::string>{"setup", "setup-1", "setup-2"}));
  EXPECT_EQ(HeadingIds(SlugRule::kPythonMarkdown, three),
            (std::vector<std::string>{"setup", "setup_1", "setup_2"}));
  // An explicit id is kept as written; github-slugger does not count it,
  // Python-Markdown's unique() does.
  auto explicit_first = Headings({{"Anything", "Intro"}, {"intro", ""}});
  EXPECT_EQ(HeadingIds(SlugRule::kGitHub, explicit_first),
            (std::vector<std::string>{"Intro", "intro"}));
  auto python_taken = Headings({{"Anything", "intro"}, {"Intro", ""}});
  EXPECT_EQ(HeadingIds(SlugRule::kPythonMarkdown, python_taken),
            (std::vector<std::string>{"intro", "intro_1"}));
  // A text with nothing left is "_1" to Python-Markdown.
  EXPECT_EQ(HeadingIds(SlugRule::kPythonMarkdown, Headings({{"Привет", ""}})),
            (std::vector<std::string>{"_1"}));
  EXPECT_EQ(HeadingIds(SlugRule::kGitHub, Headings({{"ℂ", ""}})), std::nullopt);
  EXPECT_EQ(HeadingIds(SlugRule::kUnknown, three), std::nullopt);
}

TEST(SlugTest, ExplicitIdsAreTakenOffTheHeadingText) {
  std::string text = "Setup {#install}";
  EXPECT_EQ(TakeExplicitId(text), "install");
  EXPECT_EQ(text, "Setup");
  text = "Setup {: #install .wide }";
  EXPECT_EQ(TakeExplicitId(text), "install");
  EXPECT_EQ(text, "Setup");
  text = "Setup {: .wide }";
  EXPECT_EQ(TakeExplicitId(text), "");
  EXPECT_EQ(text, "Setup");
  text = "Use {braces}";
  EXPECT_EQ(TakeExplicitId(text), "");
  EXPECT_EQ(text, "Use {braces}");
}

TEST(SlugTest, ThePageReaderKeepsHeadingIdsAndAnchors) {
  Budget budget(Limits{});
  Page page = ReadPage(
      "# Title\n\n## Setup {#install}\n\n<a id=\"html-anchor\"></a>\n\n"
      "<div name=\"not-an-anchor\" id='div-id'>x</div>\n\nParagraph.\n{: #attr-id }\n",
      false, budget);
  ASSERT_EQ(page.headings.size(), 2u);
  EXPECT_EQ(page.headings[1].id, "install");
  EXPECT_EQ(page.headings[1].text, "Setup");
  EXPECT_EQ(page.anchors, (std::vector<std::string>{"html-anchor", "div-id", "attr-id"}));
  EXPECT_FALSE(page.anchors_open);

  Page jsx = ReadPage("## Plain\n\n<span id=\"jsx-id\" />\n", true, budget);
  EXPECT_EQ(jsx.anchors, (std::vector<std::string>{"jsx-id"}));
  EXPECT_FALSE(jsx.anchors_open);
  Page component = ReadPage("## Plain\n\n<Tabs>\n</Tabs>\n", true, budget);
  EXPECT_TRUE(component.anchors_open);
}

Files PlainSite() {
  return {
      {"README.md", "# Home\n\nSee [the guide](guide.md#old-heading).\n"},
      {"guide.md",
       "# Guide\n\n## Install the tool\n\nText.\n\n## Install the tool\n\nAgain.\n\n"
       "<a id=\"legacy\"></a>\n"},
  };
}

TEST_F(DocsAnchorsTest, ABrokenAnchorOnANewLinkIsReportedAndWorkingOnesAreNot) {
  git::Workspace& work = Open(PlainSite());
  ASSERT_TRUE(work.Write("README.md",
                         "# Home\n\nSee [the guide](guide.md#old-heading).\n\n"
                         "[a](guide.md#install-the-tool-1) [b](guide.md#legacy) "
                         "[c](guide.md#Install-The-Tool) [d](guide.md#missing)\n")
                  .ok());
  CheckReport report = CheckChanges(work);
  EXPECT_EQ(Rows(report), (std::vector<std::string>{
                              "README.md:5: anchor #missing of link guide.md#missing names no "
                              "heading of guide.md",
                          }));
  ASSERT_EQ(report.problems.size(), 1u);
  EXPECT_EQ(report.problems[0].kind, ProblemKind::kAnchor);
  EXPECT_EQ(report.problems[0].subject, "guide.md#missing");
}

TEST_F(DocsAnchorsTest, AnOldBrokenAnchorIsNotTheChangesWhenThePageIsOnlyAppendedTo) {
  git::Workspace& work = Open(PlainSite());
  ASSERT_TRUE(
      work.Write("README.md", "# Home\n\nSee [the guide](guide.md#old-heading).\n\nMore text.\n")
          .ok());
  CheckReport report = CheckChanges(work);
  EXPECT_TRUE(report.problems.empty()) << ::testing::PrintToString(Rows(report));
  bool noted = false;
  for (const Problem& p : report.notes) {
    noted |= p.message.find("anchor #old-heading") != std::string::npos;
  }
  EXPECT_TRUE(noted);
}

TEST_F(DocsAnchorsTest, PureAnchorsNameHeadingsOfTheirOwnPage) {
  git::Workspace& work = Open(PlainSite());
  ASSERT_TRUE(work.Write("guide.md", PlainSite()["guide.md"] +
                                         "\nBack to [top](#install-the-tool), [the top](#top) "
                                         "and [gone](#gone).\n")
                  .ok());
  EXPECT_EQ(Rows(CheckChanges(work)),
            (std::vector<std::string>{
                "guide.md:13: anchor #gone of link #gone names no heading of this page"}));
}

TEST_F(DocsAnchorsTest, PagesWhoseIdsAreNotKnownAcceptEveryFragment) {
  Files site = PlainSite();
  site["big.md"] = "# Big\n\n" + std::string(git::kMaxReadBytes + 100, 'x') + "\n";
  site["tabs.mdx"] = "import Tabs from '@theme/Tabs';\n\n# Tabs\n\n<Tabs>\n</Tabs>\n";
  git::Workspace& work = Open(site);
  ASSERT_TRUE(work.Write("README.md",
                         "# Home\n\nSee [the guide](guide.md#old-heading).\n\n"
                         "[a](big.md#anything) [b](tabs.mdx#made-by-a-component) "
                         "[c](guide.md#:~:text=Again) [d](https://example.com/x#nothing)\n")
                  .ok());
  EXPECT_TRUE(CheckChanges(work).problems.empty());
}

TEST_F(DocsAnchorsTest, MkDocsUsesPythonMarkdownIds) {
  Files site = {
      {"mkdocs.yml", "site_name: Site\n"},
      {"docs/index.md", "# Home\n"},
      {"docs/guide.md", "# Guide\n\n## Über Café\n\n## Setup\n\n## Setup\n\n## Keep {#kept}\n"},
  };
  git::Workspace& work = Open(site);
  ASSERT_TRUE(work.Write("docs/index.md",
                         "# Home\n\n[a](guide.md#uber-cafe) [b](guide.md#setup_1) "
                         "[c](guide.md#kept) [d](guide.md#setup-1)\n")
                  .ok());
  EXPECT_EQ(Rows(CheckChanges(work)),
            (std::vector<std::string>{"docs/index.md:3: anchor #setup-1 of link "
                                      "guide.md#setup-1 names no heading of docs/guide.md"}));
}

TEST_F(DocsAnchorsTest, AnMkDocsSiteWithItsOwnSlugifyIsNotChecked) {
  Files site = {
      {"mkdocs.yml",
       "site_name: Site\nmarkdown_extensions:\n  - toc:\n      slugify: "
       "!!python/object/apply:pymdownx.slugs.slugify {kwds: {case: lower}}\n"},
      {"docs/index.md", "# Home\n"},
      {"docs/guide.md", "# Guide\n\n## Setup\n"},
  };
  git::Workspace& work = Open(site);
  ASSERT_TRUE(work.Write("docs/index.md", "# Home\n\n[d](guide.md#whatever)\n").ok());
  EXPECT_TRUE(CheckChanges(work).problems.empty());
}

}  // namespace
}  // namespace docwright::docs
