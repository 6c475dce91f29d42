// One page read as the checks read it (docs/internal.h ReadPage): frontmatter,
// cmark-gfm for CommonMark, and the hand-written MDX pass (import/export blocks,
// JSX tags and attributes, {/* */} comments). The first byte chooses .md or
// .mdx. Checks that every position is a line of the page, that headings have a
// CommonMark level, and that the reading stays within its budget.
#include <algorithm>
#include <string>

#include "docs/internal.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace docwright;
  if (size == 0) return 0;
  bool mdx = (data[0] & 1) != 0;
  std::string text(fuzz::AsText(data + 1, size - 1));
  int lines = 1 + static_cast<int>(std::count(text.begin(), text.end(), '\n'));

  docs::Budget budget(docs::Limits{});
  docs::Page page = docs::ReadPage(text, mdx, budget);
  FUZZ_CHECK(page.links.size() <= docs::kMaxLinksPerPage + text.size());
  for (const docs::PageLink& link : page.links) {
    FUZZ_CHECK(link.line >= 1 && link.line <= lines);
    FUZZ_CHECK(!link.destination.empty() || link.kind != docs::PageLink::Kind::kImport);
  }
  for (const docs::Heading& h : page.headings) {
    FUZZ_CHECK(h.level >= 1 && h.level <= 6);
    FUZZ_CHECK(h.line >= 1 && h.line <= lines);
    FUZZ_CHECK(h.text.size() <= docs::kMaxTitleLength + 3);
  }
  for (const docs::LineProblem& p : page.syntax) {
    FUZZ_CHECK(p.line >= 1 && p.line <= lines && !p.message.empty());
  }
  // A tiny budget stops the reading, whatever the page.
  docs::Budget tiny(docs::Limits{.max_steps = 10});
  (void)docs::ReadPage(text, mdx, tiny);
  return 0;
}
