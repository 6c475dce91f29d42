// The HTML page of a local forge's pull request: title, branches, description and
// the diff against the base. Self-contained (no scripts, no outside resources).
#pragma once

#include <string>
#include <string_view>

#include "store/store.h"

namespace docwright {

std::string RenderPullRequestPage(const LocalPullRequest& pr);

// `text` with &, <, >, " and ' escaped for HTML text and attribute values.
std::string HtmlEscape(std::string_view text);

}  // namespace docwright
