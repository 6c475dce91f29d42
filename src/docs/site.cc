// Finding the site a repository holds, walking its pages, and the site map.
#include <algorithm>
#include <optional>
#include <set>

#include "docs/internal.h"

namespace docwright::docs {
namespace {

// Where the configuration of each framework is looked for: the repository root,
// then the folders a site inside a code repository usually lives in.
constexpr std::string_view kSiteFolders[] = {"", "docs", "website", "documentation", "doc"};

// In order of preference when a folder holds several configurations.
const std::vector<const FrameworkModule*>& ConfiguredModules() {
  static const std::vector<const FrameworkModule*> modules = {&MintlifyModule(),
                                                              &DocusaurusModule(), &MkDocsModule()};
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
  for (const std::string& path : site.map.pages) {
    if (!dir.empty() && !IsUnder(path, dir)) continue;
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
  for (std::string_view folder : kSiteFolders) {
    if (std::optional<SiteLocation> site = SiteIn(load.files, folder)) return {*site};
  }
  return {SiteLocation{&PlainMarkdownModule(), "", ""}};
}

const SiteLocation& SiteOf(const std::vector<SiteLocation>& sites, std::string_view path) {
  const SiteLocation* best = &sites.front();
  size_t depth = 0;
  for (const SiteLocation& site : sites) {
    if (!IsUnder(path, site.site_root)) continue;
    size_t d = site.site_root.empty() ? 0 : site.site_root.size() + 1;
    if (best == &sites.front() || d > depth) {
      best = &site;
      depth = d;
    }
  }
  return *best;
}

const SiteLocation& PreferredSite(const std::vector<SiteLocation>& sites, const Changes& changes) {
  for (const auto& [path, change] : changes) {
    if (IsPageFile(path)) return SiteOf(sites, path);
  }
  if (!changes.empty()) return SiteOf(sites, changes.begin()->first);
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
  Site site = LoadSite(SiteLoad{files, changes, limits.max_files, budget, limits.site_root});
  FillNavigation(files, site, budget);
  if (budget.spent() && !budget.cancelled()) {
    site.map.pages_truncated = true;
  }
  return std::move(site.map);
}

}  // namespace docwright::docs
