// The ids of a page's headings and anchors, as each framework makes them, and
// whether a link's fragment names one. A false alarm sends the model to "repair"
// a working link, so every character whose treatment is not certain here makes
// the heading's id unknown, and a page with an unknown id accepts every fragment.
#include <algorithm>
#include <cctype>
#include <unordered_map>
#include <unordered_set>

#include "core/text.h"
#include "core/url.h"
#include "docs/internal.h"

namespace docwright::docs {
namespace {

using namespace std::string_view_literals;

// The next code point of `s` at `*i` (advanced past it); U+FFFD for a byte that
// starts no valid sequence.
char32_t NextCodePoint(std::string_view s, size_t* i) {
  unsigned char c = static_cast<unsigned char>(s[*i]);
  size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
  if (n == 0 || *i + n > s.size()) {
    ++*i;
    return 0xFFFD;
  }
  char32_t cp = n == 1 ? c : c & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) {
    unsigned char cont = static_cast<unsigned char>(s[*i + k]);
    if ((cont >> 6) != 2) {
      ++*i;
      return 0xFFFD;
    }
    cp = (cp << 6) | (cont & 0x3F);
  }
  *i += n;
  return cp;
}

void AppendUtf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

constexpr char32_t kDrop = 0;
constexpr char32_t kUnknown = 0xFFFFFFFF;

bool In(char32_t cp, char32_t first, char32_t last) { return cp >= first && cp <= last; }

// github-slugger removes the general categories P (but Pc, and '-'), S, C and Z
// (but ' '), and keeps letters, marks and numbers other than No. For a code
// point past ASCII: what it becomes (lower-cased as JavaScript does), kDrop, or
// kUnknown outside the blocks written out here.
char32_t GitHubChar(char32_t cp) {
  if (cp < 0xA0) return kDrop;  // C1 controls
  if (cp < 0xC0) return cp == 0xAA || cp == 0xB5 || cp == 0xBA ? cp : kDrop;
  if (cp < 0x100) {
    if (cp == 0xD7 || cp == 0xF7) return kDrop;
    return cp < 0xDF ? cp + 0x20 : cp;
  }
  if (cp < 0x180) {  // Latin Extended-A: pairs of upper and lower case
    if (cp == 0x130 || cp == 0x138 || cp == 0x149) return kUnknown;
    if (cp == 0x178) return 0xFF;
    bool even_upper = cp < 0x138 || In(cp, 0x14A, 0x177);
    bool upper = even_upper ? cp % 2 == 0 : cp % 2 == 1;
    return upper && cp != 0x17F ? cp + 1 : cp;
  }
  if (In(cp, 0x250, 0x2AF) || In(cp, 0x300, 0x36F)) return cp;          // IPA, combining marks
  if (In(cp, 0x391, 0x3A9)) return cp == 0x3A2 ? kUnknown : cp + 0x20;  // Greek capitals
  if (In(cp, 0x3AC, 0x3CE)) return cp;
  if (cp == 0x37E || cp == 0x387) return kDrop;
  if (In(cp, 0x400, 0x40F)) return cp + 0x50;  // Cyrillic
  if (In(cp, 0x410, 0x42F)) return cp + 0x20;
  if (In(cp, 0x430, 0x45F)) return cp;
  if (In(cp, 0x5D0, 0x5EA) || In(cp, 0x620, 0x64A)) return cp;  // Hebrew, Arabic letters
  if (In(cp, 0x2000, 0x206F)) {  // general punctuation; ‿ ⁀ ⁔ are Pc
    return cp == 0x203F || cp == 0x2040 || cp == 0x2054 ? cp : kDrop;
  }
  if (In(cp, 0x20A0, 0x20CF) || In(cp, 0x2190, 0x245F) || In(cp, 0x2500, 0x2BFF)) {
    return kDrop;  // currency, arrows, mathematical and technical, shapes, dingbats
  }
  if (In(cp, 0x3000, 0x3003) || In(cp, 0x3008, 0x3011)) return kDrop;  // CJK punctuation
  if (In(cp, 0x3041, 0x3096) || In(cp, 0x3099, 0x309A) || In(cp, 0x309D, 0x309F) ||
      In(cp, 0x30A1, 0x30FA) || In(cp, 0x30FC, 0x30FF)) {
    return cp;  // kana
  }
  if (cp == 0x30FB) return kDrop;
  if (In(cp, 0x3400, 0x4DBF) || In(cp, 0x4E00, 0x9FFF) || In(cp, 0xAC00, 0xD7A3)) return cp;
  if (In(cp, 0xFE00, 0xFE0F)) return cp;  // variation selectors are marks: kept
  if (In(cp, 0xFF01, 0xFF0F) || In(cp, 0xFF1A, 0xFF20) || In(cp, 0xFF3B, 0xFF3E) || cp == 0xFF40 ||
      In(cp, 0xFF5B, 0xFF65)) {
    return kDrop;  // full-width punctuation
  }
  if (In(cp, 0xFF10, 0xFF19) || In(cp, 0xFF41, 0xFF5A) || cp == 0xFF3F) return cp;
  if (In(cp, 0xFF21, 0xFF3A)) return cp + 0x20;
  if (In(cp, 0x1F000, 0x1F0FF) || In(cp, 0x1F200, 0x1FAFF)) return kDrop;  // emoji
  return kUnknown;
}

// Latin-1's letters 0xC0..0xFF after NFKD with what is not ASCII dropped ('\0':
// nothing left, as for Æ, Ø, ß, Þ).
constexpr std::string_view kLatin1Ascii =
    "AAAAAA\0CEEEEIIII\0NOOOOO\0\0UUUUY\0\0aaaaaa\0ceeeeiiii\0nooooo\0\0uuuuy\0y"sv;
// Latin Extended-A, 0x100..0x17F, the same way (case does not matter: the text
// is lower-cased after).
constexpr std::string_view kLatinAAscii =
    "aaaaaaccccccccdd\0\0eeeeeeeeeegggggggghh\0\0iiiiiiiii\0xxjjkk\0llllllll\0\0nnnnnnn\0\0oooooo"
    "\0\0rrrrrrsssssssstttt\0\0uuuuuuuuuuuuwwyyyzzzzzzs"sv;

// Python-Markdown's slugify: NFKD, then what is not ASCII dropped. What a code
// point past ASCII leaves: an ASCII character, kDrop, or kUnknown where NFKD
// gives ASCII that this table does not know (compatibility forms, letter-like
// symbols, enclosed and mathematical alphanumerics).
char32_t PythonChar(char32_t cp) {
  if (cp < 0xA0) return kDrop;
  if (cp < 0xC0) {
    switch (cp) {
      case 0xA0:
      case 0xA8:
      case 0xAF:
      case 0xB4:
      case 0xB8:
        return ' ';  // a space, or a space and a combining mark
      case 0xAA:
        return 'a';
      case 0xB2:
        return '2';
      case 0xB3:
        return '3';
      case 0xB9:
        return '1';
      case 0xBA:
        return 'o';
      case 0xBC:
      case 0xBD:
      case 0xBE:
        return kUnknown;  // fractions: two digits
      default:
        return kDrop;
    }
  }
  if (cp < 0x100) return kLatin1Ascii[cp - 0xC0] ? kLatin1Ascii[cp - 0xC0] : kDrop;
  if (cp < 0x180) {
    if (cp == 0x132 || cp == 0x133) return kUnknown;  // ĳ: two letters
    return kLatinAAscii[cp - 0x100] ? kLatinAAscii[cp - 0x100] : kDrop;
  }
  if (In(cp, 0x300, 0x36F)) return kDrop;  // combining marks
  if (In(cp, 0x370, 0x6FF)) return kDrop;  // Greek, Cyrillic, Armenian, Hebrew, Arabic
  if (In(cp, 0x2000, 0x200A) || cp == 0x2017 || cp == 0x203E || cp == 0x205F) return ' ';
  if (In(cp, 0x200B, 0x206F)) return kDrop;  // punctuation left no word character
  if (In(cp, 0x20A0, 0x20CF)) return cp == 0x20A8 ? kUnknown : kDrop;
  if (In(cp, 0x2190, 0x245F) || In(cp, 0x2500, 0x2BFF)) return kDrop;
  if (cp == 0x3000) return ' ';
  if (In(cp, 0x3001, 0x303F)) return kDrop;
  if (In(cp, 0x3041, 0x309A) || In(cp, 0x309D, 0x30FF)) return kDrop;  // kana
  if (In(cp, 0x3400, 0x4DBF) || In(cp, 0x4E00, 0x9FFF) || In(cp, 0xAC00, 0xD7A3)) return kDrop;
  if (In(cp, 0xFE00, 0xFE0F)) return kDrop;
  if (In(cp, 0xFF01, 0xFF5E)) return cp - 0xFF01 + 0x21;  // full-width ASCII
  if (In(cp, 0x1F000, 0x1F0FF) || In(cp, 0x1F200, 0x1FAFF)) return kDrop;
  return kUnknown;
}

std::optional<std::string> GitHubSlug(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    char32_t cp = NextCodePoint(text, &i);
    if (cp < 0x80) {
      char c = static_cast<char>(cp);
      if (c == ' ') {
        out += '-';
      } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') {
        out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      }
      continue;
    }
    char32_t kept = GitHubChar(cp);
    if (kept == kUnknown) return std::nullopt;
    if (kept != kDrop) AppendUtf8(out, kept);
  }
  return out;
}

bool PythonSpace(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r') || (c >= 0x1C && c <= 0x1F);
}

std::optional<std::string> PythonSlug(std::string_view text) {
  // NFKD and ASCII, then re.sub(r'[^\w\s-]', '', value).strip().lower().
  std::string ascii;
  for (size_t i = 0; i < text.size();) {
    char32_t cp = NextCodePoint(text, &i);
    if (cp >= 0x80) {
      cp = PythonChar(cp);
      if (cp == kUnknown) return std::nullopt;
      if (cp == kDrop) continue;
    }
    char c = static_cast<char>(cp);
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || PythonSpace(c)) {
      ascii += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  size_t begin = 0, end = ascii.size();
  while (begin < end && PythonSpace(ascii[begin])) ++begin;
  while (end > begin && PythonSpace(ascii[end - 1])) --end;
  // re.sub(r'[-\s]+', '-', value)
  std::string out;
  bool run = false;
  for (size_t i = begin; i < end; ++i) {
    char c = ascii[i];
    bool separator = c == '-' || PythonSpace(c);
    if (!separator) {
      out += c;
    } else if (!run) {
      out += '-';
    }
    run = separator;
  }
  return out;
}

// Python-Markdown's unique(): "id", then "id_1", "id_2"; an id already ending
// in _N counts on from N. Each try spends one of `*tries`; nullopt once none is
// left (Python-Markdown's own loop is quadratic in repeated headings).
std::optional<std::string> PythonUnique(std::string id, const std::unordered_set<std::string>& used,
                                        size_t* tries) {
  while (id.empty() || used.count(id)) {
    if (*tries == 0) return std::nullopt;
    --*tries;
    size_t underscore = id.rfind('_');
    bool counted = underscore != std::string::npos && underscore + 1 < id.size() &&
                   std::all_of(id.begin() + underscore + 1, id.end(),
                               [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    if (counted && id.size() - underscore <= 10) {
      id =
          id.substr(0, underscore) + "_" + std::to_string(std::stol(id.substr(underscore + 1)) + 1);
    } else {
      id += "_1";
    }
  }
  return id;
}

bool IsNameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' ||
         c == ':';
}

}  // namespace

std::optional<std::string> Slug(SlugRule rule, std::string_view text) {
  switch (rule) {
    case SlugRule::kGitHub:
      return GitHubSlug(text);
    case SlugRule::kPythonMarkdown:
      return PythonSlug(text);
    case SlugRule::kUnknown:
      break;
  }
  return std::nullopt;
}

std::optional<std::vector<std::string>> HeadingIds(SlugRule rule,
                                                   const std::vector<Heading>& headings) {
  if (rule == SlugRule::kUnknown) return std::nullopt;
  std::vector<std::string> ids;
  std::unordered_map<std::string, int> occurrences;  // github-slugger's
  std::unordered_set<std::string> used;              // Python-Markdown's
  // Where the search for a free id of each slug stopped: every id before it is
  // taken (ids are only ever added), so the next search resumes there.
  std::unordered_map<std::string, std::string> resume;
  size_t tries = 4 * headings.size() + 1000;  // repeats beyond this: not known
  if (rule == SlugRule::kPythonMarkdown) {
    for (const Heading& h : headings) {
      if (!h.id.empty()) used.insert(h.id);
    }
  }
  for (const Heading& h : headings) {
    if (!h.id.empty()) {
      ids.push_back(h.id);
      continue;
    }
    std::optional<std::string> slug = Slug(rule, h.slug_text);
    if (!slug) return std::nullopt;
    if (rule == SlugRule::kPythonMarkdown) {
      auto from = resume.find(*slug);
      std::optional<std::string> id =
          PythonUnique(from == resume.end() ? *slug : from->second, used, &tries);
      if (!id) return std::nullopt;
      used.insert(*id);
      resume[*slug] = *id;
      ids.push_back(std::move(*id));
      continue;
    }
    const std::string original = *slug;
    std::string result = original;
    while (occurrences.count(result)) {
      if (tries-- == 0) return std::nullopt;
      result = original + "-" + std::to_string(++occurrences[original]);
    }
    occurrences[result] = 0;
    ids.push_back(std::move(result));
  }
  return ids;
}

std::string TakeExplicitId(std::string& text) {
  size_t end = text.size();
  while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == '\t')) --end;
  if (end == 0 || text[end - 1] != '}') return "";
  size_t open = text.rfind('{', end - 1);
  if (open == std::string::npos) return "";
  std::string_view inside(text.data() + open + 1, end - 1 - open - 1);
  bool colon = !inside.empty() && inside[0] == ':';
  if (colon) inside.remove_prefix(1);
  // Tokens: #id, .class, key=value; "{#id}" alone is Docusaurus' form too.
  std::string id;
  size_t tokens = 0;
  for (size_t i = 0; i < inside.size();) {
    if (inside[i] == ' ' || inside[i] == '\t') {
      ++i;
      continue;
    }
    size_t start = i;
    while (i < inside.size() && inside[i] != ' ' && inside[i] != '\t') ++i;
    std::string_view token = inside.substr(start, i - start);
    ++tokens;
    if (token.size() > 1 && token[0] == '#') {
      id = std::string(token.substr(1));
    } else if (!(token.size() > 1 && token[0] == '.') &&
               token.find('=') == std::string_view::npos) {
      return "";  // not an attribute list: the text's own braces
    }
  }
  if (tokens == 0 || (!colon && id.empty())) return "";
  text.erase(open);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.pop_back();
  return id;
}

void ReadHtmlAnchors(std::string_view html, std::vector<std::string>& anchors, bool* open) {
  for (size_t i = html.find('<'); i != std::string_view::npos; i = html.find('<', i)) {
    ++i;
    size_t name_start = i;
    while (i < html.size() && IsNameChar(html[i])) ++i;
    std::string_view name = html.substr(name_start, i - name_start);
    if (name.empty()) continue;  // "</x>", "<!--", text
    if (std::isupper(static_cast<unsigned char>(name[0])) ||
        name.find('.') != std::string_view::npos) {
      *open = true;  // a component: it may render ids of its own
    }
    bool link = name == "a" || name == "A";
    // The attributes, up to the tag's end.
    while (i < html.size() && html[i] != '>' && html[i] != '<') {
      if (!std::isspace(static_cast<unsigned char>(html[i]))) {
        ++i;
        continue;
      }
      ++i;
      size_t attr = i;
      while (i < html.size() && IsNameChar(html[i])) ++i;
      std::string_view key = html.substr(attr, i - attr);
      if (i >= html.size() || html[i] != '=') continue;
      ++i;
      bool wanted = key == "id" || (link && key == "name");
      if (i < html.size() && (html[i] == '"' || html[i] == '\'')) {
        size_t end = html.find(html[i], i + 1);
        if (end == std::string_view::npos) return;
        if (wanted) {
          if (anchors.size() >= kMaxLinksPerPage) {
            *open = true;
          } else {
            anchors.emplace_back(html.substr(i + 1, end - i - 1));
          }
        }
        i = end + 1;
      } else if (i < html.size() && html[i] == '{') {
        if (wanted) *open = true;  // an expression: not known here
        i = SkipBraces(html, i);
      } else if (wanted) {
        size_t start = i;
        while (i < html.size() && !std::isspace(static_cast<unsigned char>(html[i])) &&
               html[i] != '>') {
          ++i;
        }
        if (anchors.size() < kMaxLinksPerPage) anchors.emplace_back(html.substr(start, i - start));
      }
    }
  }
}

void ReadAttrListIds(std::string_view text, std::vector<std::string>& anchors, bool* open) {
  for (size_t i = text.find('{'); i != std::string_view::npos; i = text.find('{', i + 1)) {
    size_t close = text.find_first_of("{}", i + 1);
    if (close == std::string_view::npos) return;
    if (text[close] != '}') continue;
    std::string list(text.substr(i, close - i + 1));
    std::string id = TakeExplicitId(list);
    if (id.empty()) continue;
    if (anchors.size() >= kMaxLinksPerPage) {
      *open = true;
      return;
    }
    anchors.push_back(std::move(id));
  }
}

AnchorCheck::AnchorCheck(const CheckContext& ctx)
    : ctx_(ctx),
      rule_(ctx.site.module->HeadingSlugs(ctx)),
      fold_case_(ctx.site.map.framework == Framework::kMarkdown) {}

AnchorCheck::Ids AnchorCheck::Read(const Page& page) const {
  Ids read;
  std::optional<std::vector<std::string>> ids = HeadingIds(rule_, page.headings);
  if (!ids || page.anchors_open) {
    read.open = true;
    return read;
  }
  read.ids = std::move(*ids);
  read.ids.insert(read.ids.end(), page.anchors.begin(), page.anchors.end());
  std::sort(read.ids.begin(), read.ids.end());
  return read;
}

bool AnchorCheck::Names(const std::string& path, const Page* page, std::string_view fragment) {
  bool escapes_ok = true;
  std::string decoded = PercentDecode(fragment, false, &escapes_ok);
  if (!escapes_ok) decoded = std::string(fragment);
  if (decoded.empty() || Lower(decoded) == "top" || decoded.find(":~:") != std::string::npos ||
      decoded.find('{') != std::string::npos || rule_ == SlugRule::kUnknown) {
    return true;
  }
  auto it = pages_.find(path);
  if (it == pages_.end()) {
    if (pages_.size() >= kMaxAnchorPages || ctx_.budget.spent()) return true;
    Ids ids;
    if (page) {
      ids = Read(*page);
    } else if (std::optional<std::string> text = ReadText(ctx_.files, path)) {
      bytes_ += text->size();
      if (bytes_ > kMaxAnchorBytes || !ctx_.budget.Spend(text->size() / 64 + 1)) return true;
      Page read = ReadPage(*text, Extension(path) == ".mdx", ctx_.budget);
      if (ctx_.budget.spent()) return true;  // read in part
      ids = Read(read);
    } else {
      ids.open = true;  // not read: nothing is known of it
    }
    it = pages_.emplace(path, std::move(ids)).first;
  }
  const Ids& ids = it->second;
  if (ids.open) return true;
  auto has = [&](const std::string& id) {
    return std::binary_search(ids.ids.begin(), ids.ids.end(), id);
  };
  return has(decoded) || (fold_case_ && has(Lower(decoded)));
}

}  // namespace docwright::docs
