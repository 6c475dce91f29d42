// The dashboard's static files, black-box over HTTP: /ui/ serves ui/index.html
// with its Content-Security-Policy; every file under ui/ is embedded and served
// byte for byte; every file index.html and the modules load is there; nothing
// under ui/ needs inline script or style, or writes HTML from a string except
// where the server's own sanitised HTML goes; only exact paths are served; and
// a file revalidates by its ETag. The files are read from the source tree
// (DOCWRIGHT_UI_DIR) to compare with what the binary serves.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "support/service_fixture.h"

namespace docwright::testing {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPolicy =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'self'; "
    "frame-ancestors 'none'";

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// Every file under ui/, as its path relative to ui/ ("js/app.js").
std::vector<std::string> UiPaths() {
  std::vector<std::string> out;
  for (const auto& entry : fs::recursive_directory_iterator(DOCWRIGHT_UI_DIR)) {
    if (entry.is_regular_file()) {
      out.push_back(fs::relative(entry.path(), DOCWRIGHT_UI_DIR).generic_string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string Extension(const std::string& path) {
  size_t dot = path.rfind('.');
  return dot == std::string::npos ? "" : path.substr(dot + 1);
}

// `reference` (as a module or the page names it) resolved against the URL path
// of the file that names it ("/ui/js/views/job.js"), with "." and ".."
// segments removed as a browser does.
std::string Resolve(const std::string& from, const std::string& reference) {
  std::string joined =
      reference.starts_with("/") ? reference : from.substr(0, from.rfind('/') + 1) + reference;
  std::vector<std::string> parts;
  std::stringstream in(joined.substr(1));
  for (std::string seg; std::getline(in, seg, '/');) {
    if (seg == ".") continue;
    if (seg == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(seg);
  }
  std::string out;
  for (const auto& p : parts) out += "/" + p;
  return out;
}

// The specifiers of a module's static imports and re-exports.
std::vector<std::string> ImportsOf(const std::string& source) {
  static const std::regex kImport(
      R"((?:^|\n)\s*(?:import|export)\s+(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"])");
  std::vector<std::string> out;
  for (std::sregex_iterator it(source.begin(), source.end(), kImport), end; it != end; ++it) {
    out.push_back((*it)[1]);
  }
  return out;
}

// Where a file of the dashboard breaks the Content-Security-Policy's intent or
// writes HTML from a string: one line per finding, empty if none. `path` is
// relative to ui/.
std::vector<std::string> Violations(const std::string& path, const std::string& text) {
  std::vector<std::string> out;
  auto find = [&](const char* what, const std::regex& re) {
    if (std::regex_search(text, re)) out.push_back(path + ": " + what);
  };
  const auto icase = std::regex::icase | std::regex::ECMAScript;
  if (Extension(path) == "html") {
    find("an inline <script> (a script without src)",
         std::regex(R"(<script(?![^>]*\ssrc=)[^>]*>)", icase));
    find("a <style> element", std::regex(R"(<style[\s>])", icase));
    find("a style= attribute", std::regex(R"(<[^>]*\sstyle\s*=)", icase));
    find("an on*= handler attribute", std::regex(R"(<[^>]*\son[a-z]+\s*=)", icase));
    find("a javascript: URL", std::regex(R"(javascript:)", icase));
  }
  if (Extension(path) == "js") {
    find("a handler set from a string", std::regex(R"(setAttribute\(\s*['"]on)", icase));
    find("a handler property assigned", std::regex(R"(\.on[a-z]+\s*=[^=])"));
    find("a style attribute set",
         std::regex(R"(setAttribute\(\s*['"]style|\.style\.cssText|['"]style['"]\s*:)"));
    find("eval or a Function from a string", std::regex(R"(\beval\s*\(|new\s+Function\s*\()"));
    find("outerHTML, insertAdjacentHTML or document.write",
         std::regex(R"(outerHTML|insertAdjacentHTML|document\.write)"));
    // innerHTML only on a line marked as the server-sanitised container.
    std::stringstream lines(text);
    int n = 0;
    for (std::string line; std::getline(lines, line);) {
      ++n;
      if (line.find("innerHTML") != std::string::npos &&
          line.find("// server-sanitised: previewHtml, pullRequestBodyHtml") == std::string::npos) {
        out.push_back(path + ":" + std::to_string(n) + ": innerHTML outside the marked site");
      }
      // What goes into the sanitised container is the review's HTML only.
      size_t call = line.find("setSanitisedHtml(");
      if (call != std::string::npos &&
          line.find("function setSanitisedHtml") == std::string::npos &&
          line.find("import ") == std::string::npos &&
          line.find("previewHtml") == std::string::npos &&
          line.find("pullRequestBodyHtml") == std::string::npos) {
        out.push_back(path + ":" + std::to_string(n) +
                      ": setSanitisedHtml given something other than previewHtml or "
                      "pullRequestBodyHtml");
      }
    }
  }
  return out;
}

class UiFilesTest : public ServiceTest {
 protected:
  // A client without the API document's check: the dashboard's files are not
  // API operations (their errors are, and go through client_).
  HttpResult Page(const std::string& target, Headers headers = {},
                  const std::string& method = "GET") {
    if (!page_) page_ = std::make_unique<HttpClient>(server_->port());
    return page_->Send(method, target, "", headers);
  }
  std::unique_ptr<HttpClient> page_;
};

TEST_F(UiFilesTest, TheIndexIsServedWithoutAKeyUnderAStrictPolicy) {
  const std::string index = ReadFile(fs::path(DOCWRIGHT_UI_DIR) / "index.html");
  ASSERT_FALSE(index.empty());
  for (const std::string target : {"/ui/", "/ui", "/ui/index.html", "/ui/?from=x"}) {
    HttpResult r = Page(target);
    ASSERT_EQ(r.status, 200) << target << ": " << r.body;
    EXPECT_EQ(r.body, index) << target;
    EXPECT_EQ(r.Header("content-type"), "text/html; charset=utf-8") << target;
    EXPECT_EQ(r.Header("content-security-policy"), kPolicy) << target;
    EXPECT_EQ(r.Header("x-content-type-options"), "nosniff") << target;
    EXPECT_EQ(r.Header("referrer-policy"), "no-referrer") << target;
    EXPECT_EQ(r.Header("cache-control"), "no-cache") << target;
    EXPECT_FALSE(r.Header("etag").empty()) << target;
  }
  // A key, even a wrong one, changes nothing: the files are public.
  EXPECT_EQ(Page("/ui/", Auth("dw_not_a_key")).status, 200);
  EXPECT_EQ(Page("/ui/", Auth(key_a_)).body, index);
  HttpResult head = Page("/ui/", {}, "HEAD");
  EXPECT_EQ(head.status, 200);
  EXPECT_TRUE(head.body.empty());
  EXPECT_EQ(head.Header("content-security-policy"), kPolicy);
}

TEST_F(UiFilesTest, EveryFileUnderUiIsEmbeddedAndServedAsItIs) {
  const std::map<std::string, std::string> types = {
      {"html", "text/html; charset=utf-8"},
      {"css", "text/css; charset=utf-8"},
      {"js", "text/javascript; charset=utf-8"},
  };
  std::vector<std::string> paths = UiPaths();
  ASSERT_GE(paths.size(), 10u);
  for (const std::string& path : paths) {
    HttpResult r = Page("/ui/" + path);
    ASSERT_EQ(r.status, 200) << path;
    EXPECT_EQ(r.body, ReadFile(fs::path(DOCWRIGHT_UI_DIR) / path)) << path << " differs";
    auto type = types.find(Extension(path));
    if (type != types.end()) {
      EXPECT_EQ(r.Header("content-type"), type->second) << path;
    }
    EXPECT_EQ(r.Header("content-security-policy"), kPolicy) << path;
    EXPECT_EQ(r.Header("x-content-type-options"), "nosniff") << path;
  }
  // The module the local pull request page loads is where it expects it.
  EXPECT_EQ(Page("/ui/time.js").status, 200);
  EXPECT_EQ(Page("/ui/style.css").status, 200);
}

TEST_F(UiFilesTest, EveryFileThePageAndItsModulesLoadIsServed) {
  // index.html's scripts and stylesheets, by their absolute paths (the page is
  // also served at /ui, where relative ones would miss).
  const std::string index = ReadFile(fs::path(DOCWRIGHT_UI_DIR) / "index.html");
  static const std::regex kRef(R"re((?:src|href)="([^"#][^"]*)")re");
  int page_refs = 0;
  for (std::sregex_iterator it(index.begin(), index.end(), kRef), end; it != end; ++it) {
    std::string ref = (*it)[1];
    EXPECT_TRUE(ref.starts_with("/ui/"))
        << "index.html loads " << ref << ": not an absolute /ui/ path";
    EXPECT_EQ(Page(ref).status, 200) << "index.html loads " << ref;
    ++page_refs;
  }
  EXPECT_GE(page_refs, 2) << "the stylesheet and the app module";

  int imports = 0;
  for (const std::string& path : UiPaths()) {
    if (Extension(path) != "js") continue;
    const std::string from = "/ui/" + path;
    for (const std::string& spec : ImportsOf(ReadFile(fs::path(DOCWRIGHT_UI_DIR) / path))) {
      ++imports;
      // A browser resolves only relative or absolute specifiers without an
      // import map: a bare one ("lodash") would fail to load.
      ASSERT_TRUE(spec.starts_with("./") || spec.starts_with("../") || spec.starts_with("/"))
          << path << " imports " << spec;
      std::string target = Resolve(from, spec);
      EXPECT_TRUE(target.starts_with("/ui/")) << path << " imports " << spec << " outside /ui/";
      HttpResult r = Page(target);
      EXPECT_EQ(r.status, 200) << path << " imports " << spec << " (" << target << ")";
      EXPECT_EQ(r.Header("content-type"), "text/javascript; charset=utf-8") << target;
    }
  }
  EXPECT_GE(imports, 20) << "the import lines were not found";
}

TEST_F(UiFilesTest, NoFileNeedsInlineScriptOrStyleOrWritesHtmlFromAString) {
  int marked_sites = 0;
  for (const std::string& path : UiPaths()) {
    const std::string text = ReadFile(fs::path(DOCWRIGHT_UI_DIR) / path);
    for (const std::string& v : Violations(path, text)) ADD_FAILURE() << v;
    if (text.find("innerHTML") != std::string::npos) ++marked_sites;
  }
  EXPECT_EQ(marked_sites, 1) << "one file (js/h.js) has the one sanitised container";
  // The checks catch what they are for.
  EXPECT_EQ(Violations("x.html", "<script>alert(1)</script>").size(), 1u);
  EXPECT_EQ(Violations("x.html", "<script type=\"module\" src=\"/ui/a.js\"></script>").size(), 0u);
  EXPECT_EQ(Violations("x.html", "<p style=\"color:red\">").size(), 1u);
  EXPECT_EQ(Violations("x.html", "<button onclick=\"go()\">").size(), 1u);
  EXPECT_EQ(Violations("x.html", "<style>p{}</style>").size(), 1u);
  EXPECT_EQ(Violations("x.js", "el.innerHTML = job.summary;").size(), 1u);
  EXPECT_EQ(Violations("x.js", "el.insertAdjacentHTML('beforeend', s);").size(), 1u);
  EXPECT_EQ(Violations("x.js", "es.onerror = () => poll();").size(), 1u);
  EXPECT_EQ(Violations("x.js", "setSanitisedHtml(box, job.summary);").size(), 1u);
  EXPECT_EQ(Violations("x.js", "setSanitisedHtml(box, file.previewHtml);").size(), 0u);
}

TEST_F(UiFilesTest, OnlyExactPathsOfTheTableAreServed) {
  for (const std::string target :
       {"/ui/../x", "/ui/%2e%2e/", "/ui/%2e%2e/x", "/ui/%2E%2E/%2E%2E/etc/passwd",
        "/ui/js/../index.html", "/ui/./index.html", "/ui//index.html", "/ui/js%2fapp.js", "/ui/js/",
        "/ui/nope.js", "/ui/index.html/", "/ui/INDEX.HTML", "/uix", "/ui/js/app.js%00"}) {
    ExpectError(client_->Send("GET", target), 404, target);
  }
  HttpResult post = client_->Send("POST", "/ui/", "{}", {{"Content-Type", "application/json"}});
  ExpectError(post, 405, "POST /ui/");
  EXPECT_EQ(post.Header("allow"), "GET, HEAD");
}

TEST_F(UiFilesTest, AFileRevalidatesByItsEntityTag) {
  HttpResult first = Page("/ui/js/app.js");
  ASSERT_EQ(first.status, 200);
  const std::string tag = first.Header("etag");
  ASSERT_TRUE(std::regex_match(tag, std::regex("\"[0-9a-f]{32}\""))) << tag;
  HttpResult again = Page("/ui/js/app.js", {{"If-None-Match", tag}});
  EXPECT_EQ(again.status, 304);
  EXPECT_TRUE(again.body.empty());
  EXPECT_EQ(again.Header("etag"), tag);
  EXPECT_EQ(Page("/ui/js/app.js", {{"If-None-Match", "W/" + tag}}).status, 304);
  EXPECT_EQ(Page("/ui/js/app.js", {{"If-None-Match", "\"0000\", " + tag}}).status, 304);
  // Another file's tag, or a changed file's, gets the file.
  const std::string index_tag = Page("/ui/").Header("etag");
  EXPECT_NE(index_tag, tag);
  HttpResult other = Page("/ui/js/app.js", {{"If-None-Match", index_tag}});
  EXPECT_EQ(other.status, 200);
  EXPECT_EQ(other.body, first.body);
  // /ui and /ui/ are the same file, with the same tag.
  EXPECT_EQ(Page("/ui", {{"If-None-Match", index_tag}}).status, 304);
}

}  // namespace
}  // namespace docwright::testing
