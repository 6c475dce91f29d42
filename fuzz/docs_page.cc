// One page, as the agent writes it, in each kind of site: frontmatter, code
// fences, MDX tags and JSX expressions, headings (titles), links and images.
// The first byte picks the site (plain Markdown, Mintlify, MkDocs or Docusaurus,
// whose configuration lists the page), whether the page is .md or .mdx, and
// whether it is a new page or replaces one of the base; the rest is the page.
#include <string>

#include "docs_fixture.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace docwright;
  if (size == 0) return 0;
  uint8_t choice = data[0];
  std::string content(fuzz::AsText(data + 1, size - 1));
  git::Workspace files(fuzz::Base().snapshot());

  std::string ext = (choice & 1) ? ".mdx" : ".md";
  std::string page = (choice & 2) ? "guide/setup" : "guide/new";
  int site = (choice >> 2) & 3;
  // MkDocs and Docusaurus keep their pages under docs/ by default.
  std::string root = site >= 2 ? "docs/" : "";
  if (site >= 2) {
    (void)files.Move("index.md", "docs/index.md");
    (void)files.Move("guide/advanced.mdx", "docs/guide/advanced.mdx");
    (void)files.Move("guide/setup.md", "docs/guide/setup.md");
  }
  if (choice & 2) (void)files.Delete(root + "guide/setup.md");
  switch (site) {
    case 0:
      break;
    case 1:
      (void)files.Write("docs.json",
                        "{\"name\": \"Fuzz\", \"navigation\": {\"groups\": [{\"group\": \"Guides\","
                        " \"pages\": [\"index\", \"" +
                            page + "\", \"guide/advanced\"]}]}}\n");
      break;
    case 2:
      (void)files.Write("mkdocs.yml",
                        "site_name: Fuzz\nnav:\n  - Home: index.md\n"
                        "  - Guides:\n    - " +
                            page + ext + "\n");
      break;
    default:
      (void)files.Write("docusaurus.config.js", "module.exports = { title: 'Fuzz' };\n");
      (void)files.Write("sidebars.js", "module.exports = { docs: ['index', '" + page +
                                           "', {type: 'category', label: 'More', "
                                           "items: ['guide/advanced']}] };\n");
      break;
  }
  (void)files.Write(root + page + ext, std::move(content));
  fuzz::CheckSite(files);
  return 0;
}
