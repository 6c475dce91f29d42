// Mintlify: docs.json (or the older mint.json) at the site's root; pages are
// named in navigation by their path without extension and served at it, in
// every language and version (a language's or a version's folder is only where
// its pages happen to live); "$ref" anywhere in docs.json stands for the JSON of
// another file; links to a redirect's source resolve (the published site
// redirects them); pages generated from OpenAPI specs are served under their
// `directory`.
//
// mint.json, the older format, differs in three ways read here: `navigation`
// is an array of groups; `tabs` and `anchors` sit beside it, each naming the
// folder (`url`) whose pages it shows, or another site; and a group's
// `version` shows it only in that version of the site (its pages keep their
// URLs).
#include <algorithm>
#include <cctype>
#include <set>

#include "core/text.h"
#include "docs/internal.h"

namespace docwright::docs {
namespace {

constexpr size_t kMaxRefFiles = 64;
constexpr std::string_view kDefaultApiDirectory = "api-reference";
// Segments of a redirect's source or of a route compared with it; a longer one
// is no URL a person wrote, and the match is quadratic in the two.
constexpr size_t kMaxRouteSegments = 64;

// One segment of a redirect's source, read the way path-to-regexp (which the
// published site's redirects follow) reads it: "guides" is itself, ":slug" any
// one segment, ":slug?" one or none, ":slug*" (or "*") any number,
// ":slug+" one or more; text before the ':' or '*' ("v1-:slug",
// "concepts-*") must start the segment.
struct SourceSegment {
  enum class Kind { kLiteral, kOne, kOptional, kAny, kSome } kind = Kind::kLiteral;
  std::string prefix;  // the literal itself, or what a parameter's segment starts with; lowercase
  std::string name;    // a parameter's name ("slug" of ":slug*"), "*" for a bare '*'
};
using RedirectSource = std::vector<SourceSegment>;

// A redirect: its source, and where it leads when that is a page of the site
// named without parameters ("" when it is another site, or built from the
// source's parameters: trusted).
struct Redirect {
  RedirectSource source;
  // Normalized, without the leading '/' ("/" is the home page); it may name the
  // source's parameters (":slug*", "*"). "" when it is another site.
  std::string destination;
};

// Redirects followed one after the other before a link is trusted.
constexpr int kMaxRedirectHops = 4;

struct MintlifyDetails : SiteDetails {
  std::vector<Redirect> redirects;
  // Whether each redirect destination resolves, once worked out: pages link the
  // same old addresses again and again. Filled while checking; a Site belongs to
  // one call, on one thread.
  // Keyed by the destination and the hops left (a chain cut short is trusted),
  // with the file it resolved to (for the link's anchor).
  mutable std::map<std::pair<std::string, int>, std::pair<bool, std::string>> destinations;
  // Where pages generated from OpenAPI operations are served ("api-reference",
  // or an `openapi` entry's `directory`), lowercase: their URLs come from the
  // spec's tags and summaries, which are not read here, so links under them
  // are trusted.
  std::set<std::string> generated_dirs;
  // The languages' and versions' names (lowercase): a generated folder may be
  // served under one of them ("/fr/api-reference/...").
  std::set<std::string> route_prefixes;
  // mint.json's tabs and anchors that name a folder of the site: the published
  // site opens the section's first page at that route. Lowercase.
  std::set<std::string> section_routes;
};

SourceSegment ReadSourceSegment(std::string_view s) {
  SourceSegment out;
  size_t colon = s.find(':');
  size_t star = s.find('*');
  if (colon == std::string_view::npos && star == std::string_view::npos) {
    out.prefix = Lower(s);
    return out;
  }
  out.prefix = Lower(s.substr(0, std::min(colon, star)));
  if (colon == std::string_view::npos) {
    // "concepts-*", "*": the rest, the segment starting with the text before
    // the '*'. Whether the '*' also takes the segments after it is not said:
    // taken, so that no link is reported that the published site redirects.
    out.kind = SourceSegment::Kind::kAny;
    out.name = "*";
    return out;
  }
  char last = s.back();
  out.name = std::string(s.substr(colon + 1));
  if (last == '*' || last == '+' || last == '?') out.name.pop_back();
  out.kind = last == '*'   ? SourceSegment::Kind::kAny
             : last == '+' ? SourceSegment::Kind::kSome
             : last == '?' ? SourceSegment::Kind::kOptional
                           : SourceSegment::Kind::kOne;
  return out;
}

// `source` without its query and fragment. A '?' right after a parameter's
// name (":slug?") makes the parameter optional: it starts no query.
std::string_view PathOfSource(std::string_view source) {
  source = source.substr(0, source.find('#'));
  for (size_t at = source.find('?'); at != std::string_view::npos; at = source.find('?', at + 1)) {
    size_t segment = source.rfind('/', at);
    segment = segment == std::string_view::npos ? 0 : segment + 1;
    size_t colon = source.find(':', segment);
    bool optional = colon < at && at + 1 == std::min(source.find('/', at), source.size());
    if (!optional) return source.substr(0, at);
  }
  return source;
}

// Where a redirect leads, as Redirect::destination: "" when it is not a page of
// the site named whole (another site, or parameters of the source).
std::string Destination(std::string_view destination) {
  destination = destination.substr(0, destination.find_first_of("#?"));
  if (!destination.starts_with('/') || destination.starts_with("//")) return "";
  std::optional<std::string> route = Normalize(destination.substr(1));
  if (!route) return "";
  return route->empty() ? "/" : *route;
}

// Where a redirect whose source matched `route` (its segments as written) leads:
// its destination with the source's parameter put in. Worked out for what
// sites write, literal segments then one parameter that takes the rest
// ("/v2/old/:slug*" -> "/v2/guides/:slug*"); nullopt for other shapes, which
// are trusted.
std::optional<std::string> Redirected(const Redirect& redirect,
                                      const std::vector<std::string_view>& route) {
  const std::string& to = redirect.destination;
  if (to.find_first_of(":*") == std::string::npos) return to;
  const RedirectSource& source = redirect.source;
  if (source.empty() || route.size() + 1 < source.size()) return std::nullopt;
  for (size_t i = 0; i + 1 < source.size(); ++i) {
    if (source[i].kind != SourceSegment::Kind::kLiteral) return std::nullopt;
  }
  const SourceSegment& last = source.back();
  if (last.kind == SourceSegment::Kind::kLiteral || !last.prefix.empty()) return std::nullopt;
  std::string captured;
  for (size_t i = source.size() - 1; i < route.size(); ++i) {
    if (!captured.empty()) captured += '/';
    captured += route[i];
  }
  std::vector<std::string> out;
  for (std::string_view part : SplitPath(to)) {
    std::string_view token = part;
    if (token.starts_with(':')) token.remove_prefix(1);
    if (!token.empty() && (token.back() == '*' || token.back() == '+' || token.back() == '?') &&
        part.starts_with(':')) {
      token.remove_suffix(1);
    }
    bool parameter = part == "*" ? last.name == "*" : part.starts_with(':') && token == last.name;
    if (part.find_first_of(":*") != std::string_view::npos && !parameter) return std::nullopt;
    if (!parameter) {
      out.emplace_back(part);
    } else if (!captured.empty()) {
      out.push_back(captured);
    }
  }
  std::string joined;
  for (const std::string& part : out) joined += (joined.empty() ? "" : "/") + part;
  return joined.empty() ? "/" : joined;
}

RedirectSource ReadSource(std::string_view source) {
  source = PathOfSource(source);
  RedirectSource out;
  for (std::string_view part : SplitPath(source)) {
    if (out.size() >= kMaxRouteSegments) break;
    out.push_back(ReadSourceSegment(part));
  }
  return out;
}

// Whether `route` (segments, lowercase) matches `source`: a table of which
// prefix of the source matches which prefix of the route, row by row, so
// linear in the product of their lengths whatever the wildcards.
bool Matches(const RedirectSource& source, const std::vector<std::string>& route) {
  if (route.size() > kMaxRouteSegments) return false;
  // Most sources start with literal segments a route does not have: those are
  // told apart without the table.
  for (size_t i = 0; i < source.size() && source[i].kind == SourceSegment::Kind::kLiteral; ++i) {
    if (i >= route.size() || route[i] != source[i].prefix) return false;
  }
  const size_t n = route.size();
  std::vector<char> reach(n + 1, 0), next(n + 1, 0);
  reach[0] = 1;
  using Kind = SourceSegment::Kind;
  for (const SourceSegment& seg : source) {
    std::fill(next.begin(), next.end(), 0);
    auto fits = [&](size_t j) {  // route[j] can be this segment's (first) segment
      if (seg.kind == Kind::kLiteral) return route[j] == seg.prefix;
      return route[j].starts_with(seg.prefix) &&
             (route[j].size() > seg.prefix.size() || seg.kind == Kind::kAny);
    };
    bool open = false;  // kAny/kSome: a run started at an earlier reachable j
    for (size_t j = 0; j <= n; ++j) {
      if (reach[j] &&
          (seg.kind == Kind::kOptional || (seg.kind == Kind::kAny && seg.prefix.empty())))
        next[j] = 1;  // no segment taken
      if (j < n) {
        if (seg.kind == Kind::kAny || seg.kind == Kind::kSome) {
          // A run of segments from a reachable j whose first segment fits.
          if (reach[j] && fits(j)) open = true;
          if (open) next[j + 1] = 1;
        } else if (reach[j] && fits(j)) {
          next[j + 1] = 1;
        }
      }
    }
    reach.swap(next);
  }
  return reach[n] != 0;
}

bool IsMethod(std::string_view word) {
  std::string lower = Lower(word);
  for (std::string_view m :
       {"get", "post", "put", "patch", "delete", "head", "options", "trace", "webhook"}) {
    if (lower == m) return true;
  }
  return false;
}

// An OpenAPI operation, not a file: "GET /users", "webhook orderUpdated", or
// either after the spec that holds it ("openapi/users.json POST /users",
// "https://api.example.com/openapi.yaml GET /users").
bool IsOperation(std::string_view page) {
  page = Trim(page);
  size_t space = page.find(' ');
  if (space == std::string_view::npos) return false;
  std::string_view first = page.substr(0, space);
  std::string_view rest = Trim(page.substr(space + 1));
  auto operation = [](std::string_view method, std::string_view target) {
    // "Get started" is a page's name, "GET /started" an operation.
    return IsMethod(method) && !target.empty() && (target[0] == '/' || Lower(method) == "webhook");
  };
  if (operation(first, rest)) return true;
  size_t second = rest.find(' ');
  if (second == std::string_view::npos) return false;
  return operation(rest.substr(0, second), Trim(rest.substr(second + 1)));
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

// A route named in the configuration ("/api-reference/", "v1/api"), normalized
// and lowercase; "" for another site's URL or nothing.
std::string RouteOf(std::string_view url) {
  if (url.find("://") != std::string_view::npos || url.starts_with("//") ||
      url.starts_with("mailto:")) {
    return "";
  }
  std::optional<std::string> route = Normalize(url.substr(0, url.find_first_of("#?")));
  return route ? Lower(*route) : "";
}

// The folders an `openapi` value's generated pages are served under: a spec
// path or URL ("openapi.json") is served under the default folder, an object
// under its `directory` (default the same), an array as each of its elements.
// Returns the first, for the operations below it that name no spec of their
// own.
std::string AddOpenApi(const Json& value, int depth, MintlifyDetails& details) {
  std::string first;
  if (depth > kMaxDepth) return first;
  if (value.is_array()) {
    for (const Json& element : value) {
      std::string dir = AddOpenApi(element, depth + 1, details);
      if (first.empty()) first = dir;
    }
    return first;
  }
  if (!value.is_string() && !value.is_object()) return first;
  std::string directory = StringField(value, "directory");
  first = RouteOf(directory.empty() ? kDefaultApiDirectory : directory);
  if (!first.empty()) details.generated_dirs.insert(first);
  return first;
}

// mint.json's tabs and anchors: the folder each shows (by `url`) and its name.
struct Section {
  std::string route;  // lowercase, normalized
  std::string name;
};

// What a walk over navigation carries down.
struct WalkState {
  std::vector<std::string> groups;
  // The folder of the nearest `openapi` above, where an operation that names no
  // spec of its own is generated.
  std::string api_dir = std::string(kDefaultApiDirectory);
  bool mint_json = false;  // navigation is mint.json's array of groups
  const std::vector<Section>* sections =
      nullptr;          // mint.json's tabs and anchors, longest route first
  std::string version;  // mint.json: the version the enclosing group is shown in
};

// The first page named under `node` (a group's pages), "" if none within the
// budget.
std::string FirstPage(const Json& node, int depth, Budget& budget) {
  if (depth > kMaxDepth || !budget.Spend()) return "";
  if (node.is_string()) return node.get<std::string>();
  if (node.is_array()) {
    for (const Json& element : node) {
      std::string page = FirstPage(element, depth + 1, budget);
      if (!page.empty()) return page;
    }
  } else if (node.is_object()) {
    if (auto pages = node.find("pages"); pages != node.end()) {
      return FirstPage(*pages, depth + 1, budget);
    }
  }
  return "";
}

// mint.json: the tab or anchor whose folder holds `page`, "" if none.
std::string SectionOf(const std::vector<Section>& sections, std::string_view page) {
  std::string route = RouteOf(page);
  for (const Section& s : sections) {
    if (route == s.route || IsUnder(route, s.route)) return s.name;
  }
  return "";
}

void Walk(const Json& node, WalkState& state, bool in_pages, int depth, Budget& budget,
          MintlifyDetails& details, std::vector<RawEntry>& out) {
  if (depth > kMaxDepth || out.size() >= kMaxNavEntries || !budget.Spend()) return;
  auto add = [&](const std::string& page, const std::string& label) {
    if (page.empty()) return;
    if (IsOperation(page)) {
      // Generated where the spec above says; the default folder too, since a
      // spec of its own ("users.json GET /users") may be served there.
      details.generated_dirs.insert(state.api_dir);
      details.generated_dirs.insert(std::string(kDefaultApiDirectory));
      return;
    }
    if (page.find("://") != std::string::npos) return;
    out.push_back(RawEntry{JoinGroups(state.groups), Name(page), "", Name(label)});
  };
  if (node.is_string()) {
    if (in_pages) add(node.get<std::string>(), "");
    return;
  }
  if (node.is_array()) {
    for (const Json& element : node) {
      Walk(element, state, in_pages, depth + 1, budget, details, out);
    }
    return;
  }
  if (!node.is_object()) return;
  std::string label;
  std::string kind;
  for (const char* key :
       {"group", "tab", "anchor", "dropdown", "version", "language", "product", "item"}) {
    label = StringField(node, key);
    if (!label.empty()) {
      kind = key;
      break;
    }
  }
  if (kind == "version" || kind == "language") details.route_prefixes.insert(Lower(label));
  // An `openapi` spec of this part of the navigation: its pages are generated,
  // and the operations below it are its own unless they name another.
  std::string saved_api_dir = state.api_dir;
  if (auto openapi = node.find("openapi"); openapi != node.end()) {
    std::string dir = AddOpenApi(*openapi, 0, details);
    if (!dir.empty()) state.api_dir = dir;
  }
  size_t pushed = 0;
  std::string saved_version = state.version;
  if (state.mint_json && kind == "group") {
    // A group of mint.json is shown in the version it names (the nearest one
    // wins), in the tab or anchor whose folder holds its pages.
    std::string version = StringField(node, "version");
    if (!version.empty() && version != state.version) {
      state.groups.push_back(Name(version));
      state.version = version;
      ++pushed;
    }
    if (state.groups.size() == pushed && state.sections && !state.sections->empty()) {
      auto pages = node.find("pages");
      std::string section = pages == node.end()
                                ? ""
                                : SectionOf(*state.sections, FirstPage(*pages, depth + 1, budget));
      if (!section.empty()) {
        state.groups.push_back(Name(section));
        ++pushed;
      }
    }
  }
  state.groups.push_back(Name(label));
  ++pushed;
  add(StringField(node, "root"), label);  // the group's label is its root page's label
  for (const auto& item : node.items()) {
    if (item.key() == "openapi") continue;  // specs, not pages
    if (item.value().is_array() || item.value().is_object()) {
      Walk(item.value(), state, item.key() == "pages", depth + 1, budget, details, out);
    }
  }
  state.groups.resize(state.groups.size() - pushed);
  state.version = std::move(saved_version);
  state.api_dir = std::move(saved_api_dir);
}

// mint.json's `tabs` and `anchors` (and `topAnchor`): their folders are routes,
// and one with an `openapi` spec serves its generated pages under its folder.
std::vector<Section> ReadSections(const Json& config, Budget& budget, MintlifyDetails& details) {
  std::vector<Section> out;
  auto read = [&](const Json& entry) {
    if (!entry.is_object() || !budget.Spend()) return;
    std::string route = RouteOf(StringField(entry, "url"));
    if (route.empty()) return;
    details.section_routes.insert(route);
    if (entry.contains("openapi")) {
      AddOpenApi(entry["openapi"], 0, details);
      details.generated_dirs.insert(route);
    }
    out.push_back(Section{route, Name(StringField(entry, "name"))});
  };
  for (const char* key : {"tabs", "anchors"}) {
    auto list = config.find(key);
    if (list == config.end() || !list->is_array()) continue;
    for (const Json& entry : *list) read(entry);
  }
  if (auto top = config.find("topAnchor"); top != config.end()) read(*top);
  // The deepest folder first: "v1/api" before "v1".
  std::stable_sort(out.begin(), out.end(), [](const Section& a, const Section& b) {
    return a.route.size() > b.route.size();
  });
  return out;
}

std::vector<std::string> RouteSegments(std::string_view route) {
  std::vector<std::string> out;
  for (std::string_view part : SplitPath(route)) out.push_back(Lower(part));
  return out;
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
          mine.redirects.push_back(
              {ReadSource(source), Destination(StringField(r, "destination"))});
        }
      }
    }
    std::vector<Section> sections = ReadSections(config, load.budget, mine);
    auto nav = config.find("navigation");
    if (nav == config.end()) return;
    WalkState state;
    // The older mint.json lists groups (or pages) straight under "navigation".
    state.mint_json = nav->is_array();
    state.sections = &sections;
    Walk(*nav, state, nav->is_array(), 0, load.budget, mine, site.entries);
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

  // Every page file is served at its path, whatever language or version folder
  // it is in: a translation whose English page is gone is still served, so
  // Serves keeps its default.
  bool ResolvesRoute(const CheckContext& ctx, const std::string& route) const override {
    return ResolvesRouteWithin(ctx, route, kMaxRedirectHops);
  }

  // `route` resolves, following at most `hops` redirects: a redirect to a page
  // that is gone leads nowhere on the published site.
  bool ResolvesRouteWithin(const CheckContext& ctx, const std::string& route, int hops) const {
    if (ResolvesAt(ctx, Join(ctx.site.site_root, route))) return true;
    const auto* details = dynamic_cast<const MintlifyDetails*>(ctx.site.details.get());
    if (!details) return false;
    std::vector<std::string> segments = RouteSegments(route);
    if (details->section_routes.count(Lower(route))) return true;
    if (UnderGeneratedDir(*details, segments, 0)) return true;
    // Whether a language's or version's generated pages are served under its
    // name is not said: trusted there too.
    if (segments.size() > 1 && details->route_prefixes.count(segments[0]) &&
        UnderGeneratedDir(*details, segments, 1)) {
      return true;
    }
    for (const Redirect& redirect : details->redirects) {
      if (!ctx.budget.Spend(1 + redirect.source.size() * segments.size() / 64)) return true;
      if (!Matches(redirect.source, segments)) continue;
      if (redirect.destination.empty() || hops <= 0) return true;
      std::optional<std::string> to = Redirected(redirect, SplitPath(route));
      if (!to || *to == "/") return true;
      auto key = std::make_pair(*to, hops - 1);
      if (auto known = details->destinations.find(key); known != details->destinations.end()) {
        if (ctx.found && !known->second.second.empty()) *ctx.found = known->second.second;
        return known->second.first;
      }
      std::string before = ctx.found ? *ctx.found : "";
      bool resolves = ResolvesRouteWithin(ctx, *to, hops - 1);
      std::string file = ctx.found && *ctx.found != before ? *ctx.found : "";
      if (details->destinations.size() < kMaxObjectKeys) {
        details->destinations.emplace(std::move(key), std::make_pair(resolves, std::move(file)));
      }
      return resolves;
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

 private:
  // Whether the folders of `segments` from `from` on (the last segment, the
  // page, left out) start with a generated folder.
  static bool UnderGeneratedDir(const MintlifyDetails& details,
                                const std::vector<std::string>& segments, size_t from) {
    std::string under;  // the route's folders, one by one: "a", "a/b", ...
    for (size_t i = from; i + 1 < segments.size(); ++i) {
      under += (i > from ? "/" : "") + segments[i];
      if (details.generated_dirs.count(under)) return true;
    }
    return false;
  }
};

}  // namespace

const FrameworkModule& MintlifyModule() {
  static const Mintlify module;
  return module;
}

}  // namespace docwright::docs
