// A repository of Markdown files without a site generator, read on its code
// host: every .md file is a page, folders are the navigation, and a link may
// name a folder (the host shows its README).
#include "docs/internal.h"

namespace docwright::docs {
namespace {

std::string PageName(const Site& site, const std::string& path) { return path; }

class PlainMarkdown final : public FrameworkModule {
 public:
  Framework framework() const override { return Framework::kMarkdown; }
  std::vector<std::string_view> ConfigNames() const override { return {}; }

  // The pages are those under the site's folder: the repository root unless
  // the project names another (`--site-root`), whose pages alone are the site.
  void Load(const SiteLoad& load, Site& site) const override {
    site.map.content_root = site.site_root;
    site.map.pages = WalkPages(load, site.site_root, &site.map.pages_truncated);
    site.nav_known = true;
    site.map.navigation_generated = true;
    AddFolderEntries(site, site.site_root, "", PageName, load.budget, site.entries);
  }

  bool ResolvesRoute(const CheckContext& ctx, const std::string& route) const override {
    return ResolvesAt(ctx, route);
  }

  bool ResolvesName(const CheckContext& ctx, const std::string& path) const override {
    return DirExists(ctx.files, ctx.changes, path);
  }

  std::string MissingPageMessage(const Site& site, const std::string& page) const override {
    return "navigation lists \"" + page + "\" but no such page exists";
  }

  std::string NotInNavigationMessage(const Site& site, const std::string& path) const override {
    return "new page is not in navigation";
  }

  std::string NewPagesHint(const SiteMap& map) const override {
    return "New pages: add a .md file starting with a `# Title` heading and link to it from a "
           "related page; there is no navigation file.";
  }
};

}  // namespace

const FrameworkModule& PlainMarkdownModule() {
  static const PlainMarkdown module;
  return module;
}

}  // namespace docwright::docs
