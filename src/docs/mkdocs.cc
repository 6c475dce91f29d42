// MkDocs: mkdocs.yml (or .yaml) with `docs_dir` (default docs/), `nav` (pages by
// their path under docs_dir, nested sections, external URLs, and folders, whose
// pages are listed in their place), `exclude_docs` (not pages at all),
// `not_in_nav` (pages that need no navigation entry) and `use_directory_urls`.
// Tags such as !ENV and !!python/name: are data here, never run.
#include "core/glob.h"
#include "docs/internal.h"

namespace docwright::docs {
namespace {

// A nav: written by hand has at most a few thousand nodes; YAML aliases can make
// a small file stand for astronomically many.
constexpr size_t kMaxNavNodes = 200000;

struct MkDocsDetails : SiteDetails {
  std::vector<std::string> not_in_nav;  // gitignore-style, relative to docs_dir
  bool directory_urls = true;
};

std::string PageName(const Site& site, const std::string& path) {
  return RelativeTo(path, site.map.content_root);
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

class NavWalk {
 public:
  NavWalk(const SiteLoad& load, Site& site) : load_(load), site_(site) {}

  // False when the walk was cut short by the budget.
  bool Walk(const YAML::Node& items, int depth) {
    if (depth > kMaxDepth || !items.IsSequence()) return true;
    for (YAML::const_iterator it = items.begin(); it != items.end(); ++it) {
      if (!Visit() || site_.entries.size() >= kMaxNavEntries) return false;
      const YAML::Node item = *it;
      if (item.IsScalar()) {
        Add(item.Scalar(), "");
      } else if (item.IsMap()) {
        for (YAML::const_iterator kv = item.begin(); kv != item.end(); ++kv) {
          if (!Visit()) return false;
          const YAML::Node value = kv->second;
          std::string label = kv->first.IsScalar() ? Name(kv->first.Scalar()) : "";
          if (value.IsScalar()) {
            Add(value.Scalar(), label);
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

  void Add(const std::string& page, const std::string& label) {
    if (page.find("://") != std::string::npos || page.starts_with("mailto:")) return;
    if (page.size() > 4 * kMaxNameBytes) {  // no file has such a name: not worth a copy
      site_.entries.push_back(RawEntry{JoinGroups(groups_), Name(page), ""});
      return;
    }
    std::optional<std::string> path = Normalize(Join(site_.map.content_root, page));
    if (path && !path->empty() && load_.files.IsFile(*path)) {
      site_.entries.push_back(RawEntry{JoinGroups(groups_), Name(page), *path});
      return;
    }
    // A folder stands for its pages (written "user-guide/", or without the slash).
    if (path && (page.ends_with("/") || DirExists(load_.files, load_.changes, *path))) {
      size_t before = site_.entries.size();
      std::vector<std::string> groups = groups_;
      groups.push_back(Name(label));
      AddFolderEntries(site_, *path, JoinGroups(groups), PageName, load_.budget, site_.entries);
      if (site_.entries.size() > before) return;
    }
    site_.entries.push_back(RawEntry{JoinGroups(groups_), Name(page), ""});
  }

  const SiteLoad& load_;
  Site& site_;
  std::vector<std::string> groups_;
  size_t visited_ = 0;
};

class MkDocs final : public FrameworkModule {
 public:
  Framework framework() const override { return Framework::kMkDocs; }
  std::vector<std::string_view> ConfigNames() const override {
    return {"mkdocs.yml", "mkdocs.yaml"};
  }

  void Load(const SiteLoad& load, Site& site) const override {
    site.details = std::make_unique<MkDocsDetails>();
    auto& details = static_cast<MkDocsDetails&>(*site.details);
    std::string docs_dir = "docs";
    std::optional<std::string> text = ReadText(load.files, site.map.config_path);
    std::optional<YAML::Node> config;
    std::vector<std::string> excluded;
    if (text) {
      load.budget.Spend(text->size() / 64);
      config = ParseYaml(*text);
      if (config && !config->IsMap()) config.reset();
    }
    if (config) {
      std::optional<std::string> dir = Normalize(YamlString(*config, "docs_dir"));
      if (dir && !dir->empty()) docs_dir = *dir;
      excluded = Patterns(*config, "exclude_docs");
      details.not_in_nav = Patterns(*config, "not_in_nav");
      details.directory_urls = YamlString(*config, "use_directory_urls") != "false";
    }
    site.map.content_root = Join(site.site_root, docs_dir);
    site.map.pages = WalkPages(load, site.map.content_root, &site.map.pages_truncated);
    if (!excluded.empty()) {
      std::erase_if(site.map.pages, [&](const std::string& path) {
        return MatchesAny(excluded, RelativeTo(path, site.map.content_root), load.budget);
      });
    }
    if (!config) {
      AddFolderEntries(site, site.map.content_root, "", PageName, load.budget, site.entries);
      return;
    }
    site.nav_known = true;
    YAML::Node nav;
    try {
      nav = (*config)["nav"];
    } catch (const YAML::Exception&) {
    }
    if (nav && nav.IsSequence()) {
      site.nav_file = site.map.config_path;
      site.nav_text = std::move(*text);
      NavWalk walk(load, site);
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
    site.map.navigation_generated = true;
    AddFolderEntries(site, site.map.content_root, "", PageName, load.budget, site.entries);
  }

  bool ResolvesRoute(const CheckContext& ctx, const std::string& route) const override {
    return ResolvesAt(ctx, Join(ctx.site.map.content_root, route)) || ResolvesAt(ctx, route);
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
    const auto* details = dynamic_cast<const MkDocsDetails*>(site.details.get());
    return !details || details->directory_urls;
  }

  bool NeedsNavigation(const Site& site, const std::string& path) const override {
    if (!FrameworkModule::NeedsNavigation(site, path)) return false;
    const auto* details = dynamic_cast<const MkDocsDetails*>(site.details.get());
    if (!details || details->not_in_nav.empty()) return true;
    Limits limits;
    Budget budget(limits);  // a few patterns against one new page
    return !MatchesAny(details->not_in_nav, RelativeTo(path, site.map.content_root), budget);
  }

  std::string MissingPageMessage(const Site& site, const std::string& page) const override {
    return "nav lists \"" + page + "\" but " + Join(site.map.content_root, page) +
           " does not exist";
  }

  std::string NotInNavigationMessage(const Site& site, const std::string& path) const override {
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
