// Mintlify: docs.json (or the older mint.json) at the site's root; pages are
// named in navigation by their path without extension; "$ref" anywhere in
// docs.json stands for the JSON of another file; links to a redirect's source
// resolve (the published site redirects them).
#include <algorithm>
#include <cctype>
#include <set>

#include "docs/internal.h"

namespace docwright::docs {
namespace {

constexpr size_t kMaxRefFiles = 64;

struct MintlifyDetails : SiteDetails {
  std::vector<std::vector<std::string>> redirect_sources;  // split into segments
  // Where pages generated from OpenAPI operations are served ("api-reference",
  // or an `openapi` entry's `directory`): their URLs come from the spec's tags
  // and summaries, which are not read here, so links under them are trusted.
  std::set<std::string> generated_dirs;
};

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

std::string ResolvePage(const git::Workspace& files, const std::string& site_root,
                        std::string_view page) {
  while (page.starts_with("/")) page.remove_prefix(1);
  std::optional<std::string> rel = Normalize(page);
  if (!rel || rel->empty()) return "";
  std::string full = Join(site_root, *rel);
  if (IsPageFile(full) && files.IsFile(full)) return full;
  for (const char* ext : {".mdx", ".md"}) {
    if (files.IsFile(full + ext)) return full + ext;
  }
  return "";
}

// Replaces every {"$ref": "file.json"} in `node` by that file's JSON (relative to
// `dir`, the folder of the file the reference is in), within kMaxRefFiles reads.
void ResolveRefs(const SiteLoad& load, Json& node, const std::string& dir, int depth,
                 size_t* reads) {
  if (depth > kMaxDepth || !load.budget.Spend()) return;
  if (node.is_object()) {
    auto ref = node.find("$ref");
    if (ref != node.end() && ref->is_string()) {
      std::string target = ref->get<std::string>();
      if (target.find("://") != std::string::npos || target.starts_with("#")) return;
      std::optional<std::string> path =
          Normalize(target.starts_with("/") ? target : Join(dir, target));
      if (!path || ++*reads > kMaxRefFiles) return;
      std::optional<std::string> text = ReadText(load.files, *path);
      if (!text) return;
      load.budget.Spend(text->size() / 64);
      Json parsed = ParseJson(*text);
      if (parsed.is_discarded()) return;
      node = std::move(parsed);
      ResolveRefs(load, node, Dirname(*path), depth + 1, reads);
      return;
    }
    for (auto& item : node.items()) ResolveRefs(load, item.value(), dir, depth + 1, reads);
  } else if (node.is_array()) {
    for (Json& element : node) ResolveRefs(load, element, dir, depth + 1, reads);
  }
}

void Walk(const Json& node, std::vector<std::string>& groups, bool in_pages, int depth,
          Budget& budget, MintlifyDetails& details, std::vector<RawEntry>& out) {
  if (depth > kMaxDepth || out.size() >= kMaxNavEntries || !budget.Spend()) return;
  auto add = [&](const std::string& page, const std::string& label) {
    if (page.empty() || page.find("://") != std::string::npos) return;
    if (IsOperation(page)) {
      details.generated_dirs.insert("api-reference");
      return;
    }
    out.push_back(RawEntry{JoinGroups(groups), Name(page), "", Name(label)});
  };
  if (node.is_string()) {
    if (in_pages) add(node.get<std::string>(), "");
    return;
  }
  if (node.is_array()) {
    for (const Json& element : node) {
      Walk(element, groups, in_pages, depth + 1, budget, details, out);
    }
    return;
  }
  if (!node.is_object()) return;
  std::string label;
  for (const char* key :
       {"group", "tab", "anchor", "dropdown", "version", "language", "product", "item"}) {
    label = StringField(node, key);
    if (!label.empty()) break;
  }
  // An `openapi` spec of this part of the navigation: its pages are generated.
  if (auto openapi = node.find("openapi"); openapi != node.end()) {
    std::string directory = StringField(*openapi, "directory");
    std::optional<std::string> dir = Normalize(directory.empty() ? "api-reference" : directory);
    if (dir && !dir->empty()) details.generated_dirs.insert(Lower(*dir));
  }
  groups.push_back(Name(label));
  add(StringField(node, "root"), label);  // the group's label is its root page's label
  for (const auto& item : node.items()) {
    if (item.value().is_array() || item.value().is_object()) {
      Walk(item.value(), groups, item.key() == "pages", depth + 1, budget, details, out);
    }
  }
  groups.pop_back();
}

std::vector<std::string> RouteSegments(std::string_view route) {
  std::vector<std::string> out;
  for (std::string_view part : SplitPath(route)) out.emplace_back(part);
  return out;
}

// Whether `route` matches a redirect's source: segments equal, ":name" for one
// segment, ":name*" (or "*") for the rest.
bool Matches(const std::vector<std::string>& source, const std::vector<std::string>& route) {
  for (size_t i = 0; i < source.size(); ++i) {
    const std::string& s = source[i];
    if (s == "*" || (s.starts_with(":") && s.ends_with("*"))) return true;
    if (i >= route.size()) return false;
    if (s.starts_with(":")) continue;
    if (s != route[i]) return false;
  }
  return source.size() == route.size();
}

class Mintlify final : public FrameworkModule {
 public:
  Framework framework() const override { return Framework::kMintlify; }
  std::vector<std::string_view> ConfigNames() const override { return {"docs.json", "mint.json"}; }

  void Load(const SiteLoad& load, Site& site) const override {
    auto details = std::make_unique<MintlifyDetails>();
    site.map.content_root = site.site_root;
    site.map.pages = WalkPages(load, site.site_root, &site.map.pages_truncated);
    site.nav_file = site.map.config_path;
    std::optional<std::string> text = ReadText(load.files, site.nav_file);
    site.details = std::move(details);
    if (!text) return;
    site.nav_text = std::move(*text);
    load.budget.Spend(site.nav_text.size() / 64);
    Json config = ParseJson(site.nav_text);
    if (config.is_discarded() || !config.is_object()) return;
    size_t reads = 0;
    ResolveRefs(load, config, site.site_root, 0, &reads);
    if (!config.is_object()) return;
    site.nav_known = true;
    auto& mine = static_cast<MintlifyDetails&>(*site.details);
    if (auto redirects = config.find("redirects");
        redirects != config.end() && redirects->is_array()) {
      for (const Json& r : *redirects) {
        std::string source = StringField(r, "source");
        if (!source.empty() && load.budget.Spend()) {
          mine.redirect_sources.push_back(
              RouteSegments(source.substr(0, source.find_first_of("#?"))));
        }
      }
    }
    auto nav = config.find("navigation");
    if (nav == config.end()) return;
    std::vector<std::string> groups;
    // The older mint.json lists groups (or pages) straight under "navigation".
    Walk(*nav, groups, nav->is_array(), 0, load.budget, mine, site.entries);
    for (RawEntry& entry : site.entries) {
      if (!load.budget.Spend()) break;
      entry.path = ResolvePage(load.files, site.site_root, entry.page);
    }
  }

  // Snippets, and the repository's own README/CHANGELOG-style files next to the
  // configuration.
  bool IsPartial(std::string_view site_root, std::string_view content_root,
                 std::string_view path) const override {
    if (!IsUnder(path, site_root)) return false;
    std::string rel = RelativeTo(path, site_root);
    if (rel.starts_with("snippets/")) return true;
    if (rel.find('/') != std::string::npos) return false;
    std::string stem = StripExtension(rel);
    auto is = [&](int (*test)(int)) {
      return std::any_of(stem.begin(), stem.end(),
                         [&](char c) { return test(static_cast<unsigned char>(c)) != 0; });
    };
    return is(std::isupper) && !is(std::islower);
  }

  bool ResolvesRoute(const CheckContext& ctx, const std::string& route) const override {
    if (ResolvesAt(ctx, Join(ctx.site.site_root, route))) return true;
    const auto* details = dynamic_cast<const MintlifyDetails*>(ctx.site.details.get());
    if (!details) return false;
    std::vector<std::string> segments = RouteSegments(route);
    std::string under;  // the route's folders, one by one: "a", "a/b", ...
    for (size_t i = 0; i + 1 < segments.size(); ++i) {
      under += (i ? "/" : "") + Lower(segments[i]);
      if (details->generated_dirs.count(under)) return true;
    }
    for (const auto& source : details->redirect_sources) {
      if (!ctx.budget.Spend()) return true;
      if (Matches(source, segments)) return true;
    }
    return false;
  }

  std::string MissingPageMessage(const Site& site, const std::string& page) const override {
    std::string base = Join(site.site_root, page);
    return "navigation lists \"" + page + "\" but neither " + base + ".mdx nor " + base +
           ".md exists";
  }

  std::string NotInNavigationMessage(const Site& site, const std::string& path) const override {
    return "new page is not in navigation: add \"" +
           StripExtension(RelativeTo(path, site.site_root)) + "\" to a group's pages in " +
           site.nav_file;
  }

  std::string NewPagesHint(const SiteMap& map) const override {
    std::string under = map.content_root.empty() ? "" : " under " + map.content_root + "/";
    std::string site_root = Dirname(map.config_path);
    return "New pages: add a .mdx file" + under + " with frontmatter `title:` and list it in " +
           map.config_path + " navigation (path" +
           (site_root.empty() ? "" : " relative to " + site_root + "/") + " without extension).";
  }
};

}  // namespace

const FrameworkModule& MintlifyModule() {
  static const Mintlify module;
  return module;
}

}  // namespace docwright::docs
