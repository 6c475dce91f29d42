// Reading a page. CommonMark (code blocks and spans, links and images with their
// reference definitions, headings, raw HTML) is cmark-gfm's job; what is MDX's own
// (import/export blocks, JSX tags and their attributes, {/* */} comments) is read
// by one hand-written pass that blanks it out before cmark-gfm sees the text, so
// the text keeps its lines and every position is the file's.
#include <cmark-gfm.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <memory>

#include "core/text.h"
#include "docs/internal.h"

namespace docwright::docs {
namespace {

// cmark-gfm 0.29's bracket matching walks back over every unclosed opener each
// time a link closes, so "![[]()" repeated is quadratic (CVE-2023-22486). No real
// text nests more than a few brackets: deeper ones are read as text.
constexpr int kMaxOpenBrackets = 32;
constexpr size_t kMaxOpenTags = 1000;

void Blank(std::string& text, size_t begin, size_t end) {
  for (size_t i = begin; i < end && i < text.size(); ++i) {
    if (text[i] != '\n') text[i] = ' ';
  }
}

}  // namespace

std::optional<Fence> FenceOf(std::string_view line) {
  size_t i = 0;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
  if (i >= line.size() || (line[i] != '`' && line[i] != '~')) return std::nullopt;
  char marker = line[i];
  size_t j = i;
  while (j < line.size() && line[j] == marker) ++j;
  if (j - i < 3) return std::nullopt;
  std::string_view rest = line.substr(j);
  // "```js```" is inline code, not a fence: an info string has no backtick.
  if (marker == '`' && rest.find('`') != std::string_view::npos) return std::nullopt;
  return Fence{marker, j - i, IsBlank(rest)};
}

namespace {

// Line numbers of byte offsets, 1-based.
class LineIndex {
 public:
  explicit LineIndex(std::string_view text) {
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\n') breaks_.push_back(i);
    }
  }
  int LineOf(size_t offset) const {
    return 1 + static_cast<int>(std::lower_bound(breaks_.begin(), breaks_.end(), offset) -
                                breaks_.begin());
  }

 private:
  std::vector<size_t> breaks_;
};

}  // namespace

void BlankCodeSpans(std::string& text) {
  struct Run {
    size_t pos;
    size_t length;
    int paragraph;
  };
  std::vector<Run> runs;
  int paragraph = 0;
  bool line_blank = true;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') {
      if (line_blank) ++paragraph;
      line_blank = true;
      continue;
    }
    if (c != ' ' && c != '\t' && c != '\r') line_blank = false;
    if (c != '`') continue;
    size_t length = 0;
    while (i + length < text.size() && text[i + length] == '`') ++length;
    runs.push_back(Run{i, length, paragraph});
    i += length - 1;
  }
  std::vector<size_t> closer(runs.size(), runs.size());
  std::map<std::pair<int, size_t>, size_t> next_run;
  for (size_t k = runs.size(); k-- > 0;) {
    auto key = std::make_pair(runs[k].paragraph, runs[k].length);
    if (auto it = next_run.find(key); it != next_run.end()) closer[k] = it->second;
    next_run[key] = k;
  }
  for (size_t k = 0; k < runs.size();) {
    if (closer[k] == runs.size()) {
      ++k;
      continue;
    }
    const Run& close = runs[closer[k]];
    Blank(text, runs[k].pos, close.pos + close.length);
    k = closer[k] + 1;
  }
}

namespace {

// Blanks every `open` ... `close` of `text` (to its end when not closed) in each
// of `targets`.
void BlankBetween(const std::string& text, std::string_view open, std::string_view close,
                  std::initializer_list<std::string*> targets) {
  for (size_t i = text.find(open); i != std::string::npos; i = text.find(open, i)) {
    size_t end = text.find(close, i + open.size());
    end = end == std::string::npos ? text.size() : end + close.size();
    for (std::string* t : targets) Blank(*t, i, end);
    i = end;
  }
}

}  // namespace

MdxBlanked BlankMdxSyntax(std::string_view body,
                          const std::function<void(std::string_view, size_t)>& on_import) {
  MdxBlanked out{std::string(body), std::string(body)};
  FenceTracker fences;
  bool in_esm = false;
  bool after_blank = true;
  for (size_t pos = 0; pos < body.size();) {
    size_t start = pos;
    std::string_view line = LineFrom(body, pos, &pos);
    bool blank = IsBlank(line);
    if (fences.IsCode(line)) {
      Blank(out.prose, start, pos);
    } else if (in_esm ||
               (after_blank && (line.starts_with("import ") || line.starts_with("export ")))) {
      // MDX's import/export blocks are JavaScript, and run to a blank line.
      if (on_import && line.starts_with("import ")) on_import(line, start);
      in_esm = !blank;
      Blank(out.prose, start, pos);
      Blank(out.markdown, start, pos);
    }
    after_blank = blank;
  }
  BlankCodeSpans(out.prose);
  BlankBetween(out.prose, "{/*", "*/}", {&out.prose, &out.markdown});
  return out;
}

namespace {

// href="..." and src="..." in the text of an HTML or JSX tag.
void AttributeLinks(std::string_view tag, size_t offset, const LineIndex& lines, int first_line,
                    std::vector<PageLink>& out) {
  for (std::string_view attribute : {"href=", "src="}) {
    for (size_t i = tag.find(attribute);
         i != std::string_view::npos && out.size() < kMaxLinksPerPage;
         i = tag.find(attribute, i + 1)) {
      if (i == 0 || !std::isspace(static_cast<unsigned char>(tag[i - 1]))) continue;
      size_t q = i + attribute.size();
      if (q >= tag.size() || (tag[q] != '"' && tag[q] != '\'')) continue;
      size_t end = tag.find_first_of(std::string{tag[q], '\n'}, q + 1);
      if (end == std::string_view::npos || tag[end] != tag[q]) continue;
      out.push_back(PageLink{std::string(tag.substr(q + 1, end - q - 1)),
                             first_line - 1 + lines.LineOf(offset + i),
                             attribute == "src=" ? PageLink::Kind::kImage : PageLink::Kind::kLink});
    }
  }
}

bool IsVoidElement(std::string_view name) {
  for (std::string_view v : {"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
                             "meta", "source", "track", "wbr"}) {
    if (name == v) return true;
  }
  return false;
}

}  // namespace

size_t SkipBraces(std::string_view text, size_t i) {
  int depth = 0;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"' || c == '\'' || c == '`') {
      size_t end = text.find(c, i + 1);
      if (end == std::string_view::npos) return text.size();
      i = end;
    } else if (c == '{') {
      ++depth;
    } else if (c == '}' && --depth == 0) {
      return i + 1;
    }
  }
  return text.size();
}

std::optional<JsxTag> ScanJsxTag(std::string_view prose, size_t at) {
  const size_t n = prose.size();
  JsxTag tag;
  size_t i = at + 1;
  tag.closing = i < n && prose[i] == '/';
  if (tag.closing) ++i;
  size_t name_start = i;
  while (i < n && (std::isalnum(static_cast<unsigned char>(prose[i])) || prose[i] == '_' ||
                   prose[i] == '-' || prose[i] == '.' || prose[i] == ':')) {
    ++i;
  }
  tag.name = std::string(prose.substr(name_start, i - name_start));
  if (tag.name.empty() ? !(i < n && prose[i] == '>')
                       : !std::isalpha(static_cast<unsigned char>(tag.name[0]))) {
    return std::nullopt;  // "a < b", "<3": text
  }
  if (i < n && (prose[i] == '@' || (prose[i] == '/' && i + 1 < n && prose[i + 1] == '/'))) {
    return std::nullopt;  // an autolink
  }
  while (i < n) {
    char c = prose[i];
    if (c == '"' || c == '\'') {
      size_t end = prose.find(c, i + 1);
      i = end == std::string_view::npos ? n : end + 1;
    } else if (c == '{') {
      i = SkipBraces(prose, i);
    } else if (c == '/' && i + 1 < n && prose[i + 1] == '>') {
      tag.self_closing = tag.ended = true;
      i += 2;
      break;
    } else if (c == '>') {
      tag.ended = true;
      ++i;
      break;
    } else if (c == '<') {
      break;
    } else {
      ++i;
    }
  }
  tag.end = i;
  return tag;
}

namespace {

std::string TagName(const std::string& name) { return name.empty() ? "<>" : "<" + name + ">"; }
std::string ClosingTag(const std::string& name) { return "</" + name + ">"; }

// The JSX tags of MDX prose (`prose`: code already blanked): they must nest,
// every <Tag> closed by </Tag> or written <Tag />. Each tag is blanked in
// `markdown` (so cmark-gfm reads the Markdown around and inside it), and its
// href/src attributes are links.
void ReadTags(std::string_view prose, const LineIndex& lines, int first_line, std::string& markdown,
              Page& page, Budget& budget) {
  struct Open {
    std::string name;
    int line;
  };
  std::vector<Open> open;
  auto problem = [&](int line, std::string message) {
    page.syntax.push_back(LineProblem{line, std::move(message)});
  };
  for (size_t i = prose.find('<'); i != std::string_view::npos; i = prose.find('<', i)) {
    if (!budget.Spend()) return;
    size_t start = i;
    auto tag = ScanJsxTag(prose, start);
    if (!tag) {
      ++i;  // text
      continue;
    }
    i = tag->end;
    const bool closing = tag->closing, self_closing = tag->self_closing, ended = tag->ended;
    const std::string& name = tag->name;
    int line = first_line - 1 + lines.LineOf(start);
    if (!ended) {
      problem(line, "tag " + (closing ? ClosingTag(name) : TagName(name)) + " is not ended with >");
      continue;
    }
    page.empty = false;
    AttributeLinks(prose.substr(start, i - start), start, lines, first_line, page.links);
    if (!closing) ReadHtmlAnchors(prose.substr(start, i - start), page.anchors, &page.anchors_open);
    Blank(markdown, start, i);
    if (closing) {
      if (!budget.Spend(open.size())) return;
      auto match =
          std::find_if(open.rbegin(), open.rend(), [&](const Open& o) { return o.name == name; });
      if (match == open.rend()) {
        problem(line, ClosingTag(name) + " has no matching opening tag");
        continue;
      }
      for (auto it = open.rbegin(); it != match; ++it) {
        problem(it->line, TagName(it->name) + " is not closed before " + ClosingTag(name) +
                              " on line " + std::to_string(line));
      }
      open.erase(match.base() - 1, open.end());
    } else if (!self_closing) {
      if (IsVoidElement(name)) {
        problem(line, TagName(name) + " must be self-closing in MDX: write <" + name + " />");
      } else if (open.size() < kMaxOpenTags) {
        open.push_back(Open{name, line});
      }
    }
  }
  for (const Open& o : open) {
    problem(o.line, TagName(o.name) + " is never closed: add " + ClosingTag(o.name) +
                        (o.name.empty() ? "" : " or write it as <" + o.name + " />"));
  }
}

// The module an MDX import line names ("import X from './x.mdx'",
// "import './style.css'"), "" when there is none on this line.
std::string ImportSource(std::string_view line) {
  size_t from = line.rfind(" from ");
  std::string_view rest = from == std::string_view::npos ? line.substr(6) : line.substr(from + 6);
  rest = Trim(rest);
  if (rest.empty() || (rest[0] != '"' && rest[0] != '\'')) return "";
  size_t end = rest.find(rest[0], 1);
  if (end == std::string_view::npos) return "";
  return std::string(rest.substr(1, end - 1));
}

// MDX's own syntax, read and blanked from `body` so that what remains is
// Markdown: import/export blocks (their imports are links to check), {/* */}
// comments, JSX tags (balanced, their href/src are links). Leading whitespace is
// dropped from every line: MDX has no indented code blocks, and JSX children
// are indented.
std::string PrepareMdx(std::string_view body, int first_line, Page& page, Budget& budget) {
  LineIndex lines(body);
  MdxBlanked blanked = BlankMdxSyntax(body, [&](std::string_view line, size_t offset) {
    page.anchors_open = true;  // what it imports may render headings
    std::string source = ImportSource(line);
    if (!source.empty() && page.links.size() < kMaxLinksPerPage) {
      page.links.push_back(PageLink{std::move(source), first_line - 1 + lines.LineOf(offset),
                                    PageLink::Kind::kImport});
    }
  });
  if (!budget.Spend(body.size() / 64 + 1)) return "";
  std::string& markdown = blanked.markdown;
  std::string& prose = blanked.prose;
  BlankBetween(prose, "<!--", "-->", {&prose});
  ReadTags(prose, lines, first_line, markdown, page, budget);

  std::string dedented;
  dedented.reserve(markdown.size());
  bool at_line_start = true;
  for (char c : markdown) {
    if (at_line_start && (c == ' ' || c == '\t')) continue;
    at_line_start = c == '\n';
    dedented += c;
  }
  return dedented;
}

}  // namespace

void DefuseQuadraticInputs(std::string& text) {
  std::string code(text);
  BlankCodeSpans(code);  // same offsets; code spans are blanks
  int open = 0;
  bool line_blank = true;
  for (size_t i = 0; i < code.size(); ++i) {
    char c = code[i];
    if (c == '\n') {
      if (line_blank) open = 0;  // a paragraph never spans a blank line
      line_blank = true;
      continue;
    }
    if (c != ' ' && c != '\t' && c != '\r') line_blank = false;
    if (c == '\\') {
      ++i;
    } else if (c == '[') {
      if (open >= kMaxOpenBrackets) {
        text[i] = ' ';
      } else {
        ++open;
      }
    } else if (c == ']' && open > 0) {
      --open;
    }
  }
  for (auto [opener, closer] :
       {std::pair<std::string_view, std::string_view>{"<?", "?>"}, {"<![CDATA[", "]]>"}}) {
    size_t last_end = text.rfind(closer);
    size_t from = last_end == std::string::npos ? 0 : last_end + closer.size();
    for (size_t at = text.find(opener, from); at != std::string::npos;
         at = text.find(opener, at + 1)) {
      text[at] = ' ';
    }
  }
}

namespace {

struct CmarkNodeDeleter {
  void operator()(cmark_node* node) const { cmark_node_free(node); }
};
struct CmarkIterDeleter {
  void operator()(cmark_iter* iter) const { cmark_iter_free(iter); }
};

// Whether `line` closes a code block opened by `length` times `marker`.
bool ClosesFence(std::string_view line, char marker, int length) {
  // Inside a block quote or list the line carries the container's marks.
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t' || line.front() == '>')) {
    line.remove_prefix(1);
  }
  std::optional<Fence> fence = FenceOf(line);
  return fence && fence->marker == marker && fence->length >= static_cast<size_t>(length) &&
         fence->bare;
}

// The lines of a text by number (the first is 1), for what cmark-gfm does not
// say of a block: how its last line reads. `text` outlives it.
class SourceLines {
 public:
  explicit SourceLines(const std::string& text) : text_(text) {
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\n') starts_.push_back(i + 1);
    }
    last_ = static_cast<int>(starts_.size());
    while (last_ > 1 && IsBlank(Line(last_))) --last_;
  }

  // Line `line`; empty if there is none.
  std::string_view Line(int line) const {
    if (line < 1 || static_cast<size_t>(line) > starts_.size()) return {};
    size_t next;
    return LineFrom(text_, starts_[line - 1], &next);
  }
  // The last line that is not blank (1 if none is).
  int last() const { return last_; }

 private:
  const std::string& text_;
  std::vector<size_t> starts_ = {0};
  int last_ = 1;
};

// A link's or an image's target, while the page has room for them.
void ReadLinkNode(cmark_node* node, cmark_node_type type, int line, Page& page) {
  const char* url = cmark_node_get_url(node);
  if (!url || !*url) return;
  if (page.links.size() >= kMaxLinksPerPage) {
    page.links_truncated = true;
    return;
  }
  page.links.push_back(PageLink{
      url, line, type == CMARK_NODE_IMAGE ? PageLink::Kind::kImage : PageLink::Kind::kLink});
}

// Raw HTML's links and anchors. In MDX the tags were read before; what is left
// is HTML comments.
void ReadHtmlNode(cmark_node* node, int line, bool mdx, Page& page) {
  if (mdx) return;
  const char* literal = cmark_node_get_literal(node);
  if (!literal) return;
  std::string_view html(literal);
  LineIndex lines(html);
  AttributeLinks(html, 0, lines, line, page.links);
  ReadHtmlAnchors(html, page.anchors, &page.anchors_open);
}

// A fenced code block that runs to the end of the text without its closing
// fence (cmark-gfm closes it there silently): a syntax problem at `line`.
void CheckFenceClosed(cmark_node* node, int line, const SourceLines& source, Page& page) {
  int length = 0, indent = 0;
  char marker = 0;
  if (!cmark_node_get_fenced(node, &length, &indent, &marker)) return;
  int end = cmark_node_get_end_line(node);
  int start = cmark_node_get_start_line(node);
  if (end >= source.last() && (end == start || !ClosesFence(source.Line(end), marker, length))) {
    page.syntax.push_back(
        LineProblem{line, "code block opened here is never closed: add a closing " +
                              std::string(std::max(length, 3), marker) + " line"});
  }
}

// The headings' ids and texts, once all their text is read.
void FinishHeadings(Page& page, bool mdx) {
  for (Heading& h : page.headings) {
    h.id = TakeExplicitId(h.slug_text);
    // In MDX a JSX tag in a heading was blanked to spaces, and the framework
    // makes its id of the tag's text: the id is not known here.
    if (mdx && h.slug_text.find("   ") != std::string::npos) page.anchors_open = true;
    std::string text = h.slug_text.substr(0, 2 * kMaxTitleLength);
    while (!text.empty() && text.back() == '#') text.pop_back();
    h.text = CleanLine(text, kMaxTitleLength);
  }
}

// The links, headings and code blocks of Markdown `text`, whose first line is
// line `first_line` of the file.
void ReadMarkdown(const std::string& text, int first_line, bool mdx, Page& page, Budget& budget) {
  if (!budget.Spend(text.size() / 64 + 1)) return;
  // SOURCEPOS: without it cmark-gfm does not count the line breaks inside code
  // spans, raw HTML and link titles, and the links after them get wrong lines.
  std::unique_ptr<cmark_node, CmarkNodeDeleter> doc(
      cmark_parse_document(text.data(), text.size(), CMARK_OPT_FOOTNOTES | CMARK_OPT_SOURCEPOS));
  if (!doc) return;
  const SourceLines source(text);
  const int offset = first_line - 1;

  std::unique_ptr<cmark_iter, CmarkIterDeleter> iter(cmark_iter_new(doc.get()));
  Heading* heading = nullptr;
  cmark_event_type event;
  while ((event = cmark_iter_next(iter.get())) != CMARK_EVENT_DONE) {
    if (!budget.Spend()) return;
    cmark_node* node = cmark_iter_get_node(iter.get());
    cmark_node_type type = cmark_node_get_type(node);
    if (event == CMARK_EVENT_EXIT) {
      if (type == CMARK_NODE_HEADING) heading = nullptr;
      continue;
    }
    if (type != CMARK_NODE_DOCUMENT) page.empty = false;
    int line = offset + cmark_node_get_start_line(node);
    switch (type) {
      case CMARK_NODE_LINK:
      case CMARK_NODE_IMAGE:
        ReadLinkNode(node, type, line, page);
        break;
      case CMARK_NODE_HTML_BLOCK:
      case CMARK_NODE_HTML_INLINE:
        ReadHtmlNode(node, line, mdx, page);
        break;
      case CMARK_NODE_HEADING:
        page.headings.push_back(Heading{cmark_node_get_heading_level(node), line, ""});
        heading = &page.headings.back();
        break;
      case CMARK_NODE_TEXT:
      case CMARK_NODE_CODE: {
        const char* literal = cmark_node_get_literal(node);
        if (!literal) break;
        if (!heading) {
          // attr_list's "{: #id }" after a block, or "{#id}" after a span.
          if (type == CMARK_NODE_TEXT && std::strchr(literal, '{')) {
            ReadAttrListIds(literal, page.anchors, &page.anchors_open);
          }
        } else if (heading->slug_text.size() < kMaxHeadingBytes) {
          heading->slug_text += literal;
        } else {
          page.anchors_open = true;  // its id is made of text not kept
        }
        break;
      }
      case CMARK_NODE_SOFTBREAK:
      case CMARK_NODE_LINEBREAK:
        if (heading) heading->slug_text += '\n';  // a setext heading's lines
        break;
      case CMARK_NODE_CODE_BLOCK:
        CheckFenceClosed(node, line, source, page);
        break;
      default:
        break;
    }
  }
  FinishHeadings(page, mdx);
}

}  // namespace

Frontmatter SplitFrontmatter(std::string_view text) {
  Frontmatter fm;
  size_t pos = text.starts_with("\xEF\xBB\xBF") ? 3 : 0;
  fm.body = pos;
  if (pos >= text.size()) return fm;
  auto delimiter = [](std::string_view line, std::string_view d) {
    return TrimRight(line, " \t") == d;
  };
  size_t next;
  if (!delimiter(LineFrom(text, pos, &next), "---")) return fm;
  fm.present = true;
  size_t start = next;
  int line = 2;
  for (size_t p = start; p < text.size(); ++line) {
    size_t after;
    std::string_view l = LineFrom(text, p, &after);
    if (delimiter(l, "---") || delimiter(l, "...")) {
      fm.closed = true;
      fm.yaml = text.substr(start, p - start);
      fm.body = after;
      fm.body_line = line + 1;
      return fm;
    }
    p = after;
  }
  fm.yaml = text.substr(start);
  fm.body = text.size();
  fm.body_line = line;
  return fm;
}

Page ReadPage(std::string_view text, bool mdx, Budget& budget) {
  Page page;
  page.frontmatter = SplitFrontmatter(text);
  const Frontmatter& fm = page.frontmatter;
  if (fm.present && !fm.closed) {
    // Everything after it is frontmatter: nothing else can be read.
    page.syntax.push_back(
        LineProblem{1, "frontmatter is not closed: add a line with --- after it"});
    page.empty = false;
    return page;
  }
  std::string_view body = text.substr(fm.body);
  int first_line = fm.present ? fm.body_line : 1;
  std::string markdown = mdx ? PrepareMdx(body, first_line, page, budget) : std::string(body);
  // cmark-gfm ends a line at a lone CR too; the checks number lines by LF, as
  // the agent's file tools do, so a lone CR is a space here.
  for (size_t i = 0; i < markdown.size(); ++i) {
    if (markdown[i] == '\r' && (i + 1 == markdown.size() || markdown[i + 1] != '\n')) {
      markdown[i] = ' ';
    }
  }
  DefuseQuadraticInputs(markdown);
  ReadMarkdown(markdown, first_line, mdx, page, budget);
  std::stable_sort(page.links.begin(), page.links.end(),
                   [](const PageLink& a, const PageLink& b) { return a.line < b.line; });
  return page;
}

std::string TitleOf(std::string_view text, bool mdx, Budget& budget) {
  Frontmatter fm = SplitFrontmatter(text);
  if (fm.present && fm.closed) {
    if (std::optional<std::string> simple = SimpleTitle(fm.yaml)) {
      std::string title = CleanLine(*simple, kMaxTitleLength);
      if (!title.empty()) return title;
    }
    if (std::optional<YAML::Node> node = ParseYaml(fm.yaml)) {
      std::string title = CleanLine(YamlString(*node, "title"), kMaxTitleLength);
      if (!title.empty()) return title;
    }
  }
  Page page = ReadPage(text, mdx, budget);
  for (const Heading& h : page.headings) {
    if (h.level == 1) return h.text;
  }
  return "";
}

}  // namespace docwright::docs
