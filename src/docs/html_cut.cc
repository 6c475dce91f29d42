// Cutting a preview's HTML at a tag (internal.h). The HTML is what preview.cc
// builds; past the cap it may end in the middle of a tag or an element, which
// the cut never reaches: it keeps only what lies before `max`.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "docs/internal.h"

namespace docwright::docs {
namespace {

bool IsVoid(std::string_view name) {
  return name == "img" || name == "br" || name == "hr" || name == "input";
}

// Walks the tags of `html` (well formed: cmark-gfm's and ours) before `limit`,
// calling `at(position, open, closers)` at each tag's start with the elements
// open there and the size of their closing tags.
template <typename Fn>
void WalkTags(const std::string& html, size_t limit, Fn&& at) {
  std::vector<std::string_view> open;
  size_t closers = 0;
  for (size_t i = html.find('<'); i != std::string::npos && i <= limit; i = html.find('<', i + 1)) {
    if (!at(i, open, closers)) return;
    size_t end = html.compare(i, 4, "<!--") == 0 ? html.find("-->", i) : html.find('>', i);
    if (end == std::string::npos) return;
    if (html[i + 1] == '!') {
      i = end;
      continue;
    }
    bool closing = html[i + 1] == '/';
    size_t name_start = i + (closing ? 2 : 1);
    size_t name_end = std::min(html.find_first_of(" \t\n/>", name_start), end);
    std::string_view name(html.data() + name_start, name_end - name_start);
    if (closing) {
      if (!open.empty() && open.back() == name) {
        closers -= name.size() + 3;
        open.pop_back();
      }
    } else if (!IsVoid(name) && html[end - 1] != '/') {
      open.push_back(name);
      closers += name.size() + 3;
    }
    i = end;
  }
}

}  // namespace

// Two walks: one finds the place, one the tags open there, so a deep nesting
// costs no more than a shallow one.
std::string CutHtml(const std::string& html, size_t max, std::string_view note) {
  if (note.size() > max) return "";
  if (html.size() + note.size() <= max) return html + std::string(note);
  size_t best = 0;
  WalkTags(html, max, [&](size_t at, const std::vector<std::string_view>&, size_t closers) {
    if (at + note.size() > max) return false;
    if (at + closers + note.size() <= max) best = at;
    return true;
  });
  std::string out = html.substr(0, best);
  WalkTags(html, best, [&](size_t at, const std::vector<std::string_view>& open, size_t) {
    if (at < best) return true;
    for (auto it = open.rbegin(); it != open.rend(); ++it) out += "</" + std::string(*it) + ">";
    return false;
  });
  out += note;
  return out;
}

}  // namespace docwright::docs
