// Finding the site a repository holds, walking its pages, and the site map.
#include <algorithm>
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

void Detect(const git::Workspace& files, Site& site) {
  for (std::string_view folder : kSiteFolders) {
    for (const FrameworkModule* module : ConfiguredModules()) {
      for (std::string_view name : module->ConfigNames()) {
        std::string path = Join(folder, name);
        if (files.IsFile(path)) {
          site.module = module;
          site.map.framework = module->framework();
          site.map.config_path = path;
          site.site_root = std::string(folder);
          return;
        }
      }
    }
  }
  site.module = &PlainMarkdownModule();
  site.map.framework = Framework::kMarkdown;
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

Site LoadSite(const SiteLoad& load) {
  Site site;
  Detect(load.files, site);
  site.module->Load(load, site);
  return site;
}

bool ResolvesAt(const CheckContext& ctx, const std::string& path) {
  const git::Workspace& files = ctx.files;
  if (!ctx.budget.Spend()) return true;  // out of budget: nothing is reported
  if (!path.empty() && files.IsFile(path)) return true;
  if (!path.empty()) {
    for (const char* ext : {".mdx", ".md"}) {
      if (files.IsFile(path + ext)) return true;
    }
  }
  for (const char* index : {"index.mdx", "index.md", "README.md", "readme.md"}) {
    if (files.IsFile(Join(path, index))) return true;
  }
  return ctx.site.module->ResolvesName(ctx, path);
}

SiteMap BuildSiteMap(const git::Workspace& files, const Limits& limits) {
  Budget budget(limits);
  Changes changes = files.Changes();
  Site site = LoadSite(SiteLoad{files, changes, limits.max_files, budget});
  FillNavigation(files, site, budget);
  if (budget.spent() && !budget.cancelled()) {
    site.map.pages_truncated = true;
  }
  return std::move(site.map);
}

}  // namespace docwright::docs
