// The checks run on the agent's edits, and the comparison with the base that
// keeps for repair only what the edits made worse.
#include <algorithm>
#include <cctype>
#include <functional>
#include <set>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "core/url.h"
#include "docs/commit_cache.h"
#include "docs/internal.h"

namespace docwright::docs {
namespace {

// Duplicate titles are looked for among at most this many pages of the groups
// the changed pages are in.
constexpr size_t kMaxGroupTitleReads = 200;

// The repository path part of a link destination; nullopt for what is not
// checked: other sites (any scheme, "//host"), pure anchors, templated values.
std::optional<std::string> LinkTarget(std::string_view destination) {
  destination = Trim(destination);
  if (destination.empty() || destination[0] == '#' || destination.starts_with("//")) {
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
  bool escapes_ok = true;
  std::string decoded = PercentDecode(destination, false, &escapes_ok);
  if (!escapes_ok) decoded = std::string(destination);  // a lone '%' is a '%
  if (decoded.empty()) return std::nullopt;             // "?query" alone
  return decoded;
}

enum class LinkStatus { kOk, kMissing, kOutside };

LinkStatus ResolveLink(const CheckContext& ctx, const std::string& from,
                       const std::string& target) {
  const Site& site = ctx.site;
  if (target[0] == '/') {
    std::optional<std::string> rel = Normalize(target);
    if (!rel) return LinkStatus::kOutside;
    if (rel->empty()) return LinkStatus::kOk;  // the home page
    return site.module->ResolvesRoute(ctx, *rel) ? LinkStatus::kOk : LinkStatus::kMissing;
  }
  // Relative: to the page's folder. Where pages are served as folders
  // ("/guide/setup/"), a route-style link may be relative to the page itself,
  // and an index page's URL is its folder's.
  std::string dir = Dirname(from);
  std::vector<std::string> bases = {dir};
  std::string stem = Lower(StripExtension(Basename(from)));
  if ((stem == "index" || stem == "readme") && !dir.empty()) bases.push_back(Dirname(dir));
  if (site.module->PagesAreFolders(site)) {
    // A route-style link, or a URL-relative one in raw HTML (<img src="../x.png">).
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

// An MDX import of a file of the repository ("./x.mdx", "../components/Card",
// and in Mintlify "/snippets/x.mdx"); packages and aliases ("react",
// "@site/...") are not checked. nullopt when not checked, else whether it
// resolves.
std::optional<bool> ImportResolves(const CheckContext& ctx, const std::string& from,
                                   const std::string& source) {
  std::optional<std::string> path;
  if (source.starts_with("./") || source.starts_with("../")) {
    path = Normalize(Join(Dirname(from), source));
  } else if (source.starts_with("/") && ctx.site.map.framework == Framework::kMintlify) {
    path = Normalize(Join(ctx.site.site_root, source.substr(1)));
  } else {
    return std::nullopt;
  }
  if (!path) return false;
  if (ctx.files.IsFile(*path)) return true;
  for (const char* ext : {".mdx", ".md", ".js", ".jsx", ".ts", ".tsx", ".json"}) {
    if (ctx.files.IsFile(*path + ext) ||
        ctx.files.IsFile(Join(*path, std::string("index") + ext))) {
      return true;
    }
  }
  return false;
}

// The fragment of a link (what follows its '#') that names no heading or anchor
// of the page it resolves to, `found` ("" when the link resolved to no file, as
// a route a module makes: then nothing is known of its anchors).
void CheckFragment(const std::string& path, const Page& page, const PageLink& link,
                   const std::string& found, AnchorCheck& anchors, Problems& out) {
  std::string_view dest = Trim(link.destination);
  size_t hash = dest.find('#');
  if (hash == std::string_view::npos || (hash > 0 && !IsPageFile(found))) return;
  const std::string& target = hash == 0 ? path : found;
  if (anchors.Names(target, target == path ? &page : nullptr, dest.substr(hash + 1))) return;
  out.Add(path, link.line, ProblemKind::kAnchor, link.destination,
          "anchor " + CleanLine(dest.substr(hash), kMaxMessageDetail) + " of link " +
              CleanLine(link.destination, kMaxMessageDetail) + " names no heading of " +
              (hash == 0 ? std::string("this page") : found));
}

// The links, images and imports of `page` that do not resolve. With `before`
// (the site as it was), only those that resolved then. With `anchors`, the
// fragments of its links too.
void CheckLinks(const CheckContext& ctx, const std::string& path, const Page& page,
                const CheckContext* before, AnchorCheck* anchors, Problems& out) {
  for (const PageLink& link : page.links) {
    if (ctx.budget.spent()) return;
    std::string shown = CleanLine(link.destination, kMaxMessageDetail);
    if (link.kind == PageLink::Kind::kImport) {
      if (!ctx.budget.Spend(8)) return;
      std::optional<bool> ok = ImportResolves(ctx, path, link.destination);
      if (!ok || *ok) continue;
      if (before) {
        std::optional<bool> was = ImportResolves(*before, path, link.destination);
        if (!was || !*was) continue;
      }
      out.Add(path, link.line, ProblemKind::kImport, link.destination,
              "import " + shown + " does not resolve to a file");
      continue;
    }
    const bool fragment = anchors && link.kind == PageLink::Kind::kLink;
    std::optional<std::string> target = LinkTarget(link.destination);
    if (!target) {
      if (fragment && Trim(link.destination).starts_with('#')) {
        CheckFragment(path, page, link, "", *anchors, out);
      }
      continue;
    }
    std::string found;
    CheckContext probe{ctx.files, ctx.changes, ctx.site, ctx.budget, &found};
    LinkStatus status = ResolveLink(probe, path, *target);
    if (status == LinkStatus::kOk) {
      if (fragment) CheckFragment(path, page, link, found, *anchors, out);
      continue;
    }
    if (before && ResolveLink(*before, path, *target) != LinkStatus::kOk) continue;
    bool image = link.kind == PageLink::Kind::kImage;
    std::string what = (image ? "image " : "link ") + shown;
    if (before) {
      out.Add(path, link.line, ProblemKind::kRemoved, link.destination,
              what +
                  " no longer resolves: these changes delete or move what it pointed at; "
                  "update the link or remove it");
    } else if (status == LinkStatus::kOutside) {
      // On a code host, "../../issues" from the root's README is the host's own
      // page: only a site knows its bounds.
      if (ctx.site.map.framework == Framework::kMarkdown) continue;
      out.Add(path, link.line, image ? ProblemKind::kImage : ProblemKind::kLink, link.destination,
              what + " points outside the repository");
    } else {
      out.Add(
          path, link.line, image ? ProblemKind::kImage : ProblemKind::kLink, link.destination,
          what + (image ? " does not resolve to a file" : " does not resolve to a page or file"));
    }
  }
}

void CheckFrontmatter(const std::string& path, const Frontmatter& fm, Problems& out) {
  if (std::optional<YamlError> error = FindYamlError(fm.yaml, 1)) {
    int line = fm.yaml_line + std::max(error->line - 1, 0);
    out.Add(path, line, ProblemKind::kSyntax, "",
            "frontmatter is not valid YAML: " + error->message);
    return;
  }
  if (!YamlRootIsMap(fm.yaml)) {
    out.Add(path, fm.yaml_line, ProblemKind::kSyntax, "",
            "frontmatter must be YAML `key: value` lines");
  }
}

// Remarks on a page's style: never a reason to repair. `label`: what navigation
// shows for the page, where the configuration says ("" if it does not).
void CheckStyle(const CheckContext& ctx, const std::string& path, std::string_view text,
                const Page& page, const std::string& label, Problems& notes) {
  if (!label.empty()) {
    std::string title = TitleOf(text, Extension(path) == ".mdx", ctx.budget);
    if (!title.empty() && Lower(title) != Lower(CleanLine(label, kMaxTitleLength))) {
      notes.Remark(path, 0,
                   "the page's title \"" + title + "\" differs from its navigation label \"" +
                       CleanLine(label, kMaxTitleLength) + "\"");
    }
  }
  if (page.empty &&
      !ctx.site.module->IsPartial(ctx.site.site_root, ctx.site.map.content_root, path)) {
    notes.Remark(path, 0, "the page has no content");
  }
  // A frontmatter title is shown as the page's first heading.
  int previous =
      page.frontmatter.closed && page.frontmatter.yaml.find("title:") != std::string_view::npos ? 1
                                                                                                : 0;
  for (const Heading& h : page.headings) {
    if (previous > 0 && h.level > previous + 1) {
      notes.Remark(path, h.line,
                   "heading \"" + CleanLine(h.text, 60) + "\" skips from level " +
                       std::to_string(previous) + " to " + std::to_string(h.level));
    }
    previous = h.level;
  }
}

void CheckPage(const CheckContext& ctx, const std::string& path, std::string_view text,
               const std::string& label, AnchorCheck& anchors, Problems& out, Problems& notes) {
  Page page = ReadPage(text, Extension(path) == ".mdx", ctx.budget);
  for (LineProblem& p : page.syntax)
    out.Add(path, p.line, ProblemKind::kSyntax, "", std::move(p.message));
  const Frontmatter& fm = page.frontmatter;
  if (fm.present && !fm.closed) return;
  if (fm.present) CheckFrontmatter(path, fm, out);
  CheckLinks(ctx, path, page, nullptr, &anchors, out);
  if (page.links_truncated) {
    notes.Remark(path, 0,
                 "only the first " + std::to_string(kMaxLinksPerPage) + " links were checked");
  }
  CheckStyle(ctx, path, text, page, label, notes);
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
  // Only whether it parses: nlohmann::json (keys in a tree), not the ordered kind,
  // whose inserts are linear in the object's size.
  using PlainJson = nlohmann::json;
  try {
    PlainJson parsed = PlainJson::parse(text);
    (void)parsed;
  } catch (const PlainJson::parse_error& e) {
    if (!strict) {
      // tsconfig.json and editor settings are JSON with comments.
      PlainJson relaxed = PlainJson::parse(text, nullptr, false, /*ignore_comments=*/true);
      if (!relaxed.is_discarded()) return;
    }
    size_t offset = e.byte == 0 ? 0 : e.byte - 1;
    out.Add(path, LineOfOffset(text, offset), ProblemKind::kSyntax, "",
            "invalid JSON: " + JsonErrorDetail(e.what()));
  }
}

// The line of the navigation file where `page` is listed, 0 if not found.
int NavLine(std::string_view text, std::string_view page) {
  for (char quote : {'"', '\'', '`'}) {
    std::string quoted = quote + std::string(page) + quote;
    size_t at = text.find(quoted);
    if (at != std::string_view::npos) return LineOfOffset(text, at);
  }
  // YAML lists names bare: "- guide/install.md" or "Install: guide/install.md";
  // a SUMMARY.md as a link's destination: "* [Install](guide/install.md)".
  for (size_t at = text.find(page); at != std::string_view::npos; at = text.find(page, at + 1)) {
    bool starts = at == 0 || text[at - 1] == ' ' || text[at - 1] == '\t' || text[at - 1] == '(';
    size_t end = at + page.size();
    bool ends = end == text.size() || text[end] == '\n' || text[end] == '\r' || text[end] == ' ' ||
                text[end] == '#' || text[end] == ')';
    if (starts && ends) return LineOfOffset(text, at);
  }
  return 0;
}

// The checks of the files in `paths` (as `ctx.files` has them) and of the
// site's navigation.
void CheckFiles(const CheckContext& ctx, const std::vector<std::string>& paths, Problems& out,
                Problems& notes) {
  const Site& site = ctx.site;
  std::map<std::string_view, std::string_view> labels;  // path -> navigation label
  for (const RawEntry& entry : site.entries) {
    if (!entry.label.empty() && !entry.path.empty()) labels.emplace(entry.path, entry.label);
  }
  size_t checked = 0;
  size_t bytes = 0;
  AnchorCheck anchors(ctx);
  for (const std::string& path : paths) {
    std::string ext = Extension(path);
    // A SUMMARY.md is navigation: its links are its entries, checked below.
    bool page = (ext == ".md" || ext == ".mdx") && path != site.nav_file;
    bool json = ext == ".json";
    bool yaml = ext == ".yml" || ext == ".yaml";
    if (!page && !json && !yaml) continue;
    if (++checked > kMaxCheckedFiles || bytes > kMaxCheckedBytes || ctx.budget.spent()) break;
    std::optional<std::string> text = ReadText(ctx.files, path);
    if (!text) continue;  // absent, binary or too large: nothing a check can read
    bytes += text->size();
    if (page) {
      auto label = labels.find(path);
      CheckPage(ctx, path, *text, label == labels.end() ? "" : std::string(label->second), anchors,
                out, notes);
    } else if (json) {
      // The site's own configuration must be strict JSON; other files may be
      // JSON with comments.
      bool strict = path == site.map.config_path || path == site.nav_file;
      CheckJson(path, *text, strict, out);
    } else if (std::optional<YamlError> error = FindYamlError(*text, kMaxYamlDocuments)) {
      out.Add(path, error->line, ProblemKind::kSyntax, "", "invalid YAML: " + error->message);
    }
  }
  if (site.nav_known && !site.nav_file.empty()) {
    for (const RawEntry& entry : site.entries) {
      if (!entry.path.empty()) continue;
      // Each lookup reads the navigation file: paid for, so that many missing
      // entries in a large file cost a note, not minutes.
      int line =
          ctx.budget.Spend(site.nav_text.size() / 64 + 1) ? NavLine(site.nav_text, entry.page) : 0;
      out.Add(site.nav_file, line, ProblemKind::kNavigation, entry.page,
              Shorten(site.module->MissingPageMessage(site, entry.page)));
    }
  }
}

// Pages the change leaves alone may link to files it deletes or moves away:
// those links worked before the change and do not now. Only deletions inside the
// site can break its links.
void CheckLinksToRemovedFiles(const CheckContext& ctx, const CheckContext& before, Problems& out) {
  const Site& site = ctx.site;
  bool removes = std::any_of(ctx.changes.begin(), ctx.changes.end(), [&](const auto& change) {
    return change.second.kind == git::Change::Kind::kDelete &&
           (IsUnder(change.first, site.site_root) || IsUnder(change.first, site.map.content_root));
  });
  if (!removes) return;
  size_t bytes = 0;
  // The pages, then their translations: a translation's links follow the
  // framework's rules for its language, and break with the pages they name.
  for (const std::vector<std::string>* pages : {&site.map.pages, &site.translations}) {
    for (const std::string& page : *pages) {  // bounded by the walk
      if (ctx.changes.count(page)) continue;  // checked whole, or gone
      if (bytes > kMaxCheckedBytes || ctx.budget.spent()) return;
      std::optional<std::string> text = ReadText(ctx.files, page);
      if (!text) continue;
      bytes += text->size();
      Page read = ReadPage(*text, Extension(page) == ".mdx", ctx.budget);
      CheckLinks(ctx, page, read, &before, nullptr, out);
    }
  }
}

// Two pages of one navigation group with the same title, where one of them is
// among `changed`.
void CheckGroupTitles(const CheckContext& ctx, const Changes& changed, Problems& notes) {
  const Site& site = ctx.site;
  std::set<std::string> groups;
  for (const RawEntry& e : site.entries) {
    if (!e.path.empty() && changed.count(e.path)) groups.insert(e.group);
  }
  if (groups.empty()) return;
  std::map<std::pair<std::string, std::string>, std::string> seen;  // (group, title) -> path
  size_t reads = 0;
  for (const RawEntry& e : site.entries) {
    if (e.path.empty() || !groups.count(e.group)) continue;
    if (++reads > kMaxGroupTitleReads || ctx.budget.spent()) return;
    std::optional<std::string> text = ReadText(ctx.files, e.path);
    if (!text) continue;
    std::string title = Lower(TitleOf(*text, Extension(e.path) == ".mdx", ctx.budget));
    if (title.empty()) continue;
    auto [it, fresh] = seen.emplace(std::make_pair(e.group, title), e.path);
    if (!fresh && it->second != e.path && (changed.count(e.path) || changed.count(it->second))) {
      notes.Remark(e.path, 0,
                   "has the same title as " + it->second + " in navigation group \"" +
                       CleanLine(e.group, 80) + "\"");
    }
  }
}

// Each page of `written` that is new and not in the site's navigation, where the
// site has one it does not generate.
void CheckNavigation(const git::Workspace& files, const Site& site,
                     const std::vector<std::string>& written, Problems& out) {
  if (!site.nav_known || site.nav_file.empty() || site.map.navigation_generated) return;
  std::set<std::string> listed;
  for (const RawEntry& entry : site.entries) listed.insert(entry.path);
  for (const std::string& path : written) {
    if (!IsPageFile(path) || files.base().IsFile(path) || listed.count(path)) continue;
    if (!site.module->NeedsNavigation(site, path)) continue;
    out.Add(path, 0, ProblemKind::kNavigation, path,
            site.module->NotInNavigationMessage(site, path));
  }
}

// What CheckChanges works with for every site.
struct Checking {
  const git::Workspace& files;
  const Changes& changes;
  const std::map<std::string, std::string>& sources;  // moved files' base paths
  const SiteLoad& was_load;                           // the base, on its own budget
  const SiteLoad& load;                               // the edits
};

// The checks of the site at `where` for the changed files of it, `paths`; what
// they made worse added to `found`.
void CheckSite(const Checking& c, const SiteLocation& where, const std::vector<std::string>& paths,
               Findings& found) {
  std::vector<std::string> written, existed;
  for (const std::string& path : paths) {
    if (c.changes.at(path).kind == git::Change::Kind::kDelete) continue;
    written.push_back(path);
    if (c.files.base().IsFile(path)) existed.push_back(path);
    if (auto from = c.sources.find(path); from != c.sources.end()) existed.push_back(from->second);
  }

  // The site as it was, checked the same way for the same files, first and on a
  // budget of its own: a base check cut short must not make old problems new.
  Site before_site = LoadSite(c.was_load, where);
  before_site.module->PrepareChecks(c.was_load, before_site);
  CheckContext before{c.was_load.files, c.was_load.changes, before_site, c.was_load.budget};
  Findings then;
  CheckFiles(before, existed, then.problems, then.notes);
  CheckGroupTitles(before, c.changes, then.notes);
  // A moved file's old problems are known by its new path.
  for (Problem& p : then.problems.list()) {
    for (const auto& [to, from] : c.sources) {
      if (p.path == from) p.path = to;
    }
  }

  Site site = LoadSite(c.load, where);
  site.module->PrepareChecks(c.load, site);
  CheckContext ctx{c.files, c.changes, site, c.load.budget};
  Findings now;
  CheckFiles(ctx, written, now.problems, now.notes);
  CheckLinksToRemovedFiles(ctx, before, now.problems);
  CheckGroupTitles(ctx, c.changes, now.notes);
  CheckNavigation(c.files, site, written, now.problems);

  const bool base_whole = !c.was_load.budget.spent();
  Findings made = NewFindings(c.files, c.sources, base_whole, c.load.budget, then, now);
  for (Problem& p : made.problems.list()) found.problems.Add(std::move(p));
  for (Problem& p : made.notes.list()) found.notes.Add(std::move(p));
  for (const std::string& n : site.notes) found.notes.Remark("", 0, n);
}

}  // namespace

CheckReport CheckChanges(const git::Workspace& files, const Limits& limits) {
  const uint64_t failed_reads = files.base().failed_reads();
  Changes changes = files.Changes();
  std::map<std::string, std::string> sources = MovedFrom(files, changes);
  std::string key = limits.cache ? CheckKey(files, changes, sources, limits) : "";
  if (!key.empty()) {
    if (std::shared_ptr<const CheckReport> kept = limits.cache->FindReport(key)) return *kept;
  }
  Budget base_budget(limits);
  git::Workspace was(files.base());
  Changes none;
  SiteLoad was_load{was, none, limits.max_files, base_budget, limits.site_root};
  Budget budget(limits);
  SiteLoad load{files, changes, limits.max_files, budget, limits.site_root};

  // Each changed file is checked with the site it belongs to.
  std::vector<SiteLocation> sites = FindSites(load);
  std::map<size_t, std::vector<std::string>> by_site;  // index in `sites` -> changed paths
  for (const auto& [path, change] : changes) {
    by_site[static_cast<size_t>(&SiteOf(sites, path) - sites.data())].push_back(path);
  }
  Findings found;
  Checking checking{files, changes, sources, was_load, load};
  for (const auto& [index, paths] : by_site) CheckSite(checking, sites[index], paths, found);

  for (const Budget* b : {&base_budget, &budget}) {
    if (b->spent() && !b->cancelled()) {
      found.notes.Remark("", 0, "the checks stopped early: " + b->Reason());
      break;
    }
  }
  CheckReport report;
  report.problems = found.problems.Take(limits.max_problems, &report);
  report.notes = found.notes.Take(limits.max_notes);
  if (!key.empty() && !CutFromOutside(files, limits, failed_reads)) {
    limits.cache->PutReport(std::move(key), std::make_shared<const CheckReport>(report));
  }
  return report;
}

}  // namespace docwright::docs
