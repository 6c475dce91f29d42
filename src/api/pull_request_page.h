// The HTML page of a local forge's pull request, the one place it is rendered:
// title, branches, description and the diff against the base, or only that it
// was closed once its job was archived. Self-contained (no scripts, no outside
// resources).
#pragma once

#include <string>
#include <string_view>

#include "core/local_pull_request.h"

namespace docwright {

// The page; for an archived pull request, only that it was closed (its
// description quoted the prompt, and the page is public to whoever has the link).
std::string RenderPullRequestPage(const LocalPullRequest& pr);

// `text` with &, <, >, " and ' escaped for HTML text and attribute values.
std::string HtmlEscape(std::string_view text);

}  // namespace docwright
