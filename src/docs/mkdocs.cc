// MkDocs: mkdocs.yml (or .yaml) with `docs_dir` (default docs/, relative to the
// configuration), `INHERIT` (a parent configuration merged under this one),
// `nav` (pages by their path under docs_dir, nested sections, links, folders,
// whose pages are listed in their place, and mkdocs-monorepo-plugin's
// `!include`d configurations), `exclude_docs` (not pages at all), `not_in_nav`
// (pages that need no navigation entry) and `use_directory_urls`. Plugins read:
// mkdocs-static-i18n (translations by suffix, page.fr.md, or by folder,
// docs/fr/...: not pages of navigation) and awesome-pages (`.pages` files that
// hide folders or list their pages). Tags such as !ENV and !!python/name: are
// data here, never run.
#include <algorithm>
#include <set>
#include <utility>

#include "core/glob.h"
#include "docs/internal.h"

namespace docwright::docs {
namespace {

// A nav: written by hand has at most a few thousand nodes; YAML aliases can make
// a small file stand for astronomically many.
constexpr size_t kMaxNavNodes = 200000;
// Configurations a site reads besides its own: INHERIT chains are one or two
// long, monorepos include tens.
constexpr int kMaxInherit = 8;
constexpr size_t kMaxIncludes = 100;
// awesome-pages `.pages` files read: one per folder.
constexpr size_t kMaxPagesFiles = 500;
constexpr size_t kMaxTranslations = 20000;

struct Language {
  std::string locale;
  bool build = true;
};

struct MkDocsDetails : SiteDetails {
  std::vector<std::string> not_in_nav;  // gitignore-style, relative to docs_dir
  bool directory_urls = true;
  // mkdocs-static-i18n: how translations are told apart, the default language
  // (whose pages are the site's) and the others.
  enum class I18n { kNone, kSuffix, kFolder } i18n = I18n::kNone;
  std::string default_language;
  std::vector<Language> languages;
  // mkdocs-monorepo-plugin: the URL folder (the included site_name) and the
  // docs folder of each included configuration.
  std::vector<std::pair<std::string, std::string>> mounts;
  // INHERIT: the docs folder of the configuration the nav comes from, when it
  // is another's (a per-language site, docs/fr/mkdocs.yml inheriting
  // ../en/mkdocs.yml, is built with the pages it lacks taken from there).
  std::string fallback_root;
  // awesome-pages: folders whose `.pages` lists their pages without "...",
  // and that file: a page of the folder it does not list is left out.
  std::map<std::string, std::string> closed_folders;
};

const MkDocsDetails* DetailsOf(const Site& site) {
  return dynamic_cast<const MkDocsDetails*>(site.details.get());
}

std::string PageName(const Site& site, const std::string& path) {
  // Pages of an !include'd configuration live outside the site's docs folder.
  return IsUnder(path, site.map.content_root) ? RelativeTo(path, site.map.content_root) : path;
}

// A lookup that adds nothing to `map`.
YAML::Node Get(const YAML::Node& map, const char* key) {
  try {
    if (map.IsMap()) {
      YAML::Node value = map[key];
      if (value.IsDefined()) return value;  // an absent key gives an invalid node
    }
  } catch (const YAML::Exception&) {
  }
  return YAML::Node();
}

// Patterns of one of these lists are few and short; more are not read.
constexpr size_t kMaxPatterns = 100;
constexpr size_t kMaxPatternBytes = 256;

// Patterns, one per line, of a YAML block scalar (exclude_docs: |).
std::vector<std::string> Patterns(const YAML::Node& config, const char* key) {
  std::vector<std::string> out;
  std::string text = YamlString(config, key);
  for (size_t pos = 0; pos < text.size() && out.size() < kMaxPatterns;) {
    std::string_view line = Trim(LineFrom(text, pos, &pos));
    if (!line.empty() && !line.starts_with("#") && line.size() <= kMaxPatternBytes) {
      out.emplace_back(line);
    }
  }
  return out;
}

// Each match costs the pattern's length times the path's: paid from `budget`
// (false once it is spent).
bool MatchesAny(const std::vector<std::string>& patterns, std::string_view rel, Budget& budget) {
  bool matched = false;
  for (const std::string& p : patterns) {  // gitignore: the last match decides
    if (!budget.Spend(1 + p.size() * rel.size() / 64)) return false;
    if (GitignoreMatches(p, rel)) matched = !p.starts_with("!");
  }
  return matched;
}

// --- Configuration files --------------------------------------------------------

// The docs folder of the configuration at `path`.
std::string DocsDir(const std::string& path, const YAML::Node& config) {
  // Relative to the configuration's folder, which it may leave ("../docs" of
  // website/mkdocs.yml), but not the repository.
  std::string docs_dir = YamlString(config, "docs_dir");
  std::optional<std::string> dir =
      docs_dir.empty() ? std::nullopt : Normalize(Join(Dirname(path), docs_dir));
  return dir ? *dir : Join(Dirname(path), "docs");
}

// `child` over `parent` as MkDocs merges INHERIT: mappings key by key, anything
// else (lists included) is the child's. Builds new mappings; shares the rest.
YAML::Node Merge(const YAML::Node& parent, const YAML::Node& child, int depth, Budget& budget) {
  if (!parent.IsMap() || !child.IsMap() || depth > kMaxDepth) return child;
  YAML::Node out(YAML::NodeType::Map);
  for (const YAML::Node* side : {&parent, &child}) {
    for (YAML::const_iterator it = side->begin(); it != side->end(); ++it) {
      if (!budget.Spend() || !it->first.IsScalar()) continue;
      const std::string& key = it->first.Scalar();
      YAML::Node before = Get(out, key.c_str());
      out[key] = side == &child && before && before.IsMap() && it->second.IsMap()
                     ? Merge(before, it->second, depth + 1, budget)
                     : it->second;
    }
  }
  return out;
}

struct ConfigFile {
  YAML::Node root;       // with what it inherits merged in
  std::string nav_file;  // the file whose nav: is in effect ("" if none has one)
  std::string nav_text;
  std::string nav_docs;  // that file's docs folder
};

std::optional<ConfigFile> ReadConfig(const SiteLoad& load, const std::string& path, int depth) {
  std::optional<std::string> text = ReadText(load.files, path);
  if (!text) return std::nullopt;
  load.budget.Spend(text->size() / 64);
  std::optional<YAML::Node> node = ParseYaml(*text);
  if (!node || !node->IsMap()) return std::nullopt;
  ConfigFile out{*node, "", "", ""};
  if (Get(*node, "nav").IsSequence()) {
    out.nav_file = path;
    out.nav_text = std::move(*text);
    out.nav_docs = DocsDir(path, *node);
  }
  std::string inherit = YamlString(*node, "INHERIT");
  if (inherit.empty() || depth >= kMaxInherit) return out;
  std::optional<std::string> parent_path = Normalize(Join(Dirname(path), inherit));
  if (!parent_path || *parent_path == path) return out;
  std::optional<ConfigFile> parent = ReadConfig(load, *parent_path, depth + 1);
  if (!parent) return out;
  out.root = Merge(parent->root, *node, 0, load.budget);
  if (out.nav_file.empty()) {
    out.nav_file = std::move(parent->nav_file);
    out.nav_text = std::move(parent->nav_text);
    out.nav_docs = std::move(parent->nav_docs);
  }
  return out;
}

// The options of plugin `name` (null when it has none); nullopt when the
// configuration does not enable it. `plugins:` is a list of names and of
// one-key mappings, or a mapping.
std::optional<YAML::Node> Plugin(const YAML::Node& config, std::string_view name) {
  YAML::Node plugins = Get(config, "plugins");
  if (plugins.IsMap()) {
    for (YAML::const_iterator it = plugins.begin(); it != plugins.end(); ++it) {
      if (it->first.IsScalar() && it->first.Scalar() == name) return it->second;
    }
  }
  if (!plugins.IsSequence()) return std::nullopt;
  size_t seen = 0;
  for (YAML::const_iterator it = plugins.begin(); it != plugins.end() && ++seen < 1000; ++it) {
    const YAML::Node item = *it;
    if (item.IsScalar() && item.Scalar() == name) return YAML::Node();
    if (!item.IsMap()) continue;
    for (YAML::const_iterator kv = item.begin(); kv != item.end(); ++kv) {
      if (kv->first.IsScalar() && kv->first.Scalar() == name) return kv->second;
    }
  }
  return std::nullopt;
}

// mkdocs-static-i18n's options: 1.x lists `languages` with `locale`, `default`
// and `build`; 0.x names `default_language` and maps `languages`.
void ReadI18n(const YAML::Node& options, MkDocsDetails& details) {
  details.i18n = YamlString(options, "docs_structure") == "folder" ? MkDocsDetails::I18n::kFolder
                                                                   : MkDocsDetails::I18n::kSuffix;
  details.default_language = YamlString(options, "default_language");
  std::vector<Language> all;
  YAML::Node languages = Get(options, "languages");
  size_t seen = 0;
  for (YAML::const_iterator it = languages.begin(); it != languages.end() && ++seen < 200; ++it) {
    Language language;
    YAML::Node settings;
    if (languages.IsSequence()) {
      settings = static_cast<const YAML::Node&>(*it);
      language.locale = YamlString(settings, "locale");
      if (YamlBool(YamlString(settings, "default")) == true && details.default_language.empty()) {
        details.default_language = language.locale;
      }
    } else if (it->first.IsScalar()) {
      language.locale = it->first.Scalar();
      settings = it->second;
    }
    language.build = YamlBool(YamlString(settings, "build")) != false;
    language.locale = Name(language.locale);
    if (!language.locale.empty()) all.push_back(std::move(language));
  }
  if (details.default_language.empty() && !all.empty()) {
    details.default_language = all.front().locale;
  }
  for (Language& language : all) {
    if (language.locale != details.default_language) details.languages.push_back(language);
  }
}

// The language `path` is a translation into, or nullptr for a page of the
// default version.
const Language* TranslationOf(const MkDocsDetails& details, const std::string& content_root,
                              const std::string& path) {
  if (details.i18n == MkDocsDetails::I18n::kNone || !IsUnder(path, content_root)) return nullptr;
  std::string_view lang;
  std::string stem = StripExtension(Basename(path));
  std::string rel = RelativeTo(path, content_root);  // `lang` may point into these two
  if (details.i18n == MkDocsDetails::I18n::kSuffix) {
    size_t dot = stem.rfind('.');
    if (dot == std::string::npos) return nullptr;
    lang = std::string_view(stem).substr(dot + 1);
  } else {
    std::vector<std::string_view> parts = SplitPath(rel);
    if (parts.size() < 2) return nullptr;
    lang = parts.front();
  }
  for (const Language& language : details.languages) {
    if (language.locale == lang) return &language;
  }
  return nullptr;
}

// The file nav entry `page` names under `root`: the file, or where i18n puts the
// default language's version of it (page.en.md, or en/page.md).
std::optional<std::string> NavFile(const SiteLoad& load, const MkDocsDetails& details,
                                   const std::string& root, const std::string& page) {
  std::optional<std::string> path = Normalize(Join(root, page));
  if (!path || path->empty()) return std::nullopt;
  if (load.files.IsFile(*path)) return path;
  const std::string& lang = details.default_language;
  if (details.i18n == MkDocsDetails::I18n::kSuffix && IsPageFile(*path)) {
    std::string suffixed = StripExtension(*path) + "." + lang + Extension(*path);
    if (load.files.IsFile(suffixed)) return suffixed;
  } else if (details.i18n == MkDocsDetails::I18n::kFolder) {
    std::optional<std::string> in_folder = Normalize(Join(Join(root, lang), page));
    if (in_folder && load.files.IsFile(*in_folder)) return in_folder;
  }
  return std::nullopt;
}

// --- nav: ------------------------------------------------------------------------

// A nav entry that is a link, not a page: MkDocs takes any URL with a scheme or
// a host as external, and an absolute path as presumably another site's.
bool IsNavLink(std::string_view page) {
  if (page.starts_with("/")) return true;  // "/blog/", "//host/x"
  size_t colon = page.find(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  return std::all_of(page.begin(), page.begin() + colon, [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '-' || c == '.';
  });
}

class NavWalk {
 public:
  NavWalk(const SiteLoad& load, Site& site, MkDocsDetails& details, std::string root,
          std::string config_dir)
      : load_(load),
        site_(site),
        details_(details),
        root_(std::move(root)),
        config_dir_(std::move(config_dir)) {}

  // False when the walk was cut short by the budget.
  bool Walk(const YAML::Node& items, int depth) {
    if (depth > kMaxDepth || !items.IsSequence()) return true;
    for (YAML::const_iterator it = items.begin(); it != items.end(); ++it) {
      if (!Visit() || site_.entries.size() >= kMaxNavEntries) return false;
      const YAML::Node item = *it;
      if (item.IsScalar()) {
        if (!Add(item, "", depth)) return false;
      } else if (item.IsMap()) {
        for (YAML::const_iterator kv = item.begin(); kv != item.end(); ++kv) {
          if (!Visit()) return false;
          const YAML::Node value = kv->second;
          std::string label = kv->first.IsScalar() ? Name(kv->first.Scalar()) : "";
          if (value.IsScalar()) {
            if (!Add(value, label, depth)) return false;
          } else if (value.IsSequence()) {
            groups_.push_back(Name(label));
            bool finished = Walk(value, depth + 1);
            groups_.pop_back();
            if (!finished) return false;
          }
        }
      }
    }
    return true;
  }

 private:
  bool Visit() { return ++visited_ <= kMaxNavNodes && load_.budget.Spend(); }

  bool Add(const YAML::Node& node, const std::string& label, int depth) {
    const std::string& page = node.Scalar();
    // mkdocs-monorepo-plugin: "!include ./x/mkdocs.yml", a YAML tag or quoted.
    if (node.Tag() == "!include") return Include(page, label, depth);
    if (page.starts_with("!include "))
      return Include(std::string(Trim(page.substr(9))), label, depth);
    AddPage(page, label);
    return true;
  }

  void AddPage(const std::string& page, const std::string& label) {
    if (page.starts_with("/") && !page.starts_with("//")) {
      // validation.nav.absolute_links: relative_to_docs makes "/x.md" a page.
      if (std::optional<std::string> path = NavFile(load_, details_, root_, page.substr(1))) {
        site_.entries.push_back(RawEntry{JoinGroups(groups_), Name(page), *path});
      }
      return;
    }
    if (IsNavLink(page)) return;
    if (page.size() > 4 * kMaxNameBytes) {  // no file has such a name: not worth a copy
      Missing(page);
      return;
    }
    if (std::optional<std::string> path = NavFile(load_, details_, root_, page)) {
      site_.entries.push_back(RawEntry{JoinGroups(groups_), Name(page), *path});
      return;
    }
    // A folder stands for its pages (written "user-guide/", or without the slash).
    std::optional<std::string> path = Normalize(Join(root_, page));
    if (path && (page.ends_with("/") || DirExists(load_.files, load_.changes, *path))) {
      size_t before = site_.entries.size();
      std::vector<std::string> groups = groups_;
      groups.push_back(Name(label));
      AddFolderEntries(site_, *path, JoinGroups(groups), PageName, load_.budget, site_.entries);
      if (site_.entries.size() > before) return;
    }
    // A per-language site builds the pages it lacks from the configuration it
    // inherits its nav from.
    if (!details_.fallback_root.empty() && root_ == site_.map.content_root) {
      if (std::optional<std::string> there =
              NavFile(load_, details_, details_.fallback_root, page)) {
        site_.entries.push_back(RawEntry{JoinGroups(groups_), Name(page), *there});
        return;
      }
    }
    Missing(page);
  }

  void Missing(const std::string& page) {
    // An entry of an included configuration's nav is that file's, which the
    // checks do not point at: the monorepo plugin reports it when it builds.
    if (root_ != site_.map.content_root) return;
    site_.entries.push_back(RawEntry{JoinGroups(groups_), Name(page), ""});
  }

  // The configuration at `file` (relative to the one being read): its pages
  // become the site's, its nav (or its folders) is listed under `label`.
  bool Include(const std::string& file, const std::string& label, int depth) {
    std::optional<std::string> path = Normalize(Join(config_dir_, file));
    std::optional<ConfigFile> config;
    if (path && ++includes_ <= kMaxIncludes && depth < kMaxDepth) {
      config = ReadConfig(load_, *path, kMaxInherit);  // what it inherits is not read
    }
    if (!config) {
      if (root_ == site_.map.content_root) {
        site_.entries.push_back(RawEntry{JoinGroups(groups_), Name("!include " + file), ""});
      }
      return true;
    }
    std::string docs = DocsDir(*path, config->root);
    bool truncated = false;
    // Kept sorted while the walk goes on (folder entries look pages up by
    // prefix): the walk's pages are sorted, so a merge keeps the whole sorted.
    std::vector<std::string>& pages = site_.map.pages;
    size_t middle = pages.size();
    for (std::string& page : WalkPages(load_, docs, &truncated)) pages.push_back(std::move(page));
    std::inplace_merge(pages.begin(), pages.begin() + static_cast<ptrdiff_t>(middle), pages.end());
    pages.erase(std::unique(pages.begin(), pages.end()), pages.end());
    site_.map.pages_truncated = site_.map.pages_truncated || truncated;
    details_.mounts.emplace_back(Name(YamlString(config->root, "site_name")), docs);
    groups_.push_back(Name(label));
    bool finished = true;
    YAML::Node nav = Get(config->root, "nav");
    if (nav.IsSequence()) {
      NavWalk inner(load_, site_, details_, docs, Dirname(*path));
      inner.groups_ = groups_;
      inner.visited_ = visited_;
      inner.includes_ = includes_;
      finished = inner.Walk(nav, depth + 1);
      visited_ = inner.visited_;
      includes_ = inner.includes_;
    } else {
      AddFolderEntries(site_, docs, JoinGroups(groups_), PageName, load_.budget, site_.entries);
    }
    groups_.pop_back();
    return finished;
  }

  const SiteLoad& load_;
  Site& site_;
  MkDocsDetails& details_;
  std::string root_;        // the docs folder entries are relative to
  std::string config_dir_;  // the folder of the configuration being read
  std::vector<std::string> groups_;
  size_t visited_ = 0;
  size_t includes_ = 0;
};

// --- awesome-pages ---------------------------------------------------------------

// Reads the `.pages` file (named `filename`) of each folder holding pages:
// `hide: true` takes the folder's pages out of navigation, and a `nav:` without
// "..." lists the only pages of the folder that navigation shows. Entries it
// names that do not exist are not reported: the plugin's own check does that.
void ReadPagesFiles(const SiteLoad& load, const std::string& filename, Site& site,
                    MkDocsDetails& details) {
  std::set<std::string> folders;
  for (const std::string& page : site.map.pages) folders.insert(Dirname(page));
  std::vector<std::string> hidden;
  std::map<std::string, std::set<std::string>> listed;  // closed folder -> names
  size_t read = 0;
  for (const std::string& folder : folders) {
    if (++read > kMaxPagesFiles || !load.budget.Spend()) break;
    std::string file = Join(folder, filename);
    std::optional<std::string> text = ReadText(load.files, file);
    if (!text) continue;
    load.budget.Spend(text->size() / 64);
    std::optional<YAML::Node> config = ParseYaml(*text);
    if (!config || !config->IsMap()) continue;
    if (YamlBool(YamlString(*config, "hide")) == true) hidden.push_back(folder);
    YAML::Node nav = Get(*config, "nav");
    if (!nav.IsSequence()) continue;
    std::set<std::string> names;
    bool rest = false;
    size_t seen = 0;
    for (YAML::const_iterator it = nav.begin(); it != nav.end() && ++seen < 2000; ++it) {
      const YAML::Node entry = *it;
      // "Title: name" (copied, never assigned: assigning a node rebinds it in its tree)
      const YAML::Node item = entry.IsMap() && entry.size() == 1 ? entry.begin()->second : entry;
      if (!item.IsScalar()) continue;
      std::string name = item.Scalar();
      if (name.starts_with("...")) rest = true;  // "...", "... | flat", "... | regex=..."
      names.insert(std::move(name));
    }
    if (!rest) {
      details.closed_folders.emplace(folder, file);
      listed.emplace(folder, std::move(names));
    }
  }
  std::erase_if(site.entries, [&](const RawEntry& entry) {
    if (entry.path.empty()) return false;
    for (const std::string& folder : hidden) {
      if (IsUnder(entry.path, folder)) return true;
    }
    auto closed = listed.find(Dirname(entry.path));
    return closed != listed.end() && !closed->second.count(std::string(Basename(entry.path)));
  });
}

// --- The module ------------------------------------------------------------------

class MkDocs final : public FrameworkModule {
 public:
  Framework framework() const override { return Framework::kMkDocs; }
  std::vector<std::string_view> ConfigNames() const override {
    return {"mkdocs.yml", "mkdocs.yaml"};
  }

  void Load(const SiteLoad& load, Site& site) const override {
    site.details = std::make_unique<MkDocsDetails>();
    auto& details = static_cast<MkDocsDetails&>(*site.details);
    std::optional<ConfigFile> config = ReadConfig(load, site.map.config_path, 0);
    std::vector<std::string> excluded;
    std::optional<YAML::Node> awesome_pages;
    site.map.content_root = Join(site.site_root, "docs");
    if (config) {
      // docs_dir, inherited or not, is relative to the configuration read.
      site.map.content_root = DocsDir(site.map.config_path, config->root);
      excluded = Patterns(config->root, "exclude_docs");
      details.not_in_nav = Patterns(config->root, "not_in_nav");
      details.directory_urls = YamlBool(YamlString(config->root, "use_directory_urls")) != false;
      if (std::optional<YAML::Node> i18n = Plugin(config->root, "i18n")) ReadI18n(*i18n, details);
      awesome_pages = Plugin(config->root, "awesome-pages");
      if (!config->nav_docs.empty() && config->nav_docs != site.map.content_root) {
        details.fallback_root = config->nav_docs;
      }
    }
    site.map.pages = WalkPages(load, site.map.content_root, &site.map.pages_truncated);
    if (!excluded.empty()) {
      std::erase_if(site.map.pages, [&](const std::string& path) {
        return MatchesAny(excluded, RelativeTo(path, site.map.content_root), load.budget);
      });
    }
    // Translations are the default version's pages in another language: not
    // pages of navigation.
    if (details.i18n != MkDocsDetails::I18n::kNone) {
      std::erase_if(site.map.pages, [&](const std::string& path) {
        if (!TranslationOf(details, site.map.content_root, path)) return false;
        if (site.translations.size() < kMaxTranslations) site.translations.push_back(path);
        return true;
      });
    }
    if (!config) {
      AddFolderEntries(site, site.map.content_root, "", PageName, load.budget, site.entries);
      return;
    }
    site.nav_known = true;
    YAML::Node nav = Get(config->root, "nav");
    if (nav.IsSequence()) {
      site.nav_file = config->nav_file;
      site.nav_text = std::move(config->nav_text);
      NavWalk walk(load, site, details, site.map.content_root, Dirname(site.nav_file));
      try {
        if (!walk.Walk(nav, 0)) {
          site.notes.push_back("nav: of " + site.nav_file +
                               " is larger than the checks read; only its start was checked");
          site.nav_known = false;  // entries not seen cannot be checked
        }
      } catch (const YAML::Exception&) {
        site.nav_known = false;
      }
      return;
    }
    AddFolderEntries(site, site.map.content_root, "", PageName, load.budget, site.entries);
    if (awesome_pages) {
      std::string filename = YamlString(*awesome_pages, "filename");
      ReadPagesFiles(load, filename.empty() ? ".pages" : Name(filename), site, details);
    }
    // With awesome-pages, a folder whose .pages lists its pages is navigation
    // written by hand; elsewhere navigation follows the folders.
    site.map.navigation_generated = details.closed_folders.empty();
    if (!site.map.navigation_generated) site.nav_file = details.closed_folders.begin()->second;
  }

  bool ResolvesRoute(const CheckContext& ctx, const std::string& route) const override {
    if (ResolvesAt(ctx, Join(ctx.site.map.content_root, route)) || ResolvesAt(ctx, route)) {
      return true;
    }
    const MkDocsDetails* details = DetailsOf(ctx.site);
    if (!details) return false;
    for (const auto& [prefix, docs] : details->mounts) {  // /<site_name>/page/
      if (!prefix.empty() && IsUnder(route, prefix) &&
          ResolvesAt(ctx, Join(docs, RelativeTo(route, prefix)))) {
        return true;
      }
    }
    // /fr/page/: the French version, built from page.fr.md or fr/page.md, and
    // from the default page where no translation exists.
    for (const Language& language : details->languages) {
      if (IsUnder(route, language.locale) &&
          ResolvesAt(ctx, Join(ctx.site.map.content_root, RelativeTo(route, language.locale)))) {
        return true;
      }
    }
    return false;
  }

  bool ResolvesName(const CheckContext& ctx, const std::string& path) const override {
    // i18n's suffix structure: a link names a page without its language, and
    // the default version's file may carry one (page.en.md).
    const MkDocsDetails* details = DetailsOf(ctx.site);
    if (!details) return false;
    // A per-language site built with the pages it lacks taken from the site it
    // inherits from: a link to one of those resolves there.
    const std::string& root = ctx.site.map.content_root;
    const std::string& fallback = details->fallback_root;
    if (!fallback.empty() && IsUnder(path, root) && !IsUnder(fallback, root) &&
        !IsUnder(root, fallback) && ResolvesAt(ctx, Join(fallback, RelativeTo(path, root)))) {
      return true;
    }
    if (details->i18n != MkDocsDetails::I18n::kSuffix) return false;
    std::string lang = "." + details->default_language;
    std::string stem = IsPageFile(path) ? StripExtension(path) : path;
    for (const std::string& file : {stem + lang + ".md", Join(path, "index" + lang + ".md")}) {
      if (!ctx.budget.Spend()) return true;
      if (ctx.files.IsFile(file)) return true;
    }
    return false;
  }

  bool Serves(const CheckContext& ctx, const std::string& path) const override {
    // A translation is built with its language, even where the default version
    // has no such page (i18n lets the languages diverge), unless that language
    // is not built at all (`build: false`).
    const MkDocsDetails* details = DetailsOf(ctx.site);
    if (!details) return true;
    const Language* language = TranslationOf(*details, ctx.site.map.content_root, path);
    return !language || language->build;
  }

  // Python-Markdown's toc, unless the site gives toc a slugify of its own
  // (pymdownx.slugs, a function of its own), here or in the configuration it
  // INHERITs: then its ids are not known.
  SlugRule HeadingSlugs(const CheckContext& ctx) const override {
    std::string path = ctx.site.map.config_path;
    for (int depth = 0; depth < 4; ++depth) {
      std::optional<std::string> config = ReadText(ctx.files, path);
      if (!config || config->find("slugify") != std::string::npos) return SlugRule::kUnknown;
      size_t inherit = config->find("INHERIT:");
      if (inherit == std::string::npos) return SlugRule::kPythonMarkdown;
      size_t next;
      std::string_view base = Trim(LineFrom(*config, inherit + 8, &next));
      if (base.size() >= 2 && (base[0] == '"' || base[0] == '\''))
        base = base.substr(1, base.size() - 2);
      std::optional<std::string> inherited = Normalize(Join(Dirname(path), base));
      if (!inherited) return SlugRule::kUnknown;
      path = *inherited;
    }
    return SlugRule::kUnknown;
  }

  bool PagesAreFolders(const Site& site) const override {
    const MkDocsDetails* details = DetailsOf(site);
    return !details || details->directory_urls;
  }

  bool NeedsNavigation(const Site& site, const std::string& path) const override {
    if (!FrameworkModule::NeedsNavigation(site, path)) return false;
    const MkDocsDetails* details = DetailsOf(site);
    if (!details) return true;
    if (TranslationOf(*details, site.map.content_root, path)) return false;
    if (site.map.config_path != site.nav_file && !details->closed_folders.empty()) {
      return details->closed_folders.count(Dirname(path)) > 0;  // awesome-pages
    }
    if (details->not_in_nav.empty()) return true;
    Limits limits;
    Budget budget(limits);  // a few patterns against one new page
    return !MatchesAny(details->not_in_nav, RelativeTo(path, site.map.content_root), budget);
  }

  std::string MissingPageMessage(const Site& site, const std::string& page) const override {
    if (page.starts_with("!include ")) {
      return "nav includes \"" + page.substr(9) + "\" but no MkDocs configuration is there";
    }
    return "nav lists \"" + page + "\" but " + Join(site.map.content_root, page) +
           " does not exist";
  }

  std::string NotInNavigationMessage(const Site& site, const std::string& path) const override {
    const MkDocsDetails* details = DetailsOf(site);
    if (details) {
      auto closed = details->closed_folders.find(Dirname(path));
      if (closed != details->closed_folders.end()) {
        return "new page is not in navigation: add \"" + std::string(Basename(path)) +
               "\" to nav: in " + closed->second;
      }
    }
    return "new page is not in navigation: add \"" + RelativeTo(path, site.map.content_root) +
           "\" to nav: in " + site.nav_file;
  }

  std::string NewPagesHint(const SiteMap& map) const override {
    std::string under = map.content_root.empty() ? "" : " under " + map.content_root + "/";
    if (map.navigation_generated) {
      return "New pages: add a .md file" + under +
             " starting with a `# Title` heading; navigation follows the folders (" +
             map.config_path + " has no nav:).";
    }
    return "New pages: add a .md file" + under +
           " starting with a `# Title` heading and list it in nav: of " + map.config_path +
           " (path relative to " + map.content_root + "/, with extension).";
  }
};

}  // namespace

const FrameworkModule& MkDocsModule() {
  static const MkDocs module;
  return module;
}

}  // namespace docwright::docs
