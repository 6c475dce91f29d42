// The site map as text for the system prompt.
#include <set>

#include "docs/internal.h"

namespace docwright::docs {
namespace {

constexpr size_t kRenderLineWidth = 160;

// Whole lines of `lines` while they fit in `max_bytes`, then a note of what was
// left out.
std::string FitLines(const std::vector<std::string>& lines, size_t max_bytes) {
  size_t total = 0;
  for (const std::string& line : lines) total += line.size() + 1;
  std::string out;
  if (total <= max_bytes) {
    for (const std::string& line : lines) out += line + "\n";
    return out;
  }
  auto note = [](size_t count, size_t bytes) {
    return "[" + std::to_string(count) + " more lines (" + std::to_string(bytes) +
           " bytes) left out]\n";
  };
  size_t reserve = note(lines.size(), total).size();  // numbers only shrink
  if (reserve > max_bytes) return "";
  size_t kept = 0;
  for (; kept < lines.size(); ++kept) {
    if (out.size() + lines[kept].size() + 1 + reserve > max_bytes) break;
    out += lines[kept] + "\n";
  }
  return out + note(lines.size() - kept, total - out.size());
}

}  // namespace

std::string_view ToString(Framework framework) {
  switch (framework) {
    case Framework::kMintlify:
      return "Mintlify";
    case Framework::kDocusaurus:
      return "Docusaurus";
    case Framework::kMkDocs:
      return "MkDocs";
    case Framework::kGitBook:
      return "GitBook";
    case Framework::kMarkdown:
      return "Markdown";
  }
  return "Markdown";
}

std::string SiteMap::Render(size_t max_bytes) const {
  std::vector<std::string> lines;
  std::string head = "Framework: " + std::string(ToString(framework));
  head += config_path.empty() ? " (no site configuration)" : " (" + config_path + ")";
  lines.push_back(std::move(head));
  lines.push_back(ModuleFor(framework).NewPagesHint(*this));
  if (pages_truncated) {
    lines.push_back("Only part of the repository was examined: more pages may exist.");
  }
  lines.push_back(navigation_generated ? "Navigation (follows the folders):" : "Navigation:");
  if (navigation.empty()) lines.push_back("  (none)");
  std::vector<std::string> previous;
  for (const NavEntry& entry : navigation) {
    std::vector<std::string> groups = SplitGroups(entry.group);
    size_t common = 0;
    while (common < previous.size() && common < groups.size() &&
           previous[common] == groups[common]) {
      ++common;
    }
    for (size_t depth = common; depth < groups.size(); ++depth) {
      lines.push_back(std::string(2 * depth, ' ') + "- " + groups[depth]);
    }
    std::string line = std::string(2 * groups.size(), ' ') + "- " + entry.page;
    if (!entry.title.empty()) line += ": " + entry.title;
    if (entry.path.empty()) line += " (missing file!)";
    lines.push_back(std::move(line));
    previous = std::move(groups);
  }

  if (!navigation_generated) {
    std::set<std::string_view> listed;
    for (const NavEntry& entry : navigation) listed.insert(entry.path);
    std::string site_root = Dirname(config_path);
    std::string line = "Pages not in navigation: ";
    size_t count = 0;
    for (const std::string& page : pages) {
      if (listed.count(page) || ModuleFor(framework).IsPartial(site_root, content_root, page))
        continue;
      std::string item = (count++ ? ", " : "") + page;
      if (line.size() + item.size() > kRenderLineWidth && count > 1) {
        lines.push_back(line + ",");
        line = "  " + page;
      } else {
        line += item;
      }
    }
    if (count) lines.push_back(std::move(line));
  }
  return FitLines(lines, max_bytes);
}

}  // namespace docwright::docs
