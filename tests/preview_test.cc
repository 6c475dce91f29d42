// Previews (docs/preview.h): whatever a page or a description holds (script,
// frames, event handlers, javascript: and other URLs, in Markdown, raw HTML or
// MDX), the HTML has only known tags and attributes, http(s)/mailto/relative/#
// links and data: images of the branch, every element closed; components are
// placeholders; images of the branch are inlined within their budgets; the
// frontmatter's title is the heading; and hostile sizes and nestings render
// within the cap, quickly.
#include "docs/preview.h"

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/text.h"
#include "core/work_budget.h"

namespace docwright::docs {
namespace {

std::string Lowered(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// A URL the previews may hold: http(s), mailto, in-page, relative, or (for an
// image) a data: image.
bool AllowedUrl(const std::string& value, bool image) {
  std::string v = Lowered(value);
  if (v.starts_with("http://") || v.starts_with("https://") || v.starts_with("#")) return true;
  if (!image && v.starts_with("mailto:")) return true;
  if (image && v.starts_with("data:image/")) return true;
  size_t stop = v.find_first_of(":/?#");
  return stop == std::string::npos || v[stop] != ':';
}

// Walks `html` as a browser would read its tags: known tags and attributes
// only, URLs allowed, every element closed in order.
void ExpectInert(const std::string& html) {
  static const std::set<std::string> kTags = {
      "p",      "h1",    "h2",    "h3",  "h4", "h5", "h6",    "a",          "img",  "em",
      "strong", "del",   "code",  "pre", "ul", "ol", "li",    "blockquote", "hr",   "br",
      "table",  "thead", "tbody", "tr",  "th", "td", "input", "div",        "span", "sup"};
  static const std::set<std::string> kAttributes = {
      "href",  "src",  "alt",     "title",    "class", "data-component",
      "align", "type", "checked", "disabled", "start"};
  static const std::set<std::string> kVoid = {"img", "br", "hr", "input"};
  std::vector<std::string> open;
  for (size_t i = 0; i < html.size(); ++i) {
    if (html[i] != '<') continue;
    if (html.compare(i, 4, "<!--") == 0) {
      size_t end = html.find("-->", i);
      ASSERT_NE(end, std::string::npos) << "unclosed comment";
      i = end + 2;
      continue;
    }
    size_t end = html.find('>', i);
    ASSERT_NE(end, std::string::npos) << "unended tag at " << i;
    std::string tag = html.substr(i + 1, end - i - 1);
    i = end;
    ASSERT_FALSE(tag.empty());
    if (tag[0] == '/') {
      std::string name = tag.substr(1);
      ASSERT_FALSE(open.empty()) << "</" << name << "> closes nothing";
      ASSERT_EQ(open.back(), name) << "</" << name << "> closes <" << open.back() << ">";
      open.pop_back();
      continue;
    }
    bool self_closing = tag.back() == '/';
    if (self_closing) tag.pop_back();
    size_t name_end = tag.find_first_of(" \t\n");
    std::string name = Lowered(tag.substr(0, name_end));
    EXPECT_TRUE(kTags.count(name)) << "tag <" << name << ">";
    size_t p = name_end == std::string::npos ? tag.size() : name_end;
    while (p < tag.size()) {
      while (p < tag.size() && std::isspace(static_cast<unsigned char>(tag[p]))) ++p;
      if (p >= tag.size()) break;
      size_t eq = tag.find_first_of("= \t\n", p);
      std::string attribute = Lowered(tag.substr(p, eq - p));
      EXPECT_TRUE(kAttributes.count(attribute))
          << "attribute " << attribute << " in <" << tag << ">";
      EXPECT_FALSE(attribute.starts_with("on")) << attribute;
      if (eq == std::string::npos || tag[eq] != '=') {
        p = eq == std::string::npos ? tag.size() : eq;
        continue;
      }
      ASSERT_LT(eq + 1, tag.size());
      ASSERT_EQ(tag[eq + 1], '"') << "unquoted attribute in <" << tag << ">";
      size_t close = tag.find('"', eq + 2);
      ASSERT_NE(close, std::string::npos);
      std::string value = tag.substr(eq + 2, close - eq - 2);
      if (attribute == "href" || attribute == "src") {
        EXPECT_TRUE(AllowedUrl(value, attribute == "src")) << attribute << "=\"" << value << "\"";
      }
      p = close + 1;
    }
    if (!self_closing && !kVoid.count(name)) open.push_back(name);
  }
  EXPECT_TRUE(open.empty()) << "<" << (open.empty() ? "" : open.back()) << "> left open";
}

std::string Preview(std::string_view text, std::string_view path = "guide/page.md",
                    const BlobLoader& load = {}, const PreviewLimits& limits = {}) {
  return RenderPreviewHtml(text, path, load, limits, nullptr);
}

const char kHostile[] =
    "<script>alert(1)</script>\n\n"
    "<iframe src=\"https://evil.example\"></iframe>\n\n"
    "<img src=x onerror=alert(1)>\n\n"
    "Inline <b onmouseover=\"alert(1)\">bold</b> and <a href=\"javascript:alert(1)\">a</a>.\n\n"
    "[one](javascript:alert(1)) [two](JavaScript:alert(1)) [three](<java\tscript:alert(1)>)\n"
    "[four](&#106;avascript:alert(1)) [five](vbscript:msgbox(1)) [six](file:///etc/passwd)\n"
    "[seven](data:text/html;base64,PHNjcmlwdD4=) <javascript:alert(1)>\n"
    "![pic](javascript:alert(1)) ![pic2](data:image/svg+xml;base64,PHN2Zz4=)\n\n"
    "[ok](https://example.com/a?b=1&c=2) [mail](mailto:a@example.com) [here](#top) "
    "[rel](other.md)\n";

TEST(PreviewTest, ScriptsHandlersAndDangerousUrlsInMarkdownAreInert) {
  std::string html = Preview(kHostile);
  ExpectInert(html);
  std::string lower = Lowered(html);
  EXPECT_EQ(lower.find("<script"), std::string::npos);
  EXPECT_EQ(lower.find("<iframe"), std::string::npos);
  EXPECT_EQ(lower.find("onerror"), std::string::npos);
  EXPECT_EQ(lower.find("href=\"javascript"), std::string::npos);
  EXPECT_EQ(lower.find("data:text"), std::string::npos);
  EXPECT_EQ(lower.find("data:image/svg"), std::string::npos) << "a data: image of the page itself";
  // What is allowed stays, the text of what is not stays as text.
  EXPECT_NE(html.find("<a href=\"https://example.com/a?b=1&amp;c=2\">ok</a>"), std::string::npos)
      << html;
  EXPECT_NE(html.find("<a href=\"mailto:a@example.com\">mail</a>"), std::string::npos);
  EXPECT_NE(html.find("<a href=\"#top\">here</a>"), std::string::npos);
  EXPECT_NE(html.find("<a href=\"other.md\">rel</a>"), std::string::npos);
  EXPECT_NE(html.find("one"), std::string::npos);
  EXPECT_NE(html.find("pic"), std::string::npos) << "an image refused is its alt text";
}

TEST(PreviewTest, RawHtmlAndJsxInMdxAreInert) {
  std::string mdx =
      std::string("import Foo from './foo.js'\nexport const x = 1\n\n") + kHostile +
      "\n<div onClick=\"alert(1)\">kept text</div>\n\n"
      "<Card href=\"javascript:alert(1)\" onClick={() => alert(1)}>card text</Card>\n";
  std::string html = Preview(mdx, "guide/page.mdx");
  ExpectInert(html);
  std::string lower = Lowered(html);
  EXPECT_EQ(lower.find("<script"), std::string::npos);
  EXPECT_EQ(lower.find("onclick"), std::string::npos);
  EXPECT_EQ(lower.find("href=\"javascript"), std::string::npos);
  EXPECT_EQ(html.find("import Foo"), std::string::npos) << "ESM is dropped";
  EXPECT_EQ(html.find("export const"), std::string::npos);
  EXPECT_NE(html.find("kept text"), std::string::npos);
  EXPECT_NE(html.find("card text"), std::string::npos);
}

TEST(PreviewTest, ComponentsArePlaceholdersWithTheirMarkdownInside) {
  std::string html = Preview(
      "Before.\n\n<Note>\n  Be **careful** with {props.value}.\n</Note>\n\n"
      "<Card title=\"x\" />\n\n<Tip>One line</Tip>\n\nAfter.\n\n"
      "<Tabs>\n  <Tab title=\"a\">\n    Inside a tab.\n  </Tab>\n</Tabs>\n\n"
      "```jsx\n<Note>code, not a component</Note>\n```\n\nPress <Kbd>K</Kbd> now.\n",
      "docs/page.mdx");
  ExpectInert(html);
  size_t note = html.find("<div class=\"mdx-component\" data-component=\"Note\">Note");
  ASSERT_NE(note, std::string::npos) << html;
  EXPECT_NE(html.find("<strong>careful</strong>", note), std::string::npos);
  EXPECT_NE(html.find("{props.value}"), std::string::npos) << "expressions stay as text";
  EXPECT_NE(html.find("<div class=\"mdx-component\" data-component=\"Card\">Card</div>"),
            std::string::npos)
      << html;
  size_t tip = html.find("data-component=\"Tip\">Tip<p>One line</p></div>");
  ASSERT_NE(tip, std::string::npos) << html;
  EXPECT_GT(html.find("<p>After.</p>"), tip) << "a one-line component closes where it ends";
  size_t tabs = html.find("data-component=\"Tabs\"");
  ASSERT_NE(tabs, std::string::npos);
  EXPECT_NE(html.find("data-component=\"Tab\">Tab<p>Inside a tab.</p></div></div>", tabs),
            std::string::npos)
      << "nested, and indented children are not code: " << html;
  EXPECT_NE(html.find("&lt;Note&gt;code, not a component&lt;/Note&gt;"), std::string::npos);
  EXPECT_NE(html.find("Press K now."), std::string::npos) << "inline JSX keeps its text";
}

TEST(PreviewTest, ImagesOfTheBranchAreInlinedWithinTheirBudgets) {
  const std::string png = std::string("\x89PNG\r\n\x1a\n", 8) + std::string(92, 'p');
  const std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>";
  std::map<std::string, std::string> files = {{"guide/img/a.png", png},
                                              {"images/logo.svg", svg},
                                              {"guide/big.png", std::string(5000, 'b')}};
  std::vector<std::string> asked;
  BlobLoader load = [&](const std::string& path, size_t max) -> std::optional<std::string> {
    asked.push_back(path);
    auto it = files.find(path);
    if (it == files.end() || it->second.size() > max) return std::nullopt;
    return it->second;
  };
  size_t budget = 1000;
  PreviewLimits limits{
      .max_html_bytes = 512 << 10, .max_image_bytes = 1024, .image_budget = &budget};
  std::string html = Preview(
      "![Alt \"a\"](img/a.png)\n\n![Logo](/images/logo.svg)\n\n![Too big](big.png)\n\n"
      "![Missing](nope.png)\n\n![Up](../../../etc/passwd.png)\n\n![Remote](https://example.com/"
      "x.png)\n",
      "guide/page.md", load, limits);
  ExpectInert(html);
  EXPECT_NE(html.find("<img src=\"data:image/png;base64," + Base64Encode(png) +
                      "\" alt=\"Alt &quot;a&quot;\" />"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<img src=\"data:image/svg+xml;base64," + Base64Encode(svg)),
            std::string::npos)
      << "a path from the site's root: " << html;
  EXPECT_NE(html.find("Too big"), std::string::npos);
  EXPECT_EQ(html.find("<img src=\"data:image/png;base64,YmJi"), std::string::npos)
      << "over max_image_bytes: its alt text";
  EXPECT_NE(html.find("Missing"), std::string::npos);
  EXPECT_NE(html.find("<img src=\"https://example.com/x.png\""), std::string::npos);
  for (const std::string& path : asked) EXPECT_EQ(path.find(".."), std::string::npos) << path;
  EXPECT_EQ(budget, 1000 - ("data:image/png;base64," + Base64Encode(png)).size() -
                        ("data:image/svg+xml;base64," + Base64Encode(svg)).size());

  // The shared budget spent, a later page's image is its alt text.
  budget = 50;
  std::string later = Preview("![Again](img/a.png)\n", "guide/page.md", load, limits);
  EXPECT_EQ(later.find("<img"), std::string::npos) << later;
  EXPECT_NE(later.find("Again"), std::string::npos);
  EXPECT_EQ(budget, 50u);
}

size_t Count(const std::string& html, std::string_view needle) {
  size_t n = 0;
  for (size_t i = html.find(needle); i != std::string::npos; i = html.find(needle, i + 1)) ++n;
  return n;
}

// cmark-gfm decodes "&#1;" to a raw \x01, the byte the markers are made of: a
// page that forges an image's marker many times must not repeat the image (it
// did, past any cap, until the process died), wherever the forgery sits.
TEST(PreviewTest, ForgedImageMarkersDoNotRepeatTheImage) {
  const std::string png = std::string("\x89PNG\r\n\x1a\n", 8) + std::string((100 << 10) - 8, 'p');
  BlobLoader load = [&](const std::string& path, size_t max) -> std::optional<std::string> {
    if (path != "guide/img/a.png" || png.size() > max) return std::nullopt;
    return png;
  };
  PreviewLimits limits{.max_html_bytes = 512 << 10, .max_image_bytes = 200 << 10};
  const char* forged[] = {"&#1;I0&#1;", "&#x1;I0&#x1;", "&#x01;I0&#x01;", "\x01I0\x01",
                          "&#1;I1&#1;"};
  std::string page = "![pic](img/a.png)\n\n";
  for (int i = 0; i < 10000; ++i) page += std::string(forged[i % 5]) + (i % 20 ? " " : "\n");
  page +=
      "\n\n[link](a.md \"&#1;I0&#1;\") [u](&#1;I0&#1;.md) ![web](https://e.example/x.png "
      "\"&#x1;I0&#x1;\")\n\n```&#1;I0&#1;\ncode &#1;I0&#1;\n```\n\n`&#1;I0&#1;`\n";
  for (std::string_view path : {"guide/page.md", "guide/page.mdx"}) {
    std::string html = Preview(page, path, load, limits);
    EXPECT_LE(html.size(), limits.max_html_bytes);
    EXPECT_EQ(Count(html, "<img src=\"data:image/png;base64,"), 1u) << path;
    EXPECT_NE(html.find("<img src=\"data:image/png;base64," + Base64Encode(png) + "\""),
              std::string::npos);
    EXPECT_EQ(html.find('\x01'), std::string::npos);
    EXPECT_EQ(html.find("preview-note"), std::string::npos) << "all of it fits: nothing is cut";
    EXPECT_GE(Count(html, "I0"), 8000u) << "the forged markers stay as their text";
    ExpectInert(html);
  }

  // The same image named many times is put in each time, but no further than
  // the cap: what is put in stops there, and the cut closes what is open.
  std::string many;
  for (int i = 0; i < 40; ++i) many += "- ![pic](img/a.png) &#1;I0&#1;\n";
  std::string html = Preview(many, "guide/page.md", load, limits);
  EXPECT_LE(html.size(), limits.max_html_bytes);
  EXPECT_GE(Count(html, "<img src=\"data:"), 1u);
  EXPECT_LE(Count(html, "<img src=\"data:"), limits.max_html_bytes / (Base64Encode(png).size()));
  EXPECT_NE(html.find("preview-note"), std::string::npos);
  ExpectInert(html);
}

// A forged placeholder's marker neither moves a component nor repeats it.
TEST(PreviewTest, ForgedComponentMarkersMoveNoPlaceholder) {
  std::string html = Preview(
      "Before &#1;C0&#1; and &#x1;C1&#x1; and \x01"
      "C2\x01 text.\n\n"
      "<Note>\n  inside note\n</Note>\n\n<Card title=\"c\" />\n\n"
      "<Tip>\n  In the tip &#1;C0&#1; &#x01;C1&#x01;\n</Tip>\n\nAfter.\n",
      "guide/page.mdx");
  ExpectInert(html);
  EXPECT_EQ(html.find('\x01'), std::string::npos);
  EXPECT_EQ(Count(html, "data-component=\"Note\""), 1u) << html;
  EXPECT_EQ(Count(html, "data-component=\"Card\""), 1u) << html;
  EXPECT_EQ(Count(html, "data-component=\"Tip\""), 1u) << html;
  size_t before = html.find("<p>Before ");
  size_t note =
      html.find("<div class=\"mdx-component\" data-component=\"Note\">Note<p>inside note");
  size_t card = html.find("<div class=\"mdx-component\" data-component=\"Card\">Card</div>");
  size_t tip = html.find("<div class=\"mdx-component\" data-component=\"Tip\">Tip<p>In the tip ");
  size_t after = html.find("<p>After.</p>");
  ASSERT_NE(before, std::string::npos) << html;
  ASSERT_NE(note, std::string::npos) << html;
  ASSERT_NE(card, std::string::npos) << html;
  ASSERT_NE(tip, std::string::npos) << html;
  ASSERT_NE(after, std::string::npos) << html;
  EXPECT_LT(before, note);
  EXPECT_LT(note, card);
  EXPECT_LT(card, tip);
  EXPECT_LT(tip, after);
  // The paragraph with the forgeries, and the tip, hold only text.
  EXPECT_EQ(html.substr(before, html.find("</p>", before) - before).find('<', 1), std::string::npos)
      << html;
  size_t tip_text = html.find("<p>", tip);
  EXPECT_EQ(html.substr(tip_text, html.find("</p>", tip_text) - tip_text).find('<', 1),
            std::string::npos)
      << html;
}

// Found by fuzz_preview: "javascript;alert(1)" names no scheme (';' cannot be
// in one), so it is a relative path, kept as any relative link; only a
// javascript: URL is refused.
TEST(PreviewTest, ARelativePathThatStartsLikeASchemeIsARelativeLink) {
  const std::string page =
      "<Tip>one</Tip> [j](javascript;alert(1)) [k](javascript:alert(1)) ![i](/images/x.svg)\n";
  size_t image_budget = 300;
  PreviewLimits limits;
  limits.image_budget = &image_budget;
  limits.max_image_bytes = 200;
  BlobLoader load = [](const std::string& path, size_t max) -> std::optional<std::string> {
    if (max < 100) return std::nullopt;
    return std::string(100, 'i');
  };
  std::string html = RenderPreviewHtml(page, "docs/page.mdx", load, limits, nullptr);
  EXPECT_NE(html.find("href=\"javascript;alert(1)\""), std::string::npos) << html;
  EXPECT_EQ(html.find("href=\"javascript:"), std::string::npos) << html;
  EXPECT_EQ(html.find('\x01'), std::string::npos) << html;
  ExpectInert(html);
}

TEST(PreviewTest, TheFrontmatterGoesAndItsTitleIsTheHeading) {
  std::string html =
      Preview("---\ntitle: Getting <started>\nsidebar_position: 3\n---\n\nBody text.\n");
  ExpectInert(html);
  EXPECT_TRUE(html.starts_with("<h1>Getting &lt;started&gt;</h1>")) << html;
  EXPECT_EQ(html.find("sidebar_position"), std::string::npos);
  EXPECT_NE(html.find("<p>Body text.</p>"), std::string::npos);
  EXPECT_EQ(Preview("---\nid: x\n---\nText\n").find("<h1>"), std::string::npos);
}

TEST(PreviewTest, AHugePageRendersWithinTheCap) {
  std::string page;
  while (page.size() < (10u << 20))
    page += "Some **words** of a [long](https://example.com) page.\n\n";
  auto start = std::chrono::steady_clock::now();
  std::string html = Preview(page, "guide/page.mdx");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
  EXPECT_LE(html.size(), size_t{512 << 10});
  EXPECT_GT(html.size(), size_t{400 << 10});
  EXPECT_NE(html.find("class=\"preview-note\""), std::string::npos);
  ExpectInert(html);

  PreviewLimits small{.max_html_bytes = 2000};
  std::string cut = RenderPreviewHtml(page, "p.md", {}, small, nullptr);
  EXPECT_LE(cut.size(), 2000u);
  ExpectInert(cut);
}

TEST(PreviewTest, DeepNestingDoesNotRecurseWithoutBound) {
  std::string jsx;
  for (int i = 0; i < 10000; ++i) jsx += "<Note>\n";
  jsx += "deep text\n";
  for (int i = 0; i < 10000; ++i) jsx += "</Note>\n";
  jsx += "\nAfter.\n";
  std::string html = Preview(jsx, "deep.mdx");
  ExpectInert(html);
  EXPECT_NE(html.find("deep text"), std::string::npos);
  EXPECT_NE(html.find("<p>After.</p>"), std::string::npos);

  std::string unclosed;
  for (int i = 0; i < 10000; ++i) unclosed += "<Tabs><Tab>\n";
  ExpectInert(Preview(unclosed, "deep.mdx"));

  std::string quotes(20000, '>');
  quotes += " deep\n";
  PreviewLimits small{.max_html_bytes = 4096};
  std::string html2 = RenderPreviewHtml(quotes, "q.md", {}, small, nullptr);
  EXPECT_LE(html2.size(), 4096u);
  ExpectInert(html2);
}

TEST(PreviewTest, ASpentBudgetStopsTheRendering) {
  WorkBudget tiny(WorkBudget::Limits{.steps = 5});
  std::string html = RenderPreviewHtml(kHostile, "a.md", {}, {}, &tiny);
  ExpectInert(html);
  EXPECT_NE(html.find("preview-note"), std::string::npos) << html;
}

TEST(PreviewTest, ADescriptionIsGitHubFlavouredAndLoadsNoImage) {
  std::string html = RenderMarkdownHtml(
      "Fixes ~~the~~ typo, see https://example.com/x.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n"
      "- [x] done\n- [ ] todo\n\n![local](a.png) <script>x</script> [bad](javascript:x)\n",
      nullptr);
  ExpectInert(html);
  EXPECT_NE(html.find("<del>the</del>"), std::string::npos) << html;
  EXPECT_NE(html.find("<a href=\"https://example.com/x\">"), std::string::npos);
  EXPECT_NE(html.find("<table>"), std::string::npos);
  EXPECT_NE(html.find("type=\"checkbox\""), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_NE(html.find("local"), std::string::npos);
  EXPECT_EQ(Lowered(html).find("<script"), std::string::npos);
}

TEST(PreviewTest, ADescriptionShowsRawHtmlAsItsText) {
  // An instruction quoted in a description, and the model's summary, are read
  // as written: their HTML is text, inline and as a block; a page's is left out.
  const char* kText =
      "> Write about <img src=x onerror=alert(1)> and <script>window.x=1</script> "
      "in `<Note>`\n\n<div onclick=\"alert(1)\">\n<iframe src=\"javascript:x\"></iframe>\n</div>\n";
  std::string html = RenderMarkdownHtml(kText, nullptr);
  ExpectInert(html);
  EXPECT_NE(html.find("<blockquote>\n<p>Write about &lt;img src=x onerror=alert(1)&gt; and "
                      "&lt;script&gt;window.x=1&lt;/script&gt; in <code>&lt;Note&gt;</code></p>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<pre><code>&lt;div onclick=&quot;alert(1)&quot;&gt;\n&lt;iframe"),
            std::string::npos)
      << html;
  EXPECT_EQ(html.find("raw HTML omitted"), std::string::npos) << html;

  std::string page = RenderPreviewHtml(kText, "a.md", {}, {}, nullptr);
  ExpectInert(page);
  EXPECT_EQ(page.find("&lt;script"), std::string::npos) << page;
  EXPECT_NE(page.find("raw HTML omitted"), std::string::npos) << page;
}

}  // namespace
}  // namespace docwright::docs
