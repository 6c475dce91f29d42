// The docs layer's own parts, shared by its units and by nothing else:
//
//   paths.cc          path and line helpers
//   budget.cc         what one call may spend (steps, time, the turn's cancel token)
//   markdown.cc       reading a page: frontmatter, then cmark-gfm for CommonMark and
//                     hand-written code for what is MDX's own (ESM, JSX, comments)
//   anchors.cc        the ids of a page's headings and anchors, by each
//                     framework's slug rule, and the check of links' fragments
//   yaml.cc           YAML helpers that stay bounded on hostile input
//   js_literal.cc     the data of a JS/TS module, read without running it
//   site.cc           finding the sites (FindSites), walking pages, the site map
//   mintlify.cc, docusaurus.cc (+ docusaurus_config.cc, docusaurus.h), mkdocs.cc,
//   gitbook.cc, plain_markdown.cc
//                     one module per framework, behind FrameworkModule
//   checks.cc         the checks of each changed file with its site
//   cache_keys.cc     what names an answer in the commit cache, and when one
//                     may be kept (commit_cache.cc holds them)
//   report.cc         what they found: kinds, severity, the cut and its count, and
//                     the comparison with the base (old problems by identity)
//   render.cc         the site map as text for the system prompt
//   preview.cc        pages and descriptions as sanitised HTML (preview.h)
//   html_cut.cc       cutting that HTML at a tag, every element closed
//
// Adding a framework is: its module (a FrameworkModule in a unit of its own),
// its value of Framework and its name in ToString (docs.h), its entry in
// ModuleFor and in detection (site.cc), and its unit in CMakeLists.txt.
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "core/work_budget.h"

#include "core/json_fields.h"
#include "docs/docs.h"
#include "git/git.h"

namespace docwright::docs {

// Navigation order is the order of the configuration file: object keys stay in
// the order they were written.
using Json = nlohmann::ordered_json;
using Changes = std::map<std::string, git::Change>;

constexpr std::string_view kGroupSeparator = " > ";
// A title costs a blob read. The map ends up in a prompt of a few KiB, which shows
// a few hundred entries at most.
constexpr size_t kMaxTitleReads = 150;
constexpr size_t kMaxTitleBytes = 32u << 20;
constexpr size_t kMaxNavEntries = 20000;
// One edit session changes few files; these bound a pathological one.
constexpr size_t kMaxCheckedFiles = 1000;
constexpr size_t kMaxCheckedBytes = 64u << 20;
constexpr size_t kMaxCollectedProblems = 10000;
constexpr size_t kMaxLinksPerPage = 5000;
constexpr size_t kMaxYamlDocuments = 10000;
// YAML parsed into a tree (mkdocs.yml, frontmatter read for titles and ids): real
// ones are a few KiB; larger ones are read by events only, or not at all.
constexpr size_t kMaxYamlTreeBytes = 256 * 1024;
// Names kept from configurations (group labels, page names): what a person
// writes is short, and each entry keeps its own copy.
constexpr size_t kMaxNameBytes = 256;
// Keys kept of one JSON or JS object (docs.json, sidebars): inserting into an
// ordered object is linear in its size.
constexpr size_t kMaxObjectKeys = 10000;
// Configuration files are data written by people: deeper nesting is an attack or
// an accident, and recursion must stay bounded either way.
constexpr int kMaxDepth = 64;
constexpr size_t kMaxTitleLength = 120;
constexpr size_t kMaxMessageDetail = 200;

// --- Paths and lines (paths.cc) --------------------------------------------------

std::string Join(std::string_view dir, std::string_view name);
std::string Dirname(std::string_view path);
std::string_view Basename(std::string_view path);
std::string Extension(std::string_view path);  // ".mdx" for "a/b.MDX"; "" if none
std::string StripExtension(std::string_view path);
bool IsPageFile(std::string_view path);  // .md or .mdx
// Whether `path` is inside folder `root` ("" is the repository root).
bool IsUnder(std::string_view path, std::string_view root);
// `path` relative to `root`; `path` must be under it.
std::string RelativeTo(std::string_view path, std::string_view root);
std::vector<std::string_view> SplitPath(std::string_view path);
// `path` without "." segments and with ".." applied; nullopt if it climbs above
// the repository root.
std::optional<std::string> Normalize(std::string_view path);
// Hidden folders (.github) and installed packages hold no pages.
bool InIgnoredFolder(std::string_view path, std::string_view root);
// Docusaurus drops "01-" style ordering prefixes from doc ids.
std::string StripNumberPrefixes(std::string_view id);
// `s` without ASCII whitespace (what std::isspace takes in the C locale) at
// either end.
std::string_view Trim(std::string_view s);
// The line of `text` starting at `pos`, without its line break; `*next` is where
// the following line starts.
std::string_view LineFrom(std::string_view text, size_t pos, size_t* next);
int LineOfOffset(std::string_view text, size_t offset);  // 1-based
// One line, no control characters, bounded: what ends up in a prompt.
std::string CleanLine(std::string_view s, size_t max_bytes);
std::string Shorten(std::string_view message);  // CleanLine to kMaxMessageDetail
bool DirExists(const git::Workspace& files, const Changes& changes, const std::string& dir);
// `name` cut to kMaxNameBytes (at a character).
std::string Name(std::string_view name);
// JSON parsed with at most kMaxObjectKeys keys kept per object (the rest are
// dropped), so that no object makes the parse quadratic; discarded if invalid.
Json ParseJson(std::string_view text);
// The text of a file; nullopt when it cannot be read (absent, binary, too large).
std::optional<std::string> ReadText(const git::Workspace& files, const std::string& path);

// --- Budget (budget.cc) ----------------------------------------------------------

// What one call of BuildSiteMap or CheckChanges may spend: a number of steps (a
// node visited, a link resolved, a line scanned in bulk counts as its bytes / 64),
// wall time, and the turn's cancel token; every step is also charged to the
// turn's WorkBudget when the limits name one. Every walk over data from the
// repository spends from it and stops once it is spent; what was cut short is
// then said in a note. Not thread-safe: one per call.
class Budget : public WorkBudget {
 public:
  explicit Budget(const docs::Limits& limits);
  // Takes `steps`; false (and stays false) once the steps are spent, the cancel
  // token is set or the deadline has passed. Cheap: the clock and the token are
  // looked at every few thousand steps.
  bool Spend(size_t steps = 1) { return Charge(Meter::kSteps, steps); }
  // Why the budget ran out, as a sentence for a note; "" if it did not.
  std::string Reason() const;
};

// --- The commit cache's keys (cache_keys.cc) ---------------------------------------

// The key of the site map of `files`' base commit under `limits` (the fields
// that shape a map: site_root, max_files, max_steps); "" when `files` has
// changes: the map of edits is no commit's.
std::string SiteMapKey(const git::Workspace& files, const Limits& limits);
// The key of the text of the site map under `map_key` (SiteMapKey's), rendered
// in at most `max_bytes`.
std::string RenderKey(std::string_view map_key, size_t max_bytes);
// The key of the check of `changes` (files.Changes()) over `files`' base
// commit: every Limits field that shapes a report, then each change by path,
// deleted or the blob id of its new content (a written file's hashed, a moved
// or taken one's named), with the base path it moved from (`sources`,
// MovedFrom's: a file moved as it is and a new file of the same bytes are
// checked apart). "" when not to be kept: a content that cannot be hashed, or
// a key over 64 KiB (thousands of changed paths).
std::string CheckKey(const git::Workspace& files, const Changes& changes,
                     const std::map<std::string, std::string>& sources, const Limits& limits);
// Whether a call over `files` under `limits`, once over, may have been cut
// short by something outside the commit: the caller's cancel token or
// deadline, the turn's budget, or the budget the workspace's snapshot charges
// (its reads fail once spent). Such an answer is never kept; one cut by the
// call's own max_steps is (the same commit and limits cut it the same way).
// Nor is one made while a read of the snapshot failed for want of the object
// database (git::Snapshot::failed_reads past `failed_reads_before`, its count
// as the call began): another call may read what this one could not.
bool CutFromOutside(const git::Workspace& files, const Limits& limits,
                    uint64_t failed_reads_before);

// --- Pages (markdown.cc) ---------------------------------------------------------

// The YAML block between "---" lines at the very top of a page.
struct Frontmatter {
  bool present = false;
  bool closed = false;
  std::string_view yaml;
  int yaml_line = 2;  // the line `yaml` starts on
  size_t body = 0;    // offset of what follows the closing line
  int body_line = 1;  // the line the body starts on
};
Frontmatter SplitFrontmatter(std::string_view text);

struct PageLink {
  std::string destination;  // as written
  int line = 0;             // 1-based, in the whole file
  enum class Kind { kLink, kImage, kImport } kind = Kind::kLink;
};

struct Heading {
  int level = 1;
  int line = 0;
  std::string text;  // cleaned, bounded, without its explicit id
  // The id written at its end ("## Setup {#install}", attr_list's
  // "{: #install }"), "" when none.
  std::string id;
  // Its whole text (at most kMaxHeadingBytes), without the explicit id: what its
  // slug is made of.
  std::string slug_text;
};

// A heading's text longer than this has an id the checks do not compute.
constexpr size_t kMaxHeadingBytes = 1024;

struct LineProblem {
  int line = 0;
  std::string message;
};

// What the checks and the site map need of one page.
struct Page {
  Frontmatter frontmatter;
  std::vector<PageLink> links;      // links, images (Markdown, HTML and JSX), MDX imports
  std::vector<Heading> headings;    // in order
  std::vector<LineProblem> syntax;  // unclosed frontmatter or code block, JSX tags
  bool empty = true;                // nothing but frontmatter, imports and blank lines
  bool links_truncated = false;     // more than kMaxLinksPerPage
  // Ids of the page besides its headings': HTML id= (and <a name=>) in raw HTML
  // and JSX, attr_list's {: #id} and {#id}. At most kMaxLinksPerPage.
  std::vector<std::string> anchors;
  // The page may have ids the reader cannot know: MDX components or imports
  // (which render headings of their own), ids set by expressions, headings too
  // long or holding JSX, more anchors than kept. A link's fragment to it is
  // accepted.
  bool anchors_open = false;
};

// Reads `text` (a .md page, or .mdx when `mdx`). Linear in the text: CommonMark
// through cmark-gfm (with a guard against its one known quadratic input, deeply
// nested unclosed brackets), MDX's own syntax by a single hand-written pass.
Page ReadPage(std::string_view text, bool mdx, Budget& budget);

// Frontmatter `title:`, else the first level-1 heading, else "".
std::string TitleOf(std::string_view text, bool mdx, Budget& budget);

// Shared by the page reader and the previews (preview.cc).

// A line that opens or closes a fenced code block.
struct Fence {
  char marker = 0;
  size_t length = 0;
  bool bare = true;  // nothing follows the marker run: it can close a block
};
std::optional<Fence> FenceOf(std::string_view line);

// Tracks fenced code blocks line by line (the MDX passes need them before
// cmark-gfm runs: JSX inside code is code).
class FenceTracker {
 public:
  // True if `line` is code (or a fence line), false if it is prose.
  bool IsCode(std::string_view line) {
    std::optional<Fence> fence = FenceOf(line);
    if (open_.marker == 0) {
      if (!fence) return false;
      open_ = *fence;
      return true;
    }
    if (fence && fence->marker == open_.marker && fence->length >= open_.length && fence->bare) {
      open_ = Fence{};
    }
    return true;
  }

 private:
  Fence open_;
};

// Blanks inline code spans of `text` (a run of backticks up to the next run of
// the same length in the same paragraph), found in one pass from the right.
void BlankCodeSpans(std::string& text);

// MDX's own syntax that is not Markdown, blanked to spaces (line breaks kept, so
// offsets and lines stay the page's), once for both readers of MDX pages: the
// checks (markdown.cc) and the previews (preview.cc). Linear in `body`.
struct MdxBlanked {
  // `body` with its ESM blocks (import/export, each to a blank line) and its
  // {/* */} comments blanked: what is rendered.
  std::string markdown;
  // The same with code (fences and spans) blanked too: where JSX tags are read.
  std::string prose;
};
// `on_import(line, offset)`, if given, is called for each import line of an ESM
// block, with its offset in `body`.
MdxBlanked BlankMdxSyntax(
    std::string_view body,
    const std::function<void(std::string_view line, size_t offset)>& on_import = {});
// The end of a {...} expression starting at `i`, strings inside included.
size_t SkipBraces(std::string_view text, size_t i);

// A JSX tag of MDX prose (code blanked) whose '<' is at `at`, as the checks and
// the previews both read it: its name (empty for a fragment, <>), whether it
// closes (</X>) or closes itself (<X />), and `end`, just past its '>'. Not
// `ended` when no '>' comes before the next '<' or the end (then `end` is where
// reading stopped). nullopt when the '<' starts no tag: "a < b", "<3", or an
// autolink (<https://x.y>, <a@b.c>). Linear in what it reads.
struct JsxTag {
  std::string name;
  bool closing = false;
  bool self_closing = false;
  bool ended = false;
  size_t end = 0;
};
std::optional<JsxTag> ScanJsxTag(std::string_view prose, size_t at);
// Guards against cmark-gfm 0.29's quadratic inputs, none of which real text has,
// by making them plain text:
//  - opening brackets beyond kMaxOpenBrackets in one paragraph (its bracket
//    matching walks back over every unclosed opener each time a link closes,
//    CVE-2023-22486); brackets inside code spans are not brackets to cmark and
//    are not counted;
//  - "<?" and "<![CDATA[" with no end after them (each would scan to the end of
//    the text looking for "?>" or "]]>").
void DefuseQuadraticInputs(std::string& text);

// --- YAML (yaml.cc) --------------------------------------------------------------

// The YAML tree of `text`, or nullopt when it is not YAML. Aliases are shared
// nodes, not copies: a walk over the tree must spend from a Budget per node.
std::optional<YAML::Node> ParseYaml(std::string_view text);
// `map[key]` when it is a scalar, else "".
std::string YamlString(const YAML::Node& map, const char* key);
// A YAML 1.1 boolean as PyYAML reads it (MkDocs, its plugins): true, yes, on
// and false, no, off, each in three cases; nullopt for anything else.
std::optional<bool> YamlBool(std::string_view value);
struct YamlError {
  int line = 0;  // 1-based in the text parsed, 0 when unknown
  std::string message;
};
// Why `text` is not YAML (a stream of at most `max_documents` documents), or
// nullopt if it is. Reads events only: linear whatever the aliases.
std::optional<YamlError> FindYamlError(std::string_view text, size_t max_documents);
// Whether the first document of `text` is a mapping, or empty (frontmatter must
// be `key: value` lines). Reads events, builds no tree.
bool YamlRootIsMap(std::string_view text);
// The value of a top-level `title: ...` line when it is a plain or simply quoted
// scalar, read without the parser; nullopt when the line needs the parser.
std::optional<std::string> SimpleTitle(std::string_view yaml);

// --- JavaScript data (js_literal.cc) ---------------------------------------------

// The first object literal a JS/TS module assigns or exports (sidebars.js,
// docusaurus.config.ts), read without running anything; every expression that
// is not a literal (require(...), a variable, a function) reads as null.
// Linear in the source.
std::optional<Json> ReadJsObject(std::string_view source);

// --- The cut of a preview (html_cut.cc) -----------------------------------------

// `html` cut before the last tag at which it, the closing tags of what is open
// there and `note` fit in `max`, those tags closed and `note` after: at most
// `max` bytes ("" if `note` alone is larger), `html` and `note` as they are if
// they fit. `html` must be well formed (cmark-gfm's and the preview's tags)
// up to `max`; past it, it may stop anywhere (in a tag, elements open). Linear.
std::string CutHtml(const std::string& html, size_t max, std::string_view note);

// --- The site (site.cc and the framework modules) --------------------------------

// A navigation entry before its title is known.
struct RawEntry {
  std::string group;
  std::string page;
  std::string path;
  std::string label;  // the label navigation shows for the page, where the
                      // configuration gives one (a Mintlify group's root page)
};

// What a framework module keeps about a site besides the common parts.
struct SiteDetails {
  virtual ~SiteDetails() = default;
};

class FrameworkModule;

// The site map and what the checks need besides it.
struct Site {
  SiteMap map;
  const FrameworkModule* module = nullptr;
  std::string site_root;   // the folder of the configuration file
  std::string nav_file;    // the file navigation is listed in; "" when generated
  std::string nav_text;    // its text, to find an entry's line
  bool nav_known = false;  // the navigation could be read
  std::vector<RawEntry> entries;
  std::unique_ptr<SiteDetails> details;  // the module's own
  std::vector<std::string> notes;        // what could not be read, for the PR body
  // Translated pages (Docusaurus i18n/<locale>/..., MkDocs per-language folders
  // or suffixes, Mintlify languages' folders) that are not in map.pages: their
  // links are checked too when the changes delete or move pages. Sorted, bounded.
  std::vector<std::string> translations;
};

// What loading works with.
struct SiteLoad {
  const git::Workspace& files;
  const Changes& changes;
  size_t max_files;
  Budget& budget;
  // Limits::site_root: where the project says its site is ("" to detect).
  std::string_view site_root = {};
};

// What resolving a link works with.
struct CheckContext {
  const git::Workspace& files;
  const Changes& changes;
  const Site& site;
  Budget& budget;
  // When set, ResolvesAt writes there the file a link resolved to (the last
  // one it found: a route resolved otherwise, by a module's own rule, leaves it
  // as it was), so that the checks can read the page a fragment names.
  std::string* found = nullptr;
};

// How a framework makes ids of heading texts (anchors.cc).
enum class SlugRule {
  // github-slugger (Docusaurus, Mintlify, GitBook, the code host's Markdown):
  // lower case, what is not a letter, mark, digit, '_', '-' or ' ' removed,
  // spaces to '-', unicode letters kept; a repeated slug gets -1, -2, ...
  kGitHub,
  // Python-Markdown's toc (MkDocs): NFKD, non-ASCII dropped, what is not a word
  // character, space or '-' removed, lower case, runs of spaces and '-' to '-';
  // a repeated id gets _1, _2, ...
  kPythonMarkdown,
  // The site sets a rule of its own: no fragment is checked.
  kUnknown,
};

// One documentation framework: how its sites are found and laid out, how its
// navigation is read, how it resolves links. Implementations are stateless and
// shared; what they learn about a site goes in Site (and Site::details).
class FrameworkModule {
 public:
  virtual ~FrameworkModule() = default;
  virtual Framework framework() const = 0;
  // The configuration files that mark a site of this framework, by preference.
  virtual std::vector<std::string_view> ConfigNames() const = 0;

  // Fills `site` (found at site.site_root with site.map.config_path): the
  // content root, the pages (WalkPages), the navigation entries, nav_file.
  virtual void Load(const SiteLoad& load, Site& site) const = 0;
  // Further reads the checks need and the map does not.
  virtual void PrepareChecks(const SiteLoad& load, Site& site) const {}

  // Files of the site that are not pages of its navigation (snippets, partials).
  virtual bool IsPartial(std::string_view site_root, std::string_view content_root,
                         std::string_view path) const {
    return false;
  }
  // Whether a site-absolute link to `route` (normalized, without the leading
  // slash, not empty) resolves.
  virtual bool ResolvesRoute(const CheckContext& ctx, const std::string& route) const = 0;
  // Whether `path` (repository-relative, normalized) names a page the way this
  // framework's links may, beyond a file, a file without its extension or a
  // folder's index page (ResolvesAt tries those first).
  virtual bool ResolvesName(const CheckContext& ctx, const std::string& path) const {
    return false;
  }
  // Whether the file at `path` (which exists) is served by the site: a
  // translation whose source page is gone is not (Docusaurus, MkDocs i18n), so a
  // link to it breaks though the file is there.
  virtual bool Serves(const CheckContext& ctx, const std::string& path) const { return true; }
  // How the site makes ids of its headings' texts.
  virtual SlugRule HeadingSlugs(const CheckContext& ctx) const { return SlugRule::kGitHub; }
  // Pages are served as folders ("/guide/setup/"): a link without extension may
  // be relative to the page itself.
  virtual bool PagesAreFolders(const Site& site) const { return false; }
  // Whether a new page at `path` must be listed in navigation.
  virtual bool NeedsNavigation(const Site& site, const std::string& path) const;

  virtual std::string MissingPageMessage(const Site& site, const std::string& page) const = 0;
  virtual std::string NotInNavigationMessage(const Site& site, const std::string& path) const = 0;
  virtual std::string NewPagesHint(const SiteMap& map) const = 0;
};

const FrameworkModule& MintlifyModule();
const FrameworkModule& DocusaurusModule();
const FrameworkModule& MkDocsModule();
const FrameworkModule& GitBookModule();  // GitBook and mdBook: SUMMARY.md
const FrameworkModule& PlainMarkdownModule();
const FrameworkModule& ModuleFor(Framework framework);

// One entry of a SUMMARY.md (GitBook, mdBook), as gitbook.cc reads it.
struct SummaryItem {
  std::string group;        // the part or group heading, then the labels of the
                            // entries it is nested under, joined by " > "
  std::string label;        // the link's text
  std::string destination;  // as written, without a link title; "" for a draft
                            // chapter (`[Title]()`), which has no page yet
  int line = 0;             // 1-based
};
// The entries of a SUMMARY.md in order: list items with a link (nested by
// indentation), prefix and suffix chapters; title heading, part headings,
// separators, HTML comments and code blocks are read past. Linear in `text`,
// each line paid from `budget`; at most kMaxNavEntries entries. `*complete` is
// false when the budget or that bound cut it short.
std::vector<SummaryItem> ReadSummary(std::string_view text, Budget& budget, bool* complete);

// The groups joined by " > ", at most 4 * kMaxNameBytes.
std::string JoinGroups(const std::vector<std::string>& groups);
std::vector<std::string> SplitGroups(std::string_view group);

// Page files under `root` as the workspace has them: the base tree's (at most
// `max_files` paths looked at) with the edits applied.
std::vector<std::string> WalkPages(const SiteLoad& load, const std::string& root, bool* truncated);

// Navigation that follows the folders (site.map.pages must be sorted): the site's pages under
// `dir`, a folder's own pages (its index first) before its subfolders', each folder a group under
// `group_prefix`; `page_name` names an entry's page.
using PageNamer = std::string (*)(const Site& site, const std::string& path);
void AddFolderEntries(const Site& site, const std::string& dir, const std::string& group_prefix,
                      PageNamer page_name, Budget& budget, std::vector<RawEntry>& out);

// Where a site is: its framework's module, its configuration file ("" for plain
// Markdown) and the folder that holds it.
struct SiteLocation {
  const FrameworkModule* module = nullptr;
  std::string config_path;
  std::string site_root;
};

// Every site the workspace holds, found by its framework's configuration file in
// the root, the usual folders and one or two levels below them (`docs/en/`,
// `website/`, `packages/*/`, `docs/en/v2/`); hidden folders, installed and
// vendored packages, build output, tests and examples are not searched. A
// folder's first configuration by module preference; never one site inside
// another's content folder unless it has a configuration of its own, and a
// MkDocs configuration `!include`d by an enclosing site's (monorepo plugin) is
// part of that site. Shallowest first; at one depth the usual folders first (in
// the order above), then an English folder (`en`, `en-US`: the source of a
// multilingual site), then by path. With `load.site_root` set, only the site
// there (plain Markdown when it has no configuration). Never empty: a
// repository without a configuration is one plain Markdown site at its root.
// Bounded by load.max_files entries listed, a few hundred folders and the
// budget.
std::vector<SiteLocation> FindSites(const SiteLoad& load);
// The site `path` belongs to among `sites` (the deepest whose folder holds it),
// else the first.
const SiteLocation& SiteOf(const std::vector<SiteLocation>& sites, std::string_view path);
// The site the changes are about: the site holding most of the changed pages,
// else most of the changed files, else the first (the shallowest); on a tie,
// the first of them in the order of `sites`.
const SiteLocation& PreferredSite(const std::vector<SiteLocation>& sites, const Changes& changes);

// Loads the site at `where` as the workspace holds it (the base with `changes`
// applied).
Site LoadSite(const SiteLoad& load, const SiteLocation& where);
// Loads the preferred site (PreferredSite over FindSites).
Site LoadSite(const SiteLoad& load);

// --- What the checks found (report.cc) ------------------------------------------

// Problems as the checks collect them, at most kMaxCollectedProblems. Not
// thread-safe: one per check.
class Problems {
 public:
  // `subject`: what the problem names (docs.h Problem::subject).
  void Add(const std::string& path, int line, ProblemKind kind, std::string subject,
           std::string message) {
    if (list_.size() < kMaxCollectedProblems) {
      list_.push_back(Problem{path, line, std::move(message), kind, std::move(subject)});
    }
  }
  // A remark: never sent for repair.
  void Remark(const std::string& path, int line, std::string message) {
    Add(path, line, ProblemKind::kRemark, "", std::move(message));
  }
  void Add(Problem p) {
    if (list_.size() < kMaxCollectedProblems) list_.push_back(std::move(p));
  }
  std::vector<Problem>& list() { return list_; }

  // Duplicates dropped, at most `max` kept. With `report` (problems): sorted by
  // kind (severity), path and line, every one counted there by kind, and those
  // left out said in report->more_problems. Without (notes): sorted by path and
  // line, so that what is said of the whole check (no path) comes first.
  std::vector<Problem> Take(size_t max, CheckReport* report = nullptr);

 private:
  std::vector<Problem> list_;
};

// What the checks found: problems for repair, and notes.
struct Findings {
  Problems problems, notes;
};

// Where each moved file among `changes` came from (its base path): its problems
// there are not new.
std::map<std::string, std::string> MovedFrom(const git::Workspace& files, const Changes& changes);

// What the edits made worse: the findings `now` apart from those of the base
// (`then`). A problem the base had (by kind, file and subject) is the site's
// unless it sits on a line the edits wrote with other content; a navigation
// entry is the site's whenever the base had it, however the file around it was
// rewritten. When the base could not be checked to its end (not `base_whole`),
// nothing on an untouched line is sent for repair: a false alarm costs more
// than a note. Comparing lines spends from `budget`.
Findings NewFindings(const git::Workspace& files, const std::map<std::string, std::string>& sources,
                     bool base_whole, Budget& budget, Findings& then, Findings& now);

// Whether `path` is a file, names a page the way a site route does (without its
// extension, or as a folder with an index page), or as the module allows. The
// file found goes to ctx.found when set.
bool ResolvesAt(const CheckContext& ctx, const std::string& path);

// --- Anchors (anchors.cc) --------------------------------------------------------

// The slug `rule` makes of a heading's text, before repeated slugs are told
// apart; nullopt when the text holds a character whose treatment by the rule is
// not known here (scripts and symbols beyond those the rules are written for).
// Linear in the text.
std::optional<std::string> Slug(SlugRule rule, std::string_view text);
// The ids `headings` get under `rule`, in order: a heading's explicit id as
// written, else the slug of its text made unique the framework's way (explicit
// ids take no part in github-slugger's count; Python-Markdown's unique() skips
// every id already given, explicit ones included). nullopt when one is not known.
std::optional<std::vector<std::string>> HeadingIds(SlugRule rule,
                                                   const std::vector<Heading>& headings);
// Takes an explicit id off the end of a heading's text: "Setup {#install}"
// (Docusaurus, Mintlify) and attr_list's "Setup {: #install .wide }" (MkDocs)
// give "install" and leave "Setup". "" (text unchanged) when the end is no
// attribute list; one written with ':' and no id ("{: .wide }") is taken off
// too.
std::string TakeExplicitId(std::string& text);
// The anchors of HTML or JSX text: id="..." of every tag, name="..." of <a>,
// added to `anchors` (at most kMaxLinksPerPage; `*open` set beyond). `*open` is
// set too for a component (a tag whose name starts upper-case or is dotted) or
// an id given by an expression (id={...}). Linear.
void ReadHtmlAnchors(std::string_view html, std::vector<std::string>& anchors, bool* open);
// The ids attr_list sets in text: "{: #id }", "{#id .class}". Linear.
void ReadAttrListIds(std::string_view text, std::vector<std::string>& anchors, bool* open);

// Whether links' fragments name a heading or an anchor of their pages, each
// page read once per object, its bytes spent from the context's budget and at
// most kMaxAnchorBytes in all. Not thread-safe; lives within one check call.
class AnchorCheck {
 public:
  explicit AnchorCheck(const CheckContext& ctx);
  // Whether `fragment` (what follows '#', percent-encoded or not) names an id of
  // the page at `path` (repository-relative); `page` is that page when already
  // read (a link within it), else null. True whenever it cannot be known: the
  // page cannot be read, the budget is spent, the site's slug rule is its own,
  // the page may have ids the reader cannot know (Page::anchors_open); and for
  // fragments the browser resolves without an id ("", "top", text fragments
  // ":~:text=") or written with an expression ('{').
  bool Names(const std::string& path, const Page* page, std::string_view fragment);

 private:
  struct Ids {
    bool open = false;
    std::vector<std::string> ids;  // sorted
  };
  Ids Read(const Page& page) const;
  const CheckContext& ctx_;
  SlugRule rule_;
  bool fold_case_;  // the code host finds a heading whatever the fragment's case
  size_t bytes_ = 0;
  std::map<std::string, Ids> pages_;
};
constexpr size_t kMaxAnchorBytes = 16u << 20;
constexpr size_t kMaxAnchorPages = 500;

}  // namespace docwright::docs
