// Reading docusaurus.config.* for the Docusaurus module: the docs plugin's
// instances and options, the versions each serves and where, the locales.
#include <algorithm>

#include "docs/docusaurus.h"

namespace docwright::docs {
namespace {

constexpr size_t kMaxVersions = 50;
constexpr size_t kMaxInstances = 20;
constexpr size_t kMaxLocales = 50;

// The options of the classic preset's docs: the first object under a "docs"
// key (presets are [name, options] pairs, or written through a helper).
const Json* FindDocsOptions(const Json& node, int depth, Budget& budget) {
  if (depth > kMaxDepth || !budget.Spend()) return nullptr;
  if (node.is_object()) {
    auto docs = node.find("docs");
    if (docs != node.end() && docs->is_object()) return &*docs;
    for (const auto& item : node.items()) {
      if (item.key() == "plugins") continue;  // instances of their own
      if (const Json* found = FindDocsOptions(item.value(), depth + 1, budget)) return found;
    }
  } else if (node.is_array()) {
    for (const Json& element : node) {
      if (const Json* found = FindDocsOptions(element, depth + 1, budget)) return found;
    }
  }
  return nullptr;
}

// Whether the preset turns the default docs off (`docs: false`).
bool PresetDocsOff(const Json& config) {
  auto presets = config.find("presets");
  if (presets == config.end() || !presets->is_array()) return false;
  for (const Json& preset : *presets) {
    if (!preset.is_array() || preset.size() < 2 || !preset[1].is_object()) continue;
    auto docs = preset[1].find("docs");
    if (docs != preset[1].end() && docs->is_boolean() && !docs->get<bool>()) return true;
  }
  return false;
}

std::vector<std::string> Strings(const Json& node, size_t max) {
  std::vector<std::string> out;
  if (!node.is_array()) return out;
  for (const Json& v : node) {
    if (v.is_string() && out.size() < max) out.push_back(Name(v.get<std::string>()));
  }
  return out;
}

// A repository path for `value`, relative to the site's folder; nullopt when it
// climbs out of the repository or is empty.
std::optional<std::string> SitePath(const Site& site, std::string_view value) {
  std::optional<std::string> dir = Normalize(Join(site.site_root, value));
  if (!dir || dir->empty()) return std::nullopt;
  return dir;
}

// The instance's versions: versions.json (or <id>_versions.json) and the
// options that say which are served and where.
void ReadVersions(const SiteLoad& load, const Site& site, const Json* options,
                  DocsInstance& instance) {
  bool default_id = instance.id == "default";
  std::vector<std::string> released;
  std::string list =
      Join(site.site_root, default_id ? "versions.json" : instance.id + "_versions.json");
  if (std::optional<std::string> text = ReadText(load.files, list)) {
    load.budget.Spend(text->size() / 64);
    released = Strings(ParseJson(*text), kMaxVersions);
  }
  static const Json kNone = Json::object();
  const Json& opts = options && options->is_object() ? *options : kNone;
  bool include_current = true;
  if (auto it = opts.find("includeCurrentVersion"); it != opts.end() && it->is_boolean()) {
    include_current = it->get<bool>();
  }
  // By default the newest release is the last version, served at the base route.
  std::string last =
      StringField(opts, "lastVersion", released.empty() ? "current" : released.front());
  const Json* paths = nullptr;
  if (auto it = opts.find("versions"); it != opts.end() && it->is_object()) paths = &*it;
  std::vector<std::string> only;
  bool restricted = false;
  if (auto it = opts.find("onlyIncludeVersions"); it != opts.end() && it->is_array()) {
    only = Strings(*it, kMaxVersions);
    restricted = true;
  }

  std::string versioned =
      Join(site.site_root, default_id ? "versioned_docs" : instance.id + "_versioned_docs");
  std::vector<std::string> names;
  names.push_back("current");
  names.insert(names.end(), released.begin(), released.end());
  for (const std::string& name : names) {
    DocsVersion v;
    v.name = name;
    bool current = name == "current";
    v.dir = current ? instance.dir : Join(versioned, "version-" + name);
    v.i18n = current ? "current" : "version-" + name;
    v.path = name == last ? "" : current ? "next" : name;
    if (paths) {
      auto own = paths->find(name);
      if (own != paths->end() && own->is_object() && own->contains("path") &&
          (*own)["path"].is_string()) {
        v.path = Unslashed((*own)["path"].get<std::string>());
      }
    }
    bool served = restricted ? std::find(only.begin(), only.end(), name) != only.end()
                             : (!current || include_current);
    instance.all_versions.push_back(v);
    if (served) instance.versions.push_back(std::move(v));
  }
}

DocsInstance Instance(const SiteLoad& load, const Site& site, const Json* options, std::string id,
                      std::string default_dir) {
  DocsInstance instance;
  instance.id = id.empty() ? "default" : Name(id);
  instance.dir = std::move(default_dir);
  instance.route_base = "docs";
  if (options && options->is_object()) {
    if (std::optional<std::string> dir = SitePath(site, StringField(*options, "path"))) {
      instance.dir = *dir;
    }
    if (auto it = options->find("routeBasePath"); it != options->end() && it->is_string()) {
      instance.route_base = Unslashed(it->get<std::string>());
    }
    if (std::string sidebar = StringField(*options, "sidebarPath"); !sidebar.empty()) {
      if (std::optional<std::string> path = SitePath(site, sidebar)) instance.sidebar_path = *path;
    }
  }
  instance.i18n_folder = instance.id == "default" ? "docusaurus-plugin-content-docs"
                                                  : "docusaurus-plugin-content-docs-" + instance.id;
  ReadVersions(load, site, options, instance);
  return instance;
}

}  // namespace

std::string Unslashed(std::string_view route) {
  while (route.starts_with("/")) route.remove_prefix(1);
  while (route.ends_with("/")) route.remove_suffix(1);
  return std::string(route);
}

DocusaurusConfig ReadDocusaurusConfig(const SiteLoad& load, const Site& site) {
  DocusaurusConfig out;
  std::optional<Json> config;
  if (std::optional<std::string> text = ReadText(load.files, site.map.config_path)) {
    load.budget.Spend(text->size() / 64);
    config = ReadJsObject(*text);
  }
  static const Json kEmpty = Json::object();
  const Json& root = config && config->is_object() ? *config : kEmpty;

  // The default instance: the preset's docs, else a plugin entry without an id.
  const Json* preset_docs = PresetDocsOff(root) ? nullptr : FindDocsOptions(root, 0, load.budget);
  std::vector<std::pair<std::string, const Json*>> plugins;  // (id, options)
  if (auto it = root.find("plugins"); it != root.end() && it->is_array()) {
    for (const Json& plugin : *it) {
      if (!load.budget.Spend() || plugins.size() >= kMaxInstances) break;
      if (!plugin.is_array() || plugin.size() < 2 || !plugin[0].is_string() ||
          !plugin[1].is_object()) {
        continue;
      }
      if (plugin[0].get<std::string>().find("content-docs") == std::string::npos) continue;
      plugins.emplace_back(StringField(plugin[1], "id", "default"), &plugin[1]);
    }
  }
  const Json* default_options = preset_docs;
  if (!default_options) {
    for (const auto& [id, options] : plugins) {
      if (id == "default") {
        default_options = options;
        break;
      }
    }
  }
  std::string docs_dir = Join(site.site_root, "docs");
  bool configured = default_options && !StringField(*default_options, "path").empty();
  // An older layout keeps docs/ at the root beside website/.
  if (!configured && !site.site_root.empty() && !DirExists(load.files, load.changes, docs_dir) &&
      DirExists(load.files, load.changes, "docs")) {
    docs_dir = "docs";
  }
  out.instances.push_back(Instance(load, site, default_options, "default", docs_dir));
  for (const auto& [id, options] : plugins) {
    // A second default instance is a configuration error: the first one wins.
    if (id == "default") continue;
    out.instances.push_back(Instance(load, site, options, id, Join(site.site_root, id)));
  }

  std::vector<std::string> static_dirs = {"static"};
  if (auto dirs = root.find("staticDirectories"); dirs != root.end() && dirs->is_array()) {
    static_dirs.clear();
    for (const std::string& d : Strings(*dirs, kMaxVersions)) {
      if (std::optional<std::string> dir = Normalize(d)) static_dirs.push_back(*dir);
    }
  }
  for (const std::string& dir : static_dirs) out.static_dirs.push_back(Join(site.site_root, dir));

  if (auto i18n = root.find("i18n"); i18n != root.end() && i18n->is_object()) {
    std::string fallback = StringField(*i18n, "defaultLocale");
    if (auto locales = i18n->find("locales"); locales != i18n->end()) {
      for (std::string& locale : Strings(*locales, kMaxLocales)) {
        if (locale != fallback && !locale.empty()) out.locales.push_back(std::move(locale));
      }
    }
  }
  return out;
}

}  // namespace docwright::docs
