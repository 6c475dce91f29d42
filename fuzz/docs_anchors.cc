// The ids of headings and anchors (docs/internal.h, anchors.cc): both slug
// rules, explicit ids, HTML and attr_list anchors on any text. Checks that a
// Python-Markdown slug is ASCII without spaces, that ids are as many as the
// headings, that taking an explicit id only shortens the text, and that anchors
// stay within their bound.
#include <string>
#include <vector>

#include "docs/internal.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace docwright;
  std::string text(fuzz::AsText(data, size));

  if (auto slug = docs::Slug(docs::SlugRule::kPythonMarkdown, text)) {
    for (char c : *slug) FUZZ_CHECK(static_cast<unsigned char>(c) < 0x80 && c != ' ');
  }
  if (auto slug = docs::Slug(docs::SlugRule::kGitHub, text)) {
    FUZZ_CHECK(slug->find(' ') == std::string::npos);
  }

  std::string rest = text;
  std::string id = docs::TakeExplicitId(rest);
  FUZZ_CHECK(rest.size() <= text.size());
  FUZZ_CHECK(id.empty() || rest.size() < text.size());

  // The text split at line breaks into headings, some repeated.
  std::vector<docs::Heading> headings;
  for (size_t pos = 0; pos < text.size() && headings.size() < 64;) {
    size_t next;
    docs::Heading h;
    h.slug_text = std::string(docs::LineFrom(text, pos, &next));
    h.id = docs::TakeExplicitId(h.slug_text);
    headings.push_back(h);
    headings.push_back(h);
    pos = next;
  }
  for (docs::SlugRule rule : {docs::SlugRule::kGitHub, docs::SlugRule::kPythonMarkdown}) {
    if (auto ids = docs::HeadingIds(rule, headings)) FUZZ_CHECK(ids->size() == headings.size());
  }

  std::vector<std::string> anchors;
  bool open = false;
  docs::ReadHtmlAnchors(text, anchors, &open);
  docs::ReadAttrListIds(text, anchors, &open);
  FUZZ_CHECK(anchors.size() <= 2 * docs::kMaxLinksPerPage);
  return 0;
}
