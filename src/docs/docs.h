// Knowledge of documentation sites: which framework a repository uses, its
// navigation and page titles (the site map the agent's system prompt carries), and
// the checks run on the agent's edits before they are committed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "git/git.h"

namespace docwright::docs {

enum class Framework {
  kMintlify,     // docs.json, or the older mint.json
  kDocusaurus,   // docusaurus.config.{js,ts,mjs} (+ sidebars.{js,ts,json})
  kMkDocs,       // mkdocs.yml / mkdocs.yaml
  kMarkdown,     // none of the above: plain Markdown files
};
std::string_view ToString(Framework framework);

struct NavEntry {
  std::string group;   // the navigation group or section ("" at the top level); nested
                       // ones are joined by " > " ("API > Users")
  std::string page;    // as the configuration names it ("guides/install")
  std::string path;    // the file it resolves to ("guides/install.mdx"), "" if none exists
  std::string title;   // from the page's frontmatter, else its first heading, else ""
};

struct SiteMap {
  Framework framework = Framework::kMarkdown;
  std::string config_path;          // "docs.json", "mkdocs.yml", ... or "" for plain Markdown
  std::string content_root;         // the folder pages live under ("" for the repository root)
  std::vector<NavEntry> navigation; // in navigation order
  // True when no file lists the pages (Docusaurus without an explicit sidebar,
  // MkDocs without `nav:`, plain Markdown): `navigation` then follows the folders
  // (a folder is a group), and a new page needs no navigation entry.
  bool navigation_generated = false;
  std::vector<std::string> pages;   // every page file found (.md/.mdx), sorted, bounded
  bool pages_truncated = false;     // more pages exist than were listed

  // The compact text for the system prompt: framework, config file, where new
  // pages go and how they are added to navigation, then the navigation tree with
  // titles, then pages not in navigation. At most `max_bytes`, with a note when
  // cut.
  std::string Render(size_t max_bytes) const;
};

// Reads the site's configuration and pages from `files` (the workspace, so edits
// are seen). Never fails: an unreadable or malformed configuration gives a map of
// what could be read. Looks at no more than `max_files` paths.
SiteMap BuildSiteMap(const git::Workspace& files, size_t max_files = 2000);

struct Problem {
  std::string path;  // the file the problem is in
  int line = 0;      // 1-based; 0 when not about one line
  std::string message;
};

// Checks the files `files` changes (git::Workspace::Changes) against the site
// they belong to:
//  - changed .md/.mdx: frontmatter (between --- lines at the top) is valid YAML;
//    code fences are closed; in .mdx, JSX-style tags are balanced;
//  - changed .json (docs.json, mint.json, ...) parses; changed .yml/.yaml parses;
//  - every navigation entry of the site resolves to an existing page;
//  - a page added by these changes is reachable from navigation (sites with a
//    navigation configuration only);
//  - internal links and images in changed pages resolve to files of the site
//    (relative paths, and site-absolute "/guides/install" routes); external URLs,
//    mailto: and pure #anchors are not checked;
//  - when files are deleted or moved, links in the other pages (those the walk
//    finds) that resolved before the changes still resolve.
// Problems come sorted by path then line. At most `max_problems` are returned.
std::vector<Problem> CheckChanges(const git::Workspace& files, size_t max_problems = 50);

}  // namespace docwright::docs
