// GitBook (Git Sync) and mdBook: a SUMMARY.md lists the pages, and a page it
// does not list is not published.
//
// GitBook: `.gitbook.yaml` may move the content root (`root:`), name the
// summary and first page (`structure: summary:`, `readme:`, relative to the
// root) and map old URLs to pages (`redirects:`, keys are URL paths under the
// root, values files relative to it). Without a summary file GitBook derives
// navigation from the folders. mdBook: `book.toml`'s `[book] src` (default
// "src") holds SUMMARY.md; pages are served as .html, so a link may name
// `page.html` for page.md (and `index.html` for a folder's README.md).
//
// SUMMARY.md, as both read it: a title heading first (ignored), then list items
// whose link is a page (nested by indentation), prefix and suffix chapters
// (links outside a list), headings that start a part or group (`# Part` in
// mdBook, `## Group` in GitBook), separators (`---`), draft chapters with no
// page (`[Title]()`), HTML comments. Entry paths are relative to the summary.
#include <cctype>

#include "core/url.h"
#include "docs/internal.h"

namespace docwright::docs {
namespace {

struct GitBookDetails : SiteDetails {
  // URL path under the content root (no slashes at either end) -> the
  // repository path of the page it redirects to.
  std::map<std::string, std::string> redirects;
  std::string readme;  // GitBook's first page: shown whether listed or not
  bool mdbook = false;
};

const GitBookDetails* DetailsOf(const Site& site) {
  return dynamic_cast<const GitBookDetails*>(site.details.get());
}

std::string PageName(const Site& site, const std::string& path) {
  return RelativeTo(path, site.map.content_root);
}

// Columns of the leading whitespace of `line` (a tab to the next multiple of
// 4), and where its text starts.
size_t Indent(std::string_view line, size_t* start) {
  size_t columns = 0;
  size_t i = 0;
  for (; i < line.size() && (line[i] == ' ' || line[i] == '\t'); ++i) {
    columns = line[i] == '\t' ? columns + 4 - columns % 4 : columns + 1;
  }
  *start = i;
  return columns;
}

// A thematic break: three or more of one of - * _, and spaces.
bool IsSeparator(std::string_view t) {
  if (t.empty() || (t[0] != '-' && t[0] != '*' && t[0] != '_')) return false;
  size_t marks = 0;
  for (char c : t) {
    if (c == t[0]) {
      ++marks;
    } else if (c != ' ' && c != '\t') {
      return false;
    }
  }
  return marks >= 3;
}

// The text after a list marker ("- ", "* ", "+ ", "1. ", "1) "), or nullopt.
std::optional<std::string_view> ListItem(std::string_view t) {
  size_t i = 0;
  if (!t.empty() && (t[0] == '-' || t[0] == '*' || t[0] == '+')) {
    i = 1;
  } else {
    while (i < t.size() && i < 9 && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
    if (i == 0 || i >= t.size() || (t[i] != '.' && t[i] != ')')) return std::nullopt;
    ++i;
  }
  if (i < t.size() && t[i] != ' ' && t[i] != '\t') return std::nullopt;
  return Trim(t.substr(i));
}

// The first link of `t`: its text and destination (without a link title);
// nullopt when `t` holds none.
struct Link {
  std::string_view text;
  std::string_view destination;
};
std::optional<Link> FirstLink(std::string_view t) {
  size_t open = t.find('[');
  if (open == std::string_view::npos) return std::nullopt;
  size_t mid = t.find("](", open + 1);
  if (mid == std::string_view::npos) return std::nullopt;
  Link link{Trim(t.substr(open + 1, mid - open - 1)), {}};
  std::string_view rest = t.substr(mid + 2);
  size_t i = 0;
  while (i < rest.size() && (rest[i] == ' ' || rest[i] == '\t')) ++i;
  rest.remove_prefix(i);
  if (rest.starts_with("<")) {
    size_t close = rest.find('>');
    if (close == std::string_view::npos) return std::nullopt;
    link.destination = rest.substr(1, close - 1);
    return link;
  }
  // Up to the ')' that closes the link (balanced parentheses inside), or the
  // space before a link title.
  int depth = 0;
  size_t end = 0;
  for (; end < rest.size(); ++end) {
    char c = rest[end];
    if (c == ' ' || c == '\t') break;
    if (c == '(') ++depth;
    if (c == ')' && depth-- == 0) break;
  }
  link.destination = rest.substr(0, end);
  return link;
}

// `[book] src = "..."` of a book.toml, read line by line (no TOML parser
// needed for one key); "src" when absent.
std::string BookSource(std::string_view toml) {
  bool in_book = false;
  for (size_t pos = 0; pos < toml.size();) {
    std::string_view line = Trim(LineFrom(toml, pos, &pos));
    if (line.starts_with("[")) {
      in_book = line.starts_with("[book]");
      continue;
    }
    if (!in_book || !line.starts_with("src")) continue;
    std::string_view rest = Trim(line.substr(3));
    if (!rest.starts_with("=")) continue;
    rest = Trim(rest.substr(1));
    if (rest.size() < 2 || (rest[0] != '"' && rest[0] != '\'')) continue;
    size_t close = rest.find(rest[0], 1);
    if (close == std::string_view::npos) continue;
    return std::string(rest.substr(1, close - 1));
  }
  return "src";
}

// The repository path a summary entry names, or nullopt when it names none
// (outside the repository, or no file could have such a name).
std::optional<std::string> EntryPath(const std::string& summary, const std::string& content_root,
                                     std::string_view destination) {
  destination = destination.substr(0, destination.find_first_of("#?"));
  if (destination.empty() || destination.size() > 4 * kMaxNameBytes) return std::nullopt;
  bool escapes_ok = true;
  std::string decoded = PercentDecode(destination, false, &escapes_ok);
  if (!escapes_ok) decoded = std::string(destination);
  if (decoded.starts_with("/")) return Normalize(Join(content_root, decoded.substr(1)));
  return Normalize(Join(Dirname(summary), decoded));
}

bool IsExternal(std::string_view destination) {
  return destination.find("://") != std::string_view::npos || destination.starts_with("mailto:");
}

// `to` as a link from a page in folder `from` ("../x/y.md" when not under it).
std::string RelativePath(const std::string& from, const std::string& to) {
  std::vector<std::string_view> a = SplitPath(from);
  std::vector<std::string_view> b = SplitPath(to);
  size_t common = 0;
  while (common < a.size() && common + 1 < b.size() && a[common] == b[common]) ++common;
  std::string out;
  for (size_t i = common; i < a.size(); ++i) out += "../";
  for (size_t i = common; i < b.size(); ++i) {
    out += b[i];
    if (i + 1 < b.size()) out += '/';
  }
  return out;
}

// A title for a new page's summary line, from its file name: "Roll back" for
// roll-back.md, the folder's name for a README.md.
std::string TitleFromName(const std::string& path) {
  std::string stem = StripExtension(Basename(path));
  if (Lower(stem) == "readme" && !Dirname(path).empty()) stem = Basename(Dirname(path));
  for (char& c : stem) {
    if (c == '-' || c == '_') c = ' ';
  }
  if (!stem.empty()) stem[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(stem[0])));
  return stem;
}

// The summary file a map's hint names: SUMMARY.md in the content root unless
// the summary is the configuration itself.
std::string SummaryOf(const SiteMap& map) {
  if (Basename(map.config_path) == "SUMMARY.md") return map.config_path;
  return Join(map.content_root, "SUMMARY.md");
}

class GitBook final : public FrameworkModule {
 public:
  Framework framework() const override { return Framework::kGitBook; }
  std::vector<std::string_view> ConfigNames() const override {
    return {".gitbook.yaml", "book.toml", "SUMMARY.md"};
  }

  void Load(const SiteLoad& load, Site& site) const override {
    auto owned = std::make_unique<GitBookDetails>();
    GitBookDetails& details = *owned;
    site.details = std::move(owned);
    std::string root = site.site_root;
    std::string summary_name = "SUMMARY.md";
    std::string readme_name = "README.md";
    std::string_view config = Basename(site.map.config_path);
    std::optional<YAML::Node> yaml;
    if (config != "SUMMARY.md") {
      std::optional<std::string> text = ReadText(load.files, site.map.config_path);
      if (text) load.budget.Spend(text->size() / 64 + 1);
      if (text && config == "book.toml") {
        details.mdbook = true;
        std::optional<std::string> src = Normalize(Join(site.site_root, BookSource(*text)));
        if (src) root = *src;
      } else if (text && text->size() <= kMaxYamlTreeBytes) {
        yaml = ParseYaml(*text);
        if (yaml && !yaml->IsMap()) yaml.reset();
      } else if (text) {
        site.notes.push_back(site.map.config_path + " is larger than the checks read");
      }
    }
    if (yaml) {
      try {
        if (std::optional<std::string> r =
                Normalize(Join(site.site_root, YamlString(*yaml, "root")))) {
          root = *r;
        }
        YAML::Node structure = (*yaml)["structure"];
        if (structure && structure.IsMap()) {
          if (std::string s = YamlString(structure, "summary"); !s.empty()) summary_name = s;
          if (std::string s = YamlString(structure, "readme"); !s.empty()) readme_name = s;
        }
      } catch (const YAML::Exception&) {
      }
    }
    site.map.content_root = root;
    if (!details.mdbook) details.readme = Normalize(Join(root, readme_name)).value_or("");
    if (yaml) ReadRedirects(load, *yaml, root, details);

    std::string summary = Normalize(Join(root, summary_name)).value_or(Join(root, "SUMMARY.md"));
    site.map.pages = WalkPages(load, root, &site.map.pages_truncated);
    std::erase(site.map.pages, summary);  // the navigation, not a page
    std::optional<std::string> text = ReadText(load.files, summary);
    if (!text) {
      // GitBook then derives navigation from the folders (mdBook would not
      // build: nothing to report on a page's edit either way).
      site.nav_known = true;
      site.map.navigation_generated = true;
      AddFolderEntries(site, root, "", PageName, load.budget, site.entries);
      return;
    }
    site.nav_file = summary;
    site.nav_known = true;
    bool complete = true;
    std::vector<SummaryItem> items = ReadSummary(*text, load.budget, &complete);
    site.nav_text = std::move(*text);
    if (!complete) {
      site.notes.push_back(summary + " is larger than the checks read; only its start was checked");
      site.nav_known = false;  // entries not seen cannot be checked
    }
    for (SummaryItem& item : items) {
      // A draft chapter has no page yet, by design; other sites are no pages.
      if (item.destination.empty() || IsExternal(item.destination)) continue;
      if (!load.budget.Spend()) break;
      std::optional<std::string> path = EntryPath(summary, root, item.destination);
      bool found = path && !path->empty() && load.files.IsFile(*path);
      site.entries.push_back(
          RawEntry{std::move(item.group), std::move(item.destination), found ? *path : ""});
    }
  }

  bool ResolvesRoute(const CheckContext& ctx, const std::string& route) const override {
    return ResolvesAt(ctx, Join(ctx.site.map.content_root, route)) || ResolvesAt(ctx, route);
  }

  bool ResolvesName(const CheckContext& ctx, const std::string& path) const override {
    const GitBookDetails* details = DetailsOf(ctx.site);
    if (!details) return false;
    if (details->mdbook && Extension(path) == ".html") {
      std::string stem = StripExtension(path);
      if (ctx.files.IsFile(stem + ".md")) return true;
      if (Basename(stem) == "index" && ctx.files.IsFile(Join(Dirname(stem), "README.md"))) {
        return true;
      }
    }
    const std::string& root = ctx.site.map.content_root;
    if (details->redirects.empty() || !IsUnder(path, root)) return false;
    auto to = details->redirects.find(RelativeTo(path, root));
    return to != details->redirects.end() && ctx.files.IsFile(to->second);
  }

  bool NeedsNavigation(const Site& site, const std::string& path) const override {
    const GitBookDetails* details = DetailsOf(site);
    if (path == site.nav_file || (details && path == details->readme)) return false;
    return FrameworkModule::NeedsNavigation(site, path);
  }

  std::string MissingPageMessage(const Site& site, const std::string& page) const override {
    std::optional<std::string> path = EntryPath(site.nav_file, site.map.content_root, page);
    std::string where =
        path && !path->empty() ? *path + " does not exist" : "it names no file of the repository";
    return std::string(Basename(site.nav_file)) + " lists \"" + page + "\" but " + where;
  }

  std::string NotInNavigationMessage(const Site& site, const std::string& path) const override {
    std::string link = RelativePath(Dirname(site.nav_file), path);
    std::string escaped;
    for (char c : link) escaped += c == ' ' ? std::string("%20") : std::string(1, c);
    return "new page is not in " + std::string(Basename(site.nav_file)) +
           ", so it is not published: add the line \"* [" + TitleFromName(path) + "](" + escaped +
           ")\" to " + site.nav_file + " (indented under its parent page to nest it)";
  }

  std::string NewPagesHint(const SiteMap& map) const override {
    std::string under = map.content_root.empty() ? "" : " under " + map.content_root + "/";
    if (map.navigation_generated) {
      return "New pages: add a .md file" + under +
             " starting with a `# Title` heading; navigation follows the folders (there is no "
             "SUMMARY.md).";
    }
    std::string summary = SummaryOf(map);
    std::string folder = Dirname(summary).empty() ? "the repository root" : Dirname(summary) + "/";
    return "New pages: add a .md file" + under +
           " starting with a `# Title` heading and a line `* [Title](path.md)` for it in " +
           summary + " (path relative to " + folder +
           ", indented under its parent page to nest it): a page the summary does not list is "
           "not published.";
  }

 private:
  // `redirects:` of .gitbook.yaml: at most kMaxObjectKeys, each paid for.
  static void ReadRedirects(const SiteLoad& load, const YAML::Node& config, const std::string& root,
                            GitBookDetails& details) {
    try {
      YAML::Node redirects = config["redirects"];
      if (!redirects || !redirects.IsMap()) return;
      for (YAML::const_iterator it = redirects.begin(); it != redirects.end(); ++it) {
        if (details.redirects.size() >= kMaxObjectKeys || !load.budget.Spend()) return;
        if (!it->first.IsScalar() || !it->second.IsScalar()) continue;
        const std::string& from = it->first.Scalar();
        const std::string& to = it->second.Scalar();
        if (from.size() > 4 * kMaxNameBytes || to.size() > 4 * kMaxNameBytes) continue;
        std::optional<std::string> key = Normalize(from);
        std::optional<std::string> target = Normalize(Join(root, to));
        if (key && !key->empty() && target) details.redirects.emplace(*key, *target);
      }
    } catch (const YAML::Exception&) {
    }
  }
};

}  // namespace

std::vector<SummaryItem> ReadSummary(std::string_view text, Budget& budget, bool* complete) {
  *complete = true;
  std::vector<SummaryItem> items;
  // The entries a list item is nested in: its indentation, and the group its
  // children get (the part and the parents' labels, joined).
  struct Parent {
    size_t indent;
    std::string group;
  };
  std::vector<Parent> parents;
  std::string part;
  bool started = false;  // a heading or an entry was read
  bool in_comment = false;
  FenceTracker fences;
  int line_number = 0;
  for (size_t pos = 0; pos < text.size();) {
    std::string_view line = LineFrom(text, pos, &pos);
    ++line_number;
    if (!budget.Spend(1 + line.size() / 64)) {
      *complete = false;
      break;
    }
    if (fences.IsCode(line)) continue;
    size_t start = 0;
    size_t indent = Indent(line, &start);
    std::string_view t = Trim(line.substr(start));
    if (in_comment) {
      in_comment = t.find("-->") == std::string_view::npos;
      continue;
    }
    if (t.starts_with("<!--")) {
      in_comment = t.find("-->", 4) == std::string_view::npos;
      continue;
    }
    if (t.empty() || IsSeparator(t)) continue;
    if (t.starts_with("#") && indent < 4) {
      size_t level = t.find_first_not_of('#');
      if (level != std::string_view::npos && t[level] != ' ' && t[level] != '\t') continue;
      std::string_view heading = level == std::string_view::npos ? "" : Trim(t.substr(level));
      while (heading.ends_with("#")) heading.remove_suffix(1);
      parents.clear();
      // The first heading, a level-1 one before anything else, is the
      // summary's title ("# Summary", "# Table of contents"); later ones start
      // a part or a group.
      bool title = !started && level == 1;
      started = true;
      if (!title) part = Name(Trim(heading));
      continue;
    }
    std::optional<std::string_view> item = ListItem(t);
    // Prose between the lists (mdBook allows none, GitBook ignores it) is not
    // an entry; a list item without a link still holds its nested items.
    if (!item && !t.starts_with("[")) continue;
    std::optional<Link> link = FirstLink(item ? *item : t);
    if (!item && !link) continue;
    started = true;
    if (!item) indent = 0;  // a prefix or suffix chapter
    while (!parents.empty() && parents.back().indent >= indent) parents.pop_back();
    // Prefix and suffix chapters stand outside the parts.
    std::string group = !item ? "" : parents.empty() ? part : parents.back().group;
    std::string label = Name(link ? link->text : *item);
    if (item && parents.size() < static_cast<size_t>(kMaxDepth)) {
      // Each nested group is a copy of its parent's and its label: paid for.
      if (!budget.Spend(1 + (group.size() + label.size()) / 64)) {
        *complete = false;
        break;
      }
      parents.push_back(Parent{indent, JoinGroups({group, label})});
    }
    if (!link) continue;
    if (items.size() >= kMaxNavEntries) {
      *complete = false;
      break;
    }
    std::string_view destination = link->destination;
    // No file has a longer name: kept only as far as a message shows it.
    std::string kept =
        destination.size() > 4 * kMaxNameBytes ? Name(destination) : std::string(destination);
    items.push_back(SummaryItem{std::move(group), std::move(label), std::move(kept), line_number});
  }
  return items;
}

const FrameworkModule& GitBookModule() {
  static const GitBook module;
  return module;
}

}  // namespace docwright::docs
