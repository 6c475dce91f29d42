// GET /ui, /ui/ and /ui/<path>: the dashboard's static files, from the table
// the build embedded (api/ui_files.h). No key: the files are the same for
// everyone, and the data they show comes from the API, which checks the key.
#include <string>
#include <vector>

#include "api/call.h"
#include "api/etag.h"
#include "api/routes.h"
#include "api/ui_files.h"

namespace docwright {

const UiFile* FindUiFile(std::string_view path) {
  for (const UiFile& file : UiFiles()) {
    if (file.path == path) return &file;
  }
  return nullptr;
}

namespace {

// What the dashboard may load: its own files and the API, nothing inline and
// nothing from elsewhere (a value the API returns cannot run as script even if
// some view got its escaping wrong). Images may be data: URIs because page
// previews inline the branch's images that way.
constexpr std::string_view kContentSecurityPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'";

// The entity tag of each file, in UiFiles()' order, computed once.
const std::string& TagOf(const UiFile& file) {
  static const std::vector<std::string> kTags = [] {
    std::vector<std::string> tags;
    for (const UiFile& f : UiFiles()) tags.push_back(EntityTag(f.bytes));
    return tags;
  }();
  return kTags[static_cast<size_t>(&file - UiFiles().data())];
}

}  // namespace

// What a probe, a client generator and a browser open without a key.
std::span<const Api::Route> Api::Route::Service() {
  static const Route kRows[] = {
      {.method = "GET",
       .pattern = "/healthz",
       .needs_key = false,
       .quick = true,
       .serve = &Api::Health},
      // The API's own OpenAPI document (docs/openapi.json), for client generators.
      {.method = "GET",
       .pattern = "/openapi.json",
       .needs_key = false,
       .quick = true,
       .serve = &Api::OpenApiDocument},
      // The dashboard's static files; /ui is its index.
      {.method = "GET",
       .pattern = "/ui",
       .needs_key = false,
       .quick = true,
       .serve = &Api::DashboardFile},
      {.method = "GET",
       .pattern = "/ui/{path}",
       .needs_key = false,
       .quick = true,
       .rest = true,
       .serve = &Api::DashboardFile},
  };
  return kRows;
}

HttpResponse Api::DashboardFile(const Call& call, HttpRequest& req) {
  // segments: {"ui"} for /ui, {"ui", ""} for /ui/, else {"ui", each segment...}.
  // The path is the segments joined as they were decoded and looked up exactly:
  // a decoded "/" or "..", a "." or an empty segment names no file, so there is
  // nothing to traverse.
  const auto& seg = call.target.segments;
  std::string path;
  if (seg.size() == 1 || (seg.size() == 2 && seg[1].empty())) {
    path = "index.html";
  } else {
    for (size_t i = 1; i < seg.size(); ++i) {
      const std::string& s = seg[i];
      if (s.empty() || s == "." || s == ".." || s.find('/') != std::string::npos) {
        return ErrorResponse(404, "no such file of the dashboard", "not_found");
      }
      if (i > 1) path += '/';
      path += s;
    }
  }
  const UiFile* file = FindUiFile(path);
  if (file == nullptr) return ErrorResponse(404, "no such file of the dashboard", "not_found");

  HttpResponse r;
  r.content_type = std::string(file->content_type);
  const std::string& tag = TagOf(*file);
  r.headers.emplace_back("ETag", tag);
  // Revalidated on every load (a 304 costs a round trip and no body), so a new
  // binary's dashboard is what the next load gets, its modules all of one build.
  r.headers.emplace_back("Cache-Control", "no-cache");
  r.headers.emplace_back("Content-Security-Policy", std::string(kContentSecurityPolicy));
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  r.headers.emplace_back("Referrer-Policy", "no-referrer");
  if (!req.if_none_match.empty() && IfNoneMatchMatches(req.if_none_match, tag)) {
    r.status = 304;
    return r;
  }
  r.body = std::string(file->bytes);
  return r;
}

}  // namespace docwright
