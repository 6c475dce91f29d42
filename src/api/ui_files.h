// The dashboard's static files (ui/ in the repository), embedded in the binary
// at build time by scripts/ui/embed.cmake, so `serve` needs no files on disk
// and serves exactly the dashboard it was built with. Constants: safe from any
// thread.
#pragma once

#include <span>
#include <string_view>

namespace docwright {

struct UiFile {
  std::string_view path;          // relative to ui/: "index.html", "js/app.js"
  std::string_view content_type;  // from the file's extension
  std::string_view bytes;         // the file as it was at build time
};

// Every file under ui/, sorted by path; the table is generated.
std::span<const UiFile> UiFiles();

// The file whose path is exactly `path` (no normalisation of any kind: "./x",
// "a//b" or "../x" name nothing), or nullptr.
const UiFile* FindUiFile(std::string_view path);

}  // namespace docwright
