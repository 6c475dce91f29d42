// Every parser of the docs layer, fed whole sites: site detection and the
// configurations (docs.json, mint.json, mkdocs.yml, docusaurus.config.*,
// sidebars.*), frontmatter, Markdown and MDX, links, through the public
// interface (BuildSiteMap, SiteMap::Render, CheckChanges).
//
// The input is a list of edits over the base site of docs_fixture.h, each
// starting on a line of its own:
//   @@ write PATH      the lines up to the next "@@ " line are the file's content
//   @@ delete PATH
//   @@ move FROM TO
// Anything before the first edit, and edits that do not parse, are ignored.
#include <string>
#include <vector>

#include "docs_fixture.h"

namespace docwright::fuzz {
namespace {

constexpr size_t kMaxEdits = 64;

void Apply(std::string_view header, std::string_view body, git::Workspace& files) {
  auto word = [&](std::string_view& s) {
    size_t space = s.find(' ');
    std::string_view w = s.substr(0, space);
    s.remove_prefix(space == std::string_view::npos ? s.size() : space + 1);
    return std::string(w);
  };
  std::string op = word(header);
  if (op == "write") {
    (void)files.Write(std::string(header), std::string(body));
  } else if (op == "delete") {
    (void)files.Delete(std::string(header));
  } else if (op == "move") {
    std::string from = word(header);
    (void)files.Move(from, std::string(header));
  }
}

}  // namespace
}  // namespace docwright::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace docwright;
  std::string_view text = fuzz::AsText(data, size);
  git::Workspace files(fuzz::Base().snapshot());

  // The edits' starts: "@@ " at the start of the input or of a line.
  std::vector<size_t> starts;
  if (text.substr(0, 3) == "@@ ") starts.push_back(0);
  for (size_t at = text.find("\n@@ ");
       at != std::string_view::npos && starts.size() < fuzz::kMaxEdits;
       at = text.find("\n@@ ", at + 1)) {
    starts.push_back(at + 1);
  }
  for (size_t i = 0; i < starts.size(); ++i) {
    size_t end = i + 1 < starts.size() ? starts[i + 1] - 1 : text.size();
    std::string_view edit = text.substr(starts[i] + 3, end - starts[i] - 3);
    size_t newline = edit.find('\n');
    std::string_view header = edit.substr(0, newline);
    std::string_view body =
        newline == std::string_view::npos ? std::string_view() : edit.substr(newline + 1);
    fuzz::Apply(header, body, files);
  }
  fuzz::CheckSite(files);
  return 0;
}
