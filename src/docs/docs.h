// Knowledge of documentation sites: which framework a repository uses, its
// navigation and page titles (the site map the agent's system prompt carries), and
// the checks run on the agent's edits before they are committed.
//
// Everything here reads content nobody vetted. Every parser is linear in its
// input (Markdown through cmark-gfm, MDX's own syntax, YAML, JSON, JS literals),
// and every walk spends from the call's Limits, so no page or configuration can
// make a call run away; the calls are safe from several threads at once, each on
// its own workspace. How each framework is read: docs/checks.md.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "git/git.h"

namespace docwright {
class CancelToken;
class WorkBudget;
}  // namespace docwright

namespace docwright::docs {

class CommitCache;  // docs/commit_cache.h

enum class Framework {
  kMintlify,    // docs.json, or the older mint.json
  kDocusaurus,  // docusaurus.config.{js,ts,mjs} (+ sidebars.{js,ts,json})
  kMkDocs,      // mkdocs.yml / mkdocs.yaml
  kGitBook,     // SUMMARY.md as navigation: GitBook (.gitbook.yaml) and mdBook (book.toml)
  kMarkdown,    // none of the above: plain Markdown files
};
std::string_view ToString(Framework framework);

struct NavEntry {
  std::string group;  // the navigation group or section ("" at the top level); nested
                      // ones are joined by " > " ("API > Users")
  std::string page;   // as the configuration names it ("guides/install")
  std::string path;   // the file it resolves to ("guides/install.mdx"), "" if none exists
  std::string title;  // from the page's frontmatter, else its first heading, else ""
};

struct SiteMap {
  Framework framework = Framework::kMarkdown;
  std::string config_path;           // "docs.json", "mkdocs.yml", ... or "" for plain Markdown
  std::string content_root;          // the folder pages live under ("" for the repository root)
  std::vector<NavEntry> navigation;  // in navigation order
  // True when no file lists the pages (Docusaurus without an explicit sidebar,
  // MkDocs without `nav:`, plain Markdown): `navigation` then follows the folders
  // (a folder is a group), and a new page needs no navigation entry.
  bool navigation_generated = false;
  std::vector<std::string> pages;  // every page file found (.md/.mdx), sorted, bounded
  bool pages_truncated = false;    // more pages exist than were listed
  // The configuration files of the repository's other sites (one per language,
  // a blog, a package's docs), in the order they were found, at most
  // kMaxOtherSites: a turn may change their files as well.
  std::vector<std::string> other_sites;
  static constexpr size_t kMaxOtherSites = 64;
  // Set by SharedSiteMap on a map that is exactly its commit's under the
  // limits it was asked with: the map's key in the commit cache, under which
  // its rendered text is kept too (SharedRender). "" on any other map (built
  // by hand, of edits, cut short from outside); a copy that is changed must
  // clear it.
  std::string commit_key;

  // The compact text for the system prompt: framework, config file, where new
  // pages go and how they are added to navigation, then the navigation tree with
  // titles, then pages not in navigation. At most `max_bytes`, with a note when
  // cut.
  std::string Render(size_t max_bytes) const;
};

// What one call may spend. The repository is untrusted: every walk over it
// (paths, pages, navigation trees, links) counts its steps, and stops when the
// steps, the time or the turn are over; what was cut short is said in a note.
struct Limits {
  size_t max_files = 2000;              // repository paths walked
  size_t max_problems = 50;             // problems returned
  size_t max_notes = 30;                // notes returned
  size_t max_steps = 5000000;           // nodes visited, links resolved, bytes / 64 read
  const CancelToken* cancel = nullptr;  // the walks stop soon after it is set
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  // The turn's budget, charged for every step as well (may be null).
  WorkBudget* turn = nullptr;
  // The folder the site lives in (its configuration file's folder, or for plain
  // Markdown the folder of its pages), set by the project's `--site-root`: it
  // overrides detection. "" finds the sites by their configuration files.
  std::string site_root;
  // Where answers that depend only on a commit are kept between calls
  // (docs/commit_cache.h); null: everything is computed each time.
  CommitCache* cache = nullptr;
};

// Reads the site's configuration and pages from `files` (the workspace, so edits
// are seen). Never fails: an unreadable or malformed configuration gives a map of
// what could be read. Safe to call from several threads on different workspaces.
SiteMap BuildSiteMap(const git::Workspace& files, const Limits& limits = {});
// The same map, shared: when `files` has no changes and limits.cache holds the
// map of its commit under these limits, that one, nothing read; else built as
// BuildSiteMap builds it, and kept in limits.cache (if any) when it was not cut
// short by the caller's cancel token, deadline or turn budget. Never null.
std::shared_ptr<const SiteMap> SharedSiteMap(const git::Workspace& files,
                                             const Limits& limits = {});
// map.Render(max_bytes), rendered once for every turn that asks: kept in
// `cache` under the map's commit_key and the size when the map has one (a map
// SharedSiteMap shared); else rendered now. Never null.
std::shared_ptr<const std::string> SharedRender(const SiteMap& map, size_t max_bytes,
                                                CommitCache* cache);

// What a problem is about, in order of severity: a cap on the list keeps the
// first kinds.
enum class ProblemKind {
  kNavigation,  // a navigation entry for no page, a new page left out of navigation
  kRemoved,     // a link or image that worked and no longer does (its target deleted or moved)
  kSyntax,      // a file that does not parse (frontmatter, JSON, YAML, code fences, JSX tags)
  kImport,      // an MDX import of no file: the page does not build
  kLink,        // a link to no page or file
  kAnchor,      // a link to a heading the page does not have
  kImage,       // an image that is no file
  kRemark,      // notes only: style, what could not be read
};
std::string_view ToString(ProblemKind kind);  // "broken link", ... (singular)

struct Problem {
  std::string path;  // the file the problem is in
  int line = 0;      // 1-based; 0 when not about one line
  std::string message;
  ProblemKind kind = ProblemKind::kRemark;
  // What it names, so that the same problem is known in the base and after the
  // edits wherever its line moved: the link's destination, the navigation
  // entry's page, the anchor; "" when the message alone says it.
  std::string subject;
};

// "path:line: message" ("path: message" without a line, the message alone
// without a path).
std::string ToText(const Problem& problem);

// How many problems of one kind were found, in how many files.
struct KindCount {
  ProblemKind kind = ProblemKind::kRemark;
  size_t problems = 0;
  size_t files = 0;
};

struct CheckReport {
  // What the changes made worse: problems new with them, or old ones on lines
  // they changed. These go back to the agent to repair.
  std::vector<Problem> problems;
  // Never sent for repair, at most listed in the pull request: problems the site
  // already had before the changes (links broken long ago, navigation entries
  // for pages never written), remarks on style (a heading that skips a level, an
  // empty page, two pages of one group with the same title), and what the
  // checks could not finish within their Limits.
  std::vector<Problem> notes;
  // When more problems were found than are returned: how many more and of which
  // kinds ("and 41 more: 38 broken links in 17 files, 3 navigation entries"),
  // for the agent and the pull request alike; "" when none was left out.
  std::string more_problems;
  // Every problem found (those left out included), by kind, severest first.
  std::vector<KindCount> counts;

  // "3 problems: 2 navigation entries, 1 broken link" ("" when none).
  std::string Summary() const;
  // The problems as lines for the agent and the pull request, severest first,
  // more_problems last when some were left out.
  std::vector<std::string> ProblemLines() const;
};

// Checks the files `files` changes (git::Workspace::Changes) against the site
// they belong to, then runs the same checks on the base and keeps as problems
// only what the changes made worse:
//  - changed .md/.mdx: frontmatter (between --- lines at the top) is valid YAML;
//    code fences are closed; in .mdx, JSX-style tags are balanced;
//  - changed .json (docs.json, mint.json, ...) parses; changed .yml/.yaml parses;
//  - every navigation entry of the site resolves to an existing page;
//  - a page added by these changes is reachable from navigation (sites with a
//    navigation configuration only);
//  - internal links and images in changed pages (Markdown, HTML and JSX href/src,
//    MDX imports of the repository's files) resolve the way the framework
//    resolves them (relative paths, site routes, redirects, slugs, static
//    folders, versions); external URLs and mailto: are not checked;
//  - a link's #fragment (to another page, or within the page) names a heading
//    (by the framework's slug rule, or its explicit {#id}) or an HTML/JSX id of
//    the page it resolves to; accepted whenever that cannot be known;
//  - when files are deleted or moved, links in the other pages (those the walk
//    finds) that resolved before the changes still resolve.
// A problem is the changes' when nothing with its kind, path and subject was
// there before, or when it sits on a line the changes wrote with other content
// (not one merely moved or re-indented). Problems come by severity (ProblemKind
// order), then path and line, at most Limits::max_problems of them (the rest
// counted in more_problems); notes by path and line, at most max_notes.
// With limits.cache, a report for the same base commit, the same changed
// contents (by blob id; deletions by path) and the same limits is returned from
// it, nothing read; a report not cut short by the caller's cancel token,
// deadline or turn budget is kept there.
CheckReport CheckChanges(const git::Workspace& files, const Limits& limits = {});

}  // namespace docwright::docs
