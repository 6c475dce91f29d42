// Previews: a page of a branch (Markdown or MDX), or a pull request's
// description, as HTML that is safe to insert into a page of the dashboard or
// the local forge as it is (innerHTML).
//
// Safe by construction, whatever the text: cmark-gfm renders without raw HTML
// (a page's is omitted; a description's is shown as its text, see
// RenderMarkdownHtml), and before rendering every link and image is checked here:
// a link keeps only an http(s), mailto, relative or in-page (#) URL (any other
// is dropped, its text kept); an image of the branch is read through the
// BlobLoader and inlined as a data: URI (png, jpeg, gif, webp, svg) within the
// limits, an http(s) image is kept, and any other image is shown as its alt
// text. MDX's own syntax never reaches cmark-gfm: import/export blocks and
// {/* */} comments are dropped, a JSX component that starts a line becomes a
// labelled placeholder (its inner Markdown rendered inside), other JSX and HTML
// tags are dropped (their text kept), {expressions} stay as text. The result is
// valid UTF-8 and at most PreviewLimits::max_html_bytes, cut at a tag with
// every element closed and a note.
//
// Linear in the text: the text is cut at a multiple of the HTML allowed before
// it is read, cmark-gfm's known quadratic inputs are defused, nesting of
// placeholders is bounded, and every node is charged to the WorkBudget (whose
// spending stops the rendering with a note). Stateless and thread-safe; the
// loader is called on the caller's thread.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace docwright {
class WorkBudget;
}  // namespace docwright

namespace docwright::docs {

// Reads a file of the branch for an image: its bytes, or nullopt if absent or larger than
// max_bytes.
using BlobLoader =
    std::function<std::optional<std::string>(const std::string& path, size_t max_bytes)>;

struct PreviewLimits {
  size_t max_html_bytes = 512 << 10;   // a preview beyond this is cut with a note
  size_t max_image_bytes = 256 << 10;  // an image beyond this is shown as its alt text
  size_t* image_budget = nullptr;      // shared across a review's previews; decremented
};

// A Markdown/MDX page of the branch (frontmatter removed; its title, if any, as
// <h1>), as sanitised HTML. `page_path` is the page's path in the repository
// (".mdx" makes it MDX); images are resolved against it (a path starting with
// "/" against the repository root, then its static/ and public/ folders).
// `load` may be empty (no image is loaded); `budget` may be null.
std::string RenderPreviewHtml(std::string_view page_text, std::string_view page_path,
                              const BlobLoader& load, const PreviewLimits& limits,
                              WorkBudget* budget);

// Plain Markdown (a pull request's description) as sanitised HTML; no images are
// loaded. Its raw HTML (from an instruction it quotes or the model's summary) is
// shown as its text, inline as text and a block as a code block, so a reviewer
// reads the instructions as written.
std::string RenderMarkdownHtml(std::string_view markdown, WorkBudget* budget);

}  // namespace docwright::docs
