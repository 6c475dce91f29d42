// A page, or a description, rendered as a preview (docs/preview.h). The first
// byte chooses .md, .mdx or a description, and a small or the default cap.
// Checks that the HTML stays within its cap (the cut guarantees it to the byte,
// its note included), has no raw script or frame and no javascript: link, that
// every image inlined is within the image budget and shown at most once for what
// it was charged (a forged marker, "&#1;I0&#1;", must not repeat it), and that a
// tiny budget stops the rendering.
#include <algorithm>
#include <string>
#include <string_view>

#include "core/work_budget.h"
#include "docs/preview.h"
#include "fuzz_check.h"

namespace {

size_t Count(const std::string& html, std::string_view needle) {
  size_t n = 0;
  for (size_t i = html.find(needle); i != std::string::npos; i = html.find(needle, i + 1)) ++n;
  return n;
}

// The smallest data: URI of an image of 100 bytes: "data:image/png;base64," and 136.
constexpr size_t kMinImageUri = 22 + 136;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace docwright;
  if (size == 0) return 0;
  const uint8_t mode = data[0];
  std::string text(fuzz::AsText(data + 1, size - 1));
  docs::PreviewLimits limits;
  if (mode & 4) limits.max_html_bytes = 1024;
  size_t image_budget = 300;
  limits.image_budget = &image_budget;
  limits.max_image_bytes = 200;
  // Every image of the branch exists, 100 bytes of it.
  docs::BlobLoader load = [](const std::string& path, size_t max) -> std::optional<std::string> {
    // Never above the repository: no "." or ".." segment, nothing absolute
    // ("a.../b" is a folder named "a...", not a way up).
    FUZZ_CHECK(!path.starts_with("/"));
    for (size_t at = 0; at <= path.size();) {
      size_t slash = std::min(path.find('/', at), path.size());
      std::string_view segment = std::string_view(path).substr(at, slash - at);
      FUZZ_CHECK(segment != ".." && segment != ".");
      at = slash + 1;
    }
    if (max < 100) return std::nullopt;
    return std::string(100, 'i');
  };
  std::string html;
  switch (mode % 3) {
    case 0:
      html = docs::RenderPreviewHtml(text, "docs/page.md", load, limits, nullptr);
      break;
    case 1:
      html = docs::RenderPreviewHtml(text, "docs/page.mdx", load, limits, nullptr);
      break;
    default:
      html = docs::RenderMarkdownHtml(text, nullptr);
      break;
  }
  FUZZ_CHECK(html.size() <= (mode % 3 == 2 ? size_t{512 << 10} : limits.max_html_bytes));
  FUZZ_CHECK(html.find("<script") == std::string::npos);
  FUZZ_CHECK(html.find("<iframe") == std::string::npos);
  // No javascript: link (a relative "javascript;x" is a path, and kept).
  FUZZ_CHECK(html.find("href=\"javascript:") == std::string::npos);
  FUZZ_CHECK(image_budget <= 300);
  FUZZ_CHECK(html.find('\x01') == std::string::npos);

  WorkBudget tiny(WorkBudget::Limits{.steps = 10});
  std::string stopped = docs::RenderPreviewHtml(text, "docs/page.mdx", load, limits, &tiny);
  FUZZ_CHECK(stopped.size() <= limits.max_html_bytes);
  FUZZ_CHECK(stopped.find('\x01') == std::string::npos);
  // Each image put in was charged to the shared budget when it was read.
  size_t shown = Count(html, "src=\"data:") + Count(stopped, "src=\"data:");
  FUZZ_CHECK(shown * kMinImageUri <= 300 - image_budget);
  return 0;
}
