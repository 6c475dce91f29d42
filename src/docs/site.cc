// Finding the site a repository holds, walking its pages, and the site map.
#include <algorithm>
#include <deque>
#include <optional>
#include <set>

#include "docs/commit_cache.h"
#include "docs/internal.h"

namespace docwright::docs {
namespace {

// Where the configuration of each framework is looked for: the repository root,
// then the folders a site inside a code repository usually lives in.
constexpr std::string_view kSiteFolders[] = {"", "docs", "website", "documentation", "doc"};

// In order of preference when a folder holds several configurations.
const std::vector<const FrameworkModule*>& ConfiguredModules() {
  static const std::vector<const FrameworkModule*> modules = {
      &MintlifyModule(), &DocusaurusModule(), &MkDocsModule(), &GitBookModule()};
  return modules;
}

// The configuration in `folder`, if it holds one.
std::optional<SiteLocation> SiteIn(const git::Workspace& files, std::string_view folder) {
  for (const FrameworkModule* module : ConfiguredModules()) {
    for (std::string_view name : module->ConfigNames()) {
      std::string path = Join(folder, name);
      if (files.IsFile(path)) return SiteLocation{module, path, std::string(folder)};
    }
  }
  return std::nullopt;
}

// How many levels below the root folders are searched for configurations, and
// below the usual folders (`docs/<language>/<version>/mkdocs.yml`).
constexpr int kSearchDepth = 2;
constexpr int kUsualFolderDepth = 3;
// Folders listed at most in one search: a code repository has many, and a site
// lives in few of them.
constexpr size_t kMaxSearchedFolders = 400;

// Folders that hold no site of the repository's own: hidden ones, installed
// packages, vendored code, build output, test fixtures and examples (sites
// there are data, not the repository's docs). Build output a repository
// ignores (MkDocs' `site/`) is not in its tree at all.
bool SkippedFolder(std::string_view name) {
  static constexpr std::string_view kSkipped[] = {
      "node_modules", "vendor",   "third_party", "third-party", "bower_components",
      "__pycache__",  "venv",     "build",       "dist",        "target",
      "test",         "tests",    "testdata",    "__tests__",   "fixtures",
      "__fixtures__", "examples", "example"};
  if (name.empty() || name[0] == '.') return true;
  return std::find(std::begin(kSkipped), std::end(kSkipped), name) != std::end(kSkipped);
}

// A configuration found by the search, with what orders it.
struct Found {
  SiteLocation site;
  size_t depth = 0;  // folders between the root and the configuration
  // The rank of the usual folder it is in (kSiteFolders), past them if none.
  size_t usual = std::size(kSiteFolders);
  // An English folder (`docs/en/`): multilingual sites are written in English
  // first, so its site is the one shown when no change says otherwise.
  bool source_language = false;
};

size_t UsualRank(std::string_view folder) {
  std::string_view top = folder.substr(0, folder.find('/'));
  for (size_t i = 1; i < std::size(kSiteFolders); ++i) {
    if (kSiteFolders[i] == top) return i;
  }
  return folder.empty() ? 0 : std::size(kSiteFolders);
}

// The configuration among the files `names` of `folder`, by module preference
// (a configuration name with a folder in it is looked up).
std::optional<SiteLocation> ConfigAmong(const git::Workspace& files,
                                        const std::set<std::string, std::less<>>& names,
                                        const std::string& folder) {
  for (const FrameworkModule* module : ConfiguredModules()) {
    for (std::string_view name : module->ConfigNames()) {
      bool nested = name.find('/') != std::string_view::npos;
      if (nested ? files.IsFile(Join(folder, name)) : names.contains(name)) {
        return SiteLocation{module, Join(folder, name), folder};
      }
    }
  }
  return std::nullopt;
}

// Lists the root and the folders below it, breadth first, to kSearchDepth
// levels (kUsualFolderDepth under the usual folders), and keeps each folder's
// configuration. Every entry listed is charged to the budget; the search stops
// after load.max_files entries or kMaxSearchedFolders folders.
std::vector<Found> SearchFolders(const SiteLoad& load) {
  std::vector<Found> found;
  struct Folder {
    std::string path;
    int levels_left;
  };
  std::deque<Folder> queue{{"", kSearchDepth}};
  size_t entries = 0;
  size_t folders = 0;
  while (!queue.empty() && folders < kMaxSearchedFolders && entries < load.max_files) {
    Folder folder = std::move(queue.front());
    queue.pop_front();
    ++folders;
    auto listed = load.files.List(folder.path);
    if (!listed.ok()) continue;
    entries += listed->size();
    if (!load.budget.Spend(1 + listed->size())) break;
    std::set<std::string, std::less<>> names;
    for (const git::DirEntry& entry : *listed) {
      if (entry.kind == git::EntryKind::kFile) {
        names.insert(entry.name);
      } else if (entry.kind == git::EntryKind::kDirectory && folder.levels_left > 0 &&
                 !SkippedFolder(entry.name)) {
        std::string path = Join(folder.path, entry.name);
        int left = folder.levels_left - 1;
        if (folder.path.empty() && UsualRank(path) < std::size(kSiteFolders)) {
          left = kUsualFolderDepth - 1;
        }
        queue.push_back(Folder{std::move(path), left});
      }
    }
    std::optional<SiteLocation> site = ConfigAmong(load.files, names, folder.path);
    if (!site) continue;
    Found f;
    f.depth = folder.path.empty() ? 0 : SplitPath(folder.path).size();
    f.usual = UsualRank(folder.path);
    std::string name = Lower(Basename(folder.path));
    f.source_language = name == "en" || name.starts_with("en-") || name.starts_with("en_");
    f.site = std::move(*site);
    found.push_back(std::move(f));
  }
  return found;
}

// Drops the MkDocs configurations `!include`d by the configuration of a site
// whose folder holds them (mkdocs-monorepo-plugin's `!include sub/mkdocs.yml`):
// they are parts of that site, not sites. Each including configuration is read
// once, within kMaxYamlTreeBytes and the budget.
// The configurations a mkdocs.yml in `folder` pulls in with `!include PATH`
// (mkdocs-monorepo-plugin; a tag, or a quoted "!include PATH"), as repository
// paths. One pass over the text.
std::set<std::string> IncludedConfigs(std::string_view text, const std::string& folder) {
  constexpr std::string_view kTag = "!include";
  std::set<std::string> out;
  for (size_t at = text.find(kTag); at != std::string_view::npos && out.size() < kMaxNavEntries;
       at = text.find(kTag, at + kTag.size())) {
    size_t start = text.find_first_not_of(" \t", at + kTag.size());
    if (start == std::string_view::npos || start == at + kTag.size()) continue;
    size_t end = text.find_first_of(" \t\r\n'\"#,]}", start);
    std::string_view target = text.substr(start, end == std::string_view::npos ? end : end - start);
    if (std::optional<std::string> path = Normalize(Join(folder, target))) out.insert(*path);
  }
  return out;
}

void DropIncluded(const SiteLoad& load, std::vector<Found>& found) {
  std::map<size_t, std::set<std::string>> includes;  // by index in `found`
  auto includes_of = [&](size_t i) -> const std::set<std::string>& {
    auto [it, added] = includes.try_emplace(i);
    if (added) {
      std::optional<std::string> text = ReadText(load.files, found[i].site.config_path);
      if (text && text->size() <= kMaxYamlTreeBytes && load.budget.Spend(text->size() / 64 + 1)) {
        it->second = IncludedConfigs(*text, Dirname(found[i].site.config_path));
      }
    }
    return it->second;
  };
  std::vector<bool> included(found.size());
  for (size_t i = 0; i < found.size(); ++i) {
    const SiteLocation& part = found[i].site;
    if (part.module != &MkDocsModule()) continue;
    for (size_t j = 0; j < found.size() && !included[i]; ++j) {
      const SiteLocation& whole = found[j].site;
      if (whole.module != &MkDocsModule() || whole.site_root == part.site_root ||
          !IsUnder(part.site_root, whole.site_root)) {
        continue;
      }
      included[i] = includes_of(j).count(part.config_path) > 0;
    }
  }
  for (size_t i = found.size(); i-- > 0;) {
    if (included[i]) found.erase(found.begin() + static_cast<ptrdiff_t>(i));
  }
}

// Turns the entries into the map's navigation, with titles read within budget.
void FillNavigation(const git::Workspace& files, Site& site, Budget& budget) {
  std::map<std::string, std::string> titles;
  size_t reads = 0;
  size_t bytes = 0;
  for (RawEntry& entry : site.entries) {
    NavEntry nav{std::move(entry.group), std::move(entry.page), std::move(entry.path), ""};
    if (!nav.path.empty()) {
      auto known = titles.find(nav.path);
      if (known != titles.end()) {
        nav.title = known->second;
      } else if (reads < kMaxTitleReads && bytes < kMaxTitleBytes && !budget.spent()) {
        ++reads;
        if (std::optional<std::string> text = ReadText(files, nav.path)) {
          bytes += text->size();
          nav.title = TitleOf(*text, Extension(nav.path) == ".mdx", budget);
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

}  // namespace

const FrameworkModule& ModuleFor(Framework framework) {
  switch (framework) {
    case Framework::kMintlify:
      return MintlifyModule();
    case Framework::kDocusaurus:
      return DocusaurusModule();
    case Framework::kMkDocs:
      return MkDocsModule();
    case Framework::kGitBook:
      return GitBookModule();
    case Framework::kMarkdown:
      break;
  }
  return PlainMarkdownModule();
}

bool FrameworkModule::NeedsNavigation(const Site& site, const std::string& path) const {
  return !site.map.navigation_generated && IsUnder(path, site.map.content_root) &&
         !InIgnoredFolder(path, site.map.content_root) &&
         !IsPartial(site.site_root, site.map.content_root, path);
}

std::string JoinGroups(const std::vector<std::string>& groups) {
  std::string out;
  for (const std::string& g : groups) {
    if (g.empty()) continue;
    if (!out.empty()) out += kGroupSeparator;
    out += std::string_view(g).substr(0, kMaxNameBytes);
    if (out.size() > 4 * kMaxNameBytes) return Name(out);  // deeper nesting is not shown
  }
  return out;
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

std::vector<std::string> WalkPages(const SiteLoad& load, const std::string& root, bool* truncated) {
  std::set<std::string> pages;
  bool cut = false;
  auto walked = load.files.base().Walk(root, load.max_files, &cut);
  // A walk cut short (the limit of files or visits, the budget, a folder too
  // large to read) is said to be: the pages it did not see are not missing.
  *truncated = cut || (!walked.ok() && walked.status().code() == Code::kResourceExhausted);
  if (walked.ok()) {
    load.budget.Spend(walked->size());
    for (const std::string& path : *walked) {
      if (IsPageFile(path) && !InIgnoredFolder(path, root)) pages.insert(path);
    }
  }
  for (const auto& [path, change] : load.changes) {
    if (!IsUnder(path, root) || !IsPageFile(path) || InIgnoredFolder(path, root)) continue;
    if (change.kind == git::Change::Kind::kDelete) {
      pages.erase(path);
    } else {
      pages.insert(path);
    }
  }
  return {pages.begin(), pages.end()};
}

void AddFolderEntries(const Site& site, const std::string& dir, const std::string& group_prefix,
                      PageNamer page_name, Budget& budget, std::vector<RawEntry>& out) {
  struct Item {
    std::vector<std::string_view> folders;
    bool index;
    std::string_view name;
    const std::string* path;
  };
  std::vector<Item> items;
  // The pages are sorted: those under `dir` are one run of them, found without
  // looking at the others (a navigation may name many folders).
  const std::vector<std::string>& pages = site.map.pages;
  std::string prefix = dir.empty() ? "" : dir + "/";
  for (auto it = std::lower_bound(pages.begin(), pages.end(), prefix);
       it != pages.end() && it->starts_with(prefix); ++it) {
    const std::string& path = *it;
    if (site.module->IsPartial(site.site_root, site.map.content_root, path)) continue;
    if (!budget.Spend()) break;
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
      if (group.size() > 4 * kMaxNameBytes) break;
      if (!group.empty()) group += kGroupSeparator;
      group += folder;
    }
    out.push_back(RawEntry{std::move(group), page_name(site, *item.path), *item.path});
  }
}

std::vector<SiteLocation> FindSites(const SiteLoad& load) {
  if (!load.site_root.empty()) {
    std::string root(load.site_root);
    if (std::optional<SiteLocation> site = SiteIn(load.files, root)) return {*site};
    return {SiteLocation{&PlainMarkdownModule(), "", root}};
  }
  std::vector<Found> found = SearchFolders(load);
  DropIncluded(load, found);
  // A SUMMARY.md alone marks a site only outside every other site: inside a
  // GitBook or mdBook site it is that site's navigation (in its root or src
  // folder), and inside another framework's it is a page or a plugin's file
  // (mkdocs-literate-nav).
  std::vector<Found> kept;
  for (const Found& f : found) {
    bool inside = Basename(f.site.config_path) == "SUMMARY.md" &&
                  std::any_of(found.begin(), found.end(), [&](const Found& other) {
                    return other.site.site_root != f.site.site_root &&
                           IsUnder(f.site.site_root, other.site.site_root);
                  });
    if (!inside) kept.push_back(f);
  }
  found = std::move(kept);
  std::stable_sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
    if (a.depth != b.depth) return a.depth < b.depth;
    if (a.usual != b.usual) return a.usual < b.usual;
    if (a.source_language != b.source_language) return a.source_language;
    return a.site.site_root < b.site.site_root;
  });
  std::vector<SiteLocation> sites;
  for (Found& f : found) sites.push_back(std::move(f.site));
  if (sites.empty()) sites.push_back(SiteLocation{&PlainMarkdownModule(), "", ""});
  return sites;
}

const SiteLocation& SiteOf(const std::vector<SiteLocation>& sites, std::string_view path) {
  const SiteLocation* best = nullptr;
  for (const SiteLocation& site : sites) {
    if (!IsUnder(path, site.site_root)) continue;
    if (best == nullptr || site.site_root.size() > best->site_root.size()) best = &site;
  }
  return best != nullptr ? *best : sites.front();
}

const SiteLocation& PreferredSite(const std::vector<SiteLocation>& sites, const Changes& changes) {
  // The site holding most of the changed pages (the first of those in the
  // order of `sites` when several hold as many); failing that, most of the
  // changed files (a configuration, an image); failing that, the first.
  auto most = [&](bool pages_only) -> const SiteLocation* {
    std::vector<size_t> counts(sites.size(), 0);
    for (const auto& [path, change] : changes) {
      if (pages_only && !IsPageFile(path)) continue;
      const SiteLocation& site = SiteOf(sites, path);
      if (!IsUnder(path, site.site_root)) continue;  // in no site
      ++counts[&site - sites.data()];
    }
    size_t best = 0;
    for (size_t i = 1; i < counts.size(); ++i) {
      if (counts[i] > counts[best]) best = i;
    }
    return counts[best] > 0 ? &sites[best] : nullptr;
  };
  if (const SiteLocation* site = most(true)) return *site;
  if (const SiteLocation* site = most(false)) return *site;
  return sites.front();
}

Site LoadSite(const SiteLoad& load, const SiteLocation& where) {
  Site site;
  site.module = where.module;
  site.map.framework = where.module->framework();
  site.map.config_path = where.config_path;
  site.site_root = where.site_root;
  site.module->Load(load, site);
  return site;
}

Site LoadSite(const SiteLoad& load) {
  std::vector<SiteLocation> sites = FindSites(load);
  return LoadSite(load, PreferredSite(sites, load.changes));
}

bool ResolvesAt(const CheckContext& ctx, const std::string& path) {
  const git::Workspace& files = ctx.files;
  if (!ctx.budget.Spend()) return true;  // out of budget: nothing is reported
  const FrameworkModule& module = *ctx.site.module;
  auto served = [&](const std::string& file) {
    if (!files.IsFile(file) || !module.Serves(ctx, file)) return false;
    if (ctx.found) *ctx.found = file;
    return true;
  };
  if (!path.empty() && served(path)) return true;
  if (!path.empty()) {
    for (const char* ext : {".mdx", ".md"}) {
      if (served(path + ext)) return true;
    }
  }
  for (const char* index : {"index.mdx", "index.md", "README.md", "readme.md"}) {
    if (served(Join(path, index))) return true;
  }
  return ctx.site.module->ResolvesName(ctx, path);
}

SiteMap BuildSiteMap(const git::Workspace& files, const Limits& limits) {
  Budget budget(limits);
  Changes changes = files.Changes();
  SiteLoad load{files, changes, limits.max_files, budget, limits.site_root};
  std::vector<SiteLocation> sites = FindSites(load);
  const SiteLocation& where = PreferredSite(sites, changes);
  Site site = LoadSite(load, where);
  for (const SiteLocation& other : sites) {
    if (&other == &where || other.config_path.empty()) continue;
    if (site.map.other_sites.size() >= SiteMap::kMaxOtherSites) break;
    site.map.other_sites.push_back(other.config_path);
  }
  FillNavigation(files, site, budget);
  if (budget.spent() && !budget.cancelled()) {
    site.map.pages_truncated = true;
  }
  return std::move(site.map);
}

std::shared_ptr<const SiteMap> SharedSiteMap(const git::Workspace& files, const Limits& limits) {
  std::string key = limits.cache ? SiteMapKey(files, limits) : "";
  if (!key.empty()) {
    if (std::shared_ptr<const SiteMap> kept = limits.cache->FindMap(key)) return kept;
  }
  const uint64_t failed_reads = files.base().failed_reads();
  SiteMap built = BuildSiteMap(files, limits);
  if (key.empty() || CutFromOutside(files, limits, failed_reads)) {
    return std::make_shared<const SiteMap>(std::move(built));
  }
  built.commit_key = key;
  auto map = std::make_shared<const SiteMap>(std::move(built));
  limits.cache->PutMap(std::move(key), map);
  return map;
}

std::shared_ptr<const std::string> SharedRender(const SiteMap& map, size_t max_bytes,
                                                CommitCache* cache) {
  std::string key = cache ? RenderKey(map.commit_key, max_bytes) : "";
  if (!key.empty()) {
    if (std::shared_ptr<const std::string> kept = cache->FindText(key)) return kept;
  }
  auto text = std::make_shared<const std::string>(map.Render(max_bytes));
  if (!key.empty()) cache->PutText(std::move(key), text);
  return text;
}

}  // namespace docwright::docs
