#include "docs/docs.h"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "core/text.h"

namespace docwright::docs {
namespace {

// Navigation order is the order of the configuration file: keep object keys in
// the order they were written.
using Json = nlohmann::ordered_json;
using Changes = std::map<std::string, git::Change>;

constexpr std::string_view kGroupSeparator = " > ";
// What CheckChanges walks: the same bound BuildSiteMap has by default.
constexpr size_t kDefaultMaxFiles = 2000;
// A title costs a blob read. The map ends up in a prompt of a few KiB, which shows
// a few hundred entries at most; walking and reading more would only make a
// turn on a large repository start later.
constexpr size_t kMaxTitleReads = 150;
constexpr size_t kMaxTitleBytes = 32u << 20;
// Docusaurus ids overridden in frontmatter are only looked for when an id does
// not match a file; each look is a read.
constexpr size_t kMaxFrontmatterIdReads = 2000;
constexpr size_t kMaxNavEntries = 20000;
// One edit session changes few files; these bound a pathological one.
constexpr size_t kMaxCheckedFiles = 1000;
constexpr size_t kMaxCheckedBytes = 64u << 20;
constexpr size_t kMaxCollectedProblems = 10000;
constexpr size_t kMaxYamlDocuments = 10000;
// Configuration files are data written by people: deeper nesting is an attack
// or an accident, and recursion must stay bounded either way.
constexpr int kMaxDepth = 64;
constexpr size_t kMaxTitleLength = 120;
constexpr size_t kMaxMessageDetail = 200;
constexpr size_t kRenderLineWidth = 160;

// --- Paths ----------------------------------------------------------------------

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string Join(std::string_view dir, std::string_view name) {
  if (dir.empty()) return std::string(name);
  if (name.empty()) return std::string(dir);
  std::string out(dir);
  out += '/';
  out += name;
  return out;
}

std::string Dirname(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? "" : std::string(path.substr(0, slash));
}

std::string_view Basename(std::string_view path) {
  size_t slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

// ".mdx" for "a/b.MDX"; "" when the name has no extension.
std::string Extension(std::string_view path) {
  std::string_view name = Basename(path);
  size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return "";
  return Lower(name.substr(dot));
}

std::string StripExtension(std::string_view path) {
  std::string ext = Extension(path);
  return std::string(path.substr(0, path.size() - ext.size()));
}

bool IsPageFile(std::string_view path) {
  std::string ext = Extension(path);
  return ext == ".md" || ext == ".mdx";
}

// Whether `path` is inside folder `root` ("" is the repository root).
bool IsUnder(std::string_view path, std::string_view root) {
  if (root.empty()) return true;
  return path.size() > root.size() && StartsWith(path, root) && path[root.size()] == '/';
}

// `path` relative to `root`; `path` must be under it.
std::string RelativeTo(std::string_view path, std::string_view root) {
  return std::string(root.empty() ? path : path.substr(root.size() + 1));
}

std::vector<std::string_view> SplitPath(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    if (slash > start) parts.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

// `path` without "." segments and with ".." applied; nullopt if it climbs above
// the repository root.
std::optional<std::string> Normalize(std::string_view path) {
  std::vector<std::string_view> out;
  for (std::string_view part : SplitPath(path)) {
    if (part == ".") continue;
    if (part == "..") {
      if (out.empty()) return std::nullopt;
      out.pop_back();
      continue;
    }
    out.push_back(part);
  }
  std::string joined;
  for (std::string_view part : out) {
    if (!joined.empty()) joined += '/';
    joined += part;
  }
  return joined;
}

// Hidden folders (.github, .vitepress) and installed packages hold no pages.
bool InIgnoredFolder(std::string_view path, std::string_view root) {
  std::string rel = RelativeTo(path, root);
  std::vector<std::string_view> parts = SplitPath(rel);
  if (!parts.empty()) parts.pop_back();
  for (std::string_view part : parts) {
    if (part.empty() || part[0] == '.' || part == "node_modules") return true;
  }
  return false;
}

// Files that are part of a site without being pages of its navigation:
// Mintlify snippets, Docusaurus partials ("_" prefix), and the repository's own
// README/CHANGELOG-style files next to a Mintlify configuration.
bool IsPartial(Framework framework, std::string_view site_root, std::string_view content_root,
               std::string_view path) {
  switch (framework) {
    case Framework::kMintlify: {
      if (!IsUnder(path, site_root)) return false;
      std::string rel = RelativeTo(path, site_root);
      if (StartsWith(rel, "snippets/")) return true;
      if (rel.find('/') != std::string::npos) return false;
      std::string stem = StripExtension(rel);
      auto is = [&](int (*test)(int)) {
        return std::any_of(stem.begin(), stem.end(),
                           [&](char c) { return test(static_cast<unsigned char>(c)) != 0; });
      };
      return is(std::isupper) && !is(std::islower);
    }
    case Framework::kDocusaurus: {
      if (!IsUnder(path, content_root)) return false;
      std::string rel = RelativeTo(path, content_root);
      for (std::string_view part : SplitPath(rel)) {
        if (!part.empty() && part[0] == '_') return true;
      }
      return false;
    }
    case Framework::kMkDocs:
    case Framework::kMarkdown:
      return false;
  }
  return false;
}

// Docusaurus drops "01-" style ordering prefixes from doc ids.
std::string StripNumberPrefixes(std::string_view id) {
  std::string out;
  for (std::string_view part : SplitPath(id)) {
    size_t digits = 0;
    while (digits < part.size() && std::isdigit(static_cast<unsigned char>(part[digits]))) {
      ++digits;
    }
    if (digits > 0 && digits + 1 < part.size() &&
        (part[digits] == '-' || part[digits] == '_' || part[digits] == '.' ||
         part[digits] == ' ')) {
      part.remove_prefix(digits + 1);
    }
    if (!out.empty()) out += '/';
    out += part;
  }
  return out;
}

// --- Text -----------------------------------------------------------------------

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// The line of `text` starting at `pos`, without its line break; `*next` is where
// the following line starts.
std::string_view LineFrom(std::string_view text, size_t pos, size_t* next) {
  size_t nl = text.find('\n', pos);
  size_t end = nl == std::string_view::npos ? text.size() : nl;
  *next = nl == std::string_view::npos ? text.size() : nl + 1;
  std::string_view line = text.substr(pos, end - pos);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

// Line numbers of byte offsets, 0-based.
class LineIndex {
 public:
  explicit LineIndex(std::string_view text) {
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\n') breaks_.push_back(i);
    }
  }
  int LineOf(size_t offset) const {
    return static_cast<int>(std::lower_bound(breaks_.begin(), breaks_.end(), offset) -
                            breaks_.begin());
  }

 private:
  std::vector<size_t> breaks_;
};

int LineOfOffset(std::string_view text, size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + offset, '\n'));
}

// One line, no control characters, bounded: titles end up in a prompt.
std::string CleanLine(std::string_view s, size_t max_bytes) {
  std::string out;
  for (char c : Trim(s)) {
    out += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
  }
  if (out.size() > max_bytes) out = std::string(CutUtf8(out, max_bytes)) + "...";
  return out;
}

// The YAML block between "---" lines at the very top of a page.
struct Frontmatter {
  bool present = false;
  bool closed = false;
  std::string_view yaml;
  int yaml_line = 2;  // the line `yaml` starts on
  size_t body = 0;    // offset of what follows the closing line
  int body_line = 1;  // the line the body starts on
};

bool IsDelimiterLine(std::string_view line, std::string_view delimiter) {
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
  return line == delimiter;
}

Frontmatter SplitFrontmatter(std::string_view text) {
  Frontmatter fm;
  size_t pos = StartsWith(text, "\xEF\xBB\xBF") ? 3 : 0;
  fm.body = pos;
  if (pos >= text.size()) return fm;
  size_t next;
  if (!IsDelimiterLine(LineFrom(text, pos, &next), "---")) return fm;
  fm.present = true;
  size_t start = next;
  int line = 2;
  for (size_t p = start; p < text.size(); ++line) {
    size_t after;
    std::string_view l = LineFrom(text, p, &after);
    if (IsDelimiterLine(l, "---") || IsDelimiterLine(l, "...")) {
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

// A line that opens or closes a fenced code block.
struct Fence {
  char marker = 0;
  size_t length = 0;
  bool bare = true;  // nothing follows the marker run: it can close a block
};

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

// Tracks fenced code blocks line by line.
class FenceTracker {
 public:
  // True if `line` is code (or a fence line), false if it is prose.
  bool IsCode(std::string_view line, int line_number) {
    std::optional<Fence> fence = FenceOf(line);
    if (open_.marker == 0) {
      if (!fence) return false;
      open_ = *fence;
      open_line_ = line_number;
      return true;
    }
    if (fence && fence->marker == open_.marker && fence->length >= open_.length && fence->bare) {
      open_ = Fence{};
    }
    return true;
  }
  // The line the block still open at the end was opened on, 0 if none is.
  int unclosed_line() const { return open_.marker == 0 ? 0 : open_line_; }
  std::string closing() const {
    return std::string(std::max<size_t>(open_.length, 3), open_.marker);
  }

 private:
  Fence open_;
  int open_line_ = 0;
};

std::optional<YAML::Node> ParseYaml(std::string_view yaml) {
  try {
    return YAML::Load(std::string(yaml));
  } catch (const YAML::Exception&) {
    return std::nullopt;
  }
}

std::string YamlString(const YAML::Node& map, const char* key) {
  try {
    if (!map.IsMap()) return "";
    const YAML::Node value = map[key];
    if (value && value.IsScalar()) return value.Scalar();
  } catch (const YAML::Exception&) {
  }
  return "";
}

// The value of a top-level `title: ...` line when it is a plain or simply quoted
// scalar, without a YAML parse: titles are read for every page of a map, and most
// are that simple. nullopt when the line needs the parser (or is absent).
std::optional<std::string> SimpleTitle(std::string_view yaml) {
  for (size_t pos = 0; pos < yaml.size();) {
    size_t end = yaml.find('\n', pos);
    std::string_view line = yaml.substr(pos, end == std::string_view::npos ? end : end - pos);
    pos = end == std::string_view::npos ? yaml.size() : end + 1;
    if (!StartsWith(line, "title:")) continue;
    std::string_view value = Trim(line.substr(6));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') &&
        value.back() == value.front()) {
      std::string_view inner = value.substr(1, value.size() - 2);
      if (inner.find(value.front()) != std::string_view::npos ||
          inner.find('\\') != std::string_view::npos) {
        return std::nullopt;  // escapes: the parser knows them
      }
      return std::string(inner);
    }
    if (value.empty() ||
        std::string_view("[{|>&*!%@`#\"'").find(value.front()) != std::string_view::npos ||
        value.find(": ") != std::string_view::npos || value.find(" #") != std::string_view::npos) {
      return std::nullopt;
    }
    return std::string(value);
  }
  return std::nullopt;
}

// Frontmatter `title:`, else the first level-1 heading outside code, else "".
std::string TitleOf(std::string_view text) {
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
  FenceTracker fences;
  int line_number = fm.body_line;
  for (size_t pos = fm.body; pos < text.size(); ++line_number) {
    std::string_view line = LineFrom(text, pos, &pos);
    if (fences.IsCode(line, line_number)) continue;
    size_t indent = 0;
    while (indent < line.size() && indent < 3 && line[indent] == ' ') ++indent;
    line.remove_prefix(indent);
    if (!StartsWith(line, "# ") && !StartsWith(line, "#\t")) continue;
    line.remove_prefix(2);
    line = Trim(line);
    while (!line.empty() && line.back() == '#') line.remove_suffix(1);  // "# Title #"
    return CleanLine(line, kMaxTitleLength);
  }
  return "";
}

// The text of a file; nullopt when it cannot be read (absent, binary, too large).
std::optional<std::string> ReadText(const git::Workspace& files, const std::string& path) {
  auto content = files.Read(path);
  if (!content.ok() || content->binary) return std::nullopt;
  return std::move(content.value().text);
}

bool DirExists(const git::Workspace& files, const Changes& changes, const std::string& dir) {
  if (dir.empty()) return true;
  if (files.base().KindAt(dir) == git::EntryKind::kDirectory) return true;
  std::string prefix = dir + "/";
  for (auto it = changes.lower_bound(prefix); it != changes.end() && StartsWith(it->first, prefix);
       ++it) {
    if (it->second.kind != git::Change::Kind::kDelete) return true;
  }
  return false;
}

// --- JSON-like data --------------------------------------------------------------

std::string Str(const Json& object, const char* key) {
  if (!object.is_object()) return "";
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

// The data of a JavaScript or TypeScript module that exports an object literal
// (sidebars.js), read without running anything: the first object assigned or
// exported, with every expression that is not a literal (require(...), a
// variable, a function) read as null.
class JsLiteralReader {
 public:
  explicit JsLiteralReader(std::string_view source) { Tokenize(source); }

  std::optional<Json> Read() {
    for (size_t i = 0; i + 1 < tokens_.size(); ++i) {
      const Token& t = tokens_[i];
      bool introduces = (t.kind == Kind::kPunct && t.text == "=") ||
                        (t.kind == Kind::kWord && t.text == "default");
      if (introduces && IsPunct(i + 1, "{")) {
        pos_ = i + 1;
        return Value(0);
      }
    }
    return std::nullopt;
  }

 private:
  enum class Kind { kString, kWord, kPunct };
  struct Token {
    Kind kind;
    std::string text;
    bool literal = true;  // false: a template string with ${...}
  };

  void Tokenize(std::string_view s) {
    size_t i = 0;
    const size_t n = s.size();
    while (i < n) {
      char c = s[i];
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
      } else if (c == '/' && i + 1 < n && s[i + 1] == '/') {
        size_t nl = s.find('\n', i);
        i = nl == std::string_view::npos ? n : nl;
      } else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
        size_t end = s.find("*/", i + 2);
        i = end == std::string_view::npos ? n : end + 2;
      } else if (c == '"' || c == '\'' || c == '`') {
        Token t{Kind::kString, "", true};
        size_t j = i + 1;
        while (j < n && s[j] != c) {
          if (s[j] == '\\' && j + 1 < n) {
            char e = s[j + 1];
            t.text += e == 'n' ? '\n' : e == 't' ? '\t' : e;
            j += 2;
            continue;
          }
          if (c == '`' && s[j] == '$' && j + 1 < n && s[j + 1] == '{') t.literal = false;
          t.text += s[j++];
        }
        i = j + 1;
        tokens_.push_back(std::move(t));
      } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$') {
        size_t j = i;
        while (j < n &&
               (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_' || s[j] == '$')) {
          ++j;
        }
        tokens_.push_back(Token{Kind::kWord, std::string(s.substr(i, j - i))});
        i = j;
      } else if (s.substr(i, 3) == "...") {
        tokens_.push_back(Token{Kind::kPunct, "..."});
        i += 3;
      } else {
        tokens_.push_back(Token{Kind::kPunct, std::string(1, c)});
        ++i;
      }
    }
  }

  bool IsPunct(size_t i, std::string_view text) const {
    return i < tokens_.size() && tokens_[i].kind == Kind::kPunct && tokens_[i].text == text;
  }
  bool At(std::string_view text) const { return IsPunct(pos_, text); }

  // Skips to the end of the current expression: a ',' or a closing bracket at
  // this level, which is not consumed.
  void SkipExpression() {
    int depth = 0;
    for (; pos_ < tokens_.size(); ++pos_) {
      const Token& t = tokens_[pos_];
      if (t.kind != Kind::kPunct) continue;
      if (t.text == "(" || t.text == "[" || t.text == "{") {
        ++depth;
      } else if (t.text == ")" || t.text == "]" || t.text == "}") {
        if (depth == 0) return;
        --depth;
      } else if (t.text == "," && depth == 0) {
        return;
      }
    }
  }

  // Skips the rest of an element of a container that ends with `closer`: moves
  // forward unless at a ',' or at `closer`.
  void SkipRest(std::string_view closer) {
    size_t before = pos_;
    SkipExpression();
    if (pos_ == before && pos_ < tokens_.size() && !At(",") && !At(closer)) ++pos_;
  }

  Json Value(int depth) {
    if (pos_ >= tokens_.size()) return nullptr;
    if (depth > kMaxDepth) {
      SkipExpression();
      return nullptr;
    }
    const Token& t = tokens_[pos_];
    if (t.kind == Kind::kPunct && t.text == "{") return Object(depth);
    if (t.kind == Kind::kPunct && t.text == "[") return Array(depth);
    if (t.kind == Kind::kString) {
      ++pos_;
      return t.literal ? Json(t.text) : Json(nullptr);
    }
    if (t.kind == Kind::kWord && (t.text == "true" || t.text == "false")) {
      ++pos_;
      return t.text == "true";
    }
    SkipExpression();
    return nullptr;
  }

  Json Object(int depth) {
    ++pos_;  // '{'
    Json object = Json::object();
    while (pos_ < tokens_.size()) {
      if (At("}")) {
        ++pos_;
        return object;
      }
      if (At(",")) {
        ++pos_;
        continue;
      }
      if (At("...")) {  // a spread of something defined elsewhere
        ++pos_;
        SkipRest("}");
        continue;
      }
      const Token& t = tokens_[pos_];
      if (t.kind != Kind::kString && t.kind != Kind::kWord) {
        SkipRest("}");  // a computed key, or something this reader does not know
        continue;
      }
      std::string key = t.text;
      ++pos_;
      if (At(":")) {
        ++pos_;
        Json value = Value(depth + 1);
        object[key] = std::move(value);
      }
      if (!At(",") && !At("}")) SkipRest("}");  // a method, or `value as const`
    }
    return object;
  }

  Json Array(int depth) {
    ++pos_;  // '['
    Json array = Json::array();
    while (pos_ < tokens_.size()) {
      if (At("]")) {
        ++pos_;
        return array;
      }
      if (At(",")) {
        ++pos_;
        continue;
      }
      if (At("...")) {
        ++pos_;
        SkipRest("]");
        continue;
      }
      size_t before = pos_;
      array.push_back(Value(depth + 1));
      if (!At(",") && !At("]")) SkipRest("]");
      if (pos_ == before) ++pos_;
    }
    return array;
  }

  std::vector<Token> tokens_;
  size_t pos_ = 0;
};

// --- The site -------------------------------------------------------------------

// Where the configuration of each framework is looked for: the repository root,
// then the folders a site inside a code repository usually lives in.
constexpr std::string_view kSiteFolders[] = {"", "docs", "website", "documentation", "doc"};

struct ConfigName {
  std::string_view name;
  Framework framework;
};
constexpr ConfigName kConfigNames[] = {
    {"docs.json", Framework::kMintlify},
    {"mint.json", Framework::kMintlify},
    {"docusaurus.config.js", Framework::kDocusaurus},
    {"docusaurus.config.ts", Framework::kDocusaurus},
    {"docusaurus.config.mjs", Framework::kDocusaurus},
    {"docusaurus.config.cjs", Framework::kDocusaurus},
    {"mkdocs.yml", Framework::kMkDocs},
    {"mkdocs.yaml", Framework::kMkDocs},
};

constexpr std::string_view kSidebarNames[] = {"sidebars.json", "sidebars.js", "sidebars.ts",
                                              "sidebars.mjs", "sidebars.cjs"};

// A navigation entry before its title is known.
struct RawEntry {
  std::string group;
  std::string page;
  std::string path;
};

// The site map and what the checks need besides it.
struct Site {
  SiteMap map;
  std::string site_root;   // the folder of the configuration file
  std::string nav_file;    // the file navigation is listed in; "" when it is generated
  std::string nav_text;    // its text, to find an entry's line
  bool nav_known = false;  // the navigation could be read
  std::map<std::string, std::string> doc_ids;  // Docusaurus: doc id -> file
  bool frontmatter_ids = false;                // doc_ids has the `id:` of frontmatter too
  std::vector<RawEntry> entries;
};

std::string JoinGroups(const std::vector<std::string>& groups) {
  std::string out;
  for (const std::string& g : groups) {
    if (g.empty()) continue;
    if (!out.empty()) out += kGroupSeparator;
    out += g;
  }
  return out;
}

// Page files under `root`, as the workspace has them: the base tree's (at most
// `max_files` paths looked at) with the edits applied.
std::vector<std::string> WalkPages(const git::Workspace& files, const Changes& changes,
                                   const std::string& root, size_t max_files, bool* truncated) {
  std::set<std::string> pages;
  auto walked = files.base().Walk(root, max_files);
  if (walked.ok()) {
    *truncated = walked->size() >= max_files;
    for (const std::string& path : *walked) {
      if (IsPageFile(path) && !InIgnoredFolder(path, root)) pages.insert(path);
    }
  }
  for (const auto& [path, change] : changes) {
    if (!IsUnder(path, root) || !IsPageFile(path) || InIgnoredFolder(path, root)) continue;
    if (change.kind == git::Change::Kind::kDelete) {
      pages.erase(path);
    } else {
      pages.insert(path);
    }
  }
  return {pages.begin(), pages.end()};
}

// Navigation that follows the folders: the pages under `dir`, a folder's own
// pages (its index first) before its subfolders', each folder a group.
void AddFolderEntries(const Site& site, const std::string& dir, const std::string& group_prefix,
                      const std::function<std::string(const std::string&)>& page_name,
                      std::vector<RawEntry>& out) {
  struct Item {
    std::vector<std::string_view> folders;
    bool index;
    std::string_view name;
    const std::string* path;
  };
  std::vector<Item> items;
  for (const std::string& path : site.map.pages) {
    if (!dir.empty() && !IsUnder(path, dir)) continue;
    if (IsPartial(site.map.framework, site.site_root, site.map.content_root, path)) continue;
    std::string_view rel = std::string_view(path).substr(dir.empty() ? 0 : dir.size() + 1);
    std::vector<std::string_view> parts = SplitPath(rel);
    std::string_view name = parts.back();
    parts.pop_back();
    std::string stem = Lower(StripExtension(name));
    items.push_back(Item{std::move(parts), stem == "index" || stem == "readme", name, &path});
  }
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    if (a.folders != b.folders) return a.folders < b.folders;
    if (a.index != b.index) return a.index;
    return a.name < b.name;
  });
  for (const Item& item : items) {
    if (out.size() >= kMaxNavEntries) return;
    std::string group = group_prefix;
    for (std::string_view folder : item.folders) {
      if (!group.empty()) group += kGroupSeparator;
      group += folder;
    }
    out.push_back(RawEntry{std::move(group), page_name(*item.path), *item.path});
  }
}

void Detect(const git::Workspace& files, Site& site) {
  for (std::string_view folder : kSiteFolders) {
    for (const ConfigName& config : kConfigNames) {
      std::string path = Join(folder, config.name);
      if (files.IsFile(path)) {
        site.map.framework = config.framework;
        site.map.config_path = path;
        site.site_root = std::string(folder);
        return;
      }
    }
  }
  site.map.framework = Framework::kMarkdown;
}

// --- Mintlify

// "GET /users": an OpenAPI operation, not a file.
bool IsOperation(std::string_view page) {
  size_t space = page.find(' ');
  if (space == std::string_view::npos) return false;
  std::string_view method = page.substr(0, space);
  for (std::string_view m :
       {"GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE", "WEBHOOK"}) {
    if (method == m) return true;
  }
  return false;
}

std::string ResolveMintlifyPage(const git::Workspace& files, const std::string& site_root,
                                std::string_view page) {
  while (StartsWith(page, "/")) page.remove_prefix(1);
  std::optional<std::string> rel = Normalize(page);
  if (!rel || rel->empty()) return "";
  std::string full = Join(site_root, *rel);
  if (IsPageFile(full) && files.IsFile(full)) return full;
  for (const char* ext : {".mdx", ".md"}) {
    if (files.IsFile(full + ext)) return full + ext;
  }
  return "";
}

void WalkMintlify(const Json& node, std::vector<std::string>& groups, bool in_pages, int depth,
                  std::vector<RawEntry>& out) {
  if (depth > kMaxDepth || out.size() >= kMaxNavEntries) return;
  auto add = [&](const std::string& page) {
    if (page.empty() || page.find("://") != std::string::npos || IsOperation(page)) return;
    out.push_back(RawEntry{JoinGroups(groups), page, ""});
  };
  if (node.is_string()) {
    if (in_pages) add(node.get<std::string>());
    return;
  }
  if (node.is_array()) {
    for (const Json& element : node) WalkMintlify(element, groups, in_pages, depth + 1, out);
    return;
  }
  if (!node.is_object()) return;
  std::string label;
  for (const char* key :
       {"group", "tab", "anchor", "dropdown", "version", "language", "product", "item"}) {
    label = Str(node, key);
    if (!label.empty()) break;
  }
  groups.push_back(label);
  add(Str(node, "root"));
  for (const auto& item : node.items()) {
    if (item.value().is_array() || item.value().is_object()) {
      WalkMintlify(item.value(), groups, item.key() == "pages", depth + 1, out);
    }
  }
  groups.pop_back();
}

void LoadMintlify(const git::Workspace& files, const Changes& changes, size_t max_files,
                  Site& site) {
  site.map.content_root = site.site_root;
  site.map.pages = WalkPages(files, changes, site.site_root, max_files, &site.map.pages_truncated);
  site.nav_file = site.map.config_path;
  std::optional<std::string> text = ReadText(files, site.nav_file);
  if (!text) return;
  site.nav_text = std::move(*text);
  Json config = Json::parse(site.nav_text, nullptr, /*allow_exceptions=*/false);
  if (config.is_discarded() || !config.is_object()) return;
  site.nav_known = true;
  auto nav = config.find("navigation");
  if (nav == config.end()) return;
  std::vector<std::string> groups;
  // The older mint.json lists groups (or pages) straight under "navigation".
  WalkMintlify(*nav, groups, nav->is_array(), 0, site.entries);
  for (RawEntry& entry : site.entries) {
    entry.path = ResolveMintlifyPage(files, site.site_root, entry.page);
  }
}

// --- Docusaurus

std::string DocId(const Site& site, const std::string& path) {
  return StripExtension(RelativeTo(path, site.map.content_root));
}

class SidebarWalk {
 public:
  explicit SidebarWalk(Site& site) : site_(site) {}

  void Sidebars(const Json& root) {
    if (!root.is_object()) return;
    bool named = root.size() > 1;  // several sidebars: each is a section
    for (const auto& sidebar : root.items()) {
      groups_.push_back(named ? sidebar.key() : "");
      Items(sidebar.value(), 0);
      groups_.pop_back();
    }
  }

  bool explicit_docs() const { return explicit_docs_; }

 private:
  void Items(const Json& items, int depth) {
    if (depth > kMaxDepth) return;
    if (items.is_array()) {
      for (const Json& item : items) Item(item, depth + 1);
    } else if (items.is_object()) {
      Shorthand(items, depth + 1);
    }
  }

  // {"Category": [items], ...}
  void Shorthand(const Json& object, int depth) {
    for (const auto& category : object.items()) {
      if (!category.value().is_array() && !category.value().is_object()) continue;
      groups_.push_back(category.key());
      Items(category.value(), depth + 1);
      groups_.pop_back();
    }
  }

  void Item(const Json& item, int depth) {
    if (depth > kMaxDepth || site_.entries.size() >= kMaxNavEntries) return;
    if (item.is_string()) {
      Doc(item.get<std::string>());
      return;
    }
    if (!item.is_object()) return;
    std::string type = Str(item, "type");
    if (type == "doc" || type == "ref" || (type.empty() && !Str(item, "id").empty())) {
      Doc(Str(item, "id"));
    } else if (type == "category" || (type.empty() && item.contains("items"))) {
      groups_.push_back(Str(item, "label"));
      auto link = item.find("link");
      if (link != item.end() && Str(*link, "type") == "doc") Doc(Str(*link, "id"));
      if (auto items = item.find("items"); items != item.end()) Items(*items, depth + 1);
      groups_.pop_back();
    } else if (type == "autogenerated") {
      std::string dir_name = Str(item, "dirName");
      std::optional<std::string> dir =
          Normalize(Join(site_.map.content_root, dir_name.empty() ? "." : dir_name));
      if (!dir) return;
      AddFolderEntries(
          site_, *dir, JoinGroups(groups_),
          [&](const std::string& path) { return DocId(site_, path); }, site_.entries);
    } else if (type.empty()) {
      Shorthand(item, depth + 1);
    }
    // "link" and "html" items are not pages.
  }

  void Doc(const std::string& id) {
    if (id.empty()) return;
    explicit_docs_ = true;
    site_.entries.push_back(RawEntry{JoinGroups(groups_), id, ""});
  }

  Site& site_;
  std::vector<std::string> groups_;
  bool explicit_docs_ = false;
};

// Ids set in frontmatter (`id: intro`) name docs whose file is called otherwise.
void AddFrontmatterIds(const git::Workspace& files, Site& site) {
  if (site.frontmatter_ids) return;
  site.frontmatter_ids = true;
  size_t reads = 0;
  for (const std::string& path : site.map.pages) {
    if (!IsUnder(path, site.map.content_root)) continue;
    if (++reads > kMaxFrontmatterIdReads) return;
    std::optional<std::string> text = ReadText(files, path);
    if (!text) continue;
    Frontmatter fm = SplitFrontmatter(*text);
    if (!fm.closed) continue;
    std::optional<YAML::Node> node = ParseYaml(fm.yaml);
    if (!node) continue;
    std::string id = YamlString(*node, "id");
    if (id.empty()) continue;
    std::string dir = Dirname(RelativeTo(path, site.map.content_root));
    site.doc_ids.emplace(Join(StripNumberPrefixes(dir), id), path);
    site.doc_ids.emplace(Join(dir, id), path);
  }
}

void LoadDocusaurus(const git::Workspace& files, const Changes& changes, size_t max_files,
                    Site& site) {
  // Docs live in docs/ next to the configuration; an older layout keeps the site
  // in website/ and the docs at the root's docs/.
  std::string content_root = Join(site.site_root, "docs");
  if (!site.site_root.empty() && !DirExists(files, changes, content_root) &&
      DirExists(files, changes, "docs")) {
    content_root = "docs";
  }
  site.map.content_root = content_root;
  site.map.pages = WalkPages(files, changes, content_root, max_files, &site.map.pages_truncated);
  for (const std::string& path : site.map.pages) {
    std::string id = DocId(site, path);
    site.doc_ids.emplace(id, path);
    site.doc_ids.emplace(StripNumberPrefixes(id), path);
  }

  auto doc_name = [&](const std::string& path) { return DocId(site, path); };
  for (std::string_view name : kSidebarNames) {
    std::string path = Join(site.site_root, name);
    if (files.IsFile(path)) {
      site.nav_file = path;
      break;
    }
  }
  if (site.nav_file.empty()) {
    // No sidebars file: Docusaurus generates the sidebar from the docs folder.
    site.nav_known = true;
    site.map.navigation_generated = true;
    AddFolderEntries(site, content_root, "", doc_name, site.entries);
    return;
  }
  site.map.config_path = site.nav_file;
  std::optional<Json> sidebars;
  if (std::optional<std::string> text = ReadText(files, site.nav_file)) {
    site.nav_text = std::move(*text);
    if (EndsWith(site.nav_file, ".json")) {
      Json parsed = Json::parse(site.nav_text, nullptr, /*allow_exceptions=*/false);
      if (!parsed.is_discarded()) sidebars = std::move(parsed);
    } else {
      sidebars = JsLiteralReader(site.nav_text).Read();
    }
  }
  if (!sidebars || !sidebars->is_object()) {
    // Unreadable: show the pages, and check nothing against a sidebar not understood.
    AddFolderEntries(site, content_root, "", doc_name, site.entries);
    return;
  }
  site.nav_known = true;
  SidebarWalk walk(site);
  walk.Sidebars(*sidebars);
  site.map.navigation_generated = !walk.explicit_docs();

  auto resolve = [&] {
    bool missing = false;
    for (RawEntry& entry : site.entries) {
      if (!entry.path.empty()) continue;
      auto it = site.doc_ids.find(entry.page);
      if (it != site.doc_ids.end()) {
        entry.path = it->second;
      } else {
        missing = true;
      }
    }
    return missing;
  };
  if (resolve()) {
    AddFrontmatterIds(files, site);
    resolve();
  }
}

// --- MkDocs

void WalkMkDocsNav(const YAML::Node& items, std::vector<std::string>& groups, int depth, Site& site,
                   const git::Workspace& files) {
  if (depth > kMaxDepth || !items.IsSequence()) return;
  auto add = [&](const std::string& page) {
    if (site.entries.size() >= kMaxNavEntries) return;
    if (page.find("://") != std::string::npos || StartsWith(page, "mailto:")) return;
    std::optional<std::string> path = Normalize(Join(site.map.content_root, page));
    bool exists = path && !path->empty() && files.IsFile(*path);
    site.entries.push_back(RawEntry{JoinGroups(groups), page, exists ? *path : ""});
  };
  for (YAML::const_iterator it = items.begin(); it != items.end(); ++it) {
    const YAML::Node item = *it;
    if (item.IsScalar()) {
      add(item.Scalar());
    } else if (item.IsMap()) {
      for (YAML::const_iterator kv = item.begin(); kv != item.end(); ++kv) {
        const YAML::Node value = kv->second;
        if (value.IsScalar()) {
          add(value.Scalar());
        } else if (value.IsSequence()) {
          groups.push_back(kv->first.IsScalar() ? kv->first.Scalar() : "");
          WalkMkDocsNav(value, groups, depth + 1, site, files);
          groups.pop_back();
        }
      }
    }
  }
}

void LoadMkDocs(const git::Workspace& files, const Changes& changes, size_t max_files, Site& site) {
  std::string docs_dir = "docs";
  std::optional<YAML::Node> config;
  std::optional<std::string> text = ReadText(files, site.map.config_path);
  if (text) {
    try {
      config = YAML::Load(*text);
      std::string configured = YamlString(*config, "docs_dir");
      std::optional<std::string> dir = Normalize(configured);
      if (dir && !dir->empty()) docs_dir = *dir;
    } catch (const YAML::Exception&) {
      config.reset();
    }
  }
  site.map.content_root = Join(site.site_root, docs_dir);
  site.map.pages =
      WalkPages(files, changes, site.map.content_root, max_files, &site.map.pages_truncated);
  auto page_name = [&](const std::string& path) { return RelativeTo(path, site.map.content_root); };
  if (!config) {
    AddFolderEntries(site, site.map.content_root, "", page_name, site.entries);
    return;
  }
  site.nav_known = true;
  try {
    const YAML::Node& root = *config;
    const YAML::Node nav = root.IsMap() ? root["nav"] : YAML::Node();
    if (nav && nav.IsSequence()) {
      site.nav_file = site.map.config_path;
      site.nav_text = std::move(*text);
      std::vector<std::string> groups;
      WalkMkDocsNav(nav, groups, 0, site, files);
      return;
    }
  } catch (const YAML::Exception&) {
    site.entries.clear();
  }
  site.map.navigation_generated = true;
  AddFolderEntries(site, site.map.content_root, "", page_name, site.entries);
}

// --- Plain Markdown

void LoadMarkdown(const git::Workspace& files, const Changes& changes, size_t max_files,
                  Site& site) {
  site.map.pages = WalkPages(files, changes, "", max_files, &site.map.pages_truncated);
  site.nav_known = true;
  site.map.navigation_generated = true;
  AddFolderEntries(
      site, "", "", [](const std::string& path) { return path; }, site.entries);
}

Site LoadSite(const git::Workspace& files, const Changes& changes, size_t max_files) {
  Site site;
  Detect(files, site);
  switch (site.map.framework) {
    case Framework::kMintlify:
      LoadMintlify(files, changes, max_files, site);
      break;
    case Framework::kDocusaurus:
      LoadDocusaurus(files, changes, max_files, site);
      break;
    case Framework::kMkDocs:
      LoadMkDocs(files, changes, max_files, site);
      break;
    case Framework::kMarkdown:
      LoadMarkdown(files, changes, max_files, site);
      break;
  }
  return site;
}

// Turns the entries into the map's navigation, with titles read within budget.
void FillNavigation(const git::Workspace& files, Site& site) {
  std::map<std::string, std::string> titles;
  size_t reads = 0;
  size_t bytes = 0;
  for (RawEntry& entry : site.entries) {
    NavEntry nav{std::move(entry.group), std::move(entry.page), std::move(entry.path), ""};
    if (!nav.path.empty()) {
      auto known = titles.find(nav.path);
      if (known != titles.end()) {
        nav.title = known->second;
      } else if (reads < kMaxTitleReads && bytes < kMaxTitleBytes) {
        ++reads;
        if (std::optional<std::string> text = ReadText(files, nav.path)) {
          bytes += text->size();
          nav.title = TitleOf(*text);
        }
        titles.emplace(nav.path, nav.title);
      }
    }
    nav.group = CleanLine(nav.group, 2 * kMaxTitleLength);
    nav.page = CleanLine(nav.page, 2 * kMaxTitleLength);
    site.map.navigation.push_back(std::move(nav));
  }
  site.entries.clear();
}

// --- Checks ---------------------------------------------------------------------

class Problems {
 public:
  void Add(const std::string& path, int line, std::string message) {
    if (list_.size() < kMaxCollectedProblems)
      list_.push_back(Problem{path, line, std::move(message)});
  }

  std::vector<Problem> Take(size_t max) {
    std::stable_sort(list_.begin(), list_.end(), [](const Problem& a, const Problem& b) {
      return a.path != b.path ? a.path < b.path : a.line < b.line;
    });
    std::vector<Problem> out;
    std::set<std::tuple<std::string, int, std::string>> seen;
    for (Problem& p : list_) {
      if (out.size() >= max) break;
      if (seen.emplace(p.path, p.line, p.message).second) out.push_back(std::move(p));
    }
    return out;
  }

 private:
  std::vector<Problem> list_;
};

std::string Shorten(std::string_view message) { return CleanLine(message, kMaxMessageDetail); }

// A page's body with everything that is not prose blanked (code blocks, inline
// code, comments, MDX import/export blocks). Line breaks stay, so an offset in it
// is on the same line as in the body.
struct Prose {
  std::string text;
  int unclosed_fence = 0;  // 1-based line in the body of a never closed block, or 0
  std::string fence_closing;
};

void Blank(std::string& text, size_t begin, size_t end) {
  for (size_t i = begin; i < end && i < text.size(); ++i) {
    if (text[i] != '\n') text[i] = ' ';
  }
}

Prose ProseOf(std::string_view body, bool mdx) {
  Prose prose{std::string(body), 0, ""};
  std::string& text = prose.text;

  FenceTracker fences;
  bool in_esm = false;
  bool after_blank = true;
  int line_number = 1;
  for (size_t pos = 0; pos < text.size(); ++line_number) {
    size_t start = pos;
    std::string_view line = LineFrom(text, pos, &pos);
    bool blank = IsBlank(line);
    if (fences.IsCode(line, line_number)) {
      Blank(text, start, pos);
    } else if (mdx && (in_esm || (after_blank &&
                                  (StartsWith(line, "import ") || StartsWith(line, "export "))))) {
      // MDX's import/export blocks are JavaScript, and run to a blank line.
      in_esm = !blank;
      Blank(text, start, pos);
    }
    after_blank = blank;
  }
  prose.unclosed_fence = fences.unclosed_line();
  if (prose.unclosed_fence) prose.fence_closing = fences.closing();

  // Inline code spans: a run of backticks up to the next run of the same length
  // in the same paragraph, found in one pass from the right.
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

  // Comments: HTML in Markdown, {/* */} in MDX.
  auto blank_between = [&](std::string_view open, std::string_view close) {
    for (size_t i = text.find(open); i != std::string::npos; i = text.find(open, i)) {
      size_t end = text.find(close, i + open.size());
      end = end == std::string::npos ? text.size() : end + close.size();
      Blank(text, i, end);
      i = end;
    }
  };
  blank_between("<!--", "-->");
  if (mdx) blank_between("{/*", "*/}");
  return prose;
}

struct Link {
  std::string destination;
  size_t offset;
  bool image;
};

// Links and images of prose: [text](dest), ![alt](dest), reference definitions
// ("[id]: dest"), and href="..." / src="..." attributes of HTML and JSX tags.
std::vector<Link> LinksIn(std::string_view text) {
  std::vector<Link> links;
  const size_t n = text.size();
  for (size_t i = text.find("]("); i != std::string_view::npos; i = text.find("](", i + 1)) {
    size_t j = i + 2;
    while (j < n && (text[j] == ' ' || text[j] == '\t')) ++j;
    std::string destination;
    if (j < n && text[j] == '<') {
      size_t end = text.find_first_of(">\n", j + 1);
      if (end == std::string_view::npos || text[end] != '>') continue;
      destination = std::string(text.substr(j + 1, end - j - 1));
    } else {
      int depth = 0;
      size_t k = j;
      for (; k < n; ++k) {
        char c = text[k];
        if (std::isspace(static_cast<unsigned char>(c))) break;
        if (c == '(') ++depth;
        if (c == ')' && depth-- == 0) break;
      }
      destination = std::string(text.substr(j, k - j));
    }
    // An image if the matching '[' follows a '!'.
    bool image = false;
    int depth = 0;
    for (size_t k = i; k > 0 && i - k < 4096; --k) {
      char c = text[k - 1];
      if (c == ']') ++depth;
      if (c == '[') {
        if (depth == 0) {
          image = k >= 2 && text[k - 2] == '!';
          break;
        }
        --depth;
      }
    }
    if (!destination.empty()) links.push_back(Link{std::move(destination), i, image});
  }

  for (size_t pos = 0; pos < n;) {
    size_t start = pos;
    std::string_view line = LineFrom(text, pos, &pos);
    size_t indent = 0;
    while (indent < line.size() && indent < 3 && line[indent] == ' ') ++indent;
    line.remove_prefix(indent);
    if (!StartsWith(line, "[") || StartsWith(line, "[^")) continue;
    size_t close = line.find("]:");
    if (close == std::string_view::npos) continue;
    std::string_view rest = Trim(line.substr(close + 2));
    if (StartsWith(rest, "<")) {
      size_t end = rest.find('>');
      rest = end == std::string_view::npos ? std::string_view() : rest.substr(1, end - 1);
    } else {
      rest = rest.substr(0, rest.find_first_of(" \t"));
    }
    if (!rest.empty()) links.push_back(Link{std::string(rest), start, false});
  }

  for (std::string_view attribute : {"href=", "src="}) {
    for (size_t i = text.find(attribute); i != std::string_view::npos;
         i = text.find(attribute, i + 1)) {
      if (i == 0 || !std::isspace(static_cast<unsigned char>(text[i - 1]))) continue;
      size_t q = i + attribute.size();
      if (q >= n || (text[q] != '"' && text[q] != '\'')) continue;
      size_t end = text.find_first_of(std::string{text[q], '\n'}, q + 1);
      if (end == std::string_view::npos || text[end] != text[q]) continue;
      links.push_back(Link{std::string(text.substr(q + 1, end - q - 1)), i, attribute == "src="});
    }
  }
  return links;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The repository path part of a link destination; nullopt for what is not
// checked: other sites (any scheme, "//host"), pure anchors, templated values.
std::optional<std::string> LinkTarget(std::string_view destination) {
  destination = Trim(destination);
  if (destination.empty() || destination[0] == '#' || StartsWith(destination, "//")) {
    return std::nullopt;
  }
  size_t colon = destination.find(':');
  if (colon != std::string_view::npos && colon > 0 &&
      std::isalpha(static_cast<unsigned char>(destination[0]))) {
    bool scheme = std::all_of(destination.begin(), destination.begin() + colon, [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
    });
    if (scheme) return std::nullopt;  // https:, mailto:, tel:, data:, ...
  }
  if (destination.find_first_of("{}<>$") != std::string_view::npos) return std::nullopt;
  destination = destination.substr(0, destination.find_first_of("#?"));
  std::string decoded;
  for (size_t i = 0; i < destination.size(); ++i) {
    if (destination[i] == '%' && i + 2 < destination.size() && HexValue(destination[i + 1]) >= 0 &&
        HexValue(destination[i + 2]) >= 0) {
      decoded +=
          static_cast<char>(HexValue(destination[i + 1]) * 16 + HexValue(destination[i + 2]));
      i += 2;
    } else {
      decoded += destination[i];
    }
  }
  if (decoded.empty()) return std::nullopt;  // "?query" alone
  return decoded;
}

struct CheckContext {
  const git::Workspace& files;
  const Changes& changes;
  const Site& site;
};

// Whether `path` is a file, or names a page the way a site route does (without
// its extension, or as a folder with an index page).
bool ResolvesAt(const CheckContext& ctx, const std::string& path) {
  const git::Workspace& files = ctx.files;
  if (!path.empty() && files.IsFile(path)) return true;
  if (!path.empty()) {
    for (const char* ext : {".mdx", ".md"}) {
      if (files.IsFile(path + ext)) return true;
    }
  }
  for (const char* index : {"index.mdx", "index.md", "README.md", "readme.md"}) {
    if (files.IsFile(Join(path, index))) return true;
  }
  if (ctx.site.map.framework == Framework::kDocusaurus &&
      IsUnder(path, ctx.site.map.content_root)) {
    std::string id = RelativeTo(path, ctx.site.map.content_root);
    if (ctx.site.doc_ids.count(id) || ctx.site.doc_ids.count(StripNumberPrefixes(id))) return true;
  }
  // A plain repository is browsed on its code host, where a folder is a page too.
  return ctx.site.map.framework == Framework::kMarkdown && DirExists(files, ctx.changes, path);
}

enum class LinkStatus { kOk, kMissing, kOutside };

LinkStatus ResolveLink(const CheckContext& ctx, const std::string& from,
                       const std::string& target) {
  const Site& site = ctx.site;
  if (target[0] == '/') {
    std::optional<std::string> rel = Normalize(target);
    if (!rel) return LinkStatus::kOutside;
    if (rel->empty()) return LinkStatus::kOk;  // the home page
    std::vector<std::string> roots;
    switch (site.map.framework) {
      case Framework::kMintlify:
        roots = {site.site_root};
        break;
      case Framework::kDocusaurus: {
        // Static files are served from the root, docs under /docs (or at the root
        // with routeBasePath "/"), React and Markdown pages from src/pages.
        roots = {Join(site.site_root, "static"), site.map.content_root, site.site_root,
                 Join(site.site_root, "src/pages")};
        if (StartsWith(*rel, "docs/") &&
            ResolvesAt(ctx, Join(site.map.content_root, rel->substr(5)))) {
          return LinkStatus::kOk;
        }
        // Blog routes carry dates and slugs: present blog, assumed right.
        if ((*rel == "blog" || StartsWith(*rel, "blog/")) &&
            DirExists(ctx.files, ctx.changes, Join(site.site_root, "blog"))) {
          return LinkStatus::kOk;
        }
        for (const char* ext : {".js", ".jsx", ".ts", ".tsx"}) {
          if (ctx.files.IsFile(Join(site.site_root, "src/pages/" + *rel + ext))) {
            return LinkStatus::kOk;
          }
        }
        break;
      }
      case Framework::kMkDocs:
        roots = {site.map.content_root, ""};
        break;
      case Framework::kMarkdown:
        roots = {""};
        break;
    }
    for (const std::string& root : roots) {
      if (ResolvesAt(ctx, Join(root, *rel))) return LinkStatus::kOk;
    }
    return LinkStatus::kMissing;
  }

  // Relative: to the page's folder. Where pages are served as folders
  // ("/guide/setup/"), a route-style link may be relative to the page itself,
  // and an index page's URL is its folder's.
  std::string dir = Dirname(from);
  std::vector<std::string> bases = {dir};
  std::string stem = Lower(StripExtension(Basename(from)));
  if ((stem == "index" || stem == "readme") && !dir.empty()) bases.push_back(Dirname(dir));
  if ((site.map.framework == Framework::kDocusaurus || site.map.framework == Framework::kMkDocs) &&
      Extension(target).empty()) {
    bases.push_back(Join(dir, StripExtension(Basename(from))));
  }
  bool inside = false;
  for (const std::string& base : bases) {
    std::optional<std::string> path = Normalize(Join(base, target));
    if (!path) continue;
    inside = true;
    if (ResolvesAt(ctx, *path)) return LinkStatus::kOk;
  }
  return inside ? LinkStatus::kMissing : LinkStatus::kOutside;
}

bool IsVoidElement(std::string_view name) {
  for (std::string_view v : {"area", "base", "br", "col", "embed", "hr", "img", "input", "link",
                             "meta", "source", "track", "wbr"}) {
    if (name == v) return true;
  }
  return false;
}

// The end of a {...} expression starting at `i`, strings inside included.
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

std::string TagName(const std::string& name) { return name.empty() ? "<>" : "<" + name + ">"; }
std::string ClosingTag(const std::string& name) { return "</" + name + ">"; }

// JSX in MDX must nest: every <Tag> closed by </Tag> or written <Tag />.
void CheckTags(const std::string& path, std::string_view text, const LineIndex& lines,
               int first_line, Problems& out) {
  struct Open {
    std::string name;
    int line;
  };
  constexpr size_t kMaxOpen = 1000;
  std::vector<Open> open;
  const size_t n = text.size();
  for (size_t i = text.find('<'); i != std::string_view::npos; i = text.find('<', i)) {
    size_t start = i++;
    bool closing = i < n && text[i] == '/';
    if (closing) ++i;
    size_t name_start = i;
    while (i < n && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_' ||
                     text[i] == '-' || text[i] == '.' || text[i] == ':')) {
      ++i;
    }
    std::string name(text.substr(name_start, i - name_start));
    if (name.empty() ? !(i < n && text[i] == '>')
                     : !std::isalpha(static_cast<unsigned char>(name[0]))) {
      continue;  // "a < b", "<3": text
    }
    // Autolinks (<https://x.y>, <a@b.c>) are links, not tags.
    if (i < n && (text[i] == '@' || (text[i] == '/' && i + 1 < n && text[i + 1] == '/'))) continue;
    int line = first_line + lines.LineOf(start);
    bool self_closing = false;
    bool ended = false;
    while (i < n) {
      char c = text[i];
      if (c == '"' || c == '\'') {
        size_t end = text.find(c, i + 1);
        i = end == std::string_view::npos ? n : end + 1;
      } else if (c == '{') {
        i = SkipBraces(text, i);
      } else if (c == '/' && i + 1 < n && text[i + 1] == '>') {
        self_closing = ended = true;
        i += 2;
        break;
      } else if (c == '>') {
        ended = true;
        ++i;
        break;
      } else if (c == '<') {
        break;
      } else {
        ++i;
      }
    }
    if (!ended) {
      out.Add(path, line,
              "tag " + (closing ? ClosingTag(name) : TagName(name)) + " is not ended with >");
      continue;
    }
    if (closing) {
      auto match =
          std::find_if(open.rbegin(), open.rend(), [&](const Open& o) { return o.name == name; });
      if (match == open.rend()) {
        out.Add(path, line, ClosingTag(name) + " has no matching opening tag");
        continue;
      }
      for (auto it = open.rbegin(); it != match; ++it) {
        out.Add(path, it->line,
                TagName(it->name) + " is not closed before " + ClosingTag(name) + " on line " +
                    std::to_string(line));
      }
      open.erase(match.base() - 1, open.end());
    } else if (!self_closing) {
      if (IsVoidElement(name)) {
        out.Add(path, line, TagName(name) + " must be self-closing in MDX: write <" + name + " />");
      } else if (open.size() < kMaxOpen) {
        open.push_back(Open{name, line});
      }
    }
  }
  for (const Open& o : open) {
    out.Add(path, o.line,
            TagName(o.name) + " is never closed: add " + ClosingTag(o.name) +
                (o.name.empty() ? "" : " or write it as <" + o.name + " />"));
  }
}

// Parses YAML without building nodes; remembers where the last document began.
class YamlDocumentStarts final : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override { start = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

  YAML::Mark start = YAML::Mark::null_mark();
};

struct YamlError {
  int line = 0;  // 1-based in the text parsed, 0 when unknown
  std::string message;
};

// Why `text` is not YAML (a stream of at most `max_documents` documents), or
// nullopt if it is.
std::optional<YamlError> FindYamlError(std::string_view text, size_t max_documents) {
  std::istringstream in{std::string(text)};
  try {
    // Not YAML::LoadAll: on some malformed input (", ]") yaml-cpp 0.7 returns
    // the same document forever. A document that starts where the previous one
    // did is that case.
    YAML::Parser parser(in);
    YamlDocumentStarts handler;
    std::optional<int> previous;
    for (size_t documents = 0; parser.HandleNextDocument(handler); ++documents) {
      if (previous == handler.start.pos) {
        return YamlError{0, "there is text the parser cannot read (a stray ] or }?)"};
      }
      if (documents >= max_documents) {
        return YamlError{handler.start.line + 1,
                         "more than " + std::to_string(max_documents) + " documents"};
      }
      previous = handler.start.pos;
    }
  } catch (const YAML::ParserException& e) {
    return YamlError{e.mark.line >= 0 ? e.mark.line + 1 : 0, Shorten(e.msg)};
  } catch (const YAML::Exception& e) {
    return YamlError{0, Shorten(e.msg)};
  }
  return std::nullopt;
}

void CheckFrontmatter(const std::string& path, const Frontmatter& fm, Problems& out) {
  if (std::optional<YamlError> error = FindYamlError(fm.yaml, 1)) {
    int line = fm.yaml_line + std::max(error->line - 1, 0);
    out.Add(path, line, "frontmatter is not valid YAML: " + error->message);
    return;
  }
  std::optional<YAML::Node> node = ParseYaml(fm.yaml);
  if (node && node->IsDefined() && !node->IsNull() && !node->IsMap()) {
    out.Add(path, fm.yaml_line, "frontmatter must be YAML `key: value` lines");
  }
}

// The links and images of a page's prose that do not resolve. With `before`
// (the site as it was before the change), only those that resolved then.
void CheckLinks(const CheckContext& ctx, const std::string& path, std::string_view prose,
                const LineIndex& lines, int first_line, const CheckContext* before, Problems& out) {
  for (const Link& link : LinksIn(prose)) {
    std::optional<std::string> target = LinkTarget(link.destination);
    if (!target) continue;
    LinkStatus status = ResolveLink(ctx, path, *target);
    if (status == LinkStatus::kOk) continue;
    if (before && ResolveLink(*before, path, *target) != LinkStatus::kOk) continue;
    std::string shown = CleanLine(link.destination, kMaxMessageDetail);
    std::string what = (link.image ? "image " : "link ") + shown;
    int line = first_line + lines.LineOf(link.offset);
    if (before) {
      out.Add(path, line,
              what +
                  " no longer resolves: these changes delete or move what it pointed at; "
                  "update the link or remove it");
    } else if (status == LinkStatus::kOutside) {
      out.Add(path, line, what + " points outside the repository");
    } else {
      out.Add(path, line,
              what + (link.image ? " does not resolve to a file"
                                 : " does not resolve to a page or file"));
    }
  }
}

void CheckPage(const CheckContext& ctx, const std::string& path, std::string_view text,
               Problems& out) {
  bool mdx = Extension(path) == ".mdx";
  Frontmatter fm = SplitFrontmatter(text);
  if (fm.present && !fm.closed) {
    out.Add(path, 1, "frontmatter is not closed: add a line with --- after it");
    return;  // everything after it is frontmatter: nothing else can be checked
  }
  if (fm.present) CheckFrontmatter(path, fm, out);
  std::string_view body = text.substr(fm.body);
  int first_line = fm.present ? fm.body_line : 1;

  Prose prose = ProseOf(body, mdx);
  if (prose.unclosed_fence) {
    out.Add(
        path, first_line + prose.unclosed_fence - 1,
        "code block opened here is never closed: add a closing " + prose.fence_closing + " line");
  }
  LineIndex lines(prose.text);
  if (mdx) CheckTags(path, prose.text, lines, first_line, out);
  CheckLinks(ctx, path, prose.text, lines, first_line, nullptr, out);
}

// Pages the change leaves alone may link to files it deletes or moves away:
// those links worked before the change and do not now. Links that were already
// broken are not this change's doing, and are left alone. Only deletions inside
// the site can break its links; pages are read within `*bytes` (shared with the
// other checks).
void CheckLinksToRemovedFiles(const CheckContext& ctx, size_t* bytes, Problems& out) {
  const Site& site = ctx.site;
  bool removes = std::any_of(ctx.changes.begin(), ctx.changes.end(), [&](const auto& change) {
    return change.second.kind == git::Change::Kind::kDelete &&
           (IsUnder(change.first, site.site_root) || IsUnder(change.first, site.map.content_root));
  });
  if (!removes) return;
  // The site as it was, with its own doc ids (a deleted page's `id:`, say).
  git::Workspace was(ctx.files.base());
  Changes none;
  Site before_site = LoadSite(was, none, kDefaultMaxFiles);
  if (before_site.map.framework == Framework::kDocusaurus) AddFrontmatterIds(was, before_site);
  CheckContext before{was, none, before_site};
  for (const std::string& page : site.map.pages) {  // bounded by the walk
    if (ctx.changes.count(page)) continue;           // checked whole, or gone
    if (*bytes > kMaxCheckedBytes) break;
    std::optional<std::string> text = ReadText(ctx.files, page);
    if (!text) continue;
    *bytes += text->size();
    Frontmatter fm = SplitFrontmatter(*text);
    if (fm.present && !fm.closed) continue;
    Prose prose = ProseOf(std::string_view(*text).substr(fm.body), Extension(page) == ".mdx");
    LineIndex lines(prose.text);
    CheckLinks(ctx, page, prose.text, lines, fm.present ? fm.body_line : 1, &before, out);
  }
}

// "syntax error while parsing ..." out of nlohmann's
// "[json.exception.parse_error.101] parse error at line 3, column 1: syntax ...".
std::string JsonErrorDetail(const std::string& what) {
  size_t at = what.find("parse error");
  if (at != std::string::npos) {
    size_t colon = what.find(": ", at);
    if (colon != std::string::npos) return Shorten(what.substr(colon + 2));
  }
  return Shorten(what);
}

void CheckJson(const std::string& path, std::string_view text, bool strict, Problems& out) {
  try {
    Json parsed = Json::parse(text);
    (void)parsed;
  } catch (const Json::parse_error& e) {
    if (!strict) {
      // tsconfig.json and editor settings are JSON with comments.
      Json relaxed = Json::parse(text, nullptr, false, /*ignore_comments=*/true);
      if (!relaxed.is_discarded()) return;
    }
    size_t offset = e.byte == 0 ? 0 : e.byte - 1;
    out.Add(path, LineOfOffset(text, offset), "invalid JSON: " + JsonErrorDetail(e.what()));
  }
}

// The line of the navigation file where `page` is listed, 0 if not found.
int NavLine(std::string_view text, std::string_view page) {
  for (char quote : {'"', '\'', '`'}) {
    std::string quoted = quote + std::string(page) + quote;
    size_t at = text.find(quoted);
    if (at != std::string_view::npos) return LineOfOffset(text, at);
  }
  // YAML lists names bare: "- guide/install.md" or "Install: guide/install.md".
  for (size_t at = text.find(page); at != std::string_view::npos; at = text.find(page, at + 1)) {
    bool starts = at == 0 || text[at - 1] == ' ' || text[at - 1] == '\t';
    size_t end = at + page.size();
    bool ends = end == text.size() || text[end] == '\n' || text[end] == '\r' || text[end] == ' ' ||
                text[end] == '#';
    if (starts && ends) return LineOfOffset(text, at);
  }
  return 0;
}

std::string MissingPageMessage(const Site& site, const std::string& page) {
  switch (site.map.framework) {
    case Framework::kMintlify: {
      std::string base = Join(site.site_root, page);
      return "navigation lists \"" + page + "\" but neither " + base + ".mdx nor " + base +
             ".md exists";
    }
    case Framework::kDocusaurus:
      return "sidebar lists doc \"" + page + "\" but no " + Join(site.map.content_root, page) +
             ".md or .mdx exists";
    case Framework::kMkDocs:
      return "nav lists \"" + page + "\" but " + Join(site.map.content_root, page) +
             " does not exist";
    case Framework::kMarkdown:
      break;
  }
  return "navigation lists \"" + page + "\" but no such page exists";
}

std::string NotInNavigationMessage(const Site& site, const std::string& path) {
  switch (site.map.framework) {
    case Framework::kMintlify:
      return "new page is not in navigation: add \"" +
             StripExtension(RelativeTo(path, site.site_root)) + "\" to a group's pages in " +
             site.nav_file;
    case Framework::kDocusaurus:
      return "new page is not in the sidebar: add \"" + DocId(site, path) + "\" to " +
             site.nav_file;
    case Framework::kMkDocs:
      return "new page is not in navigation: add \"" + RelativeTo(path, site.map.content_root) +
             "\" to nav: in " + site.nav_file;
    case Framework::kMarkdown:
      break;
  }
  return "new page is not in navigation";
}

// --- Rendering ------------------------------------------------------------------

std::string NewPagesHint(const SiteMap& map) {
  std::string under = map.content_root.empty() ? "" : " under " + map.content_root + "/";
  switch (map.framework) {
    case Framework::kMintlify: {
      std::string site_root = Dirname(map.config_path);
      return "New pages: add a .mdx file" + under + " with frontmatter `title:` and list it in " +
             map.config_path + " navigation (path" +
             (site_root.empty() ? "" : " relative to " + site_root + "/") + " without extension).";
    }
    case Framework::kDocusaurus:
      if (map.navigation_generated) {
        return "New pages: add a .md or .mdx file" + under +
               " with frontmatter `title:`; the sidebar follows the folders.";
      }
      return "New pages: add a .md or .mdx file" + under +
             " with frontmatter `title:` and list its id (path under " + map.content_root +
             "/ without extension) in " + map.config_path + ".";
    case Framework::kMkDocs:
      if (map.navigation_generated) {
        return "New pages: add a .md file" + under +
               " starting with a `# Title` heading; navigation follows the folders (" +
               map.config_path + " has no nav:).";
      }
      return "New pages: add a .md file" + under +
             " starting with a `# Title` heading and list it in nav: of " + map.config_path +
             " (path relative to " + map.content_root + "/, with extension).";
    case Framework::kMarkdown:
      break;
  }
  return "New pages: add a .md file starting with a `# Title` heading and link to it from a "
         "related page; there is no navigation file.";
}

std::vector<std::string> SplitGroups(std::string_view group) {
  std::vector<std::string> parts;
  while (!group.empty()) {
    size_t at = group.find(kGroupSeparator);
    parts.emplace_back(group.substr(0, at));
    if (at == std::string_view::npos) break;
    group.remove_prefix(at + kGroupSeparator.size());
  }
  return parts;
}

// Whole lines of `lines` while they fit in `max_bytes`, then a note of what was
// left out.
std::string FitLines(const std::vector<std::string>& lines, size_t max_bytes) {
  size_t total = 0;
  for (const std::string& line : lines) total += line.size() + 1;
  std::string out;
  if (total <= max_bytes) {
    for (const std::string& line : lines) out += line + "\n";
    return out;
  }
  auto note = [](size_t count, size_t bytes) {
    return "[" + std::to_string(count) + " more lines (" + std::to_string(bytes) +
           " bytes) left out]\n";
  };
  size_t reserve = note(lines.size(), total).size();  // numbers only shrink
  if (reserve > max_bytes) return "";
  size_t kept = 0;
  for (; kept < lines.size(); ++kept) {
    if (out.size() + lines[kept].size() + 1 + reserve > max_bytes) break;
    out += lines[kept] + "\n";
  }
  return out + note(lines.size() - kept, total - out.size());
}

}  // namespace

std::string_view ToString(Framework framework) {
  switch (framework) {
    case Framework::kMintlify:
      return "Mintlify";
    case Framework::kDocusaurus:
      return "Docusaurus";
    case Framework::kMkDocs:
      return "MkDocs";
    case Framework::kMarkdown:
      return "Markdown";
  }
  return "Markdown";
}

std::string SiteMap::Render(size_t max_bytes) const {
  std::vector<std::string> lines;
  std::string head = "Framework: " + std::string(ToString(framework));
  head += config_path.empty() ? " (no site configuration)" : " (" + config_path + ")";
  lines.push_back(std::move(head));
  lines.push_back(NewPagesHint(*this));
  if (pages_truncated) {
    lines.push_back("Only part of the repository was examined: more pages may exist.");
  }
  lines.push_back(navigation_generated ? "Navigation (follows the folders):" : "Navigation:");
  if (navigation.empty()) lines.push_back("  (none)");
  std::vector<std::string> previous;
  for (const NavEntry& entry : navigation) {
    std::vector<std::string> groups = SplitGroups(entry.group);
    size_t common = 0;
    while (common < previous.size() && common < groups.size() &&
           previous[common] == groups[common]) {
      ++common;
    }
    for (size_t depth = common; depth < groups.size(); ++depth) {
      lines.push_back(std::string(2 * depth, ' ') + "- " + groups[depth]);
    }
    std::string line = std::string(2 * groups.size(), ' ') + "- " + entry.page;
    if (!entry.title.empty()) line += ": " + entry.title;
    if (entry.path.empty()) line += " (missing file!)";
    lines.push_back(std::move(line));
    previous = std::move(groups);
  }

  if (!navigation_generated) {
    std::set<std::string_view> listed;
    for (const NavEntry& entry : navigation) listed.insert(entry.path);
    std::string site_root = Dirname(config_path);
    std::string line = "Pages not in navigation: ";
    size_t count = 0;
    for (const std::string& page : pages) {
      if (listed.count(page) || IsPartial(framework, site_root, content_root, page)) continue;
      std::string item = (count++ ? ", " : "") + page;
      if (line.size() + item.size() > kRenderLineWidth && count > 1) {
        lines.push_back(line + ",");
        line = "  " + page;
      } else {
        line += item;
      }
    }
    if (count) lines.push_back(std::move(line));
  }
  return FitLines(lines, max_bytes);
}

SiteMap BuildSiteMap(const git::Workspace& files, size_t max_files) {
  Site site = LoadSite(files, files.Changes(), max_files);
  FillNavigation(files, site);
  return std::move(site.map);
}

std::vector<Problem> CheckChanges(const git::Workspace& files, size_t max_problems) {
  Changes changes = files.Changes();
  Site site = LoadSite(files, changes, kDefaultMaxFiles);
  // Links may name a doc by the `id:` in its frontmatter: read those (bounded)
  // even when the sidebars did not need them.
  if (site.map.framework == Framework::kDocusaurus) AddFrontmatterIds(files, site);
  CheckContext ctx{files, changes, site};
  Problems out;

  size_t checked = 0;
  size_t bytes = 0;
  for (const auto& [path, change] : changes) {
    if (change.kind == git::Change::Kind::kDelete) continue;
    std::string ext = Extension(path);
    bool page = ext == ".md" || ext == ".mdx";
    bool json = ext == ".json";
    bool yaml = ext == ".yml" || ext == ".yaml";
    if (!page && !json && !yaml) continue;
    if (++checked > kMaxCheckedFiles || bytes > kMaxCheckedBytes) break;
    std::optional<std::string> text = ReadText(files, path);
    if (!text) continue;  // binary or too large: nothing a check can read
    bytes += text->size();
    if (page) {
      CheckPage(ctx, path, *text, out);
    } else if (json) {
      // The site's own configuration must be strict JSON; other files may be
      // JSON with comments.
      bool strict = path == site.map.config_path || path == site.nav_file;
      CheckJson(path, *text, strict, out);
    } else if (std::optional<YamlError> error = FindYamlError(*text, kMaxYamlDocuments)) {
      out.Add(path, error->line, "invalid YAML: " + error->message);
    }
  }

  CheckLinksToRemovedFiles(ctx, &bytes, out);

  if (site.nav_known && !site.nav_file.empty()) {
    std::set<std::string> listed;
    for (const RawEntry& entry : site.entries) {
      if (entry.path.empty()) {
        out.Add(site.nav_file, NavLine(site.nav_text, entry.page),
                MissingPageMessage(site, entry.page));
      } else {
        listed.insert(entry.path);
      }
    }
    if (!site.map.navigation_generated) {
      std::string pages_root =
          site.map.framework == Framework::kMintlify ? site.site_root : site.map.content_root;
      for (const auto& [path, change] : changes) {
        if (change.kind == git::Change::Kind::kDelete || !IsPageFile(path)) continue;
        if (!IsUnder(path, pages_root) || InIgnoredFolder(path, pages_root)) continue;
        if (files.base().IsFile(path) || listed.count(path)) continue;
        if (IsPartial(site.map.framework, site.site_root, site.map.content_root, path)) continue;
        out.Add(path, 0, NotInNavigationMessage(site, path));
      }
    }
  }
  return out.Take(max_problems);
}

}  // namespace docwright::docs
