// Previews of pages as sanitised HTML (preview.h). The page is split into
// segments (the page, and each MDX component placeholder) in one pass without
// recursion; each segment's Markdown is parsed once by cmark-gfm, its links and
// images checked on the tree, rendered without raw HTML, and the placeholders
// and inlined images put in where their markers are. A marker is text: \x01,
// its kind, a nonce drawn for each rendering, its index, \x01. No page can
// forge one: raw \x01 is taken out of the input, every other \x01 (cmark-gfm
// decodes "&#1;" and the like) out of the parsed tree, and the nonce is unknown.
#include "docs/preview.h"

#include <cmark-gfm-core-extensions.h>
#include <cmark-gfm-extension_api.h>
#include <cmark-gfm.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <map>
#include <memory>
#include <vector>

#include "core/ids.h"
#include "core/text.h"
#include "core/work_budget.h"
#include "docs/internal.h"

namespace docwright::docs {
namespace {

// The text read for a preview: a multiple of the HTML allowed, as Markdown
// rarely renders to less than a quarter of its size; the rest could not be shown.
constexpr size_t kInputPerHtmlByte = 4;
constexpr size_t kMinInputBytes = 64 << 10;
// What one preview may spend (nodes, bytes / 64), whatever the caller's budget.
constexpr uint64_t kMaxPreviewSteps = 4000000;
// Placeholders nest this deep; deeper components are shown as their text.
constexpr size_t kMaxComponentDepth = 8;
constexpr size_t kMaxComponents = 1000;
constexpr size_t kMaxComponentNameBytes = 64;
// Images read from the branch for one page (each read costs a blob lookup).
constexpr size_t kMaxImageLoads = 64;
// A table's cells (its columns times its rows): cmark-gfm 0.29 fills every
// short row up to the header's width, so a wide header over many one-cell rows
// would make a tree quadratic in the text.
constexpr size_t kMaxTableCells = 50000;
constexpr char kMarker = '\x01';
// A marker's nonce is hex: no character of it is special to cmark-gfm (the
// autolink extension's 'w' would be), so a placeholder's marker stays one text node.
constexpr size_t kNonceBytes = 16;

const char kCutNote[] =
    "<p class=\"preview-note\">The preview stops here: the page is too long.</p>";
const char kSpentNote[] =
    "<p class=\"preview-note\">The preview stops here: the page took too much work to "
    "render.</p>";

// `text` escaped for HTML, without \x01 (only markers hold it).
void AppendEscaped(std::string_view text, std::string& out) {
  std::string clean(text);
  std::erase(clean, kMarker);
  out += HtmlEscape(clean);
}

std::string Marker(char kind, size_t index, std::string_view nonce) {
  return std::string(1, kMarker) + kind + std::string(nonce) + std::to_string(index) + kMarker;
}

// The size of the marker of this rendering (`nonce`) at the start of `s`, or 0.
size_t MarkerAt(std::string_view s, std::string_view nonce) {
  size_t i = 2 + nonce.size();
  if (s.size() < i + 2 || s[0] != kMarker || (s[1] != 'I' && s[1] != 'C') ||
      s.substr(2, nonce.size()) != nonce) {
    return 0;
  }
  size_t first_digit = i;
  while (i < s.size() && i - first_digit < 9 && std::isdigit(static_cast<unsigned char>(s[i]))) {
    ++i;
  }
  return i > first_digit && i < s.size() && s[i] == kMarker ? i + 1 : 0;
}

// `value` without \x01, but for the markers of this rendering when `keep_ours`;
// nullopt when it holds none.
std::optional<std::string> WithoutForgedMarkers(const char* value, std::string_view nonce,
                                                bool keep_ours) {
  if (!value || !std::strchr(value, kMarker)) return std::nullopt;
  std::string_view v(value);
  std::string out;
  for (size_t i = 0; i < v.size();) {
    size_t ours = keep_ours && v[i] == kMarker ? MarkerAt(v.substr(i), nonce) : 0;
    if (ours > 0) {
      out.append(v.substr(i, ours));
      i += ours;
    } else {
      if (v[i] != kMarker) out += v[i];
      ++i;
    }
  }
  return out;
}

// Takes every \x01 but our markers out of what `node` renders: its text (the
// placeholders' markers are text of the segment), code, URL, title and info
// string, where cmark-gfm has decoded entities such as "&#1;".
void DropForgedMarkers(cmark_node* n, std::string_view nonce) {
  bool text = cmark_node_get_type(n) == CMARK_NODE_TEXT;
  if (auto v = WithoutForgedMarkers(cmark_node_get_literal(n), nonce, text)) {
    cmark_node_set_literal(n, v->c_str());
  }
  if (auto v = WithoutForgedMarkers(cmark_node_get_url(n), nonce, false)) {
    cmark_node_set_url(n, v->c_str());
  }
  if (auto v = WithoutForgedMarkers(cmark_node_get_title(n), nonce, false)) {
    cmark_node_set_title(n, v->c_str());
  }
  if (auto v = WithoutForgedMarkers(cmark_node_get_fence_info(n), nonce, false)) {
    cmark_node_set_fence_info(n, v->c_str());
  }
}

// --- URLs ------------------------------------------------------------------------

enum class UrlKind { kRejected, kWeb, kMail, kAnchor, kRelative };

// What a browser would make of `url`: it drops tabs and line breaks anywhere
// and control characters and spaces at either end, and a scheme is what comes
// before the first ':' that precedes any '/', '?' or '#'. Only http(s) and
// mailto are schemes allowed; anything unusual is refused.
UrlKind ClassifyUrl(std::string_view url) {
  std::string u;
  for (char c : url) {
    if (c != '\t' && c != '\n' && c != '\r') u += c;
  }
  size_t b = 0, e = u.size();
  while (b < e && static_cast<unsigned char>(u[b]) <= 0x20) ++b;
  while (e > b && static_cast<unsigned char>(u[e - 1]) <= 0x20) --e;
  std::string_view v = std::string_view(u).substr(b, e - b);
  if (v.empty()) return UrlKind::kRejected;
  if (v.front() == '#') return UrlKind::kAnchor;
  size_t stop = v.find_first_of(":/?#\\");
  if (stop == std::string_view::npos || v[stop] != ':') return UrlKind::kRelative;
  std::string scheme = Lower(v.substr(0, stop));
  if (scheme == "http" || scheme == "https") return UrlKind::kWeb;
  if (scheme == "mailto") return UrlKind::kMail;
  return UrlKind::kRejected;
}

std::optional<std::string> ImageType(std::string_view path) {
  std::string ext = Extension(path);
  if (ext == ".png") return "image/png";
  if (ext == ".jpg" || ext == ".jpeg") return "image/jpeg";
  if (ext == ".gif") return "image/gif";
  if (ext == ".webp") return "image/webp";
  if (ext == ".svg") return "image/svg+xml";
  return std::nullopt;
}

std::string PercentDecode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && HexDigitValue(s[i + 1]) >= 0 &&
        HexDigitValue(s[i + 2]) >= 0) {
      out += static_cast<char>(HexDigitValue(s[i + 1]) * 16 + HexDigitValue(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

// --- One rendering ---------------------------------------------------------------

struct CmarkParserDeleter {
  void operator()(cmark_parser* p) const { cmark_parser_free(p); }
};
struct CmarkNodeDeleter {
  void operator()(cmark_node* n) const { cmark_node_free(n); }
};
struct CmarkIterDeleter {
  void operator()(cmark_iter* i) const { cmark_iter_free(i); }
};

// What the segments of one preview share.
struct Context {
  std::string_view page_dir;
  const BlobLoader* load = nullptr;  // null: no image is loaded
  PreviewLimits limits;
  WorkBudget* budget = nullptr;
  std::map<std::string, std::optional<std::string>> images;  // path -> data: URI, read once
  size_t loads = 0;
  std::vector<std::string> components;  // rendered placeholders, by marker index
  // A description's raw HTML is shown as its text (a page's is left out): it
  // comes from an instruction or the model's summary, which a reviewer reads
  // as written.
  bool raw_html_as_text = false;
  std::string nonce;  // in every marker of this rendering
};

// A table whose delimiter row would make more than kMaxTableCells cells (its
// columns times the lines up to the next blank one) is not a table: its
// delimiter row's pipes become spaces. Linear: the runs of lines are counted
// once, from the end.
void DefuseWideTables(std::string& text) {
  struct Line {
    size_t begin, end;
    bool blank;
  };
  std::vector<Line> lines;
  for (size_t pos = 0; pos < text.size();) {
    size_t next;
    std::string_view line = LineFrom(text, pos, &next);
    lines.push_back(Line{pos, pos + line.size(), IsBlank(line)});
    pos = next;
  }
  size_t run = 0;  // non-blank lines from the one after the current one
  for (size_t k = lines.size(); k-- > 0;) {
    std::string_view line(text.data() + lines[k].begin, lines[k].end - lines[k].begin);
    bool delimiter = line.find('-') != std::string_view::npos &&
                     line.find('|') != std::string_view::npos &&
                     line.find_first_not_of("|:- \t\r") == std::string_view::npos;
    if (delimiter) {
      size_t columns = std::count(line.begin(), line.end(), '|') + 1;
      if (run > kMaxTableCells / columns) {
        std::replace(text.begin() + lines[k].begin, text.begin() + lines[k].end, '|', ' ');
      }
    }
    run = lines[k].blank ? 0 : run + 1;
  }
}

// The plain text of `node`'s inlines (an image's description).
std::string PlainText(cmark_node* node, WorkBudget& budget) {
  std::string out;
  std::unique_ptr<cmark_iter, CmarkIterDeleter> it(cmark_iter_new(node));
  cmark_event_type ev;
  while ((ev = cmark_iter_next(it.get())) != CMARK_EVENT_DONE &&
         budget.Charge(WorkBudget::Meter::kSteps)) {
    if (ev != CMARK_EVENT_ENTER) continue;
    cmark_node* n = cmark_iter_get_node(it.get());
    cmark_node_type t = cmark_node_get_type(n);
    if (t == CMARK_NODE_TEXT || t == CMARK_NODE_CODE) {
      if (const char* literal = cmark_node_get_literal(n)) out += literal;
    }
  }
  return out;
}

// The path of the branch an image's URL names, relative to the page; nullopt if
// it climbs out of the repository.
std::vector<std::string> ImagePaths(std::string_view url, std::string_view page_dir) {
  std::string_view v = url.substr(0, url.find_first_of("?#"));
  std::string path = PercentDecode(v);
  std::vector<std::string> out;
  if (path.starts_with("/")) {
    for (std::string_view root : {"", "static", "public"}) {
      if (auto p = Normalize(Join(root, std::string_view(path).substr(1)))) out.push_back(*p);
    }
  } else if (auto p = Normalize(Join(page_dir, path))) {
    out.push_back(*p);
  }
  return out;
}

// The data: URI of the branch's image at `url`, charged to the image budget;
// nullopt when it is not one of the branch's images, or not within the limits.
std::optional<std::string> InlineImage(std::string_view url, Context& ctx) {
  if (!ctx.load || !*ctx.load) return std::nullopt;
  for (const std::string& path : ImagePaths(url, ctx.page_dir)) {
    std::optional<std::string> type = ImageType(path);
    if (!type) return std::nullopt;
    auto cached = ctx.images.find(path);
    if (cached == ctx.images.end()) {
      if (ctx.loads >= kMaxImageLoads) return std::nullopt;
      ++ctx.loads;
      size_t max = ctx.limits.max_image_bytes;
      if (ctx.limits.image_budget) max = std::min(max, *ctx.limits.image_budget / 4 * 3);
      std::optional<std::string> bytes = (*ctx.load)(path, max);
      std::optional<std::string> uri;
      if (bytes && bytes->size() <= max) uri = "data:" + *type + ";base64," + Base64Encode(*bytes);
      cached = ctx.images.emplace(path, std::move(uri)).first;
      if (!ctx.budget->Charge(WorkBudget::Meter::kBytesRead, bytes ? bytes->size() : 0)) {
        return std::nullopt;
      }
    }
    if (!cached->second) continue;
    const std::string& uri = *cached->second;
    if (ctx.limits.image_budget) {
      if (*ctx.limits.image_budget < uri.size()) return std::nullopt;
      *ctx.limits.image_budget -= uri.size();
    }
    return uri;
  }
  return std::nullopt;
}

// Puts a link's children where it is, then frees it. Never frees another node
// (the caller holds pointers to some): if a child cannot move, the link stays,
// its URL emptied.
void Unwrap(cmark_node* link) {
  while (cmark_node* child = cmark_node_first_child(link)) {
    if (!cmark_node_insert_before(link, child)) {
      cmark_node_set_url(link, "");
      return;
    }
  }
  cmark_node_free(link);
}

// Replaces an image by a text node of `text` (if it cannot, the image stays,
// its URL emptied).
void ReplaceWithText(cmark_node* image, const std::string& text) {
  cmark_node* t = cmark_node_new(CMARK_NODE_TEXT);
  cmark_node_set_literal(t, text.c_str());
  if (!cmark_node_insert_before(image, t)) {
    cmark_node_free(t);
    cmark_node_set_url(image, "");
    return;
  }
  cmark_node_free(image);
}

// Replaces a raw HTML node by its source as text: an inline one by a text node,
// a block by a code block. If it cannot, the node stays (and is left out).
void ShowAsText(cmark_node* html) {
  const char* literal = cmark_node_get_literal(html);
  bool block = cmark_node_get_type(html) == CMARK_NODE_HTML_BLOCK;
  cmark_node* t = cmark_node_new(block ? CMARK_NODE_CODE_BLOCK : CMARK_NODE_TEXT);
  cmark_node_set_literal(t, literal ? literal : "");
  if (!cmark_node_insert_before(html, t)) {
    cmark_node_free(t);
    return;
  }
  cmark_node_free(html);
}

// Puts each marker of `html` in, each once: a placeholder (alone in its
// paragraph, the paragraph goes) or an inlined image; a marker inside a tag (none
// can be: markers are text) and any other \x01 are dropped. Stops once the output
// passes max_html_bytes (the caller cuts it there); what is put in is charged.
std::string PutMarkersIn(const std::string& html, std::vector<std::string>& images, Context& ctx) {
  std::string out;
  out.reserve(std::min(html.size(), ctx.limits.max_html_bytes + 1));
  bool in_tag = false;
  for (size_t i = 0; i < html.size() && out.size() <= ctx.limits.max_html_bytes; ++i) {
    char c = html[i];
    if (c != kMarker) {
      if (c == '<') in_tag = true;
      if (c == '>') in_tag = false;
      out += c;
      continue;
    }
    size_t size = MarkerAt(std::string_view(html).substr(i), ctx.nonce);
    if (size == 0) continue;  // a stray \x01: dropped
    size_t end = i + size - 1, index = 0;
    for (size_t k = i + 2 + ctx.nonce.size(); k < end; ++k) index = index * 10 + (html[k] - '0');
    std::string* piece = nullptr;
    bool paragraph = false;
    if (!in_tag && html[i + 1] == 'I' && index < images.size()) {
      piece = &images[index];
    } else if (!in_tag && html[i + 1] == 'C' && index < ctx.components.size()) {
      piece = &ctx.components[index];
      paragraph =
          out.ends_with("<p>") && std::string_view(html).substr(end + 1).starts_with("</p>");
    }
    if (piece && ctx.budget->Charge(WorkBudget::Meter::kSteps, piece->size() / 64 + 1)) {
      if (paragraph) out.resize(out.size() - 3);
      out += *piece;
      std::string().swap(*piece);  // each is put in once
      if (paragraph) end += 4;
    }
    i = end;
  }
  return out;
}

// `markdown` as sanitised HTML, its markers put in.
std::string RenderSegment(std::string markdown, Context& ctx) {
  WorkBudget& budget = *ctx.budget;
  if (!budget.Charge(WorkBudget::Meter::kSteps, markdown.size() / 64 + 1)) return "";
  DefuseQuadraticInputs(markdown);
  DefuseWideTables(markdown);

  static const bool registered = [] {
    cmark_gfm_core_extensions_ensure_registered();
    return true;
  }();
  (void)registered;
  const int options = CMARK_OPT_DEFAULT | CMARK_OPT_VALIDATE_UTF8;  // never CMARK_OPT_UNSAFE
  std::unique_ptr<cmark_parser, CmarkParserDeleter> parser(cmark_parser_new(options));
  for (const char* name : {"table", "strikethrough", "autolink", "tasklist"}) {
    if (cmark_syntax_extension* ext = cmark_find_syntax_extension(name)) {
      cmark_parser_attach_syntax_extension(parser.get(), ext);
    }
  }
  cmark_parser_feed(parser.get(), markdown.data(), markdown.size());
  std::unique_ptr<cmark_node, CmarkNodeDeleter> doc(cmark_parser_finish(parser.get()));
  if (!doc) return "";

  // Links, the outermost images and raw HTML, found first: the tree changes after.
  std::vector<cmark_node*> links, images, raw_html;
  {
    std::unique_ptr<cmark_iter, CmarkIterDeleter> it(cmark_iter_new(doc.get()));
    int in_image = 0;
    cmark_event_type ev;
    while ((ev = cmark_iter_next(it.get())) != CMARK_EVENT_DONE) {
      if (!budget.Charge(WorkBudget::Meter::kSteps)) return "";
      cmark_node* n = cmark_iter_get_node(it.get());
      if (ev == CMARK_EVENT_ENTER) DropForgedMarkers(n, ctx.nonce);
      cmark_node_type t = cmark_node_get_type(n);
      if (t == CMARK_NODE_IMAGE) {
        if (ev == CMARK_EVENT_ENTER && in_image++ == 0) images.push_back(n);
        if (ev == CMARK_EVENT_EXIT) --in_image;
      } else if (t == CMARK_NODE_LINK && ev == CMARK_EVENT_ENTER) {
        links.push_back(n);
      } else if (t == CMARK_NODE_HTML_INLINE || t == CMARK_NODE_HTML_BLOCK) {
        if (ctx.raw_html_as_text) raw_html.push_back(n);
      }
    }
  }
  // First: an image freed below may hold some of these.
  for (cmark_node* html : raw_html) ShowAsText(html);
  for (cmark_node* link : links) {
    const char* url = cmark_node_get_url(link);
    if (ClassifyUrl(url ? url : "") == UrlKind::kRejected) Unwrap(link);
  }
  std::vector<std::string> image_html;
  for (cmark_node* image : images) {
    const char* raw = cmark_node_get_url(image);
    std::string url = raw ? raw : "";
    UrlKind kind = ClassifyUrl(url);
    if (kind == UrlKind::kWeb) continue;  // kept; the pages' policy decides whether it loads
    std::string alt = PlainText(image, budget);
    std::optional<std::string> uri;
    if (kind == UrlKind::kRelative) uri = InlineImage(url, ctx);
    if (!uri) {
      ReplaceWithText(image, alt);
      continue;
    }
    std::string tag = "<img src=\"" + *uri + "\" alt=\"";
    AppendEscaped(alt, tag);
    if (const char* title = cmark_node_get_title(image); title && *title) {
      tag += "\" title=\"";
      AppendEscaped(title, tag);
    }
    tag += "\" />";
    ReplaceWithText(image, Marker('I', image_html.size(), ctx.nonce));
    image_html.push_back(std::move(tag));
  }

  char* rendered =
      cmark_render_html(doc.get(), options, cmark_parser_get_syntax_extensions(parser.get()));
  if (!rendered) return "";
  std::string html(rendered);
  cmark_get_default_mem_allocator()->free(rendered);
  if (!budget.Charge(WorkBudget::Meter::kSteps, html.size() / 64 + 1)) return "";
  return PutMarkersIn(html, image_html, ctx);
}

// --- MDX ---------------------------------------------------------------------------

// `text` with the common indentation of its lines taken off (markers' lines and
// blank lines aside): a component's children are indented, and MDX has no
// indented code.
std::string Dedent(const std::string& text) {
  size_t common = SIZE_MAX;
  for (size_t pos = 0; pos < text.size();) {
    size_t next;
    std::string_view line = LineFrom(text, pos, &next);
    size_t indent = line.find_first_not_of(" \t");
    if (indent != std::string_view::npos && line[indent] != kMarker)
      common = std::min(common, indent);
    pos = next;
  }
  if (common == 0 || common == SIZE_MAX) return text;
  std::string out;
  out.reserve(text.size());
  for (size_t pos = 0; pos < text.size();) {
    size_t next;
    std::string_view line = LineFrom(text, pos, &next);
    size_t drop = std::min(common, line.find_first_not_of(" \t") == std::string_view::npos
                                       ? line.size()
                                       : line.find_first_not_of(" \t"));
    out.append(text, pos + drop, next - pos - drop);
    pos = next;
  }
  return out;
}

// A component's placeholder: its name, then its children rendered.
std::string Placeholder(std::string_view name, std::string_view inner) {
  std::string out = "<div class=\"mdx-component\" data-component=\"";
  AppendEscaped(name, out);
  out += "\">";
  AppendEscaped(name, out);
  while (!inner.empty() && inner.back() == '\n') inner.remove_suffix(1);
  out += inner;
  out += "</div>";
  return out;
}

// One segment being read: the page, or an open component.
struct Segment {
  std::string name;  // "" for the page
  std::string markdown;
};

// The Markdown of `body` (MDX) with its components as placeholder markers, the
// placeholders rendered into ctx.components as each closes.
std::string SplitMdx(std::string_view body, Context& ctx) {
  MdxBlanked blanked = BlankMdxSyntax(body);
  const std::string& md = blanked.markdown;  // what is rendered
  const std::string& prose = blanked.prose;  // where tags are looked for

  std::vector<Segment> open(1);
  // Components opened without a placeholder (inline, or too deep), by name.
  std::map<std::string, size_t> unplaced;
  auto close_top = [&] {
    Segment done = std::move(open.back());
    open.pop_back();
    std::string inner = RenderSegment(Dedent(done.markdown), ctx);
    open.back().markdown += "\n\n" + Marker('C', ctx.components.size(), ctx.nonce) + "\n\n";
    ctx.components.push_back(Placeholder(done.name, inner));
  };
  const size_t n = prose.size();
  size_t copied = 0, last_tag_end = SIZE_MAX;
  bool last_tag_block = false;
  for (size_t i = prose.find('<'); i != std::string::npos && i < n; i = prose.find('<', i)) {
    if (!ctx.budget->Charge(WorkBudget::Meter::kSteps)) break;
    size_t start = i;
    auto tag = ScanJsxTag(prose, start);
    if (!tag) {
      ++i;  // text
      continue;
    }
    i = tag->end;
    if (!tag->ended) continue;  // text
    const bool closing = tag->closing, self_closing = tag->self_closing;
    std::string name = std::move(tag->name);
    // A tag that starts its line (after others that did) is a block.
    size_t b = start;
    while (b > 0 && b != last_tag_end && (prose[b - 1] == ' ' || prose[b - 1] == '\t')) --b;
    bool block = b == 0 || prose[b - 1] == '\n' || (b == last_tag_end && last_tag_block);
    last_tag_end = i;
    last_tag_block = block;
    open.back().markdown.append(md, copied, start - copied);
    copied = i;
    bool component = !name.empty() && (std::isupper(static_cast<unsigned char>(name[0])) ||
                                       name.find('.') != std::string::npos);
    if (!component) continue;  // HTML and fragments: the text stays
    name = std::string(CutUtf8(name, kMaxComponentNameBytes));
    if (closing) {
      // What an inline or too deep opener opened closes first.
      if (auto u = unplaced.find(name); u != unplaced.end()) {
        if (--u->second == 0) unplaced.erase(u);
        continue;
      }
      auto match = std::find_if(open.rbegin(), open.rend() - 1,
                                [&](const Segment& s) { return s.name == name; });
      if (match == open.rend() - 1) continue;  // closes nothing open: dropped
      size_t keep = open.rend() - match - 1;   // the segments below the match
      while (open.size() > keep) close_top();
    } else if (!block || ctx.components.size() >= kMaxComponents) {
      if (!self_closing) ++unplaced[name];  // inline JSX: its text stays
    } else if (self_closing) {
      open.back().markdown += "\n\n" + Marker('C', ctx.components.size(), ctx.nonce) + "\n\n";
      ctx.components.push_back(Placeholder(name, ""));
    } else if (open.size() > kMaxComponentDepth) {
      ++unplaced[name];
    } else {
      open.push_back(Segment{name, ""});
    }
  }
  if (copied < md.size()) open.back().markdown.append(md, copied, std::string::npos);
  while (open.size() > 1) close_top();
  return Dedent(open.front().markdown);
}

std::string Render(std::string_view text, std::string_view page_path, bool preview,
                   const BlobLoader* load, const PreviewLimits& limits, WorkBudget* parent) {
  WorkBudget::Limits own;
  own.steps = kMaxPreviewSteps;
  WorkBudget budget(own, nullptr, std::chrono::steady_clock::time_point::max(), parent);
  Context ctx;
  ctx.limits = limits;
  ctx.budget = &budget;
  std::string page_dir = Dirname(page_path);
  ctx.page_dir = page_dir;
  ctx.load = load;
  ctx.raw_html_as_text = !preview;
  ctx.nonce = HexEncode(RandomBytes(kNonceBytes));

  size_t max_input = std::max(kMinInputBytes, limits.max_html_bytes * kInputPerHtmlByte);
  bool cut = text.size() > max_input;
  std::string source(cut ? text.substr(0, text.rfind('\n', max_input) == std::string_view::npos
                                              ? max_input
                                              : text.rfind('\n', max_input))
                         : text);
  std::replace(source.begin(), source.end(), kMarker, ' ');

  std::string html;
  std::string_view body = source;
  bool mdx = false;
  if (preview) {
    mdx = Lower(Extension(page_path)) == ".mdx";
    Frontmatter fm = SplitFrontmatter(source);
    if (fm.present && fm.closed) {
      body = std::string_view(source).substr(fm.body);
      budget.Charge(WorkBudget::Meter::kSteps, fm.yaml.size() / 64 + 1);
      std::optional<std::string> title = SimpleTitle(fm.yaml);
      if (!title && fm.yaml.size() <= kMaxYamlTreeBytes) {
        if (std::optional<YAML::Node> node = ParseYaml(fm.yaml)) title = YamlString(*node, "title");
      }
      std::string clean = ScrubUtf8(CleanLine(title.value_or(""), kMaxTitleLength));
      if (!clean.empty()) {
        html += "<h1>";
        AppendEscaped(clean, html);
        html += "</h1>\n";
      }
    }
  }
  std::string markdown = mdx ? SplitMdx(body, ctx) : std::string(body);
  if (!budget.spent()) html += RenderSegment(std::move(markdown), ctx);
  if (budget.spent()) {
    return CutHtml(html, limits.max_html_bytes, kSpentNote);
  }
  if (cut || html.size() > limits.max_html_bytes) {
    return CutHtml(html, limits.max_html_bytes, kCutNote);
  }
  return html;
}

}  // namespace

std::string RenderPreviewHtml(std::string_view page_text, std::string_view page_path,
                              const BlobLoader& load, const PreviewLimits& limits,
                              WorkBudget* budget) {
  return Render(page_text, page_path, /*preview=*/true, &load, limits, budget);
}

std::string RenderMarkdownHtml(std::string_view markdown, WorkBudget* budget) {
  return Render(markdown, "", /*preview=*/false, nullptr, PreviewLimits{}, budget);
}

}  // namespace docwright::docs
